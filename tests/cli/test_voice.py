"""One voice for the CLI (issue 10): options, --version, exit codes, no traceback, ASCII output,
the headless bot game's scores, a bot that cannot start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tests.cli.fakes import WatchLink
from tests.net.harness import ZOO
from zoo_p2p import __version__
from zoo_p2p.cli import spawn
from zoo_p2p.cli.app import app
from zoo_p2p.cli.exits import fail
from zoo_p2p.cli.output import ascii_lookalike, utf8_locale

runner = CliRunner()


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return dict(os.environ, ZOO_HOME=str(tmp / "home"), PYTHONPATH=root, COLUMNS="80", **extra)


def test_version_and_help_without_bool_metavars() -> None:
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"zoo {__version__}"
    for cmd in ("play", "host", "join", "bot", "resume", "verify", "replay", "arena"):
        r = runner.invoke(app, [cmd, "--help"])
        assert r.exit_code == 0, r.output
        assert "<bool>" not in r.output and "BOOLEAN" not in r.output, (cmd, r.output)
        # every value is named as the others name it (N, SECONDS, LEVEL…), never by its type
        for raw in ("<int", "<str>", "<float", "<path>", "INTEGER", "TEXT", "FLOAT"):
            assert raw not in r.output, (cmd, raw, r.output)


def test_zoo_help_lists_every_command_whole_at_80_columns() -> None:
    """Each command's line in `zoo --help` was cut with "..." at 80 columns (click cuts a summary
    to the width left): every one now says itself whole."""
    r = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert r.exit_code == 0, r.output
    listed = r.output.split("Commands:")[1].split("\n\n")[0].splitlines()[1:]  # the epilog follows
    names = [line.split()[0] for line in listed if line.strip()]
    assert names == ["play", "verify", "replay", "host", "join", "bot", "resume", "watch", "arena"]
    assert not any("..." in line or len(line) > 80 for line in listed), r.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["play", "--local", "--level", "exper"], "unknown level 'exper'"),
        (["host", "--port", "99999"], "99999 is not in the range"),
        (["host", "--level", "wizard"], "unknown level 'wizard'"),
        (["play", "--players", "2", "--bots", "2"], "--players 2"),
        (["bot", "zoo://x", "--level", "peek"], "unknown level 'peek'"),
    ],
)
def test_bad_values_are_usage_errors(args: list[str], words: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert words in r.output and "Traceback" not in r.output


def test_an_unexpected_error_is_one_line_never_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exc:
        fail(ValueError("boom"))
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert "internal error (ValueError: boom)" in err and "Traceback" not in err


def test_locale_and_ascii_lookalikes() -> None:
    assert not utf8_locale({"LANG": "C"})
    assert not utf8_locale({"LANG": "C", "LC_CTYPE": "C.UTF-8"})  # Python's PEP 538 coercion
    assert not utf8_locale({"LC_ALL": "en_US.ISO-8859-1"})
    assert utf8_locale({"LANG": "en_GB.UTF-8"}) and utf8_locale({})
    assert ascii_lookalike("you — 5@C3 → C4 … ▶ é") == "you - 5@C3 -> C4 ... > e"
    assert ascii_lookalike("┌─┬┐│█") == "+-++|#"


@pytest.mark.parametrize("env", [{"LANG": "C", "LC_ALL": ""}, {"PYTHONIOENCODING": "ascii"}])
def test_non_utf8_output_is_ascii_and_never_raises(tmp_path: Path, env: dict[str, str]) -> None:
    p = subprocess.run(
        [*ZOO, "play", "--local", "--seed", "2", "--plain"],
        input=b"?\nb\nq\ny\n",
        capture_output=True,
        env=_env(tmp_path, **env),
        timeout=60,
    )
    assert p.returncode == 1, p.stderr.decode(errors="replace")
    assert b"Traceback" not in p.stderr and b"UnicodeEncodeError" not in p.stderr
    assert p.stdout.isascii(), p.stdout[:2000]
    assert b"legal: send" in p.stdout and b"+---" in p.stdout  # ASCII boxes


def test_headless_bot_game_prints_the_scores(tmp_path: Path) -> None:
    p = subprocess.run(
        [*ZOO, "host", "-p", "2", "--bots", "2", "--bind", "127.0.0.1", "--give-up", "30"],
        capture_output=True,
        env=_env(tmp_path, NO_COLOR="1"),
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    out = p.stdout.decode()
    assert p.returncode == 0, out + p.stderr.decode()
    assert "scores: host (" in out and ("(wins)" in out or "(shared win)" in out)
    assert "audit: OK" in out
    # the bots' keys and logs are kept as documented, in `game.zoolog.bots/` beside the log
    # (issue 20: with no --log they went to a `bots-XXXX/` folder no page names)
    logs = tmp_path / "home" / "data" / "logs"
    (log,) = logs.glob("*.zoolog")
    assert f"log saved: {log}" in " ".join(out.split())
    assert sorted(p.name for p in logs.iterdir() if p.is_dir()) == [f"{log.name}.bots"]
    assert (logs / f"{log.name}.bots" / "bot1.key").is_file()


def test_ctrl_c_exits_130(tmp_path: Path) -> None:
    inv = tmp_path / "invite"
    p = subprocess.Popen(
        [*ZOO, "host", "--bind", "127.0.0.1", "--invite-file", str(inv), "-q"],
        env=_env(tmp_path),
        stdin=subprocess.PIPE,  # a human seat whose terminal stays open
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not inv.exists():
            assert time.monotonic() < deadline and p.poll() is None, "no invite written"
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        assert p.wait(20) == 130
        assert p.stderr is not None and b"Traceback" not in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()


def test_a_bot_that_cannot_start_is_named_and_stops_the_host(tmp_path: Path) -> None:
    err = tmp_path / "bot1.err"
    with err.open("wb") as f:
        bad = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.exit('unknown bot level: wizard')"], stderr=f
        )
    bad.wait(30)
    link = WatchLink()
    out = Console(record=True, width=200)
    spawn.watch_bots(link, [bad], tmp_path, out)  # type: ignore[arg-type]
    link.pending()  # type: ignore[operator]
    assert link.stopped == "bot 1 could not start"
    assert "bot 1 could not start: unknown bot level: wizard" in out.export_text()


def test_help_imports_neither_the_network_nor_the_engine(tmp_path: Path) -> None:
    """`zoo --help` stays cheap (bench/bench_cli.py measures it): nothing heavy is imported."""
    code = (
        "import sys\n"
        "sys.argv = ['zoo', '--help']\n"
        "from zoo_p2p.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('zmq', 'textual', 'cryptography', 'msgpack', 'zoo_p2p.net', 'zoo_p2p.protocol',"
        " 'zoo_p2p.bots', 'zoo_p2p.rules', 'zoo_p2p.tui', 'typer.rich_utils', 'rich.markdown')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=_env(tmp_path), timeout=60
    )
    assert p.returncode == 0 and p.stderr.strip() == b"[]", p.stderr


def test_a_bad_invite_is_a_usage_error_before_the_full_screen_opens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On a terminal `zoo join 'zoo://…'` with a broken invite opened the app, showed the error
    and waited for q (exit 1); the line mode said it as a usage error (exit 2). Both: exit 2."""
    from zoo_p2p.cli import screen

    opened: list[str] = []

    def app_would_open(name: str) -> object:
        opened.append(name)
        return lambda *a, **k: 0

    monkeypatch.setattr(screen, "use_plain", lambda plain: False)  # as on a terminal
    monkeypatch.setattr(screen, "tui_entry", app_would_open)
    monkeypatch.setenv("ZOO_HOME", str(tmp_path))
    r = runner.invoke(app, ["join", "zoo://127.0.0.1:1/abc/XXXX"])
    assert r.exit_code == 2, r.output
    assert "bad server key" in r.output and opened == []


def test_zoo_bot_help_speaks_of_the_bot() -> None:
    """`zoo bot --help` said "--team TEAM  Your team", and nothing said that without
    --identity the bot's game cannot be resumed."""
    r = CliRunner().invoke(app, ["bot", "--help"], env={"COLUMNS": "200"})
    text = " ".join(r.output.split())
    assert "The bot's team: yellow, blue, green or red." in text and "Your team" not in text
    assert "can be resumed" in text and "for this run only" in text
