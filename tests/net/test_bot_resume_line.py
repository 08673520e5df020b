"""A `zoo bot` without --identity plays with a key made for that run only, so its unfinished
game cannot be resumed: it printed "to continue this game: zoo resume LOG" anyway, and that
command then failed with "our key plays no seat of this game". Real processes on 127.0.0.1."""

from __future__ import annotations

import signal

from tests.net.harness import Procs, log_len, wait_for


def _bot_after_the_host_stops(procs: Procs, *bot_args: str) -> str:
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.4")
    bot = procs.bot(invite, "bot1", "--delay", "0.4", *bot_args, quiet=False)
    log = procs.tmp / "host.zoolog"
    wait_for(lambda: log_len(log) >= 8 or host.poll() is not None, 30, "the game to be underway")
    assert host.poll() is None, procs.text("host")
    host.send_signal(signal.SIGINT)  # the host stops (resumable), the bot's run ends
    procs.wait(host, "host", timeout=20)
    procs.wait(bot, "bot1", timeout=30)
    return " ".join(procs.text("bot1").split())


def test_a_bot_with_a_key_for_this_run_only_offers_no_resume(procs: Procs) -> None:
    text = _bot_after_the_host_stops(procs)
    assert "log saved:" in text, text  # the game had started: its log is kept
    assert "to continue this game" not in text, text
    assert "cannot be resumed" in text and "--identity" in text, text


def test_a_bot_with_a_kept_key_offers_the_resume(procs: Procs) -> None:
    key = procs.tmp / "bot1.key"
    text = _bot_after_the_host_stops(procs, "--identity", str(key))
    assert "to continue this game: zoo resume" in text, text
    assert "cannot be resumed" not in text
    # a bot goes on as a bot of its level, with its key (not the person's default one)
    assert f"zoo resume --level greedy --identity {key} " in text, text
