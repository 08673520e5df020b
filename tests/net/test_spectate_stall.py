"""A spectator leaves a stalled source (TRANSPORT.md §12.6): one that keeps pinging but sends
no entry for longer than the game's own clocks allow. On a fake clock, in process: the
spectator's socket connects nowhere; the host link's messages (a signed welcome, `entries`,
`ping`) are fed to it as they would come, each with its time."""

from __future__ import annotations

import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p import storage
from zoo_p2p.driver import NullDriver
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import JoinOptions
from zoo_p2p.net.spectate import Spectator, watcher_session
from zoo_p2p.net.stall import STALL_CEILING, STALL_FLOOR, StallWatch, stall_bound
from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, step
from zoo_p2p.rules import Team, Variant

CLOCKS = Clocks(move=40, reveal=3)  # a move floor's bound: 2*40+10 = 90 s; any other: 20 s
PING = wire.pack("ping")
INV = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")


class Notes(NullDriver):
    def __init__(self) -> None:
        super().__init__()
        self.notices: list[str] = []

    def on_notice(self, text: str) -> None:
        self.notices.append(text)


def _played() -> LocalGame:
    """A whole 2-seat game whose genesis carries CLOCKS (every seat's log the same)."""
    rng = random.Random("zoo-p2p stalled source")
    keys = [private_key_from_bytes(rng.randbytes(32)) for _ in range(2)]
    seats = [
        SeatInfo(n, public_key_bytes(k), t)
        for n, k, t in zip(("Ada", "Brice"), keys, (Team.YELLOW, Team.BLUE), strict=True)
    ]
    genesis = Session.create_genesis(
        keys[0], seats, Variant.STANDARD, None, rng.randbytes(32), CLOCKS
    )
    sessions = [
        Session(genesis, key=k, seed=rng.randbytes(32), nonce=rng.randbytes(32)) for k in keys
    ]
    game = LocalGame(keys, [], [], sessions, [[], []])
    while step(game, rng):
        pass
    assert game.sessions[0].finished
    return game


GAME = _played()
LOG = list(GAME.entries)


def _first(kind: str) -> int:
    """The log length at which the floor is first of `kind` (the floor the spectator awaits)."""
    s = watcher_session(LOG[0])
    for n in range(1, len(LOG)):
        s.receive(LOG[n])
        if s.floor is not None and s.floor.kind == kind:
            return n + 1
    raise AssertionError(f"no {kind} floor")


def _spectator(
    tmp: Path, fail_over: bool, driver: NullDriver | None = None, via: int = 0
) -> Spectator:
    """A spectator through the host (seat 0; `via` another seat: its watch port), welcomed,
    holding the genesis; silent 10 s."""
    path = tmp / "watch.zoolog"
    sink = storage.new_game_log(path, storage.NetSidecar(role="watch"))
    sink.append(LOG[0])
    w = Spectator(
        INV, key=Ed25519PrivateKey.generate(), driver=driver or NullDriver(),
        make_session=watcher_session, open_log=lambda s: sink,
        fingerprint=lambda p: INV.fingerprint,
        options=JoinOptions(curve=False, give_up=10.0), session=watcher_session(LOG[0]), sink=sink,
        fail_over=fail_over,
    )  # fmt: skip
    key = GAME.keys[via]
    pub = public_key_bytes(key)
    sig = key.sign(wire.welcome_signed_bytes(INV.server_key, bytes(32), pub))
    seat = None if via == 0 else via
    w.receive([wire.pack("welcome", v=wire.WIRE_VERSION, pub=pub, sig=sig, seat=seat)], w.now)
    assert w.host_pub == pub and w.stopped is None
    return w


def _feed(w: Spectator, upto: int, now: float) -> None:
    """The host sends the entries we lack up to log length `upto`."""
    start = len(w.session or ())
    if upto > start:
        w.receive([wire.pack("entries", **{"from": start, "e": LOG[start:upto]})], now)
    assert w.session is not None and len(w.session) == upto


def _pings(w: Spectator, t0: float, until: float) -> float:
    """A ping every 0.5 s and a loop turn after each, from t0 to t0 + until (or our stop)."""
    t = t0
    while t < t0 + until and w.stopped is None:
        t += 0.5
        w.receive([PING], t)
        w.tick(t)
    return t


def test_the_bound_is_twice_the_floors_clock_and_a_margin_bounded_both_ways() -> None:
    """The figures of §12.6: the defaults give 610 s on a move, 40 s elsewhere; 1-second
    clocks the floor of 20 s, clocks of a day the ceiling of 900 s."""
    assert stall_bound(300) == 610 and stall_bound(15) == 40
    assert stall_bound(1) == STALL_FLOOR == 20 and stall_bound(86_400) == STALL_CEILING == 900
    assert stall_bound(CLOCKS.move) == 90 and stall_bound(CLOCKS.reveal) == STALL_FLOOR


def test_pings_without_entries_fail_over_after_the_genesis_bound_and_not_before(
    tmp_path: Path,
) -> None:
    """At a move floor (clock 40 s: bound 90 s) the host pings every 0.5 s and sends nothing
    else: still watching at 89.5 s (pings hold off the 10 s silence), stopped at 90.5 s with
    the one line that names the source, the entry and the wait."""
    at = _first(Kind.MOVE)
    w = _spectator(tmp_path, fail_over=True)
    try:
        t0 = w.now + 1.0
        _feed(w, at, t0)
        w.tick(t0)
        bound = stall_bound(CLOCKS.move)
        t = _pings(w, t0, bound - 0.5)
        assert w.stopped is None, w.stopped
        t = _pings(w, t, 1.0)
        assert w.stopped is not None and not w.stopped.finished
        assert abs(t - t0 - bound) <= 0.5 + 1e-9, t - t0
        floor = w.session.floor if w.session is not None else None
        assert floor is not None and floor.kind == Kind.MOVE
        who = w.seat_name(floor.seat)
        assert w.stopped.reason == (
            f"the host sent no new entry for {bound + 0.5:.1f} s, though entry {at} "
            f"({who}'s move) was due within {bound:.0f} s by the game's clocks"
        ), w.stopped.reason
        assert w.stopped.entries == at
    finally:
        w.close()


def test_old_entries_sent_again_do_not_hold_it_and_a_seats_port_is_named(tmp_path: Path) -> None:
    """A seat's watch port that pings and sends the entries we hold again every 5 s (to look
    alive) grows nothing: it is left at the same bound, and the line names it."""
    at = _first(Kind.MOVE)
    w = _spectator(tmp_path, fail_over=True, via=1)
    try:
        t0 = w.now + 1.0
        _feed(w, at, t0)
        w.tick(t0)
        t = t0
        while w.stopped is None and t < t0 + 2 * stall_bound(CLOCKS.move):
            again = wire.pack("entries", **{"from": at - 3, "e": LOG[at - 3 : at]})
            w.receive([again], t)
            t = _pings(w, t, 5.0)
        assert w.stopped is not None, "never left"
        assert stall_bound(CLOCKS.move) < t - t0 <= stall_bound(CLOCKS.move) + 0.5, t - t0
        who = w.seat_name(1)
        assert w.stopped.reason.startswith(f"{who}'s watch port sent no new entry for "), w.stopped
    finally:
        w.close()


def test_a_reveal_floor_has_the_lower_bound(tmp_path: Path) -> None:
    """At a reveal floor the clock is 3 s: the bound is the floor of 20 s, not 2*3+10."""
    at = _first(Kind.REVEAL)
    w = _spectator(tmp_path, fail_over=True)
    try:
        t0 = w.now + 1.0
        _feed(w, at, t0)
        w.tick(t0)
        t = _pings(w, t0, STALL_FLOOR - 0.5)
        assert w.stopped is None, w.stopped
        _pings(w, t, 1.0)
        assert w.stopped is not None and "was due within 20 s" in w.stopped.reason, w.stopped
    finally:
        w.close()


def test_entries_that_keep_coming_hold_no_failover(tmp_path: Path) -> None:
    """One entry every 19.5 s (just within even the lowest bound), for the whole game: the
    spectator follows it to its end and never leaves the host for a stall."""
    w = _spectator(tmp_path, fail_over=True)
    try:
        t = w.now
        for n in range(2, len(LOG) + 1):
            _feed(w, n, t)
            w.tick(t)
            t = _pings(w, t, STALL_FLOOR - 0.5)
            if n < len(LOG):
                assert w.stopped is None, (n, w.stopped)
        assert w.session is not None and w.session.finished
        # the joiner's end 3 s after the last entry ("no bye from the host"), finished
        assert w.stopped is not None and w.stopped.finished, w.stopped
    finally:
        w.close()


def test_a_game_that_is_over_holds_no_failover(tmp_path: Path) -> None:
    """The whole game held, then pings for longer than the ceiling: no stall is said (the
    joiner's end, "no bye from the host", after 3 s is the only stop, and it is finished)."""
    driver = Notes()
    w = _spectator(tmp_path, fail_over=True, driver=driver)
    try:
        t0 = w.now + 1.0
        _feed(w, len(LOG), t0)
        w.tick(t0)
        _pings(w, t0, STALL_CEILING + 10)
        assert w.stopped is not None and w.stopped.finished, w.stopped
        assert "no new entry" not in w.stopped.reason
        assert not any("no new entry" in n for n in driver.notices), driver.notices
        watch = StallWatch(0.0, len(LOG))  # the rule itself, the game over, a day later
        assert watch.check(w.session, 86_400.0) is None
    finally:
        w.close()


def test_on_the_last_invite_a_stall_is_said_once_and_watching_goes_on(tmp_path: Path) -> None:
    """Without a next invite: one notice per head, no stop; the next entry restarts it."""
    driver = Notes()
    at = _first(Kind.MOVE)
    w = _spectator(tmp_path, fail_over=False, driver=driver)
    try:
        t0 = w.now + 1.0
        _feed(w, at, t0)
        w.tick(t0)
        t = _pings(w, t0, 3 * stall_bound(CLOCKS.move))
        assert w.stopped is None, w.stopped
        said = [n for n in driver.notices if "sent no new entry" in n]
        assert len(said) == 1 and said[0].endswith("it may be hiding the game"), said
        assert f"entry {at} " in said[0], said
        _feed(w, at + 1, t)
        w.tick(t)
        _pings(w, t, 3 * stall_bound(CLOCKS.move))
        said = [n for n in driver.notices if "sent no new entry" in n]
        assert len(said) == 2 and f"entry {at + 1} " in said[1], said
    finally:
        w.close()


def test_in_the_lobby_there_is_no_bound() -> None:
    """No genesis: no clock is known, and a lobby waits for people."""
    watch = StallWatch(0.0, 0)
    assert watch.check(None, 1.0) is None
    assert watch.check(None, 86_400.0) is None
