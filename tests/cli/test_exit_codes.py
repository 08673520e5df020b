"""One exit-code table for every command (issue 20, item 10): a wrong option or value exits 2
in every command, and a file named on the command line that does not exist exits 2 in one
wording everywhere (it was 1 in `zoo replay`, 2 in `zoo resume`, 6 in `zoo verify`, each said
another way; `zoo arena --levels hard,foo` was 1). The commands are read from `zoo --help`, so a
new command without a line here fails."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zoo_p2p.cli import exits
from zoo_p2p.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _commands() -> list[str]:
    r = runner.invoke(app, ["--help"], terminal_width=80)
    listed = r.output.split("Commands:")[1].split("\n\n")[0].splitlines()[1:]
    return [line.split()[0] for line in listed if line.strip()]


COMMANDS = _commands()

# per command: a wrong value of one of its options, and the arguments that put a missing file
# where it reads one (None: the command reads no file the user names: its --help lists none)
WRONG_VALUE: dict[str, list[str]] = {
    "play": ["--local", "--level", "wizard"],
    "verify": ["--json=maybe", "x.zoolog"],
    "replay": ["--plies", "3", "x.zoolog"],
    "host": ["--players", "9"],
    "join": ["--team", "purple", "zoo://x"],
    "bot": ["zoo://x", "--level", "peek"],
    "resume": ["--port", "99999", "x.zoolog"],
    "arena": ["--levels", "hard,foo"],
    "watch": ["--give-up", "0", "zoo://x"],
}
MISSING: dict[str, list[str] | None] = {
    "play": None,
    "verify": ["MISSING"],
    "replay": ["MISSING"],
    "host": None,
    "join": None,
    "bot": None,
    "resume": ["MISSING"],
    "arena": None,
    "watch": None,
}


def _run(args: list[str], tmp: Path) -> tuple[int, str]:
    env = dict(os.environ, ZOO_HOME=str(tmp / "home"), PYTHONPATH=str(ROOT), COLUMNS="200")
    r = subprocess.run(
        [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return r.returncode, r.stdout + r.stderr


def _main(args: list[str], tmp: Path) -> tuple[int, str]:
    """`_run` through `main()`, the console script's entry point, in this process (what it
    writes and the status it exits with; test_verify_names_a_missing_file_before_auditing_any
    runs the real process)."""
    from zoo_p2p.cli.app import main

    with pytest.MonkeyPatch.context() as mp, open(os.devnull) as devnull:
        mp.setenv("ZOO_HOME", str(tmp / "home"))
        mp.setenv("COLUMNS", "200")
        mp.chdir(tmp)
        mp.setattr("sys.argv", ["zoo", *args])
        mp.setattr("sys.stdin", devnull)
        out, err = io.StringIO(), io.StringIO()
        mp.setattr("sys.stdout", out)
        mp.setattr("sys.stderr", err)
        try:
            main()
        except SystemExit as ended:
            code = ended.code
        else:
            code = 0
    assert isinstance(code, int), code
    return code, out.getvalue() + err.getvalue()


def test_every_command_of_zoo_help_has_its_cases() -> None:
    assert COMMANDS and set(COMMANDS) == set(WRONG_VALUE) == set(MISSING), COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_a_wrong_option_or_value_exits_2(command: str) -> None:
    r = runner.invoke(app, [command, "--no-such-option"])
    assert r.exit_code == exits.USAGE and "No such option" in r.output, r.output
    r = runner.invoke(app, [command, *WRONG_VALUE[command]])
    assert r.exit_code == exits.USAGE, (command, r.exit_code, r.output)
    assert "Error: " in r.output and "Traceback" not in r.output, r.output


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_file_exits_2_in_one_wording(command: str, tmp_path: Path) -> None:
    args = MISSING[command]
    if args is None:  # it reads no file the user names: then its help shows no file argument
        usage = runner.invoke(app, [command, "--help"]).output.splitlines()[0]
        assert "LOG" not in usage and "FILE" not in usage, usage
        return
    missing = tmp_path / "no such dir" / "game.zoolog"
    code, said = _main([command, *[str(missing) if a == "MISSING" else a for a in args]], tmp_path)
    assert code == exits.USAGE, (command, code, said)
    errors = [line for line in said.splitlines() if line.startswith("Error: ")]
    assert errors == [
        f"Error: Invalid value for 'LOG{'...' * (command == 'verify')}': "
        f"{exits.missing_file(missing)}"
    ], said
    assert "Traceback" not in said


def test_verify_names_a_missing_file_before_auditing_any(tmp_path: Path) -> None:
    """`zoo verify good.zoolog missing.zoolog` said UNREADABLE for one and exited 6."""
    good = ROOT / "replays" / "2p-standard.zoolog"
    missing = tmp_path / "missing.zoolog"
    code, said = _run(["verify", str(good), str(missing)], tmp_path)
    assert code == exits.USAGE and "verdict:" not in said, said
    assert exits.missing_file(missing) in said


def test_zoo_help_ends_with_the_table_and_docs_show_the_same() -> None:
    r = runner.invoke(app, ["--help"], terminal_width=80)
    tail = r.output.split("Exit codes (every command):")[1]
    rows = [line for line in tail.splitlines() if re.match(r"\s+\d+  ", line)]
    assert [int(line.split()[0]) for line in rows] == [c for c, _ in exits.TABLE]
    assert all(len(line) <= 80 for line in r.output.splitlines()), r.output
    doc = (ROOT / "docs" / "CLI.md").read_text()
    for code, words in exits.TABLE:
        assert f"| {code} | {words} |" in doc, (code, words)
