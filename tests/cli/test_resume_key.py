"""`zoo resume` of a joiner's log with the host's key (a walkthrough: host and joiner on one
machine, the joiner with its own --identity, Ctrl-C, then the printed `zoo resume LOG`) took the
host's seat from the joiner's log and listened as a second host while the first still played:
one seat from two processes, which signs two entries at one seq and convicts its own player. It
is refused in one line that names --identity, and the closing line names the --identity the
game was played with."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from rich.console import Console
from typer.testing import CliRunner

from zoo_p2p import storage
from zoo_p2p.cli.app import app
from zoo_p2p.cli.runners import finish
from zoo_p2p.driver import NullDriver, Outcome
from zoo_p2p.protocol.liveness_samples import _game
from zoo_p2p.protocol.simulate import broadcast


def _unfinished(tmp_path: Path, role: str) -> tuple[Path, Path, Any]:
    """An unfinished 3-seat log with a sidecar of `role`, and the host's key in a file."""
    game, _ = _game(3, "stops")
    (c,) = game.sessions[0].take_outgoing()
    broadcast(game, 0, c)
    log = tmp_path / "game.zoolog"
    storage.write_log(log, game.sessions[0].entries)
    storage.write_sidecar(log, storage.NetSidecar(role=role, bind="127.0.0.1", invite=None))
    key = tmp_path / "host.key"
    key.write_bytes(
        game.keys[0].private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key.chmod(0o600)
    return log, key, game.sessions[0]


def test_the_hosts_key_does_not_resume_a_joiners_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `main()`, the console script's entry point, in this process (it is refused
    before any network; test_a_seat_resumed_by_a_bot_says_so_in_its_resume_line runs `zoo
    resume` as a real process)."""
    from zoo_p2p.cli.app import main

    log, key, _ = _unfinished(tmp_path, "join")
    before = log.read_bytes()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    argv = ["resume", "--plain", "--give-up", "0.5", "--identity", str(key), str(log)]
    monkeypatch.setattr("sys.argv", ["zoo", *argv])
    with open(os.devnull) as devnull, pytest.raises(SystemExit) as ended:
        monkeypatch.setattr("sys.stdin", devnull)  # as the process had: stdin from /dev/null
        main()
    out, err = capsys.readouterr()
    said = " ".join((out + err).split())
    assert ended.value.code == 1, said
    assert "it is the log of a joiner, but your key plays the host's seat" in said, said
    assert "pass --identity" in said and "listening" not in said, said
    assert "Traceback" not in said and log.read_bytes() == before  # nothing written


def test_the_resume_line_names_the_identity_it_was_played_with(tmp_path: Path) -> None:
    log, key, s = _unfinished(tmp_path, "host")
    buf = io.StringIO()
    link: Any = SimpleNamespace(
        session=s, sink=None, mesh=None, driver=NullDriver(), resigned_self=False
    )
    finish(link, Outcome(False, "interrupted", len(s)), log, Console(file=buf), identity=key)
    assert f"to continue this game: zoo resume --identity {key} {log}" in buf.getvalue()


def test_a_missing_identity_is_a_usage_error_and_makes_no_key(tmp_path: Path) -> None:
    """A typo in `zoo resume --identity` made a new private key file there, then said only
    'our key plays no seat of this game'."""
    log, _, _ = _unfinished(tmp_path, "join")
    typo = tmp_path / "hots.key"
    r = CliRunner().invoke(app, ["resume", "--identity", str(typo), str(log)])
    said = " ".join(r.output.split())
    assert r.exit_code == 2, said
    assert f"Invalid value for '--identity': cannot read {typo}: no such file" in said, said
    assert not typo.exists()


def test_a_bots_resume_line_names_its_level(tmp_path: Path) -> None:
    """`zoo bot --identity K` ended with `zoo resume --identity K LOG`, which goes on with the
    person at the keyboard playing the bot's seat: the line names the bot's level too."""
    log, key, s = _unfinished(tmp_path, "join")
    buf = io.StringIO()
    link: Any = SimpleNamespace(
        session=s, sink=None, mesh=None, driver=NullDriver(), resigned_self=False
    )
    outcome = Outcome(False, "the host left", len(s))
    finish(link, outcome, log, Console(file=buf), identity=key, bot_level="hard")
    assert f"to continue this game: zoo resume --level hard --identity {key} {log}" in (
        buf.getvalue()
    )


def test_a_seat_resumed_by_a_bot_says_so_in_its_resume_line(tmp_path: Path) -> None:
    """`zoo resume --level L` lets a bot play our seat; its closing line left --level out."""
    log, key, _ = _unfinished(tmp_path, "host")
    r = subprocess.run(
        [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()", "resume", "--plain",
         "--level", "random", "--give-up", "0.5", "--identity", str(key), str(log)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)},
    )  # fmt: skip
    said = " ".join((r.stdout + r.stderr).split())
    assert f"to continue this game: zoo resume --level random --identity {key} {log}" in said, said
