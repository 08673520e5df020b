"""Presence everyone can see (issue 9): a seat is connected, lost (for N s) or left, and a peer
that leaves says so before it goes. Real processes on 127.0.0.1, bounded waits."""

from __future__ import annotations

import signal

from tests.net.harness import Procs, log_len, wait_for


def test_lost_back_and_left_are_shown_on_the_host_and_the_other_joiner(procs: Procs) -> None:
    """Stop a joiner (SIGSTOP): the others show it lost; let it go on: connected again;
    interrupt it: it says `leave` first, and the others show that it has left."""
    inv = procs.tmp / "host.invite"
    host = procs.zoo(
        "host", "--players", "3", "--bot", "greedy", "--delay", "0.3", "--bind", "127.0.0.1",
        "--invite-file", str(inv), "--log", str(procs.tmp / "host.zoolog"), name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, 15, "the invite")
    invite = inv.read_text().strip()
    procs.bot(invite, "watcher", "--delay", "0.3", quiet=False)
    # seated, not merely started: else the staller may take seat 2 (Blue) first
    wait_for(lambda: "lobby: 2 of 3" in procs.text("watcher"), 15, "the watcher seated")
    staller = procs.bot(invite, "staller", "--delay", "0.3")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 5, 20, "the game to start")

    def said(name: str, text: str) -> bool:
        return text in procs.text(name)

    lost = "staller (Green) lost the connection"
    staller.send_signal(signal.SIGSTOP)
    try:
        for who in ("host", "watcher"):
            wait_for(lambda w=who: said(w, lost), 15, f"{who}: lost")
    finally:
        staller.send_signal(signal.SIGCONT)
    # back: the host says so after it said the staller was lost (an earlier "everyone is
    # connected", after some other seat's hiccup under load, is not it)
    wait_for(lambda: "everyone is connected" in procs.text("host").rpartition(lost)[2], 15, "back")
    staller.send_signal(signal.SIGINT)
    wait_for(lambda: said("host", "staller (seat 3) left"), 15, "the host: left")
    wait_for(lambda: said("host", "staller (Green) has left"), 15, "the host: has left")
    wait_for(lambda: said("watcher", "staller (Green) has left"), 15, "the watcher: has left")
    assert "Traceback" not in procs.text("host") + procs.text("watcher")


def test_a_leave_on_a_link_the_host_had_dropped_still_says_left(procs: Procs) -> None:
    """A joiner away long enough for the host to drop its link, interrupted the moment it goes
    on: its leave comes on a new connection, before any hello. Its CURVE key, which only that
    joiner holds, still names its seat, so the host shows the seat as left, not lost."""
    inv = procs.tmp / "host.invite"
    host = procs.zoo(
        "host", "-v", "--players", "2", "--bot", "greedy", "--delay", "0.3", "--reveal-time", "300",
        "--bind", "127.0.0.1", "--invite-file", str(inv), "--log", str(procs.tmp / "host.zoolog"),
        name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, 15, "the invite")
    staller = procs.bot(inv.read_text().strip(), "staller", "--delay", "0.3")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 5, 20, "the game to start")

    def dropped() -> int:  # the host's log lines for links it let go (-v)
        text = procs.text("host")
        return text.count("cannot send to") + text.count("silent for too long")

    before = dropped()
    staller.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: dropped() > before, 20, "the host to drop the stopped joiner's link")
    finally:
        staller.send_signal(signal.SIGCONT)
    staller.send_signal(signal.SIGINT)
    wait_for(lambda: "staller (seat 2) left" in procs.text("host"), 15, "the host: left")
    assert "gave up before its hello" not in procs.text("host")
