"""A new game never resumes an earlier game's bot log. `zoo host --log L --bots N` keeps its
bots' keys and logs in `L.bots/` (for `zoo resume L`); a user who deleted L but not `L.bots/`
and hosted again with the same --log saw the bot resume its old log, "dropped a card for seat 2
(Blue) with a bad signature", and a lobby that never dealt. Real processes on 127.0.0.1."""

from __future__ import annotations

import signal

from tests.net.harness import Procs, audit_file, wait_for
from zoo_p2p.storage import lock_log, lock_path, read_log


def _flat(text: str) -> str:
    """`text` without any whitespace: rich wraps a long path at 80 columns, even inside a word
    (a pytest temporary path is long), so the tests compare what was said with spaces gone."""
    return "".join(text.split())


def _bot_game(procs: Procs, name: str, *more: str) -> None:
    """A whole 2-seat game of the host's own bots, logged at tmp/game.zoolog; bound 60 s."""
    log = procs.tmp / "game.zoolog"
    p = procs.zoo(
        "host", "--players", "2", "--bots", "2", "--bind", "127.0.0.1", "--no-announce",
        "--log", str(log), *more, name=name,
    )  # fmt: skip
    assert procs.wait(p, name, timeout=60) == 0, procs.text(name)


def test_a_new_game_moves_the_bots_files_of_an_earlier_game_aside(procs: Procs) -> None:
    log = procs.tmp / "game.zoolog"
    bots = log.with_name(log.name + ".bots")
    _bot_game(procs, "first")
    old = (bots / "bot1.zoolog").read_bytes()
    assert old
    log.unlink()  # the user deletes the log, not the bots' directory
    _bot_game(procs, "second", "--quiet")
    # moved data is the user's to know of: said even with --quiet (which keeps stdout empty)
    said = _flat((procs.tmp / "second.err").read_text())
    assert _flat(f"moved {bots} (an earlier game's bots) aside to {bots}.old") in said, said
    assert not (procs.tmp / "second.out").read_text().strip()
    r = audit_file(log)
    assert r.verdict == "ok", (r.fault_reason, procs.text("second"))  # type: ignore[attr-defined]
    assert r.ending_text.startswith("finished")  # type: ignore[attr-defined]
    # nothing of the user's was deleted: the earlier game's files are whole beside the new ones
    assert (procs.tmp / "game.zoolog.bots.old" / "bot1.zoolog").read_bytes() == old
    # and the bot played this game, from a log of its own
    assert read_log(bots / "bot1.zoolog").entries[0] == read_log(log).entries[0]


def test_a_bot_resuming_another_games_log_is_turned_away_and_says_so(procs: Procs) -> None:
    """A bot restarted from another game's log (its own key, so the log resumes) at a new
    host's invite: the host turns it away, the bot says which file and what to do, exit 1,
    its log untouched; the seat stays open and the game goes on with another bot."""
    _, invite = procs.host("--players", "2", "--bot", "greedy", "--no-announce", name="host1")
    key = str(procs.tmp / "b.key")
    b = procs.bot(invite, "b", "--identity", key)
    assert procs.wait(b, "b", timeout=60) == 0, procs.text("b")
    stale = procs.tmp / "b.zoolog"
    before = stale.read_bytes()

    host2, invite2 = procs.host(
        "--players", "2", "--bot", "greedy", "--no-announce", name="host2", quiet=False
    )
    again = procs.zoo(
        "bot", invite2, "--log", str(stale), "--identity", key, "--give-up", "20", name="again"
    )
    assert procs.wait(again, "again", timeout=30) == 1, procs.text("again")
    said = _flat(procs.text("again"))
    assert _flat(f"{stale} is the log of another game") in said, said
    assert _flat("pass another --log") in said, said
    assert _flat("zoo resume") not in said, said
    assert stale.read_bytes() == before
    fresh = procs.bot(invite2, "fresh")
    assert procs.wait(host2, "host2", timeout=60) == 0, procs.text("host2")
    assert procs.wait(fresh, "fresh", timeout=10) == 0, procs.text("fresh")
    assert _flat("it is resuming the log of another game") in _flat(procs.text("host2"))


def test_a_second_host_of_the_same_log_is_refused_while_the_first_plays_it(procs: Procs) -> None:
    """Two `zoo host --log L` at once: the second moved the first's live `L.bots/` aside. Now
    it refuses in one line naming L and the first host, and touches nothing."""
    # its own seat a bot too: a person's seat reads stdin, which is empty here, and left at once
    # ("no game: you left (end of input)"), letting the log go before the second host came
    first, _ = procs.host(
        "--players", "3", "--bots", "1", "--bot", "greedy", "--no-announce", name="first"
    )
    log = procs.tmp / "first.zoolog"
    bots = log.with_name(log.name + ".bots")
    # the bot made its key (its log comes only with a game, which waits for a third seat)
    wait_for(lambda: (bots / "bot1.key").exists(), 20, "the first host's bot key")
    before = sorted(p.name for p in bots.iterdir())
    second = procs.zoo(
        "host", "--players", "2", "--bots", "2", "--bind", "127.0.0.1", "--no-announce",
        "--log", str(log), name="second",
    )  # fmt: skip
    assert procs.wait(second, "second", timeout=30) == 1, procs.text("second")
    said = _flat((procs.tmp / "second.err").read_text())
    assert _flat(f"{log} is in use by another `zoo host` (process {first.pid})") in said, said
    assert _flat("another --log") in said and "Traceback" not in said
    assert not (procs.tmp / "first.zoolog.bots.old").exists()
    assert sorted(p.name for p in bots.iterdir()) == before
    assert first.poll() is None  # the first game goes on
    first.send_signal(signal.SIGINT)  # Ctrl-C: it leaves, and lets the log go
    assert procs.wait(first, "first", timeout=30) == 130, procs.text("first")
    assert not lock_path(log).exists()
    with lock_log(log, "zoo host"):
        pass
