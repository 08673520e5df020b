"""Play on after a dropout, with real processes on 127.0.0.1 (PROTOCOL.md §10.7, issue 21).

A 4-seat game whose genesis says `play-on`: one joiner stops answering in a reveal chain and is
killed with kill -9; the other three claim its seat, re-deal what nobody has seen and finish,
with byte-identical logs that verify. Small clocks (move 3 s, reveal 2 s) as in test_clocks.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.harness import START, Procs, audit_file, wait_for
from tests.net.test_clocks import _game, _out, _run
from zoo_p2p.errors import ZooError
from zoo_p2p.protocol.liveness import FINISHED
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log

Proc = subprocess.Popen[bytes]


def _seat_three_stalls(procs: Procs, *j2: str) -> tuple[Proc, list[Proc], str]:
    """A 4-seat `play-on` game: the host (log host.zoolog), then j1 (a bot), j2 (seat 3, which
    stalls at a reveal; `j2` are more arguments for it) and j3 (a bot), each seated before the
    next joins, their logs j1-j3.zoolog. Returns (host, joiners, invite) once j2 stalls, before
    it is killed."""
    inv = procs.tmp / "host.invite"
    host = _run(
        procs,
        "host",
        "--players",
        "4",
        "--on-leave",
        "play-on",
        "--invite-file",
        str(inv),
        "--log",
        str(procs.tmp / "host.zoolog"),
        name="host",
    )
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    invite = inv.read_text().strip()
    joiners = []
    for i, mode in enumerate(["bot", "reveal", "bot"]):
        name = f"j{i + 1}"
        extra = j2 if i == 1 else ()
        log = str(procs.tmp / f"{name}.zoolog")
        joiners.append(_run(procs, "join", mode, invite, "--log", log, *extra, name=name))
        wait_for(
            lambda n=i + 2: f"lobby {n}" in (procs.tmp / "host.out").read_text(),
            START,  # the joiner's start-up, then its hello
            f"seat {i + 2} taken",
        )
    wait_for(lambda: "stalling at a reveal" in _out(procs, "j2"), 40, "seat 3 to stall")
    return host, joiners, invite


def test_a_joiner_killed_at_four_seats_the_other_three_play_on(procs: Procs) -> None:
    host, joiners, _ = _seat_three_stalls(procs)
    joiners[1].kill()  # kill -9: it never returns
    try:
        procs.wait(host, "host", timeout=120)
        for i in (0, 2):
            procs.wait(joiners[i], f"j{i + 1}", timeout=30)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{procs.text('j1')}\n{procs.text('j3')}") from None
    logs = [procs.tmp / n for n in ("host.zoolog", "j1.zoolog", "j3.zoolog")]
    data = [p.read_bytes() for p in logs]
    assert data[0] == data[1] == data[2], (procs.text("host"), procs.text("j1"), procs.text("j3"))
    r = audit_file(logs[0])
    assert r.verdict == "ok", (r.fault_reason, procs.text("host"))
    assert r.ending is not None and r.ending.kind == FINISHED
    (p,) = r.ending.played_on
    assert p.seat == 2 and p.dealers == (0, 1, 3)
    assert 2 not in r.winners
    assert r.ending_text is not None
    assert "seat 3" in r.ending_text and "re-dealt by seats 1, 2 and 4" in r.ending_text
    assert "table rule: if a seat stops answering, the others re-deal" in _out(procs, "j1")


def test_the_host_killed_at_four_seats_the_three_joiners_play_on(procs: Procs) -> None:
    """The host stalls at its first move and is killed with kill -9: the three joiners claim
    its seat over their direct links, re-deal and finish without it (PROTOCOL.md §10.7;
    TRANSPORT.md §10)."""
    logs = _game(
        procs,
        4,
        ["bot", "bot", "bot"],
        host_mode="move",
        kill_host=True,
        host_args=("--on-leave", "play-on"),
    )
    data = [p.read_bytes() for p in logs[1:]]
    texts = [procs.text(f"j{i}") for i in (1, 2, 3)]
    assert data[0] == data[1] == data[2], texts
    r = audit_file(logs[1])
    assert r.verdict == "ok", (r.fault_reason, texts)
    assert r.ending is not None and r.ending.kind == FINISHED, r.ending_text
    (p,) = r.ending.played_on
    assert p.seat == 0 and p.dealers == (1, 2, 3)
    assert 0 not in r.winners


def test_two_seats_vanish_one_after_the_other_at_three_seats(procs: Procs) -> None:
    """3 seats: both joiners withhold their reveal links. The first claim (against whichever
    holds a reveal floor first) plays on; the second leaves one live seat, so it ends the game:
    the host's log verifies, ending with that claim, the first play-on said in it."""
    logs = _game(procs, 3, ["reveal", "reveal"], host_args=("--on-leave", "play-on"))
    r = audit_file(logs[0])
    assert r.verdict == "ok", (r.fault_reason, procs.text("host"))
    assert r.ending is not None and r.ending.kind == "claimed", r.ending_text
    (p,) = r.ending.played_on
    assert p.dealers == (0, 3 - p.seat) and r.ending.seat == 3 - p.seat
    assert r.winners == (0,)


def test_a_vanished_seat_that_resumes_is_turned_away_in_one_line(procs: Procs) -> None:
    """The joiner killed with kill -9 comes back with `zoo resume` while the others play on:
    it is told in one line that it was replaced at the claim's entry and can watch, not play;
    it signs nothing, the others finish with identical logs, and its own log verifies."""
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))  # j2's, kept for its resume
    ident = procs.tmp / "j2.pem"
    ident.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    ident.chmod(0o600)
    host, joiners, invite = _seat_three_stalls(procs, "--key", bytes(range(32)).hex())
    joiners[1].kill()  # kill -9
    joiners[1].wait(5)
    # it comes back once the others have claimed its seat (the staller's seed is no seed `zoo
    # resume` derives from its key, so it must not be asked for a reveal: it is out by then)
    wait_for(lambda: _claimed_out(procs.tmp / "host.zoolog"), 60, "the claim that plays on")
    gone = procs.tmp / "j2.zoolog"
    again = procs.zoo(
        "resume",
        str(gone),
        "--identity",
        str(ident),
        "--invite",
        invite,
        "--bot",
        "greedy",
        name="again",
    )
    try:
        procs.wait(host, "host", timeout=120)
        for i in (0, 2):
            procs.wait(joiners[i], f"j{i + 1}", timeout=30)
        procs.wait(again, "again", timeout=60)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{procs.text('again')}\n{procs.text('host')}") from None
    said = procs.text("again")
    lines = [ln for ln in said.splitlines() if "you were replaced at entry" in ln]
    assert len(lines) == 1, said
    logs = [procs.tmp / n for n in ("host.zoolog", "j1.zoolog", "j3.zoolog")]
    data = [p.read_bytes() for p in logs]
    assert data[0] == data[1] == data[2]
    r = audit_file(logs[0])
    assert r.verdict == "ok" and r.ending is not None and r.ending.kind == FINISHED
    (p,) = r.ending.played_on
    assert p.seat == 2 and f"you were replaced at entry {p.claim}" in lines[0]
    mine = audit_file(gone)
    assert mine.verdict == "ok", (mine.fault_reason, said)  # it watched to the end
    assert "CHEAT" not in said.upper().replace("CHECKS", "")


def _claimed_out(log: Path) -> bool:
    """The host's log so far holds a claim that played on (a torn last entry is left out)."""
    try:
        entries = read_log(log).entries
        session = Session(entries[0])
        for raw in entries[1:]:
            session.receive(raw)
    except (OSError, ZooError, IndexError):
        return False
    return bool(session.out)
