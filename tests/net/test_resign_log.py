"""A person who resigns (`q`, confirmed) in a two-seat game keeps the end of the game in their
own log: the floor holder appends the resignation (PROTOCOL.md §10.4), and the person's peer
waits for that entry (bounded) before it leaves. Its log used to stop just before it, so its
own `zoo verify` said "incomplete: waiting for a move from" the seat that had resigned.
Real processes on 127.0.0.1, bounded waits."""

from __future__ import annotations

import re
from pathlib import Path

from tests.net.harness import Procs, audit_file, wait_for
from zoo_p2p.text import seat_word


def _resign(procs: Procs, invite: str) -> tuple[Path, int]:
    """A person joins, resigns at its first move prompt (`q`, confirmed) and leaves; its output
    and its exit code."""
    person = procs.human(invite, "person")
    out = procs.tmp / "person.out"
    wait_for(
        lambda: "Your move" in out.read_text(errors="replace") or person.poll() is not None,
        40,
        "the person's move prompt",
    )
    procs.type(person, b"q\ny\n")
    return out, procs.wait(person, "person")


def test_the_resigning_seat_keeps_its_resignation_in_its_own_log(procs: Procs) -> None:
    host, invite = procs.host("--players", "2", "--bot", "greedy")
    out, _ = _resign(procs, invite)
    procs.wait(host, "host")
    said = " ".join(out.read_text(errors="replace").split())
    r = audit_file(procs.tmp / "person.zoolog")
    assert r.verdict == "ok", (r.fault_reason, procs.text("person"))
    assert r.ending_text is not None and r.ending_text.startswith("resigned: seat 2"), said
    assert re.search(r"audit: OK", said) and "zoo resume" not in said, said
    # its resignation ended the game: no leave was owed, none is said to be unconfirmed (it
    # was, 1 run in 3: the host, done, had gone; tests/net/test_closing_leave.py)
    assert "did not confirm our leave" not in said, said


def test_a_resigner_of_three_seats_says_it_resigned_and_its_log_stops_there(
    procs: Procs,
) -> None:
    """With three seats the floor does not move and a stand-in plays on. The resigner's own
    words, and its own log, used to read "has not moved" / "abandoned … waiting for a move from"
    itself: it left before the entry with its resignation reached it. Now it waits (bounded) for
    that entry; its log ends there and says so, claiming no result (verdict incomplete). (This
    is also the case of the person's q, confirmed, in a three-seat game: it exits 1, having left
    an unfinished game, the stand-in plays on, and the game ends normally.)"""
    host, invite = procs.host("--players", "3", "--bots", "1", "--bot", "greedy", quiet=False)
    out, code = _resign(procs, invite)
    assert code == 1, procs.text("person")  # we left an unfinished game
    assert procs.wait(host, "host", 60) == 0, procs.text("host")
    text = out.read_text(errors="replace")
    said = " ".join(text.split())
    r = audit_file(procs.tmp / "person.zoolog")
    assert r.verdict == "incomplete" and r.fault_index is None, (r.fault_reason, said)
    seat = [i.name for i in r.seats].index("person")  # seat 2 or 3: who joined first
    who = seat_word(seat, r.seats[seat].team.label)
    assert r.ending is not None and r.ending.kind == "left" and r.ending.seat == seat, said
    assert r.ending_text is not None and r.ending_text.startswith(f"left: {who} resigned")
    assert "you resigned and a stand-in plays on in your seat" in said, said
    assert f"right after {who} resigned" in said, said  # the closing audit line
    assert "has not moved" not in said and "waiting for a move" not in said, said
    assert "had not reached us" not in said and "zoo resume" not in said, said
    assert text.count("Your move") == 1, said  # no prompt for a seat we no longer hold
    assert f"{who} resigned;" not in said, said  # not told as news about another seat
    heard = " ".join((procs.tmp / "host.out").read_text(errors="replace").split())
    # the host reads its leave as "person, seat 3 (Green), left: resigned", not the resigner's
    # own words ("you left the game; you resigned …"); no stand-in connects (every peer
    # computes its entries), so nothing "is back" or "has taken the seat"
    assert f"{who} resigned; a stand-in plays on in its seat (every peer computes" in heard, heard
    assert "you resigned" not in heard and "you left" not in heard, heard
    assert f"person, {who}, is back" not in heard and "has taken the seat" not in heard, heard
    team = r.seats[seat].team.label  # the game never waits for the person to come back
    assert f"waiting for person ({team}): a reconnect" not in heard, heard
    whole = audit_file(procs.tmp / "host.zoolog")  # the game went on without it, to the end
    assert whole.verdict == "ok" and whole.ending_text is not None, whole.fault_reason
    assert whole.ending_text.startswith(f"finished ({who} resigned; a stand-in played on)")
    assert procs.log("person") == procs.log("host")[: len(procs.log("person"))]
