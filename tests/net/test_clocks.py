"""Clocks and claims with real processes on 127.0.0.1 (PROTOCOL.md §10): the smoke cases.

Small clocks (move 3 s, reveal 2 s) set through the genesis. Bound per test: the clock plus the
claim round plus the host's linger, well under the 40 s each wait allows.

The logic of clocks, claims, late answers, resignations, stand-ins and the direct links' part
in them is tested in memory, on a fake clock, by tests/net/test_clocks_mem.py: the same stallers
(tests/net/staller.py) and the same assertions on the logs, for every case that was here. What
stays here is one claim and one resignation over real sockets between real processes (the
latter also checks the transport's closing: a resignation that ended the game owes no leave).
`_game` also starts the games of tests/net/test_play_on_procs.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.net.harness import ROOT, START, Procs, audit_file, wait_for

STALLER = [sys.executable, "-m", "tests.net.staller"]


def _run(procs: Procs, *args: str, name: str) -> subprocess.Popen[bytes]:
    out = open(procs.tmp / f"{name}.out", "wb")  # noqa: SIM115
    err = open(procs.tmp / f"{name}.err", "wb")  # noqa: SIM115
    p = subprocess.Popen(
        [*STALLER, *args], stdout=out, stderr=err, env=procs.env, cwd=ROOT, stdin=subprocess.DEVNULL
    )
    out.close()
    err.close()
    procs.procs.append(p)
    return p


def _game(
    procs: Procs,
    players: int,
    modes: list[str],
    host_mode: str = "bot",
    kill_host: bool = False,
    host_args: tuple[str, ...] = (),
) -> list[Path]:
    """A host (an honest bot unless `host_mode`; more options: `host_args`) and one joiner per
    mode; wait for all; return the logs in seat order. `kill_host`: kill -9 the host once it
    stalls."""
    inv = procs.tmp / "host.invite"
    host = _run(
        procs,
        "host",
        "--host-mode",
        host_mode,
        "--players",
        str(players),
        "--invite-file",
        str(inv),
        "--log",
        str(procs.tmp / "host.zoolog"),
        *host_args,
        name="host",
    )
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    invite = inv.read_text().strip()
    joiners = []
    for i, mode in enumerate(modes):
        name = f"j{i + 1}"
        joiners.append(
            _run(procs, "join", mode, invite, "--log", str(procs.tmp / f"{name}.zoolog"), name=name)
        )
        # seats in order: wait until the host has seated this joiner before the next one knocks
        wait_for(
            lambda n=i + 2: f"lobby {n}" in (procs.tmp / "host.out").read_text(),
            START,  # the joiner's start-up, then its hello
            f"seat {i + 2} taken",
        )
    if kill_host:
        wait_for(lambda: "stalling" in _out(procs, "host"), 30, "the host to stall")
        host.kill()
    procs.wait(host, "host", timeout=60)
    for i, j in enumerate(joiners):
        procs.wait(j, f"j{i + 1}", timeout=30)
    return [procs.tmp / "host.zoolog"] + [procs.tmp / f"j{i + 1}.zoolog" for i in range(len(modes))]


def _out(procs: Procs, name: str) -> str:
    return (procs.tmp / f"{name}.out").read_text()


def test_a_staller_at_a_move_loses_by_claim(procs: Procs) -> None:
    logs = _game(procs, 2, ["move"])
    assert "stalling at a move" in _out(procs, "j1")
    for path in logs:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("host"), procs.text("j1"))
        assert r.ending_text is not None
        assert r.ending_text.startswith("ended: seat 2") and "did not move within 3 s" in (
            r.ending_text
        )
        assert r.winners == (0,)
    assert "did not move within 3 s" in _out(procs, "host")


def test_a_resignation_ends_a_two_seat_game(procs: Procs) -> None:
    logs = _game(procs, 2, ["resign"])
    r = audit_file(logs[0])
    assert r.verdict == "ok", (r.fault_reason, procs.text("host"), procs.text("j1"))
    assert r.ending_text is not None and r.ending_text.startswith("resigned: seat 2")
    assert r.winners == (0,)
    # its resignation ended the game: no leave is owed, so none is said to be unconfirmed
    assert "did not confirm our leave" not in procs.text("j1"), procs.text("j1")
