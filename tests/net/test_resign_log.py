"""A person who resigns (`q`, confirmed) in a two-seat game keeps the end of the game in their
own log: the floor holder appends the resignation (PROTOCOL.md §10.4), and the person's peer
waits for that entry (bounded) before it leaves. Its log used to stop just before it, so its
own `zoo verify` said "incomplete: waiting for a move from" the seat that had resigned.
Real processes on 127.0.0.1, bounded waits."""

from __future__ import annotations

import re

from tests.net.harness import Procs, audit_file, wait_for


def test_the_resigning_seat_keeps_its_resignation_in_its_own_log(procs: Procs) -> None:
    host, invite = procs.host("--players", "2", "--bot", "greedy")
    person = procs.human(invite, "person")
    out = procs.tmp / "person.out"
    wait_for(
        lambda: "Your move" in out.read_text(errors="replace") or person.poll() is not None,
        40,
        "the person's move prompt",
    )
    procs.type(person, b"q\ny\n")
    procs.wait(person, "person")
    procs.wait(host, "host")
    said = " ".join(out.read_text(errors="replace").split())
    r = audit_file(procs.tmp / "person.zoolog")
    assert r.verdict == "ok", (r.fault_reason, procs.text("person"))
    assert r.ending_text is not None and r.ending_text.startswith("resigned: seat 2"), said
    assert re.search(r"audit: OK", said) and "zoo resume" not in said, said
