"""An in-memory network of peer cores (like h11's ConnectionPair): one `HostCore` and N-1
`JoinerCore`s wired through queues, on a fake clock. No socket, no thread, no sleep: a game, a
claim or a resignation runs in milliseconds, and every byte still goes through the wire's
encoding (`messages.decode` on the way in), as it does between real peers.

    net = MemNet(3)
    net.connect_all()
    net.run_until(lambda: net.all_stopped(), dt=0.05)

`turn(dt)` moves the clock by `dt`, gives every core its loop turn (timers, `tick`, the claim
clocks) and delivers what they queued, until nothing more is queued. A link can be cut
(`cut(i)`: nothing passes either way) and restored (`connect(i)`).

`MemNet(n, mesh=True)` gives every core its direct links too (TRANSPORT.md §10): a
`zoo_p2p.net.memmesh.MemoryMesh` per seat, made when the core would make its publisher, whose
publications reach every seat that holds its card and subscribed to it (as a ZeroMQ PUB does:
nothing before the subscription), and `subscribed` tells a publisher of each new subscriber.
`drop_link(src, dst, frame)` and `drop_mesh(src, dst, frame)` (seats; True: the frame is lost)
lose chosen frames on the host links or the direct links; `silence(seat)` freezes a seat (its
core gets no turn, nothing reaches it or leaves it, on any link), as a stopped process would.
`MemNet(n, curve=True)` gives each joiner a CURVE key of its own (`curves[seat]`), which the
host's core is told with every frame of that joiner's link, as ZAP tells the transport.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.driver import BaseDriver, Driver, GameLink
from zoo_p2p.net.core.host import HostCore
from zoo_p2p.net.core.joiner import JoinerCore, JoinOptions
from zoo_p2p.net.core.lobby import HostOptions, LobbySeat
from zoo_p2p.net.core.peer import LinkParts, PeerCore, raw_private, raw_public
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.memmesh import MemoryMesh
from zoo_p2p.net.wire import derive_secret
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant

NO_CURVE = bytes(32)  # the harness has no CURVE server key: the links are queues


@dataclass
class MemSink:
    """A log "file" in memory (what `open_log` gives a core)."""

    path: Path
    entries: list[bytes] = field(default_factory=list)
    closed: bool = False

    def append(self, entry: bytes) -> None:
        self.entries.append(entry)

    def sync(self, wait: bool = True) -> None:
        """Nothing to make durable."""

    def close(self) -> None:
        self.closed = True


class Seat(BaseDriver):
    """A seat's driver: plays a seeded random legal move one turn after it is asked (unless
    `plays` is False: it stalls), and keeps every notice."""

    def __init__(self, rng: random.Random, plays: bool = True) -> None:
        self.rng = rng
        self.plays = plays
        self.notices: list[str] = []
        self.started = False

    def on_notice(self, text: str) -> None:
        self.notices.append(text)

    def on_started(self, link: GameLink) -> None:
        self.started = True

    def on_turn(self, link: GameLink) -> None:
        if self.plays:
            link.call_later(0.0, lambda: self._move(link))

    def _move(self, link: GameLink) -> None:
        s = link.session
        if self.plays and link.my_turn and s is not None and s.state is not None:
            link.play(self.rng.choice(s.state.legal_moves()))


def _never(src: int, dst: int, frame: bytes) -> bool:
    return False


class MemHost(HostCore):
    """The host core whose direct links are made by the harness (`MemNet(mesh=True)`)."""

    net: MemNet

    def _start_mesh(self) -> None:
        self.net._start_mesh(0, self)


class MemJoiner(JoinerCore):
    """A joiner core whose direct links are made by the harness."""

    net: MemNet
    seat_index: int

    def _start_mesh(self) -> None:
        self.net._start_mesh(self.seat_index, self)


class MemNet:
    """A host core and `players - 1` joiner cores, linked through queues, on a fake clock
    (and, with `mesh`, through direct links in memory)."""

    def __init__(
        self,
        players: int = 3,
        *,
        seed: str = "memnet",
        tmp: Path | None = None,
        clocks: Clocks | None = None,
        stall: tuple[int, ...] = (),
        mesh: bool = False,
        host_cls: type[MemHost] | None = None,
        joiner_cls: Mapping[int, type[MemJoiner]] | None = None,
        drivers: Mapping[int, Driver] | None = None,
        sessions: Mapping[int, type[Session]] | None = None,
        curve: bool = False,
    ) -> None:
        rng = random.Random(seed)
        # with `curve`, each joiner has a CURVE key of its own, which the host is told with
        # every frame of its link (as ZAP tells the transport); else none, as without CURVE
        self.curves = [
            hashlib.sha256(f"{seed} curve {i}".encode()).digest() if curve and i else b""
            for i in range(players)
        ]
        self.now = 1000.0
        self.tmp = tmp or Path("/nonexistent-memnet")
        self.keys = [
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)) for _ in range(players)
        ]
        self.drivers: list[Driver] = [
            (drivers or {}).get(i) or Seat(random.Random(f"{seed} {i}"), i not in stall)
            for i in range(players)
        ]
        self._sessions = dict(sessions or {})
        self.sinks: list[MemSink | None] = [None] * players
        self.clocks = clocks or Clocks(60, 15)
        nonce = rng.randbytes(32)

        def make_genesis(lobby: list[LobbySeat]) -> bytes:
            seats = [SeatInfo(s.name, s.pub, Team(s.team)) for s in lobby]
            return Session.create_genesis(
                self.keys[0], seats, Variant.STANDARD, 0, nonce, self.clocks
            )

        self.host = (host_cls or MemHost)(
            make_genesis=make_genesis,
            fingerprint=fingerprint,
            options=HostOptions(players=players, curve=curve, name="host"),
            server_pub=NO_CURVE,
            **self._parts(0),
        )
        self.invite = Invite(
            host="127.0.0.1",
            port=1,
            server_key=NO_CURVE,
            fingerprint=fingerprint(raw_public(self.keys[0])),
        )
        self.joiners = [
            (joiner_cls or {}).get(i, MemJoiner)(
                self.invite,
                fingerprint=fingerprint,
                options=JoinOptions(name=f"p{i}", curve=curve),
                curve_pub=self.curves[i] or NO_CURVE,
                **self._parts(i),
            )
            for i in range(1, players)
        ]
        self.rids = [b"\x00mem" + bytes([i]) for i in range(players)]  # joiner i: rids[i]
        self.up: set[int] = set()  # joiners whose link passes messages
        self.garbage: list[tuple[int, bytes]] = []  # (joiner, frame) injected on the way in
        self.meshes: list[MemoryMesh | None] = [None] * players
        self._opened = [0] * players  # subscriptions of each mesh told to their publisher
        self.silent: set[int] = set()  # frozen seats (`silence`)
        self.drop_link: Callable[[int, int, bytes], bool] = _never
        self.drop_mesh: Callable[[int, int, bytes], bool] = _never
        self.host.net = self
        for i, j in enumerate(self.joiners, 1):
            j.net, j.seat_index = self, i
        for core in self.cores:
            core._mesh_on = mesh

    def _parts(self, i: int) -> LinkParts:
        key = self.keys[i]

        def make_session(genesis: bytes) -> Session:  # (as `zoo`'s: secrets from key and game)
            gid, priv = hashlib.sha256(genesis).digest(), raw_private(key)
            seed = derive_secret(priv, b"seat-seed", gid)
            nonce = derive_secret(priv, b"first-nonce", gid)
            return self._sessions.get(i, Session)(genesis, key=key, seed=seed, nonce=nonce)

        def open_log(session: Session) -> MemSink:
            sink = MemSink(self.tmp / f"seat{i}.zoolog")
            self.sinks[i] = sink
            return sink

        return LinkParts(
            key=key,
            driver=self.drivers[i],
            make_session=make_session,
            open_log=open_log,
            now=self.now,
        )

    # ----- the links ------------------------------------------------------------------------
    @property
    def cores(self) -> list[PeerCore]:
        return [self.host, *self.joiners]

    def joiner(self, seat: int) -> JoinerCore:
        """The joiner core of `seat` (1..players-1)."""
        return self.joiners[seat - 1]

    def connect(self, seat: int) -> None:
        """The link of `seat` comes up (as after a handshake): the joiner greets the host."""
        self.up.add(seat)
        self.joiner(seat).linked(secure=False)
        self.deliver()

    def connect_all(self) -> None:
        for seat in range(1, len(self.cores)):
            self.connect(seat)

    def cut(self, seat: int) -> None:
        """Nothing passes on the link of `seat` any more (either way) until `connect`."""
        self.up.discard(seat)
        self.joiner(seat).unlinked()

    def send_to_host(self, seat: int, frame: bytes) -> None:
        """A frame on `seat`'s link to the host, as if that joiner (or whoever holds its
        link) had sent it."""
        self.host.receive(self.rids[seat], [frame], self.now, curve=self.curves[seat], fd=-1)
        self.deliver()

    def deliver(self, rounds: int = 10_000) -> None:
        """Move every queued message to its destination until nothing is queued."""
        for _ in range(rounds):
            moved = False
            for rid, data in self.host.take_outbox():
                seat = self.rids.index(rid) if rid in self.rids else -1
                if self._passes(0, seat, data) and self.joiner(seat).stopped is None:
                    self.joiner(seat).receive([data], self.now)
                moved = True
            for seat in sorted(self.up - self.silent):
                j = self.joiner(seat)
                for data in j.take_outbox():
                    if self.host.stopped is None and self._passes(seat, 0, data):
                        curve = self.curves[seat]
                        self.host.receive(self.rids[seat], [data], self.now, curve=curve, fd=-1)
                    moved = True
                if j.stopped is not None:
                    self._closed(seat)
            moved = self._gossip() or moved
            if not moved:
                return
        raise AssertionError("the cores never went quiet")

    def _passes(self, src: int, dst: int, frame: bytes) -> bool:
        """Whether a frame on the host link from seat `src` to seat `dst` arrives."""
        joiner = dst if src == 0 else src
        return (
            joiner in self.up
            and not {src, dst} & self.silent
            and not self.drop_link(src, dst, frame)
        )

    def silence(self, seat: int) -> None:
        """`seat` freezes (a stopped process): no turn, nothing in or out, on any link."""
        self.silent.add(seat)

    # ----- the direct links -----------------------------------------------------------------
    def _start_mesh(self, seat: int, core: PeerCore) -> None:
        """Seat `seat`'s core makes its direct links: a mesh in memory."""
        m = MemoryMesh(
            core,
            now=self.now,
            port=4000 + seat,
            fresh=core._fresh,
            wall=lambda: self.now,
            clock=lambda: core.now,
        )
        self.meshes[seat] = m
        core.mesh = m

    def _gossip(self) -> bool:
        """Move what every mesh published to the seats subscribed to it; True if any did."""
        moved = False
        for i, m in enumerate(self.meshes):
            if m is None or i in self.silent:
                continue
            for seat, _ in m.opened[self._opened[i] :]:  # a new subscriber of `seat`'s
                pub = self.meshes[seat] if 0 <= seat < len(self.meshes) else None
                if pub is not None and seat not in self.silent:
                    pub.subscribed(self.now)
            self._opened[i] = len(m.opened)
            for data in m.take():
                moved = True
                for j, other in enumerate(self.meshes):
                    if other is None or j == i or j in self.silent:
                        continue
                    p = other.peers.get(i)
                    if self.cores[j].stopped is not None or p is None or not (p.sub or p.subs):
                        continue  # not subscribed to seat i (ZeroMQ's PUB drops it)
                    if not self.drop_mesh(i, j, data):
                        other.sent[:0] = other.receive(i, data, self.now)
        return moved

    def _closed(self, seat: int) -> None:
        """A joiner stopped: it says its closing leave (as the transport's close does)."""
        j = self.joiner(seat)
        leave = j.closing_leave()
        self.up.discard(seat)
        j._host_gone = True  # said once
        if leave is not None:
            self.host.receive(self.rids[seat], [leave], self.now, curve=self.curves[seat], fd=-1)

    # ----- the clock ------------------------------------------------------------------------
    def turn(self, dt: float = 0.0) -> None:
        """One loop turn of every core at the clock moved by `dt`."""
        self.now += dt
        for i, core in enumerate(self.cores):
            if core.stopped is not None or i in self.silent:
                continue
            core.now = self.now
            core.run_timers(self.now)
            core.tick(self.now)
            core._liveness_tick(self.now)
            m = self.meshes[i]
            if m is not None and core.stopped is None:
                m.tick(self.now)
        self.deliver()

    def run_until(self, done: Callable[[], bool], *, dt: float = 0.05, turns: int = 20_000) -> int:
        """Turn until `done()`; the number of turns it took (AssertionError if it never is)."""
        for n in range(turns):
            if done():
                return n
            self.turn(dt)
        raise AssertionError(f"not done after {turns} turns ({turns * dt:g} s of fake clock)")

    def all_stopped(self) -> bool:
        return all(c.stopped is not None for c in self.cores)

    def others_stopped(self) -> bool:
        """Every seat but the silent ones has stopped."""
        return all(c.stopped is not None for i, c in enumerate(self.cores) if i not in self.silent)

    def logs(self) -> list[list[bytes]]:
        """Every seat's log as written to its sink."""
        return [list(s.entries) if s is not None else [] for s in self.sinks]
