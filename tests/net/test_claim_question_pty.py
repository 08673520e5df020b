"""A person at a real terminal is asked before the game is claimed (PROTOCOL.md §10): `zoo join
--plain` on a pty against a host that never moves (2 s move clock, 127.0.0.1). The person waits
once (`w`), is asked again one clock period later, then claims (`c`); every log verifies."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

from tests.net.harness import START, ZOO, Procs, audit_file, wait_for
from tests.net.test_human import ANSI, _pick

ASKED = "seat 1 (Yellow) has not answered for"


def test_a_person_waits_once_then_claims_through_a_terminal(procs: Procs) -> None:
    inv = procs.tmp / "host.invite"
    host = procs.start(
        [
            *(sys.executable, "-m", "tests.net.staller", "host", "--host-mode", "move"),
            *("--move-time", "2", "--invite-file", str(inv), "--log", str(procs.tmp / "h.zoolog")),
        ],
        name="host",
    )
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    master, slave = os.openpty()
    log = procs.tmp / "j.zoolog"
    p = subprocess.Popen(
        [*ZOO, "join", inv.read_text().strip(), "--plain", "--log", str(log)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=dict(procs.env, TERM="xterm"),
        cwd=procs.tmp,
        start_new_session=True,
    )
    procs.procs.append(p)
    os.close(slave)
    buf = ""
    consumed = 0
    answers = ["w", "c"]
    deadline = time.monotonic() + 45
    try:
        while time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    buf += ANSI.sub("", os.read(master, 65536).decode(errors="replace"))
                except OSError:
                    break  # the child closed the terminal
            tail = buf[consumed:]
            if "audit:" in tail and "log saved" in tail:
                break
            if ASKED in tail and tail.rstrip().endswith("or wait (w)?") and answers:
                consumed = len(buf)
                os.write(master, answers.pop(0).encode() + b"\n")
            legal = re.search(r"legal: (.*?)Your move", tail, re.S)
            if legal:  # the person may be first to move: one legal move, then the host stalls
                consumed = len(buf)
                os.write(master, _pick(legal.group(1)).encode() + b"\n")
            elif "Your move" in tail and "legal:" not in tail:
                consumed = len(buf)
                os.write(master, b"?\n")
        p.wait(15)
    finally:
        os.close(master)
    procs.wait(host, "host", timeout=30)
    assert not answers, buf[-3000:]
    assert buf.count(ASKED) == 2, buf[-3000:]
    assert "waiting 2 s more for seat 1 (Yellow); then you are asked again" in buf
    assert "seat 1 (Yellow) did not answer within 2 s: we claim the game" in buf
    for path in (log, procs.tmp / "h.zoolog"):
        r = audit_file(path)
        assert r.verdict == "ok", (path, r.fault_reason, buf[-2000:])
        assert r.ending_text is not None and r.ending_text.startswith("ended: seat 1 (Yellow)")
        assert "claimed by seat 2 (Blue)" in r.ending_text
