"""Spectators admitted by a seat (TRANSPORT.md §12.6), with real processes on 127.0.0.1: a host
that admits no spectator cannot hide the game from one that holds a seat's watch invite, and a
host that stops sending to its spectators (tests/net/evil.py `hide`), or sends them nothing but
`ping` (`stall`), is left for the seat's watch port, from the entries already held. Every
spectator's log is checked by `zoo verify`."""

from __future__ import annotations

import re
import subprocess

from tests.net.evil import HIDE_AFTER
from tests.net.harness import ZOO, Procs, wait_for
from tests.net.test_mesh import _evil, _evil_host


def _watch_invite(procs: Procs, name: str) -> str:
    """The watch invite a seat printed (`zoo bot --spectators N`)."""
    pat = re.compile(r"spectators may watch through you \(at most \d+\): zoo watch (zoo://\S+)")
    wait_for(lambda: pat.search(procs.text(name)) is not None, 15, f"{name}'s watch invite")
    found = pat.search(procs.text(name))
    assert found is not None
    return found.group(1)


def _verify(procs: Procs, name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ZOO, "verify", str(procs.tmp / f"{name}.zoolog")],
        capture_output=True,
        text=True,
        env=procs.env,
        timeout=60,
        check=False,
    )


def test_a_host_that_admits_no_spectator_cannot_hide_the_game_from_a_seats_invite(
    procs: Procs,
) -> None:
    """`zoo host --spectators 0` turns every spectator away; the first joiner's bot admits them
    with `--spectators 2` and prints its watch invite; a spectator given the host's invite
    first is refused, goes on through the seat's, and (the last seat joins only once it is in)
    follows the game to the end through that seat alone, ending with the seats' very log,
    which `zoo verify` passes."""
    host, invite = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.05",
                              "--spectators", "0")  # fmt: skip
    bot = procs.bot(invite, "bot", "--delay", "0.05", "--spectators", "2", quiet=False)
    seat = _watch_invite(procs, "bot")
    watcher = procs.zoo("watch", invite, seat, "--plain", "--log",
                        str(procs.tmp / "watcher.zoolog"), name="watcher")  # fmt: skip
    wait_for(lambda: "watching: 1 spectator" in procs.text("watcher"), 30, "the admission")
    last = procs.bot(invite, "last", "--delay", "0.05")
    for p, name in ((bot, "bot"), (last, "last"), (host, "host"), (watcher, "watcher")):
        assert procs.wait(p, name) == 0, procs.text(name)
    out = procs.text("watcher")
    assert "the host said: this table admits no spectators; watching on through the next" in out
    assert "watching: 1 spectator(s) now, at most 2" in out, out
    assert "game over" in out, out
    assert procs.log("watcher") == procs.log("host") == procs.log("bot") == procs.log("last")
    r = _verify(procs, "watcher")
    assert r.returncode == 0 and "verdict: OK" in r.stdout, r.stdout + r.stderr


def test_a_spectator_follows_the_game_through_a_seat_when_the_host_stops_sending(
    procs: Procs,
) -> None:
    """The host (tests/net/evil.py `hide`) admits the spectator in the lobby, sends it no card,
    and once its log holds 20 entries nothing at all: the spectator, which holds the host's
    invite and seat 2's watch invite, hears nothing for 10 s, goes on through the seat from the
    entries it holds, follows the game to the end and ends with the seats' very log, which
    `zoo verify` passes."""
    host, invite = _evil_host(procs, "hide", delay=1.0)
    bot1 = procs.bot(invite, "bot1", "--delay", "1.0", "--spectators", "1", quiet=False)
    seat = _watch_invite(procs, "bot1")
    watcher = procs.zoo("watch", invite, seat, "--plain", "-v", "--log",
                        str(procs.tmp / "w.zoolog"), name="w")  # fmt: skip
    wait_for(lambda: "watching: 1 spectator(s) now, at most 4" in procs.text("w"), 30, "admitted")
    bot2 = procs.bot(invite, "bot2", "--delay", "1.0")
    for b, name in ((bot1, "bot1"), (bot2, "bot2")):
        assert procs.wait(b, name, timeout=180) == 0, procs.text(name)
    assert procs.wait(watcher, "w", timeout=30) == 0, procs.text("w")
    out = procs.text("w")
    moved = re.search(r"the host is gone; watching on through the next invite \(.*\) from entry "
                      r"(\d+)", out)  # fmt: skip
    assert moved is not None and 1 <= int(moved.group(1)) <= HIDE_AFTER, out
    assert procs.log("w") == procs.log("bot1") == procs.log("bot2")
    r = _verify(procs, "w")
    assert r.returncode == 0 and "verdict: OK" in r.stdout, r.stdout + r.stderr
    host.kill()


STALLED = re.compile(
    r"the host sent no new entry for (\d+)\.\d s, though entry (\d+) \((seat \d \(\w+\))'s (\w+)\) "
    r"was due within (\d+) s by the game's clocks; watching on through the next invite "
    r"\(.*\) from entry (\d+)"
)


def test_a_spectator_leaves_a_host_that_pings_but_sends_no_entry(procs: Procs) -> None:
    """The host (tests/net/evil.py `stall`, clocks of 8 s a move and 5 s for the rest: a stall
    bound of 26 s on a move floor, 20 s on any other) admits the spectator in the lobby, sends
    it no card, and once its log holds 20 entries nothing but `ping`: never silent for 10 s.
    The spectator leaves it once the game's clocks say an entry was due, in one line naming
    the host, the entry it awaited and the wait, goes on through seat 1's watch port from the
    entries it holds, follows the game to the end and ends with the seats' very log, which
    `zoo verify` passes."""
    inv = procs.tmp / "host.invite"
    host = _evil(procs, "host", "stall", "--players", "3", "--delay", "1.5", "--clocks", "8", "5",
                 "--invite-file", str(inv), "--log", str(procs.tmp / "host.zoolog"),
                 name="host")  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, 15, "the invite")
    assert host.poll() is None, procs.text("host")
    invite = inv.read_text().strip()
    bot1 = procs.bot(invite, "bot1", "--delay", "1.5", "--spectators", "1", quiet=False)
    seat = _watch_invite(procs, "bot1")
    watcher = procs.zoo("watch", invite, seat, "--plain", "-v", "--log",
                        str(procs.tmp / "w.zoolog"), name="w")  # fmt: skip
    wait_for(lambda: "watching: 1 spectator(s) now, at most 4" in procs.text("w"), 30, "admitted")
    bot2 = procs.bot(invite, "bot2", "--delay", "1.5")
    for b, name in ((bot1, "bot1"), (bot2, "bot2")):
        assert procs.wait(b, name, timeout=240) == 0, procs.text(name)
    assert procs.wait(watcher, "w", timeout=30) == 0, procs.text("w")
    out = procs.text("w")
    moved = STALLED.search(out)
    assert moved is not None, out
    waited, entry, kind, bound, start = (int(moved.group(i)) if i != 4 else moved.group(4)
                                         for i in (1, 2, 4, 5, 6))  # fmt: skip
    assert bound == (26 if kind == "move" else 20), moved.group(0)
    assert bound <= waited < bound + 10, moved.group(0)  # after the bound, not long after
    assert entry == start and 1 <= entry <= HIDE_AFTER, moved.group(0)
    assert "the host is gone" not in out, out  # its pings kept it from looking silent
    assert procs.log("w") == procs.log("bot1") == procs.log("bot2")
    r = _verify(procs, "w")
    assert r.returncode == 0 and "verdict: OK" in r.stdout, r.stdout + r.stderr
    host.kill()
