"""Crashes: kill -9 of a joiner (it comes back, resyncs) and of the host (survivors keep logs)."""

from __future__ import annotations

import signal

from tests.net.harness import START, Procs, audit_file, log_len, wait_for
from zoo_p2p.storage import read_log


def test_joiner_killed_and_restarted(procs: Procs) -> None:
    """A joiner dies mid-game, restarts with the same identity and log, resyncs, game completes.

    Killed once its log holds 12 entries (genesis, 3 commits, 3 opens, then 2 moves with their
    reveals: dealt and under way), far from the end of the shortest 3-seat games (about 60
    entries). Until then it waits 0.25 s before each of its moves (the others do not), so the
    game cannot run to its end between our look at the log and the kill: it still needs
    several of bot1's moves. (It was killed at 30 entries: half of a short game, gone in a
    blink at full speed.)

    The reveal clock is 600 s: the dead seat may owe a reveal, and its restart (a new process,
    its hello, the resync) is only as fast as the machine; with the default 15 s a loaded
    machine could let the others claim the game from it, which is not what this tests."""
    host, invite = procs.host(
        "--players", "3", "--bot", "greedy", "--delay", "0.02", "--reveal-time", "600"
    )
    key = str(procs.tmp / "bot1.pem")
    bot1 = procs.bot(invite, "bot1", "--identity", key, "--delay", "0.25")
    bot2 = procs.bot(invite, "bot2", quiet=False)
    log1 = procs.tmp / "bot1.zoolog"
    wait_for(lambda: log_len(log1) >= 12 or bot1.poll() is not None, START, "a game under way")
    assert bot1.poll() is None, procs.text("bot1")
    bot1.send_signal(signal.SIGKILL)
    bot1.wait(5)
    at_kill = log_len(log1)
    # the others go on until the dead seat is needed, and show who holds the game up
    wait_for(lambda: "waiting for bot1 (" in procs.text("bot2"), 15, "'waiting for bot1'")
    bot1 = procs.bot(invite, "bot1", "--identity", key)
    assert procs.wait(bot1, "bot1") == 0, procs.text("bot1")
    assert procs.wait(bot2, "bot2") == 0, procs.text("bot2")
    assert procs.wait(host, "host") == 0, procs.text("host")
    ref = procs.log("host")
    assert procs.log("bot1") == ref
    assert procs.log("bot2") == ref
    assert at_kill < log_len(log1) - 12  # it was killed mid-game, not near the end
    assert audit_file(log1).ok  # type: ignore[attr-defined]


def test_host_killed(procs: Procs) -> None:
    """The host dies: each survivor keeps a log that verifies as incomplete, with no fault."""
    host, invite = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.02")
    bots = [procs.bot(invite, f"bot{i}", "--give-up", "2") for i in (1, 2)]
    host_log = procs.tmp / "host.zoolog"
    wait_for(lambda: log_len(host_log) >= 30 or host.poll() is not None, START, "a game under way")
    assert host.poll() is None, procs.text("host")
    host.send_signal(signal.SIGKILL)
    host.wait(5)
    for i, b in enumerate(bots, 1):
        assert procs.wait(b, f"bot{i}", timeout=20) != 0  # gave up: game not finished
    logs = {
        name: read_log(procs.tmp / f"{name}.zoolog").entries for name in ("host", "bot1", "bot2")
    }
    for a in logs.values():  # one chain: any two logs agree on what they both hold
        for b in logs.values():
            k = min(len(a), len(b))
            assert a[:k] == b[:k]
    for i in (1, 2):
        report = audit_file(procs.tmp / f"bot{i}.zoolog")
        assert report.verdict == "incomplete", report  # type: ignore[attr-defined]
        assert report.fault_index is None  # type: ignore[attr-defined]
        # nothing lost: a survivor holds at least what the host had relayed before dying
        assert report.entries >= 30  # type: ignore[attr-defined]


def test_host_killed_then_resumed(procs: Procs) -> None:
    """`zoo resume LOG` brings the host back on the same port and key; the joiner, which kept
    retrying, resyncs and the game completes with identical logs."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.05")
    bot = procs.bot(invite, "bot1")
    host_log = procs.tmp / "host.zoolog"
    wait_for(lambda: log_len(host_log) >= 25 or host.poll() is not None, START, "a game under way")
    assert host.poll() is None, procs.text("host")
    host.send_signal(signal.SIGKILL)
    host.wait(5)
    again = procs.zoo("resume", str(host_log), "--bot", "greedy", "--quiet", name="resumed")
    assert procs.wait(again, "resumed") == 0, procs.text("resumed")
    assert procs.wait(bot, "bot1") == 0, procs.text("bot1")
    assert procs.log("bot1") == procs.log("host")
    assert audit_file(host_log).ok  # type: ignore[attr-defined]


def test_a_joiner_leaving_the_lobby_gives_its_seat_back(procs: Procs) -> None:
    """Ctrl-C in the lobby says bye; the seat is freed and the game starts with the others."""
    host, invite = procs.host("--players", "3", "--bot", "greedy")
    early = procs.bot(invite, "early", quiet=False)
    wait_for(lambda: "lobby: 2 of 3" in procs.text("early"), START, "the early joiner seated")
    early.send_signal(signal.SIGINT)
    assert procs.wait(early, "early", timeout=10) != 0
    bots = [procs.bot(invite, f"bot{i}") for i in (1, 2)]
    for i, b in enumerate(bots, 1):
        assert procs.wait(b, f"bot{i}") == 0, procs.text(f"bot{i}")
    assert procs.wait(host, "host") == 0, procs.text("host")
    report = audit_file(procs.tmp / "host.zoolog")
    assert report.ok  # type: ignore[attr-defined]
    assert sorted(s.name for s in report.seats) == ["bot1", "bot2", "host"]  # type: ignore[attr-defined]
