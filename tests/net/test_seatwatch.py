"""A seat's own admission of spectators (zoo_p2p.net.seatwatch, TRANSPORT.md §12.6) without
sockets: a fake seat, the clock passed in. The seat's watch port answers a knock with its own
signed welcome, admits `watch` by the host's rules (zoo_p2p.net.spectators), seats nobody, and
bounds its connections as the host does (knocks, the watch timeout, pending connections, the
message rate). The spectator takes a genesis from it only if the welcome's key plays a seat."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.driver import SeatPresence
from zoo_p2p.net import messages, wire
from zoo_p2p.net.core.conns import HELLO_TIMEOUT, MAX_KNOCKS, MAX_PENDING
from zoo_p2p.net.core.joiner import JoinerCore
from zoo_p2p.net.core.lobby import verify
from zoo_p2p.net.core.peer import raw_public
from zoo_p2p.net.messages import decode
from zoo_p2p.net.seatwatch import SEAT_ONLY, SeatWatchCore
from zoo_p2p.net.spectate import Spectator
from zoo_p2p.net.spectators import SPECTATOR_MSGS_BURST
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log

LOG = read_log(Path(__file__).resolve().parents[2] / "replays" / "3p-standard.zoolog").entries
KNOCK = wire.pack("knock", v=1)
WATCH = messages.encode(messages.Watch(game=None, have=0))


class FakeSeat:
    """What the watch port reads of its seat (a `JoinerCore` in the game)."""

    def __init__(self, entries: int = 10) -> None:
        self.key = Ed25519PrivateKey.generate()
        self.pub = raw_public(self.key)
        self.session: Session | None = Session(LOG[0])
        for e in LOG[1:entries]:
            self.session.receive(e)
        self.seat_no = 1
        self.seats_state: list[SeatPresence] = []
        self.mesh = None
        self.stopped: Any = None
        self.notices: list[str] = []
        self.driver = SimpleNamespace(on_notice=self.notices.append)

    def mesh_log_path(self) -> None:
        return None


def _port(most: int = 2, entries: int = 10) -> tuple[SeatWatchCore, FakeSeat]:
    seat = FakeSeat(entries)
    core = SeatWatchCore(cast(JoinerCore, seat), most, server_pub=b"S" * 32, curve=True, now=0.0)
    return core, seat


def _kinds(core: SeatWatchCore, rid: bytes) -> list[str]:
    return [decode(d).T for r, d in core.outbox if r == rid]


def _admit(core: SeatWatchCore, rid: bytes, fd: int, now: float = 0.0) -> None:
    core.fd_accepted(fd, "127.0.0.1:1", now)
    core.receive(rid, [KNOCK], now, curve=b"c" + rid, fd=fd)
    core.receive(rid, [WATCH], now, curve=b"c" + rid, fd=fd)


def test_a_knock_gets_the_seats_own_signed_welcome_and_a_watch_the_log() -> None:
    core, seat = _port()
    _admit(core, b"r", 5)
    welcome = decode(core.outbox[0][1])
    assert isinstance(welcome, messages.Welcome) and welcome.pub == seat.pub
    assert welcome.seat == 1
    signed = wire.welcome_signed_bytes(b"S" * 32, b"cr", seat.pub, False)
    assert verify(seat.pub, welcome.sig, signed)  # what the watch invite's fingerprint names
    assert _kinds(core, b"r") == ["welcome", "watching", "entries"]
    entries = decode(core.outbox[2][1])
    assert isinstance(entries, messages.Entries) and entries.start == 0 and len(entries.e) == 10
    assert core.fds[5].bound


def test_it_relays_what_the_seat_accepts_and_says_bye_at_the_end() -> None:
    core, seat = _port()
    _admit(core, b"r", 5)
    core.outbox.clear()
    core.relay_entries(10, list(LOG[10:12]))
    core.relay_seats([SeatPresence("connected")] * 3)
    core.relay_seats([SeatPresence("connected")] * 2)  # does not fit the seats: not sent
    seat.stopped = SimpleNamespace(finished=True, reason="game over")
    core.goodbye()
    core.goodbye()  # once
    assert _kinds(core, b"r") == ["entries", "seats", "bye"]


def test_a_seats_watch_port_seats_nobody() -> None:
    """A hello (or entries, a vote) on the watch port is dropped: a hello is told why; nothing
    reaches the seat's session."""
    core, seat = _port()
    s = seat.session
    assert s is not None
    core.fd_accepted(5, "p", 0.0)
    pub = raw_public(Ed25519PrivateKey.generate())
    hello = wire.pack("hello", v=1, name="x", team=None, pub=pub, curve=b"c" * 32,
                      game=None, have=0, sig=b"s" * 64)  # fmt: skip
    core.receive(b"r", [hello], 0.0, curve=b"c" * 32, fd=5)
    core.receive(b"r", [wire.pack("entries", **{"from": 10, "e": [LOG[10]]})], 0.0, curve=b"c")
    assert _kinds(core, b"r") == ["reject"] and SEAT_ONLY.encode() in core.outbox[0][1]
    assert core.dropped == 2 and len(s) == 10 and not core.spectators.owns(b"r")


def test_at_most_n_spectators_and_the_next_is_told_why() -> None:
    core, _ = _port(most=1)
    _admit(core, b"a", 5)
    _admit(core, b"b", 6)
    assert core.spectators.owns(b"a") and not core.spectators.owns(b"b")
    assert _kinds(core, b"b") == ["welcome", "reject"]


def test_its_connections_are_bounded_as_the_hosts() -> None:
    """More knocks than MAX_KNOCKS, no watch within the timeout, more than MAX_PENDING
    connections without a watch, and a spectator beyond its message rate: each shut."""
    core, seat = _port()
    core.fd_accepted(3, "p", 0.0)
    for _ in range(MAX_KNOCKS + 1):
        core.receive(b"k", [KNOCK], 0.0, curve=b"c", fd=3)
    assert 3 in core.shut_fds
    core.fd_accepted(4, "p", 0.0)
    core.tick(HELLO_TIMEOUT + 0.1)
    assert 4 in core.shut_fds
    for fd in range(100, 101 + MAX_PENDING):
        core.fd_accepted(fd, "p", 10.0 + fd / 1000)
    assert 100 in core.shut_fds and len(core.fds) == MAX_PENDING
    _admit(core, b"f", 7, now=20.0)
    for _ in range(int(SPECTATOR_MSGS_BURST) + 10):
        core.receive(b"f", [wire.pack("ping")], 20.0, curve=b"cf", fd=7)
    assert 7 in core.shut_fds and not core.spectators.owns(b"f")
    assert "dropped a spectator: more than 50 messages a second" in seat.notices


def test_a_spectator_takes_a_genesis_only_if_the_welcomes_key_plays_a_seat() -> None:
    """The forgery: a watch port whose key is no seat of the genesis it serves (a stranger
    passing on another game, or a made-up one) is not taken; a seat's key at any seat is."""
    session = Session(LOG[0])
    seat2 = session.seats[2].public_key
    stranger = raw_public(Ed25519PrivateKey.generate())
    ok = Spectator._genesis_ok
    assert ok(cast(Spectator, SimpleNamespace(host_pub=seat2)), session)
    assert not ok(cast(Spectator, SimpleNamespace(host_pub=stranger)), session)
