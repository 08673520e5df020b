"""A bot game survives kill -9 of every process: `zoo resume LOG` restarts the host's bots from
the keys and logs kept beside the game log (issue 9). Bound: 90 s in all."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.net.harness import Procs, audit_file, log_len, wait_for
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.storage import read_log


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def test_a_bot_game_resumes_after_kill_9_of_every_process(procs: Procs) -> None:
    log = procs.tmp / "game.zoolog"
    host = procs.zoo(
        "host",
        "--players",
        "3",
        "--bots",
        "3",
        "--bind",
        "127.0.0.1",
        "--no-announce",
        "--log",
        str(log),
        "--delay",
        "0.15",
        "--move-time",
        "40",
        "--reveal-time",
        "12",
        "--quiet",
        name="host",
    )
    wait_for(lambda: log_len(log) >= 40 or host.poll() is not None, 60, "the game to be underway")
    assert host.poll() is None, procs.text("host")
    bots = _children(host.pid)
    assert len(bots) == 2, bots
    for pid in [host.pid, *bots]:
        os.kill(pid, signal.SIGKILL)
    host.wait(5)
    for pid in bots:
        wait_for(lambda p=pid: not Path(f"/proc/{p}").exists() or _zombie(p), 5, "a bot to die")
    cut = log_len(log)
    bots_dir = log.with_name(log.name + ".bots")
    keys = sorted(bots_dir.glob("bot*.key"))
    assert len(keys) == 2
    for k in keys:
        assert stat.S_IMODE(k.stat().st_mode) == 0o600
    # the clocks set on the command line are in the genesis
    assert decode_entry(read_log(log).entries[0]).body[4] == [40, 12]

    again = procs.zoo("resume", str(log), "--level", "greedy", name="resume")
    code = procs.wait(again, "resume", timeout=60)
    assert code == 0, procs.text("resume")
    # every other seat is one of our bots: no invite to hand anyone (in the app its second line
    # was left alone on the message line: "amygk…/NTQW-…")
    assert "restarting our 2 bot(s)" in procs.text("resume")
    assert "give this to the other players" not in procs.text("resume")
    r = audit_file(log)
    assert r.verdict == "ok", (r.fault_reason, procs.text("resume"))  # type: ignore[attr-defined]
    assert r.entries > cut  # type: ignore[attr-defined]
    assert r.ending_text.startswith("finished")  # type: ignore[attr-defined]


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def _resign_at_our_turn(
    procs: Procs, invite: str
) -> tuple[subprocess.Popen[bytes], Callable[[], str]]:
    """A person `hum` joins in line mode and, at its first turn, types q and confirms."""
    human = procs.human(invite, "hum")
    text = lambda: procs.text("hum")  # noqa: E731
    wait_for(lambda: "q quit" in text() or human.poll() is not None, 40, "our turn")
    procs.type(human, b"q\ny\n")
    return human, text


def test_resume_finishes_a_game_whose_stand_in_was_playing(procs: Procs) -> None:
    """A person types q in a three-seat game and confirms (that case alone, the stand-in
    playing on to a normal end, is the three-seat test of tests/net/test_resign_log.py), then
    kill -9 the host and its bot while the stand-in plays: there is no stand-in process and no
    stand-in key beside the log (nobody holds one), and `zoo resume` restarts the bot and
    finishes the game, the host's session computing the stand-in's entries again from the log.
    Bound: 90 s."""
    host, invite = procs.host(
        "--players", "3", "--bots", "1", "--bot", "greedy", "--no-announce", "--delay", "0.2"
    )
    log = procs.tmp / "host.zoolog"
    human, _ = _resign_at_our_turn(procs, invite)
    procs.wait(human, "hum", timeout=20)

    def resigned_at() -> int | None:
        entries = read_log(log).entries
        at = [i for i, raw in enumerate(entries) if decode_entry(raw).kind == "resign"]
        return at[0] if at else None

    wait_for(lambda: resigned_at() is not None or host.poll() is not None, 20, "the resignation")
    at = resigned_at()
    assert at is not None, procs.text("host")
    wait_for(lambda: log_len(log) >= at + 12 or host.poll() is not None, 40, "the game to go on")
    assert host.poll() is None, procs.text("host")
    bots_dir = log.with_name(log.name + ".bots")
    assert not [p for p in bots_dir.iterdir() if "stand" in p.name], list(bots_dir.iterdir())
    kids = _children(host.pid)
    assert len(kids) == 1, kids  # our one bot: the stand-in is no process
    for pid in [host.pid, *kids]:
        os.kill(pid, signal.SIGKILL)
    host.wait(5)
    cut = log_len(log)
    again = procs.zoo("resume", str(log), "--level", "greedy", "--quiet", name="resume")
    assert procs.wait(again, "resume", timeout=60) == 0, procs.text("resume")
    r = audit_file(log)
    assert r.verdict == "ok", (r.fault_reason, procs.text("resume"))  # type: ignore[attr-defined]
    assert r.entries > cut  # type: ignore[attr-defined]
    assert "resigned; a stand-in played on" in r.ending_text  # type: ignore[attr-defined]
