"""When the host leaves (Ctrl-C, `leave`), it sends `leave` and closes: the joiner reads that
message and, right behind it, the disconnect its socket monitor reports. Handled in that order
in one turn of the loop (the joiner was busy when both came), the disconnect used to print
"lost the host; reconnecting…" before the closing "the host left (it said: …)". Real processes on
127.0.0.1; the joiner is stopped (SIGSTOP) while the host leaves, so both are waiting for it
when it goes on; bounded waits, no sleeps."""

from __future__ import annotations

import signal

from tests.net.harness import START, Procs, log_len, wait_for


def test_a_joiner_whose_host_left_says_only_that_the_host_left(procs: Procs) -> None:
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.3")
    joiner = procs.bot(invite, "joiner", "--delay", "0.3", quiet=False)
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 8, START, "the game under way")
    joiner.send_signal(signal.SIGSTOP)
    try:
        host.send_signal(signal.SIGINT)
        assert procs.wait(host, "host", 20) == 130, procs.text("host")
    finally:
        joiner.send_signal(signal.SIGCONT)
    assert procs.wait(joiner, "joiner", 20) == 1, procs.text("joiner")
    out = (procs.tmp / "joiner.out").read_text(errors="replace")
    assert "the host left (it said: interrupted)" in out, out
    assert "lost the host" not in out and "reconnecting" not in out, out
