"""One process per seat, bots included (issue 18, item 3): kill -9 of `zoo host --bots` in mid
game leaves its bots running; `zoo resume` ends them (found by their logs' locks, checked to be
those very bots) before it starts their successors from the same keys and logs. Before, both
sets ran at once, signed different entries at one seq, and the honest bot was "proven" to fork
in 3 of 6 runs (the bots' moves agree more often now, which hid it; the two processes writing one
log and signing for one seat did not go away). Here the crash and resume are run five times, each
bounded: while the resumed game goes on no old bot is alive, and no seat is ever convicted:
`zoo verify` of every log says ok and no `.proofs` file is ever written. The five rounds are
games of their own (own directory, own ZOO_HOME) and run two at a time: each mostly waits on
its peers (a round used a fifth of its wall time in CPU), so one after the other took about
twice as long."""

from __future__ import annotations

import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.net.harness import ZOO, Procs, log_len, wait_for
from tests.net.test_resume_bots import _children, _zombie

ROUNDS = 5


def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or _zombie(pid)


def _crash_and_resume(top: Procs, n: int, cut_at: int) -> list[Path]:
    here = top.tmp / f"round{n}"
    here.mkdir()
    procs = Procs(here)  # its own ZOO_HOME too: the rounds run at once
    try:
        return _round(procs, n, cut_at)
    finally:
        procs.close()


def _round(procs: Procs, n: int, cut_at: int) -> list[Path]:
    log = procs.tmp / "game.zoolog"
    host = procs.zoo(
        "host", "--players", "3", "--bots", "3", "--bind", "127.0.0.1", "--no-announce",
        "--log", str(log), "--delay", "0.05", "--move-time", "30", "--reveal-time", "10",
        "--quiet", name=f"host{n}",
    )  # fmt: skip
    wait_for(lambda: log_len(log) >= cut_at or host.poll() is not None, 60, "the game underway")
    assert host.poll() is None, procs.text(f"host{n}")
    bots = _children(host.pid)
    assert len(bots) == 2, bots
    os.kill(host.pid, signal.SIGKILL)  # the host only: its bots live on, orphans
    host.wait(5)
    assert not any(_gone(pid) for pid in bots)
    cut = log_len(log)
    again = procs.zoo("resume", str(log), "--level", "greedy", "--quiet", name=f"resume{n}")
    wait_for(lambda: log_len(log) > cut + 6 or again.poll() is not None, 60, "the game going on")
    # the new bots play: the old ones are gone (were: alive beside them, both signing)
    assert [pid for pid in bots if not _gone(pid)] == [], procs.text(f"resume{n}")
    code = procs.wait(again, f"resume{n}", timeout=90)
    said = procs.text(f"resume{n}")
    assert code == 0, said
    for pid in bots:  # said even with --quiet: processes of the user's were ended
        assert f"(process {pid}): it was still running" in said, said
    return [log, *sorted(log.with_name(log.name + ".bots").glob("bot*.zoolog"))]


def test_no_honest_bot_is_convicted_after_a_crashed_host_is_resumed(procs: Procs) -> None:
    with ThreadPoolExecutor(2) as pool:  # two at a time: bounded waits on 2 cores
        rounds = [
            pool.submit(_crash_and_resume, procs, n, 12 + 9 * n)  # a different moment each time
            for n in range(ROUNDS)
        ]
        logs = [log for r in rounds for log in r.result()]
    assert len(logs) == 3 * ROUNDS
    verdicts = subprocess.run(
        [*ZOO, "verify", *map(str, logs)], env=procs.env, capture_output=True, timeout=120
    )
    out = verdicts.stdout.decode(errors="replace")
    assert verdicts.returncode == 0, out
    assert out.count("verdict: OK") == len(logs), out
    assert not list(procs.tmp.rglob("*.proofs")), out  # nobody was ever proven to cheat
