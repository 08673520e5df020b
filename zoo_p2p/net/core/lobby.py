"""Who sits where, for the host's core: the records of links and seats, and `Seating`, the
host's side of them (the base of `HostCore`): the hello that binds a link to a seat (TRANSPORT.md
§5, §9), the lobby before the game, and each seat's presence. Without I/O: what it sends goes
through `_send`, a connection it drops through `_shut`.

`on_hello` reads as its steps: `_hello_ok` (the checks a hello must pass before anything is
kept), `_hello_seat` (which seat it takes, or why it is turned away), `_seat_link` (the link is
that seat's now) and `_after_hello` (what the seat is sent: the lobby, or the log and cards).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Unpack

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from zoo_p2p.driver import LobbyListener, SeatPresence
from zoo_p2p.net import messages, wire
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.core.conns import MAX_KNOCKS, ConnGuard, _Fd
from zoo_p2p.net.core.peer import LinkParts, PeerCore
from zoo_p2p.net.links import MSGS_PER_S
from zoo_p2p.net.spectators import DEFAULT_SPECTATORS, Spectators
from zoo_p2p.protocol.crypto import check_public_key
from zoo_p2p.text import seat_word, shown

if TYPE_CHECKING:
    pass

log = logging.getLogger("zoo_p2p.net")

LIVE_TIMEOUT = 2.5  # a seat silent for this long is shown as missing
OTHER_GAME = "you are in another game"  # a host's reject of a hello naming another game id
LINKS_PER_ID = 2  # live links per identity (a newer hello drops the oldest)
SYNC_BURST = 6  # resync answers a link may get at once ...
SYNC_RATE = 2.0  # ... and then per second (a token bucket)
LINK_MSGS_PER_S = MSGS_PER_S / 4  # messages per host link and second, every kind ...
LINK_MSGS_BURST = MSGS_PER_S / 2  # ... and at once (an honest joiner sends far fewer)
MAX_LINK_HINTS = 16  # publishers' hints kept for links that have not said hello (oldest dropped)
OWN_KEY = (  # most often a second terminal on the host's machine, with its default key
    "that is the host's own identity: a second player on one machine needs a key "
    "of its own (zoo join --identity PATH, created if missing)"
)


@dataclass
class _Conn:
    rid: bytes
    curve: bytes
    pub: bytes
    seat: int | None
    last_seen: float
    done: bool = False
    fd: int = -1
    since: float = 0.0
    sync: Bucket = field(default_factory=lambda: Bucket(SYNC_RATE, SYNC_BURST, 0.0))  # resyncs
    msgs: Bucket = field(default_factory=lambda: Bucket(LINK_MSGS_PER_S, LINK_MSGS_BURST, 0.0))


@dataclass
class LobbySeat:
    """A seat taken in the lobby: display name, Ed25519 key, team (int 0..3)."""

    name: str
    pub: bytes
    team: int
    rid: bytes | None = None
    curve: bytes = b""  # the CURVE key of its last accepted hello (authenticates a late leave)
    link: tuple[str, bytes] | None = None  # its publisher's hint, before the genesis (§10.10)


@dataclass
class HostOptions:
    """What the host was asked for."""

    players: int = 2
    bind: str = "127.0.0.1"
    also_bind: tuple[str, ...] = ()  # more addresses to listen on, same port (issue 11)
    port: int = 0
    curve: bool = True
    name: str = "host"
    team: int | None = None
    linger_done: float = 3.0  # seconds to wait for every joiner to say it has everything
    give_up: float | None = None  # stop when no joiner has been heard for this long (None: never)
    hints: bool = False  # the genesis will allow hints: the lobby says so (PROTOCOL.md §3.2)
    lobby: LobbyListener | None = None  # told of the lobby as the driver is (the LAN advert)
    spectators: int = DEFAULT_SPECTATORS  # at most this many watch (TRANSPORT.md §12; 0: none)


def verify(pub: bytes, sig: bytes, data: bytes) -> bool:
    """True if `sig` is `pub`'s Ed25519 signature of `data`."""
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, data)
    except (InvalidSignature, ValueError):
        return False
    return True


class Seating(ConnGuard, PeerCore):
    """The host's side of who sits where: the links (`conns`, `fds`), the lobby's seats, the
    hello that binds a link to a seat, and presence. `HostCore` adds the tables and the game."""

    spectators: Spectators  # who watches (zoo_p2p.net.spectators; `HostCore` makes them)

    def __init__(
        self,
        *,
        fingerprint: Callable[[bytes], str],
        options: HostOptions,
        server_pub: bytes,
        **parts: Unpack[LinkParts],
    ) -> None:
        super().__init__(**parts)
        now = self.now
        self.options = options
        self.fingerprint = fingerprint
        self.server_pub = server_pub  # the CURVE key joiners' invites name (welcome, hello)
        self.conns: dict[bytes, _Conn] = {}
        self.seat_rid: dict[int, bytes] = {}
        self.outbox: list[tuple[bytes, bytes]] = []  # (routing id, message) not sent yet
        self._open_guard(0.0)  # (the connections, `ConnGuard`)
        self._left: set[int] = set()  # seats that said bye during the game
        self._seat_seen: dict[int, float] = {}
        self._started_at = now
        self._last_heard = now
        self._quiet_until: dict[str, float] = {}  # rate limit of repeated log lines / notices
        self._seat_msgs: dict[int, Bucket] = {}  # seat -> its message rate (every link)
        self._link_hints: dict[bytes, tuple[str, bytes]] = {}  # link -> hint before its hello
        if self.session is None:
            team = options.team if options.team is not None else 0
            self.lobby = [LobbySeat(options.name, self.pub, team)]
        else:
            self.lobby = [
                LobbySeat(si.name, si.public_key, int(si.team)) for si in self.session.seats
            ]

    def _start_game(self) -> None:
        """The lobby is full: write the genesis (the host core's)."""
        raise NotImplementedError

    # ----- links and seats ----------------------------------------------------------------
    def _send(self, rid: bytes, data: bytes) -> bool:
        """Send `data` on the link `rid` (here: queued in `outbox`); False if it is gone."""
        self.outbox.append((rid, data))
        return True

    def take_outbox(self) -> list[tuple[bytes, bytes]]:
        """What the host sent since the last call, in order (routing id, message)."""
        out, self.outbox = self.outbox, []
        return out

    def _unreachable(self, rid: bytes) -> None:
        """A send to `rid` failed (gone, or its queue full): forget the link."""
        conn = self.conns.pop(rid, None)
        if conn is not None and conn.seat is not None and self.seat_rid.get(conn.seat) == rid:
            del self.seat_rid[conn.seat]

    def _send_entries(self, rid: bytes, start: int) -> None:
        assert self.session is not None
        entries = list(self.session.entries[start:])
        for first, batch in wire.batches(entries, start):
            if not self._send(rid, wire.pack("entries", **{"from": first, "e": batch})):
                return

    def _lobby_msg(self) -> bytes:
        seats = [[s.name, self.fingerprint(s.pub), s.team] for s in self.lobby]
        if self.options.hints:  # TRANSPORT.md §5: joiners learn it before the seats are full
            return wire.pack("lobby", seats=seats, need=self.options.players, hints=True)
        return wire.pack("lobby", seats=seats, need=self.options.players)

    def _lobby_seats(self) -> list[tuple[str, str, int]]:
        return [(s.name, self.fingerprint(s.pub), s.team) for s in self.lobby]

    def _show_lobby(self) -> None:
        """The lobby changed: tell the driver (and the lobby's listener)."""
        seats = self._lobby_seats()
        if self.options.lobby is not None:
            self.options.lobby.lobby_changed(len(seats), self.options.players)
        self.driver.on_lobby(seats, self.options.players)

    def _broadcast(self, data: bytes) -> None:
        for rid in list(self.conns):
            self._send(rid, data)
        self.spectators.relay(data)

    # ----- connections ------------------------------------------------------------------
    def _once(self, what: str, text: str, every: float = 10.0) -> None:
        """A notice (and log line) at most once per `every` seconds for one kind of event."""
        now = self.now
        if self._quiet_until.get(what, 0.0) <= now:
            self._quiet_until[what] = now + every
            log.warning("%s", text)
            self.driver.on_notice(text)

    def _unlink(self, rid: bytes, fd: int) -> None:
        """The connection `fd` is shut: the link it carried goes (`ConnGuard._kick`)."""
        conn = self.conns.get(rid)
        if conn is not None and conn.fd == fd:
            self._drop(rid)

    def _said_kicked(self, fd: int, info: _Fd | None, why: str) -> None:
        log.info("dropped connection %d from %s: %s", fd, info.peer if info else "?", why)

    def _same_link(self, conn: _Conn, curve: bytes, fd: int) -> bool:
        """Is a frame (CURVE key `curve`, connection `fd`) from the link `conn` is bound to?

        With CURVE, the key decides: only its owner can authenticate with it, and libzmq never
        gives one routing id to two live connections, so the same key on a new connection is
        that joiner's own reconnection (the link moves to it). Without CURVE, the connection."""
        if conn.curve != curve:
            return False
        if fd < 0 or conn.fd in (fd, -1):
            return True
        if self.options.curve:
            conn.fd = fd
            info = self.fds.get(fd)
            if info is not None:
                info.bound = True
            return True
        return False

    def _sync_allowed(self, conn: _Conn, now: float) -> bool:
        """Token bucket per link: SYNC_BURST answers at once, then SYNC_RATE a second."""
        if not conn.sync.take(now):
            self.dropped += 1
            self._once("sync", "dropped resync requests beyond the rate limit", every=5.0)
            return False
        return True

    def _welcome(self, rid: bytes, curve: bytes, seat: int | None) -> None:
        client = curve if self.options.curve else bytes(32)
        s = self.session
        hints = self.options.hints if s is None else s.genesis.hints
        sig = self.key.sign(wire.welcome_signed_bytes(self.server_pub, client, self.pub, hints))
        fields: dict[str, Any] = {"v": wire.WIRE_VERSION, "pub": self.pub, "sig": sig, "seat": seat}
        if hints:  # TRANSPORT.md §5: said before the joiner's hello, so it can leave unseated
            fields["hints"] = True
        self._send(rid, wire.pack("welcome", **fields))

    def _name(self, seat: int) -> str:
        return self.lobby[seat].name if seat < len(self.lobby) else f"seat {seat}"

    def _who(self, seat: int) -> str:
        """`player, seat 2 (Blue)`: the seat's name (shown) and how people read the seat."""
        s = self.session
        team = s.seats[seat].team.label if s is not None and seat < len(s.seats) else None
        return f"{shown(self._name(seat), 40)}, {seat_word(seat, team)},"

    def _drop(self, rid: bytes) -> None:
        conn = self.conns.pop(rid, None)
        if conn is not None and conn.seat is not None and self.seat_rid.get(conn.seat) == rid:
            del self.seat_rid[conn.seat]

    # ----- the hello -----------------------------------------------------------------------
    def on_hello(
        self, rid: bytes, curve: bytes, msg: messages.Hello, now: float, fd: int = -1
    ) -> None:
        """A joiner's hello on the link `rid`: checked, given a seat (or turned away), bound."""
        hello = wire.Hello(
            name=msg.name, team=msg.team, pub=msg.pub, curve=msg.curve, game=msg.game, have=msg.have
        )
        again = self.conns.get(rid)
        if not self._hello_ok(rid, curve, hello, msg.sig, fd, again):
            return
        seat = self._hello_seat(rid, hello)
        if seat is None:
            return
        self._seat_link(rid, curve, hello, seat, fd, again)
        self._after_hello(rid, curve, hello, seat)

    def _hello_ok(
        self,
        rid: bytes,
        curve: bytes,
        hello: wire.Hello,
        sig: bytes,
        fd: int,
        again: _Conn | None,
    ) -> bool:
        """The checks before anything of a hello is kept: its CURVE key is the link's, a seated
        link says it no more often than it may resync, a connection gets MAX_KNOCKS tries, the key
        is usable and signed it, it is not the host's own, and the routing id is not another's."""
        if self.options.curve and hello.curve != curve:
            self.dropped += 1
            log.warning("dropped a hello whose CURVE key is not the link's")
            return False
        if again is not None and again.pub == hello.pub and not self._sync_allowed(again, self.now):
            return False  # a seated link's hello again: answered like a resync, as often (§11)
        info = self.fds.get(fd)
        if info is not None and info.knocks > MAX_KNOCKS:
            self._kick(fd, "hellos that do not verify")
            return False
        try:
            check_public_key(hello.pub)
        except ValueError as exc:
            self.dropped += 1
            self._once("weakkey", f"dropped a hello with an unusable identity key: {exc}")
            return False
        if not verify(hello.pub, sig, wire.hello_signed_bytes(self.server_pub, hello)):
            self.dropped += 1
            if info is not None:
                info.knocks += 1  # a connection gets MAX_KNOCKS tries in all, then it is shut
            self._warn("hello", "dropped a hello with a bad signature")
            return False
        if hello.pub == self.pub:
            self._send(rid, wire.pack("reject", reason=OWN_KEY))
            return False
        if again is not None and not self._same_link(again, curve, fd):
            # this routing id is bound to another key or connection: never let it be taken over
            self.dropped += 1
            self._once("stolen", "dropped a hello whose routing id belongs to another link")
            return False
        return True

    def _hello_seat(self, rid: bytes, hello: wire.Hello) -> int | None:
        """The seat a checked hello takes: its own (resuming, or back), a new one in the lobby;
        None when it is turned away (told why)."""
        seat = next((i for i, s in enumerate(self.lobby) if s.pub == hello.pub), None)
        if self.session is not None:
            if seat is None:
                self._send(rid, wire.pack("reject", reason="the game has started without you"))
                return None
            if hello.game is not None and hello.game != self.session.game_id:
                self._send(rid, wire.pack("reject", reason=OTHER_GAME))
                return None
            return seat
        if hello.game is not None:  # it resumes a log of another game: no seat in this lobby
            self._send(rid, wire.pack("reject", reason=OTHER_GAME))
            self._once(
                "othergame",
                f"turned away {shown(hello.name, 40)} ({self.fingerprint(hello.pub)}): "
                "it is resuming the log of another game",
            )
            return None
        if seat is not None:
            return seat
        if len(self.lobby) >= self.options.players:
            self._send(rid, wire.pack("reject", reason="the game is full"))
            return None
        taken = {s.team for s in self.lobby}
        team = (
            hello.team
            if hello.team is not None and hello.team not in taken
            else next(t for t in range(4) if t not in taken)
        )
        self.lobby.append(LobbySeat(hello.name, hello.pub, team))
        self.lobby[-1].link = self._link_hints.pop(self._hint_key(rid, hello.curve), None)
        self.driver.on_notice(f"{shown(hello.name)} joined ({self.fingerprint(hello.pub)})")
        return len(self.lobby) - 1

    def _seat_link(
        self,
        rid: bytes,
        curve: bytes,
        hello: wire.Hello,
        seat: int,
        fd: int,
        again: _Conn | None,
    ) -> None:
        """The link `rid` is `seat`'s now: at most LINKS_PER_ID links per identity (the oldest
        others go), and one message rate per seat, whichever of its links (nothing refills)."""
        now = self.now
        conn = _Conn(rid, curve, hello.pub, seat, now, fd=fd, since=now)
        conn.sync = Bucket(SYNC_RATE, SYNC_BURST, now)
        if again is not None and again.pub == hello.pub:
            conn.sync = again.sync  # a hello again refills nothing
        conn.msgs = self._seat_msgs.setdefault(seat, Bucket(LINK_MSGS_PER_S, LINK_MSGS_BURST, now))
        self.conns[rid] = conn
        info = self.fds.get(fd)
        if info is not None:
            info.bound = True
        mine = sorted(
            (c for c in self.conns.values() if c.pub == hello.pub and c.rid != rid),
            key=lambda c: c.since,
        )
        for extra in mine[: max(0, len(mine) - (LINKS_PER_ID - 1))]:
            if extra.fd >= 0:
                self._kick(extra.fd, "a newer link of the same identity")
            self._drop(extra.rid)
        self.seat_rid[seat] = rid
        self.lobby[seat].rid = rid
        self.lobby[seat].curve = curve
        self._last_heard = now
        self._seat_seen[seat] = now
        if seat in self._left:
            self._left.discard(seat)
            if self.session is not None and seat in self.session.resigned:
                # its key signs nothing any more: the stand-in plays on, computed by every peer
                self.driver.on_notice(f"{self._who(seat)} is back, to watch: it resigned")
            else:
                self.driver.on_notice(f"{self._who(seat)} is back")

    def _after_hello(self, rid: bytes, curve: bytes, hello: wire.Hello, seat: int) -> None:
        """Welcome the seat; in the lobby, tell everyone (and start when it is full); in the game,
        send the seat the log from what it has, our direct links' cards, and the seats' presence."""
        self._welcome(rid, curve, seat)
        s = self.session
        if s is None:
            self._broadcast(self._lobby_msg())
            self._send_link_hints()
            self._show_lobby()
            if len(self.lobby) == self.options.players:
                self._start_game()
            return
        have = min(hello.have, len(s.entries))
        self._send_entries(rid, have)
        if self.mesh is not None:
            self.mesh.relinked(seat)  # a new link: what it said it hears is stale
            for card in self.mesh.cards_for():
                self._send(rid, wire.pack("mesh", m=card))
        if hello.have > len(s.entries):
            self._send(rid, wire.pack("sync", **{"from": len(s.entries)}))
        self.presence(self.now, force=True)

    # ----- links started in the lobby (TRANSPORT.md §10.10) ----------------------------------
    def _hint_key(self, rid: bytes, curve: bytes) -> bytes:
        return curve if self.options.curve else rid

    def on_link_hint(self, rid: bytes, curve: bytes, msg: messages.Links) -> None:
        """A joiner's `links` before its hello: where its publisher will be. Kept (one per
        link, the last one, at most MAX_LINK_HINTS links) until its hello takes a seat; passed
        on, never checked: it is a hint, and the joiner's card decides at the genesis."""
        if self.session is not None or len(msg.l) != 1:
            self.dropped += 1
            log.info("dropped a links message (%s)", "game on" if self.session else "not one")
            return
        key = self._hint_key(rid, curve)
        self._link_hints.pop(key, None)
        while len(self._link_hints) >= MAX_LINK_HINTS:
            del self._link_hints[next(iter(self._link_hints))]
        self._link_hints[key] = msg.l[0]

    def _send_link_hints(self) -> None:
        """Tell each seated joiner that hinted (an older one never gets a `links`) where the
        other seated joiners' publishers are, whenever the lobby changes."""
        hinted = [(seat.rid, seat.link) for seat in self.lobby[1:] if seat.link is not None]
        for rid, own in hinted:
            others = [list(link) for r, link in hinted if r != rid and link != own]
            if rid is not None and others:
                self._send(rid, wire.pack("links", l=others))

    # ----- the lobby and presence ----------------------------------------------------------
    def presence(self, now: float, force: bool = False) -> None:
        """Forget links long dead, work out each seat's presence, tell the seats on a change."""
        for rid, conn in list(self.conns.items()):
            if now - conn.last_seen > 4 * LIVE_TIMEOUT:  # long dead: forget the link
                if conn.fd >= 0:
                    self._kick(conn.fd, "silent for too long")
                self._drop(rid)
        live = {
            c.seat
            for c in self.conns.values()
            if c.seat is not None and now - c.last_seen < LIVE_TIMEOUT
        }
        states = [SeatPresence("connected")]
        for i in range(1, len(self.lobby)):
            if i in self._left:
                states.append(SeatPresence("left"))
            elif i in live:
                states.append(SeatPresence("connected"))
            else:
                since = self._seat_seen.get(i, self._started_at)
                states.append(SeatPresence("lost", int(now - since)))
        if states != self.seats_state or force:
            self._set_seats(states)
            if self.session is not None:
                self._broadcast(
                    wire.pack(
                        "seats",
                        state=[st.state for st in states],
                        lost=[st.lost_for for st in states],
                    )
                )

    def prune_lobby(self, now: float) -> None:
        """Before the game starts, a joiner that left (bye, or silent) gives its seat back."""
        live = {c.seat for c in self.conns.values() if now - c.last_seen < 2 * LIVE_TIMEOUT}
        gone = [i for i in range(1, len(self.lobby)) if i not in live]
        if not gone:
            return
        for i in gone:
            self.driver.on_notice(f"{shown(self.lobby[i].name)} left the lobby")
        keep = [i for i in range(len(self.lobby)) if i not in gone]
        renumber = {old: new for new, old in enumerate(keep)}
        self.lobby = [self.lobby[i] for i in keep]
        for rid, conn in list(self.conns.items()):
            if conn.seat in renumber:
                conn.seat = renumber[conn.seat]
            else:
                del self.conns[rid]
        self.seat_rid = {renumber[s]: r for s, r in self.seat_rid.items() if s in renumber}
        self._broadcast(self._lobby_msg())
        self._show_lobby()
