"""One human seat played through a real terminal (a pty) against a bot peer, to the end."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time

from tests.net.harness import ZOO, Procs

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _pick(hints: str) -> str:
    """A legal move out of the hint text ('send 3/4 onto A1 B2 …', 'e.g. 3@A1', 'steps: …')."""
    eg = re.search(r"e\.g\. ([3-6]@[A-E][1-5])", hints)
    if eg:
        return eg.group(1)
    send = re.search(r"send ([3-6])\S* onto\s+([A-E][1-5])", hints)
    if send:
        return f"{send.group(1)}@{send.group(2)}"
    step = re.search(r"[A-E][1-5]-[A-E][1-5]", hints)
    assert step, hints
    return step.group(0)


def test_human_plays_zoo_play_through_a_pty(procs: Procs) -> None:
    """`zoo play --bots 2`: the human asks for hints, tries a bad move, plays legal ones, wins or
    loses, and sees the log saved and verified."""
    master, slave = os.openpty()
    env = dict(procs.env, ZOO_BOT_DELAY="0", TERM="xterm")
    log = procs.tmp / "human.zoolog"
    p = subprocess.Popen(
        [*ZOO, "play", "--plain", "--bots", "2", "--level", "greedy", "--log", str(log)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=procs.tmp,
        start_new_session=True,
    )
    procs.procs.append(p)
    os.close(slave)
    buf = raw = ""
    consumed = 0
    moves = 0
    tried_bad = False
    tried_board = False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(master, 65536).decode(errors="replace")
                except OSError:
                    break  # the child closed the terminal
                raw += chunk
                buf += ANSI.sub("", chunk)
            tail = buf[consumed:]
            if "audit:" in tail and "log saved" in tail:
                break
            legal = re.search(r"legal: (.*?)Your move", tail, re.S)
            if legal:
                consumed = len(buf)
                if not tried_bad:
                    tried_bad = True
                    os.write(master, b"Z9\n")  # not a move: a clear rejection, no crash
                    continue
                os.write(master, _pick(legal.group(1)).encode() + b"\n")
                moves += 1
            elif "Your move" in tail and "legal:" not in tail:
                consumed = len(buf)
                os.write(master, b"?\n" if tried_board else b"b\n")  # the prompt comes back
                tried_board = True
        p.wait(15)
    finally:
        os.close(master)
    (procs.tmp / "transcript.txt").write_text(buf)
    assert p.returncode == 0, buf[-3000:]
    assert moves >= 3
    assert "Final score" in buf
    assert "since your last move:" in buf  # the two bots' moves, recapped at our turn
    assert "audit: OK" in buf
    assert "give this to the other players" not in buf  # every other seat is our own bot
    assert str(log.name) in buf.replace("\n", "")
    assert re.search(r"Z9|not a move|square", buf)
    assert tried_board and "'*' you" in " ".join(buf.split())  # 'b': the board and its legend
    # nothing is ever printed after a prompt on the prompt's own line
    assert not re.search(r"q quit\): [^\n]*(connected|waiting|joined|moves|to move)", buf)
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m", raw)  # NO_COLOR (set by the harness)
