"""Clocks and claims with real processes on 127.0.0.1 (PROTOCOL.md §10).

Small clocks (move 3 s, reveal 2 s) set through the genesis. Bound per test: the clock plus the
claim round plus the host's linger, well under the 40 s each wait allows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.net.harness import ROOT, Procs, audit_file, wait_for
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.storage import read_log

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
    wait_for(lambda: inv.exists() or host.poll() is not None, 15, "the invite")
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
            15,
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


def test_a_staller_at_the_last_reveal_link_loses_by_claim(procs: Procs) -> None:
    logs = _game(procs, 3, ["bot", "reveal"])
    assert "stalling at a reveal" in _out(procs, "j2")
    for path in logs:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("host"), procs.text("j2"))
        assert r.ending_text is not None and "seat 3" in r.ending_text
        assert "did not reveal within 2 s" in r.ending_text
        assert "claimed by seat 1" in r.ending_text and "seat 2" in r.ending_text
        assert 2 not in r.winners


def test_a_staller_that_answers_after_the_claim_has_the_conflict_in_its_log(
    procs: Procs,
) -> None:
    logs = _game(procs, 2, ["comeback"])
    assert "answering late" in _out(procs, "j1")
    host, late = (audit_file(p) for p in logs)
    assert host.verdict == "ok" and late.verdict == "ok", (host.fault_reason, late.fault_reason)
    assert host.ending_text is not None and "late answer" not in host.ending_text
    assert late.ending_text is not None and "its late answer" in late.ending_text
    assert host.ending is not None and late.ending is not None
    assert host.ending.at == late.ending.at and late.ending.late[0] == late.ending.at
    assert host.scores == late.scores and host.winners == late.winners == (0,)


def _stand_ins_appended(procs: Procs, name: str) -> int:
    lines = [ln for ln in _out(procs, name).splitlines() if ln.startswith("stand-in entries")]
    assert len(lines) == 1, procs.text(name)
    return int(lines[0].rsplit(" ", 1)[1])


def test_a_non_host_resigns_and_the_other_joiner_plays_the_stand_in_without_the_host(
    procs: Procs,
) -> None:
    """3 seats; seat 3 (a joiner) resigns at its fourth move floor. The host appends no stand-in
    entry at all (`--no-stand-in`: the duties it had, appending the resignation of a seat that
    holds the floor and running the stand-in bot, are gone), yet the game finishes: seat 2, the
    other joiner, computes and appends the stand-in's `resign` entry and every later entry of
    the stand-in (PROTOCOL.md §10.4); the host checks each against its own computation and
    relays it. The host's and seat 2's logs are the same bytes and verify; the resigner's is a
    prefix of them."""
    logs = _game(procs, 3, ["bot", "resign"], host_args=("--no-stand-in",))
    assert "resigned" in _out(procs, "j2")
    assert _stand_ins_appended(procs, "host") == 0
    by_j1 = _stand_ins_appended(procs, "j1")
    host_log, j1_log, j2_log = (read_log(p).entries for p in logs)
    assert host_log == j1_log, (procs.text("host"), procs.text("j1"))
    resigned_at = next(i for i, raw in enumerate(host_log) if decode_entry(raw).kind == "resign")
    in_log = [decode_entry(x) for x in host_log[resigned_at:]]
    # it resigned at its own move floor: its stand-in appended the `resign` entry too (the host,
    # as the lowest-numbered other seat, used to)
    assert in_log[0].seat == 2
    stand_in = [e for e in in_log if e.seat == 2]
    assert by_j1 == len(stand_in) > 0  # every one of them appended by seat 2
    assert {e.kind for e in stand_in} >= {"move", "seed", "result"}
    for path in logs[:2]:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("host"))
        assert r.ending is not None and r.ending.kind == "finished" and r.ending.resigned == (2,)
        assert r.ending_text is not None and "resigned; a stand-in played on" in r.ending_text
        assert 2 not in r.winners
    # (this test resigner stops at its next loop turn, an entry or two later: a prefix)
    assert j2_log == host_log[: len(j2_log)] and len(j2_log) < len(host_log)
    assert audit_file(logs[2]).verdict == "incomplete"
    assert "stand-in" in _out(procs, "j1") and "every peer computes" in _out(procs, "j1")


def test_a_resignation_ends_a_two_seat_game(procs: Procs) -> None:
    logs = _game(procs, 2, ["resign"])
    r = audit_file(logs[0])
    assert r.verdict == "ok", (r.fault_reason, procs.text("host"), procs.text("j1"))
    assert r.ending_text is not None and r.ending_text.startswith("resigned: seat 2")
    assert r.winners == (0,)
    # its resignation ended the game: no leave is owed, so none is said to be unconfirmed
    assert "did not confirm our leave" not in procs.text("j1"), procs.text("j1")


def test_a_host_that_stalls_and_dies_is_claimed_over_the_direct_links(procs: Procs) -> None:
    """3 seats; the host (seat 1) stalls at its first move and is killed: the two joiners
    exchange their votes on their direct links and claim the game without it."""
    logs = _game(procs, 3, ["bot", "bot"], host_mode="move", kill_host=True)
    for path in logs[1:]:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("j1"), procs.text("j2"))
        assert r.ending is not None and r.ending.seat == 0 and r.ending.by == (1, 2)
        assert r.ending_text is not None and "did not move within 3 s" in r.ending_text


def test_a_host_that_stalls_and_drops_every_vote_is_claimed_over_the_direct_links(
    procs: Procs,
) -> None:
    """3 seats; the host (seat 1) stalls at its first move, stays up and drops every claim vote
    it receives (it relays none): the joiners' votes reach each other on their direct links,
    and the claim against the host is in both joiners' logs, which `zoo verify` accepts."""
    logs = _game(procs, 3, ["bot", "bot"], host_mode="move", host_args=("--drop", "votes"))
    assert "stalling at a move" in _out(procs, "host")
    assert "dropping claim votes" in _out(procs, "host")  # the votes did reach it, and died there
    for path in logs[1:]:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("j1"), procs.text("j2"))
        assert r.ending is not None and r.ending.kind == "claimed"
        assert r.ending.seat == 0 and r.ending.by == (1, 2)
        assert r.ending_text is not None and "did not move within 3 s" in r.ending_text
        verify = procs.zoo("verify", str(path), name=f"verify-{path.stem}")
        assert procs.wait(verify, f"verify-{path.stem}", 30) == 0, procs.text(f"verify-{path.stem}")


def test_a_resignation_that_the_host_drops_reaches_the_floor_holder_over_the_mesh(
    procs: Procs,
) -> None:
    """3 seats; seat 3 resigns while seat 2 holds a move floor (seat 2 must append the entry) and
    the host drops the statement: the statement reaches seat 2 on the direct link, the `resign`
    entry is in the log, and the stand-in plays on (every peer computes its entries): the game
    finishes, though the host never held the statement."""
    logs = _game(procs, 3, ["wait-resign", "resign-off-turn"], host_args=("--drop", "resign"))
    assert "resigned" in _out(procs, "j2") and "dropped a resignation" in _out(procs, "host")
    for path in logs[:2]:
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, procs.text("host"), procs.text("j1"))
        assert r.ending is not None and r.ending.resigned == (2,), r.ending_text
        assert r.ending.kind == "finished", r.ending_text
    verify = procs.zoo("verify", str(logs[1]), name="verify")
    assert procs.wait(verify, "verify", 30) == 0, procs.text("verify")
