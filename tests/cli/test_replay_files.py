"""`zoo replay` reads only regular files (a FIFO is refused, never waited on), and `--dump` of a
faulty log exits with the code `zoo verify` gives it (PROTOCOL.md §8.1), not 0."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tests.protocol.conftest import finished_game
from tests.protocol.helpers import forge
from zoo_p2p.cli.app import app
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.simulate import setup_game, step
from zoo_p2p.rules import Variant

ROOT = Path(__file__).resolve().parents[2]
ZOO = [sys.executable, "-m", "zoo_p2p.cli.app"]


@pytest.mark.parametrize("mode", [["--plain"], ["--dump"], ["--at", "0"], []])
def test_a_fifo_is_refused_without_waiting_for_a_writer(mode: list[str], tmp_path: Path) -> None:
    """The text-record sniffing opened the file (blocking) before the regular-file check."""
    fifo = tmp_path / "g.zoolog"
    os.mkfifo(fifo)
    env = {**os.environ, "ZOO_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env |= {"NO_COLOR": "1", "COLUMNS": "200"}
    try:
        p = subprocess.run(
            [*ZOO, "replay", str(fifo), *mode],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,  # it hung forever before; a pass takes about a second
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"zoo replay {' '.join(mode)} of a FIFO waited for a writer")
    said = " ".join((p.stdout + p.stderr).split())
    assert p.returncode == 1, said
    assert f"cannot read {fifo}: it is a FIFO (named pipe), not a regular file" in said, said
    assert "internal error" not in said


def _faulty_logs(tmp_path: Path) -> dict[str, tuple[Path, int]]:
    entries = finished_game(2).entries
    bad_sig = bytearray(entries[1])
    bad_sig[-1] ^= 0xFF  # entry 1's signature no longer checks: rejected, nobody proven
    rejected = tmp_path / "rejected.zoolog"
    rejected.write_bytes(b"".join([entries[0], bytes(bad_sig), *entries[2:]]))
    game = setup_game(3, Variant.STANDARD, random.Random(17))
    step(game, random.Random(0))
    body = decode_entry(game.sessions[1].entries[1]).body
    out_of_turn = forge(game, 2, Kind.COMMIT, body)  # seat 3 signs a commit out of turn: cheat
    cheat = tmp_path / "cheat.zoolog"
    cheat.write_bytes(b"".join([*game.sessions[0].entries, out_of_turn]))
    return {"rejected": (rejected, 5), "cheat": (cheat, 4)}


@pytest.mark.parametrize("which", ["rejected", "cheat"])
def test_dump_of_a_faulty_log_exits_with_the_verdicts_code(which: str, tmp_path: Path) -> None:
    path, code = _faulty_logs(tmp_path)[which]
    verify = CliRunner().invoke(app, ["verify", str(path)])
    assert verify.exit_code == code, verify.output
    for mode in (["--dump"], ["--at", "0"]):
        r = CliRunner().invoke(app, ["replay", str(path), *mode], env={"COLUMNS": "200"})
        assert r.exit_code == code, (mode, r.output)
        assert "the log is faulty from entry" in " ".join(r.output.split()), r.output


def test_dump_of_a_sound_log_still_exits_0() -> None:
    for name in ("2p-standard.zoolog", "3p-standard-claimed-reveal.zoolog"):
        r = CliRunner().invoke(app, ["replay", str(ROOT / "replays" / name), "--dump"])
        assert r.exit_code == 0, r.output


REPLAY_MODES = {
    "app": [],  # the full-screen replay (its screen stubbed: the log is loaded, then closed)
    "plain": ["--plain"],
    "dump": ["--dump"],
    "at": ["--at", "0"],
    "html": ["--html", "{out}/g.html"],
    "text": ["--text", "{out}/g.txt"],
}


def _damaged(tmp_path: Path, which: str) -> Path:
    """replays/2p-standard.zoolog with one byte flipped, nothing re-signed: ``mid`` mid-file,
    ``genesis`` in the first entry's signature (§2.3 framing: 0x92, bin8/bin16 payload, sig)."""
    data = bytearray((ROOT / "replays" / "2p-standard.zoolog").read_bytes())
    if which == "mid":
        data[len(data) // 2] ^= 0x01
    else:
        assert data[0] == 0x92 and data[1] in (0xC4, 0xC5)
        head = 3 if data[1] == 0xC4 else 4
        size = data[2] if data[1] == 0xC4 else int.from_bytes(data[2:4], "big")
        sig = head + size
        assert data[sig : sig + 2] == b"\xc4\x40"
        data[sig + 2 + 10] ^= 0x01
    path = tmp_path / f"{which}.zoolog"
    path.write_bytes(bytes(data))
    return path


def _replay(path: Path, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    import zoo_p2p.cli.screen as screen

    if mode == "app":
        from zoo_p2p.tui.replay import load

        def run_replay(log: Path, **_: object) -> int:
            load(log)  # what the app reads before its screen opens (LogError: refused)
            return 0  # the user closed the screen

        monkeypatch.setattr(screen, "use_plain", lambda asked: False)
        monkeypatch.setattr(screen, "tui_entry", lambda name: run_replay)
    args = [a.format(out=tmp_path) for a in REPLAY_MODES[mode]]
    return CliRunner().invoke(app, ["replay", str(path), *args], env={"COLUMNS": "300"})


@pytest.mark.parametrize("mode", list(REPLAY_MODES))
@pytest.mark.parametrize("which", ["mid", "genesis"])
def test_every_mode_ends_a_damaged_log_with_the_verdicts_code_and_line(
    which: str, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--plain exited 0, the exports 0 or 1, and a bad first signature 1 in every mode, where
    `zoo verify` says rejected (5): every mode now ends with verify's code and its line."""
    path = _damaged(tmp_path, which)
    verify = CliRunner().invoke(app, ["verify", str(path)], env={"COLUMNS": "300"})
    assert verify.exit_code == 5, verify.output
    line = next(ln for ln in verify.output.splitlines() if ln.startswith("rejected: entry"))
    r = _replay(path, mode, tmp_path, monkeypatch)
    said = [ln.strip() for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 5, r.output
    assert said[-1].endswith(line.strip()), said[-3:]  # its last line, worded as verify's
    assert "Traceback" not in r.output


@pytest.mark.parametrize("mode", list(REPLAY_MODES))
def test_every_mode_of_a_sound_log_exits_0(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = _replay(ROOT / "replays" / "2p-standard.zoolog", mode, tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    assert "rejected" not in r.output and "cheat" not in r.output
