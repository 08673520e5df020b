"""No trusted relay: direct links between every pair of peers, heads, pull gossip, fork and
withholding detection, and proofs of cheating that reach every peer (protocol/TRANSPORT.md §10).

Once a peer holds the genesis it also **publishes** (a CURVE-server `PUB` socket of its own, in its
own ZeroMQ context) and makes a **card**: its endpoint and the publisher's CURVE key, signed with
its seat's Ed25519 key and bound to the game id, so no relay can substitute either. Cards travel
through the host (tunnelled in a `mesh` transport message) and over every direct link. For every
card it learns, a peer connects one `SUB` to that seat's publisher with the card's key as the
CURVE server key: only the holder of the matching secret key can complete that handshake, so all
that socket receives comes from that seat; nothing the sender chooses is trusted for it.
Publishing fans one send out to every subscriber (each extra send is an I/O-thread wake-up on the
critical path); a request for one seat (`get`) names it, and only that seat answers.

Over its publisher a peer sends the entries it writes itself (the author is never more than
one hop from anyone), its **head** (seq and hash of its last entry) on every message and at
least every 0.5 s, and which seats it hears directly. A peer that sees a head it cannot place
fetches the entry from whoever advertised it (`get`): the same seq with another hash, or a head
beyond its own log. An entry that does not chain onto our log makes us fetch its predecessor
from the same peer, so two chains that split are walked back to the split, where the session
sees two signed entries of one author at one seq with one predecessor: a fork proof. A peer that
advertises an entry and does not deliver it when asked, and an author whose entry reaches us
only through others, are named (a notice, not a proof: nobody can prove a message was not sent).

Claim votes and resignation statements (PROTOCOL.md §10.2, §10.4) travel here too, besides the
host link (`vote`, `resign`): the voter publishes its own vote every second, the resigner its
statement as it leaves, and every peer passes a resignation it accepts on once, so a host that
drops them cannot keep a stalled game from ending or hide a resignation. The session checks them
exactly as when the host relays them. A resigned seat has no peer any more (every peer computes
its stand-in's entries, PROTOCOL.md §10.4): a card for it is dropped, whatever key signs it.

When the session stops on a cheat, the proof (the signed entries) is written next to the log and
sent to every peer we can reach; a peer that receives a proof checks it itself against its own
log, keeps it, passes it on and stops with the same verdict.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgpack
import zmq
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from zmq.utils import z85

from zoo_p2p.errors import RemoteProtocolError, ZooError
from zoo_p2p.net import evidence, wire
from zoo_p2p.net.invite import InviteError, format_address, parse_address
from zoo_p2p.protocol.encoding import MAX_ENTRY_SIZE, decode_entry
from zoo_p2p.text import seat_word, shown

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

__all__ = [
    "Card",
    "FixedEndpoints",
    "Mesh",
    "MeshOwner",
    "Verdict",
    "advertise_for",
    "card_signed_bytes",
    "check_card",
    "endpoint",
    "endpoint_ok",
    "free_port",
    "pack",
    "unpack",
]

log = logging.getLogger("zoo_p2p.net.mesh")

DOMAIN_CARD = b"zoo-p2p/card/v1"  # a card with one endpoint (a string)
DOMAIN_CARD_EPS = b"zoo-p2p/card/v2"  # a card with 2..MAX_EPS endpoints (a list)
MAX_EPS = 4  # endpoints in one card (e.g. the LAN address and the router's mapped one)
HEAD_EVERY = 0.5  # seconds between heads on an idle direct link
LIVE = 2.5  # a direct link not heard from for this long is down
ASK_AGAIN = 0.25  # re-ask one peer for one seq at most this often
HOLD_BACK = 1.0  # an advertised entry not delivered this long after we asked: named
GAP_GRACE = 0.02  # seconds an entry may be missing behind a newer one before we ask for it
MAX_GET = 64  # entries in one `get` reply
GETS_PER_S = 40.0  # `get` requests served per peer and second (token bucket, burst 40)
PROOFS_PER_S = 1.0  # received proofs checked per peer and second (burst 2)
STATEMENTS_PER_S = 10.0  # votes and resignations taken per peer and second (burst 20)
MAX_STATEMENT = 4096  # bytes in one vote or resignation statement
MSGS_PER_S = 2000.0  # messages read per peer and second; beyond it they are dropped
MAX_EP = 128  # characters in an endpoint
MESH_HWM = 1000  # messages queued per direct link (then new ones are dropped)
TRACKED = 64  # pending asks we watch
WATCHED = 1024  # recent entries whose delivery we watch (who sent them to us)


def pack(kind: str, **fields: Any) -> bytes:
    """Encode one mesh message (checked, so we never send junk)."""
    msg = {"t": kind, **fields}
    _check(msg)
    return bytes(msgpack.packb(msg, use_bin_type=True))


def unpack(data: bytes) -> dict[str, Any]:
    """Decode and check one mesh message; `wire.WireError` on anything odd."""
    if len(data) > wire.MAX_FRAME:
        raise wire.WireError("mesh frame too large")
    try:
        msg = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_bin_len=wire.MAX_FRAME,
            max_str_len=1024,
            max_array_len=wire.MAX_BATCH,
            max_map_len=8,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises many kinds; all mean garbage
        raise wire.WireError(f"mesh: not msgpack ({type(exc).__name__})") from None
    if not isinstance(msg, dict):
        raise wire.WireError("mesh: not a map")
    _check(msg)
    return msg


def _u32(x: Any) -> bool:
    return type(x) is int and 0 <= x < 2**32


def _bin(x: Any, n: int) -> bool:
    return type(x) is bytes and len(x) == n


def _entries_ok(e: Any, most: int) -> bool:
    return (
        isinstance(e, list)
        and len(e) <= most
        and all(type(x) is bytes and 0 < len(x) <= MAX_ENTRY_SIZE for x in e)
    )


def _head_ok(h: Any) -> bool:
    return isinstance(h, list) and len(h) == 2 and _u32(h[0]) and _bin(h[1], 32)


_FIELDS = {
    "card": {"seat", "ep", "skey", "sig"},
    "ent": {"from", "e", "h"},
    "head": {"h", "up"},
    "get": {"from", "n", "to"},
    "proof": {"p"},
    "vote": {"v"},  # a claim vote (PROTOCOL.md §10.2), so a claim needs no host (p2)
    "resign": {"r"},  # a resignation statement (PROTOCOL.md §10.4), never the stand-in's key
}


def _check(msg: dict[str, Any]) -> None:
    kind = msg.get("t")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise wire.WireError(f"mesh: unknown message type {shown(kind, 20)!r}")
    if set(msg) - {"t"} != _FIELDS[kind]:
        raise wire.WireError(f"mesh {kind}: wrong fields")
    ok = True
    if kind == "card":
        ok = (
            _u32(msg["seat"])
            and msg["seat"] < 4
            and _eps_ok(msg["ep"])
            and _bin(msg["skey"], 32)
            and _bin(msg["sig"], 64)
        )
    elif kind == "ent":
        ok = _u32(msg["from"]) and _entries_ok(msg["e"], wire.MAX_BATCH) and _head_ok(msg["h"])
    elif kind == "head":
        up = msg["up"]
        ok = (
            _head_ok(msg["h"])
            and isinstance(up, list)
            and len(up) <= 4
            and all(type(u) is bool for u in up)
        )
    elif kind == "get":
        ok = (
            _u32(msg["from"])
            and type(msg["n"]) is int
            and 1 <= msg["n"] <= MAX_GET
            and _u32(msg["to"])
            and msg["to"] < 4
        )
    elif kind == "proof":
        ok = type(msg["p"]) is bytes and 0 < len(msg["p"]) <= wire.MAX_FRAME - 64
    elif kind == "vote":
        ok = type(msg["v"]) is bytes and 0 < len(msg["v"]) <= MAX_STATEMENT
    elif kind == "resign":
        ok = type(msg["r"]) is bytes and 0 < len(msg["r"]) <= MAX_STATEMENT
    if not ok:
        raise wire.WireError(f"mesh {kind}: a field is out of range or mistyped")


def endpoint(host: str, port: int) -> str:
    """`tcp://HOST:PORT` in the one form a card may carry (IPv6 in brackets, names lowercase);
    `InviteError` if `host` or `port` is not one a card may carry."""
    return "tcp://" + format_address(parse_address(f"{_bracketed(host)}:{port}"))


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def endpoint_ok(ep: Any) -> bool:
    """True for `tcp://HOST:PORT` exactly as `endpoint()` writes it: an IPv4 address, a
    bracketed IPv6 address without zone or a DNS name (never a wildcard or multicast address),
    and a port 1-65535, in at most MAX_EP printable characters."""
    if not isinstance(ep, str) or len(ep) > MAX_EP or not ep.startswith("tcp://"):
        return False
    try:
        return endpoint(*_split(ep[6:])) == ep
    except (InviteError, ValueError):
        return False


def _split(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    if not (port.isascii() and port.isdigit()) or len(port) > 5:
        raise ValueError(port)
    return host, int(port)


def _eps_ok(ep: Any) -> bool:
    """A card's `ep`: one endpoint, or a list of 2..MAX_EPS distinct ones."""
    if isinstance(ep, list):
        return 2 <= len(ep) <= MAX_EPS and len(set(ep)) == len(ep) and all(map(endpoint_ok, ep))
    return endpoint_ok(ep)


def card_signed_bytes(game_id: bytes, seat: int, ep: str | list[str], skey: bytes) -> bytes:
    """What a card's Ed25519 signature covers: the game, the seat, the endpoint(s) and the key.
    One endpoint is signed as a string under the v1 domain, several as a list under v2."""
    if isinstance(ep, str):
        return bytes(msgpack.packb([DOMAIN_CARD, game_id, seat, ep, skey], use_bin_type=True))
    return bytes(msgpack.packb([DOMAIN_CARD_EPS, game_id, seat, ep, skey], use_bin_type=True))


@dataclass(frozen=True)
class Card:
    """A seat's direct-link address(es), checked against that seat's key from the genesis."""

    seat: int
    ep: str  # the first endpoint
    skey: bytes  # CURVE public key of its publisher (it is the CURVE server there)
    more: tuple[str, ...] = ()  # the other endpoints of a multi-endpoint card, in its order

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Every endpoint of the card: a subscriber connects to each (TRANSPORT.md §10.2)."""
        return (self.ep, *self.more)

    def wire_ep(self) -> str | list[str]:
        """The card's `ep` field: a string for one endpoint, a list for several."""
        return self.ep if not self.more else list(self.endpoints)


class MoreEndpoints(Protocol):
    """Endpoints for our card that are known a little later (a router's port mapping)."""

    def ready(self) -> bool:
        """True once `endpoints()` is final (mapped, failed or given up within its bound)."""
        ...

    def endpoints(self) -> list[tuple[str, int]]:
        """(address, port) pairs that forward to our publisher's port."""
        ...

    def note(self) -> list[str]:
        """Lines to tell the player once it is ready (why there is no mapping), or []. The
        link tells them as soon as they are known, in the lobby too (`Link.tell_mapping`);
        the mesh only takes the endpoints."""
        ...


@dataclass(frozen=True)
class FixedEndpoints:
    """`MoreEndpoints` known from the start (the host maps its ports before the game)."""

    eps: tuple[tuple[str, int], ...] = ()

    def ready(self) -> bool:
        """Always ready."""
        return True

    def endpoints(self) -> list[tuple[str, int]]:
        """The endpoints given."""
        return list(self.eps)

    def note(self) -> list[str]:
        """Nothing to say."""
        return []


def free_port(bind: str) -> int:
    """A TCP port free right now on `bind` (for a publisher whose port is mapped beforehand)."""
    import socket

    host = bind.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
    return port


def check_card(pub: Ed25519PublicKey, game_id: bytes, msg: dict[str, Any]) -> Card | None:
    """The card in `msg` (an unpacked `card` message) if `pub` signed it for this game, else None.

    A relay cannot substitute an endpoint or a key: every field is under the seat's signature.
    """
    ep = msg["ep"]
    data = card_signed_bytes(game_id, msg["seat"], ep, msg["skey"])
    try:
        pub.verify(msg["sig"], data)
    except InvalidSignature:
        return None
    if isinstance(ep, str):
        return Card(msg["seat"], ep, msg["skey"])
    return Card(msg["seat"], ep[0], msg["skey"], tuple(ep[1:]))


@dataclass(frozen=True)
class Verdict:
    """Who a proof convicts (0-based seat) and why, and where we keep the proof."""

    seat: int
    reason: str
    saved: Path | None


class MeshOwner(Protocol):
    """What the mesh needs from the peer that owns it (a `zoo_p2p.net.peer.Link`)."""

    key: Ed25519PrivateKey
    session: Session | None
    poller: zmq.Poller

    def deliver(self, start: int, entries: list[bytes], source: str) -> int | None: ...
    def mesh_tunnel(self, data: bytes, to: int | None) -> None: ...
    def mesh_notice(self, text: str) -> None: ...
    def mesh_log_path(self) -> Path | None: ...
    def mesh_vote(self, seat: int, data: bytes) -> None: ...
    def mesh_resign(self, seat: int, data: bytes) -> None: ...

    @property
    def stopped(self) -> Any: ...
    def mesh_stop(self, verdict: Verdict) -> None: ...


class _Bucket:
    """A token bucket: `rate` per second, at most `burst` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, burst, time.monotonic()

    def take(self, now: float) -> bool:
        # (a `now` read just before the bucket was made must not cost it part of its burst)
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)
        self.at = max(self.at, now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class _Peer:
    """What we know about one other seat's direct links."""

    card: Card
    subs: dict[str, zmq.Socket[bytes]]  # endpoint -> SUB still in the race (§10.2)
    rate: _Bucket
    sub: zmq.Socket[bytes] | None = None  # the SUB that completed first: the only one read
    via: str | None = None  # its endpoint
    heard: float = 0.0  # last message from this seat's publisher
    first_heard: float = 0.0  # first message from this seat's publisher (0: never)
    head: tuple[int, bytes] | None = None  # its last advertised head
    up: tuple[bool, ...] = ()  # which seats it said it hears directly (with `up_at`)
    up_at: float = 0.0


class Mesh:
    """One peer's direct links and everything that rides on them (see the module docstring)."""

    def __init__(
        self,
        owner: MeshOwner,
        *,
        bind: str | Sequence[str],
        advertise: str | Sequence[str],
        curve: bool = True,
        port: int = 0,
        more: MoreEndpoints | None = None,
        fresh: bool = False,
        ctx: zmq.Context[zmq.Socket[bytes]] | None = None,
    ) -> None:
        s = owner.session
        assert s is not None and s.seat is not None
        self.owner = owner
        self.session: Session = s
        self.seat: int = s.seat
        self.n = s.n
        self.game_id = s.game_id
        self.curve = curve
        self._pubs = [Ed25519PublicKey.from_public_bytes(si.public_key) for si in s.seats]
        # the owner's context when it gives one: one I/O thread for the host link and the mesh
        # (a thread hop less per entry on a busy machine); else our own
        self._own_ctx = ctx is None
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context() if ctx is None else ctx
        self.pub = self.ctx.socket(zmq.PUB)
        self._limits(self.pub)
        spub, ssec = zmq.curve_keypair()
        self._client = zmq.curve_keypair()  # what our subscribers authenticate with
        if curve:
            self.pub.curve_secretkey = ssec
            self.pub.curve_publickey = spub
            self.pub.curve_server = True
        binds = [bind] if isinstance(bind, str) else list(bind)
        self._advertise = [advertise] if isinstance(advertise, str) else list(advertise)
        self._more = more
        if any(":" in b for b in binds):
            self.pub.setsockopt(zmq.IPV6, 1)
        self.port = self._bind(binds, port)
        self._skey = z85.decode(spub)
        self.card: Card | None = None  # ours (made again when `more` is ready)
        self.card_msg = b""
        self.cards: dict[int, bytes] = {}  # seat -> card message (ours too)
        self.peers: dict[int, _Peer] = {}
        self._by_sub: dict[Any, int] = {}
        self._retired: set[Any] = set()  # subscriptions closed since the last tick
        self._get_rate: dict[int, _Bucket] = {}
        self._proof_rate: dict[int, _Bucket] = {}
        self._statement_rate: dict[int, _Bucket] = {}
        self._asked: dict[tuple[int, int], float] = {}  # (peer seat, seq) -> first asked
        self._ask_last: dict[tuple[int, int], float] = {}
        self._named: set[tuple[str, int]] = set()
        self._accepted_at: dict[int, float] = {}  # seq -> when we accepted it
        self._sources: dict[int, set[int]] = {}  # seq -> seats it reached us from
        self._early: dict[int, dict[int, bytes]] = {}  # seq not held -> seat -> hash of copy
        self.verdict: Verdict | None = None
        self._last_heads = 0.0
        self._told_up: list[bool] = []  # the `up` of our last head
        self._gaps: dict[tuple[int, int], float] = {}  # (seat, missing seq) -> since when
        # no publisher of our seat ran before ours in this game (we wrote the genesis or took
        # the seat from it, and hold no entry of our seat that another process signed): every
        # report that a seat hears us is about this publisher (see `hears`)
        self.fresh = fresh
        self.dropped = 0
        self.direct_new = 0  # entries that reached our log first over a direct link
        self._greet = False  # publish every card we know at the next tick
        self.started = time.monotonic()
        self._more_done = False  # `more` was ready and taken into our card
        self._make_card()

    def _bind(self, binds: list[str], port: int) -> int:
        """Bind our publisher on every address of `binds` with one port (`port`, or a random
        one if 0 or taken: then `more`, mapped to `port`, is of no use and dropped)."""
        first, rest = binds[0], binds[1:]
        if port:
            try:
                self.pub.bind(f"tcp://{first}:{port}")
            except zmq.ZMQError as exc:
                log.warning("cannot listen on port %d for direct links (%s)", port, exc)
                self._more, port = None, 0
        if not port:
            port = self.pub.bind_to_random_port(f"tcp://{first}")
        for b in rest:
            try:
                self.pub.bind(f"tcp://{b}:{port}")
            except zmq.ZMQError as exc:
                log.info("direct links: cannot also listen on %s (%s)", shown(b), exc)
        return port

    def _make_card(self) -> None:
        """Sign our card over every endpoint we can be reached at and send it to the host: our
        own addresses first, then the mapped ones once ready, at most MAX_EPS in all with room
        kept for a pending mapping (the one that reaches us from outside). A card made again
        adds endpoints only, so it replaces the first everywhere (§10.2)."""
        mapped: list[tuple[str, int]] = []
        if self._more is not None and self._more.ready():
            self._more_done = True
            mapped = self._more.endpoints()[: MAX_EPS - 1]
        room = MAX_EPS - (len(mapped) if self._more_done else 1 if self._more else 0)
        own = self._endpoints([(h, self.port) for h in self._advertise])[:room]
        eps = own + [ep for ep in self._endpoints(mapped) if ep not in own]
        if not eps:  # pragma: no cover - our own address is always one
            eps = [f"tcp://127.0.0.1:{self.port}"]
        card = Card(self.seat, eps[0], self._skey, tuple(eps[1:]))
        if card == self.card:
            return
        sig = self.owner.key.sign(
            card_signed_bytes(self.game_id, self.seat, card.wire_ep(), self._skey)
        )
        self.card = card
        self.card_msg = pack("card", seat=self.seat, ep=card.wire_ep(), skey=self._skey, sig=sig)
        self.cards[self.seat] = self.card_msg
        self._greet = True
        log.info("direct links: our card says %s", ", ".join(card.endpoints))
        self.owner.mesh_tunnel(self.card_msg, None)

    @staticmethod
    def _endpoints(pairs: list[tuple[str, int]]) -> list[str]:
        """`endpoint()` of each (host, port), distinct, leaving out (and logging) bad ones."""
        eps: list[str] = []
        for h, p in pairs:
            try:
                ep = endpoint(h, p)
            except InviteError as exc:
                log.warning("direct links: not advertising %s: %s", shown(h, 80), exc)
                continue
            if ep not in eps:
                eps.append(ep)
        return eps

    @staticmethod
    def _limits(sock: zmq.Socket[bytes]) -> None:
        sock.setsockopt(zmq.LINGER, 500)
        sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_FRAME)
        sock.setsockopt(zmq.SNDHWM, MESH_HWM)
        sock.setsockopt(zmq.RCVHWM, MESH_HWM)
        sock.setsockopt(zmq.HEARTBEAT_IVL, 1000)
        sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3000)
        sock.setsockopt(zmq.HEARTBEAT_TTL, 6000)

    # ----- names ---------------------------------------------------------------------------
    def name(self, seat: int) -> str:
        """`seat 2 (Blue)`: how people read a seat."""
        if 0 <= seat < self.n:
            return seat_word(seat, self.session.seats[seat].team.label)
        return seat_word(seat)

    # ----- state -----------------------------------------------------------------------------
    def _head(self) -> tuple[int, bytes]:
        entries = self.session.entries
        return len(entries) - 1, hashlib.sha256(entries[-1]).digest()

    def _up(self, now: float) -> list[bool]:
        return [
            i == self.seat or (i in self.peers and now - self.peers[i].heard < LIVE)
            for i in range(self.n)
        ]

    def hears(self, seat: int, author: int, now: float | None = None) -> bool:
        """True when `seat` told us lately that it hears `author` directly."""
        now = time.monotonic() if now is None else now
        p = self.peers.get(seat)
        if seat == author:
            return True
        if p is None or now - p.up_at > LIVE or author >= len(p.up):
            return False
        if author == self.seat and now - self.started < 2 * LIVE and not self.fresh:
            # "it hears us" may still be about a publisher of ours from before a restart:
            # trust it only once any such report has expired
            return False
        return p.up[author]

    def relay_needed(self, seat: int, entries: list[bytes]) -> bool:
        """Whether a relay (the host) must still pass `entries` on to `seat`: unless `seat`
        hears every one of their authors directly, it must (the fallback path)."""
        now = time.monotonic()
        for raw in entries:
            try:
                author = decode_entry(raw).seat
            except RemoteProtocolError:
                return True
            if not self.hears(seat, author, now):
                return True
        return False

    # ----- sending ---------------------------------------------------------------------------
    def publish(self, data: bytes) -> bool:
        """Publish one mesh message to every seat subscribed to us (never blocks)."""
        data = self.outgoing(data)
        if not data:
            return False
        try:
            self.pub.send(data, flags=zmq.NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    def outgoing(self, data: bytes) -> bytes:
        """Everything we publish passes here (a test's hostile peer overrides it)."""
        return data

    def push_own(self, start: int, entries: list[bytes]) -> None:
        """Publish the entries we just wrote (numbered from `start`) to every seat directly:
        one send, which ZeroMQ fans out to every subscriber."""
        if not entries:
            return
        data = pack("ent", **{"from": start, "e": entries, "h": list(self._head())})
        self.publish(data)

    def publish_statement(self, kind: str, data: bytes) -> None:
        """Publish a claim vote (`vote`) or a resignation statement (`resign`) on our direct
        links; one that does not fit a mesh message is not sent (the host link still is)."""
        try:
            msg = pack(kind, **({"v": data} if kind == "vote" else {"r": data}))
        except wire.WireError:
            log.warning("a %s statement of %d bytes does not fit the mesh", kind, len(data))
            return
        self.publish(msg)

    def _broadcast_proof(self, proof: bytes, skip: int | None = None) -> None:
        try:
            data = pack("proof", p=proof)
        except wire.WireError:  # a proof longer than one frame: it stays on our disk only
            log.warning("the proof (%d bytes) is too large to send in one frame", len(proof))
            return
        self.publish(data)
        self.owner.mesh_tunnel(data, None)

    # ----- cards -----------------------------------------------------------------------------
    def _on_card(self, msg: dict[str, Any]) -> None:
        seat = msg["seat"]
        if seat >= self.n or seat == self.seat:
            return
        if seat in self.session.resigned:
            # nobody plays that seat (every peer computes its stand-in) and its key is public
            log.info("a card for %s, which resigned: nobody to link to", self.name(seat))
            return
        card = check_card(self._pubs[seat], self.game_id, msg)
        if card is None:
            self.dropped += 1
            log.warning("dropped a card for %s with a bad signature", self.name(seat))
            return
        old = self.peers.get(seat)
        if old is not None and old.card.skey == card.skey:
            if set(card.endpoints) > set(old.card.endpoints):
                self._grown(old, card, msg["sig"])  # it learned another address of its own
            return  # the same card, or an older one (a replay takes no endpoint away)
        if old is not None:  # that seat restarted: new key, new endpoint
            self._close_sub(old)
        # one SUB per signed endpoint, in a race: the first to hear from the seat's publisher
        # (its CURVE handshake completed) is kept, the others closed (§10.2)
        subs: dict[str, zmq.Socket[bytes]] = {}
        for ep in card.endpoints:
            sub = self._subscribe(seat, ep, card.skey)
            if sub is not None:
                subs[ep] = sub
        if not subs:
            return
        self.peers[seat] = _Peer(card, subs, _Bucket(MSGS_PER_S, MSGS_PER_S))
        for sub in subs.values():
            self._by_sub[sub] = seat
            self.owner.poller.register(sub, zmq.POLLIN)
        self.cards[seat] = pack(
            "card", seat=seat, ep=card.wire_ep(), skey=card.skey, sig=msg["sig"]
        )
        self.owner.mesh_tunnel(self.cards[seat], None)  # the host passes cards on; joiners no-op
        if self.seat == 0:
            # and tells that seat every card it holds: it may have had none of them (a seat
            # whose publisher started late, after its hello)
            for other, msg_other in self.cards.items():
                if other != seat:
                    self.owner.mesh_tunnel(msg_other, seat)
        self._greet = True  # gossip the new card on our publisher too
        log.info("linking directly to %s at %s", self.name(seat), shown(", ".join(card.endpoints)))

    def _grown(self, p: _Peer, card: Card, sig: bytes) -> None:
        """A seat's card with more endpoints under the same key: keep the link we have, or
        add the new endpoints to the race if none has completed yet."""
        seat = card.seat
        if p.sub is None:
            for ep in card.endpoints:
                if ep not in p.subs:
                    sub = self._subscribe(seat, ep, card.skey)
                    if sub is not None:
                        p.subs[ep] = sub
                        self._by_sub[sub] = seat
                        self.owner.poller.register(sub, zmq.POLLIN)
        p.card = card
        self.cards[seat] = pack("card", seat=seat, ep=card.wire_ep(), skey=card.skey, sig=sig)
        self.owner.mesh_tunnel(self.cards[seat], None)
        self._greet = True
        log.info("%s is also at %s", self.name(seat), shown(", ".join(card.endpoints)))

    def _subscribe(self, seat: int, ep: str, skey: bytes) -> zmq.Socket[bytes] | None:
        sub = self.ctx.socket(zmq.SUB)
        self._limits(sub)
        sub.setsockopt(zmq.RECONNECT_IVL, 100)
        sub.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        sub.setsockopt(zmq.IPV6, 1)  # a card may carry an [IPv6] endpoint (issue 11)
        if self.curve:
            # only the holder of the card's secret key can complete this handshake: everything
            # this socket receives comes from that seat
            sub.curve_publickey, sub.curve_secretkey = self._client
            sub.curve_serverkey = z85.encode(skey)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        try:
            sub.connect(ep)
        except zmq.ZMQError as exc:
            log.warning("cannot link to %s at %s: %s", self.name(seat), shown(ep), exc)
            sub.close(linger=0)
            return None
        return sub

    def _close_sub(self, p: _Peer) -> None:
        for sub in list(p.subs.values()):
            self._drop_sub(sub)
        p.subs.clear()

    def _drop_sub(self, sub: zmq.Socket[bytes]) -> None:
        with contextlib.suppress(KeyError):
            self.owner.poller.unregister(sub)
        self._by_sub.pop(sub, None)
        self._retired.add(sub)  # the poll that is being handled may still name it
        sub.close(linger=0)

    def _won(self, p: _Peer, sock: zmq.Socket[bytes]) -> None:
        """`sock` heard from the seat first: keep it, close the rest of the race."""
        for ep, sub in list(p.subs.items()):
            if sub is sock:
                p.sub, p.via = sub, ep
            else:
                self._drop_sub(sub)
                del p.subs[ep]
        log.info("direct link up: we hear %s at %s", self.name(p.card.seat), shown(p.via))

    def links(self) -> dict[int, str | None]:
        """For every other seat whose card we hold: the endpoint we hear it at directly (its
        link completed), or None (we hear it only through the host)."""
        return {seat: p.via for seat, p in sorted(self.peers.items())}

    def relinked(self, seat: int) -> None:
        """`seat` said hello again on the host link (it may have restarted): until it reports
        anew, assume it hears nobody directly, so the host relays everything to it."""
        p = self.peers.get(seat)
        if p is not None:
            p.up, p.up_at = (), 0.0

    def cards_for(self) -> list[bytes]:
        """Every card we know (the host sends them to a joiner that says hello)."""
        return list(self.cards.values())

    # ----- receiving -------------------------------------------------------------------------
    def owns(self, sock: Any) -> bool:
        """True if `sock` is one of our subscriptions (or was, until this poll was handled)."""
        return sock in self._by_sub or sock in self._retired

    def on_socket(self, sock: Any) -> None:
        """Drain one subscription (at most 1000 messages per call, so the loop stays fair)."""
        seat = self._by_sub.get(sock)
        if seat is None:
            return
        p = self.peers[seat]
        if p.sub is None:
            self._won(p, sock)
        elif sock is not p.sub:  # pragma: no cover - the losers are closed when one wins
            return
        for _ in range(1000):
            try:
                data = sock.recv(flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            now = time.monotonic()
            if not p.rate.take(now):
                self.dropped += 1
                continue
            try:
                msg = unpack(data)
            except wire.WireError as exc:
                self.dropped += 1
                log.warning("dropped a message from %s: %s", self.name(seat), exc.reason)
                continue
            if not p.first_heard:
                self._greet = True  # a new link: tell it every card we know
            self._heard_from(p, now)
            if msg["t"] == "card":
                self._on_card(msg)
                if seat not in self.peers or self.peers[seat] is not p:
                    return  # that seat's link was replaced
                continue
            self._on_msg(seat, msg, now)
            if self.verdict is not None and self._stopped():
                return

    @staticmethod
    def _heard_from(p: _Peer, now: float) -> None:
        p.heard = now
        if not p.first_heard:
            p.first_heard = now

    def _stopped(self) -> bool:
        return self.owner.stopped is not None

    def on_tunnel(self, seat: int | None, data: bytes) -> None:
        """A mesh message that came through the host link (cards and proofs travel this way)."""
        try:
            msg = unpack(data)
        except wire.WireError as exc:
            self.dropped += 1
            log.warning("dropped a tunnelled mesh message: %s", exc.reason)
            return
        if msg["t"] == "card":
            self._on_card(msg)
        elif msg["t"] == "proof" and seat is not None:
            self._on_proof(seat, msg, time.monotonic())
        elif msg["t"] == "head" and seat is not None and seat in self.peers:
            self._on_head(seat, msg["h"], time.monotonic())

    def heard(self, seat: int, start: int, entries: list[bytes]) -> None:
        """Entries numbered from `start` reached us from `seat` (direct or over the host link)."""
        held = self.session.entries
        for i, raw in enumerate(entries):
            seq = start + i
            if seq < len(held) and held[seq] == raw and seq in self._accepted_at:
                self._sources.setdefault(seq, set()).add(seat)
            elif seq >= len(held) and (seq in self._early or len(self._early) < TRACKED):
                # it came before its predecessor (the owner keeps it): who sent it counts
                # once it is appended, else its author would be named for not sending it
                self._early.setdefault(seq, {})[seat] = hashlib.sha256(raw).digest()

    def _on_msg(self, seat: int, msg: dict[str, Any], now: float) -> None:
        kind = msg["t"]
        if kind == "ent":
            self._on_head(seat, msg["h"], now, fetch=False)
            self._on_entries(seat, msg["from"], msg["e"], now)
        elif kind == "head":
            p = self.peers[seat]
            p.up, p.up_at = tuple(msg["up"]), now
            self._on_head(seat, msg["h"], now)
        elif kind == "get":
            if msg["to"] != self.seat:
                return  # a request to another seat (we hear every request its author publishes)
            bucket = self._get_rate.setdefault(seat, _Bucket(GETS_PER_S, GETS_PER_S))
            if not bucket.take(now):
                self.dropped += 1
                return
            start = msg["from"]
            batch = self.session.entries[start : start + msg["n"]]
            if batch:
                self.publish(pack("ent", **{"from": start, "e": batch, "h": list(self._head())}))
        elif kind == "proof":
            self._on_proof(seat, msg, now)
        elif kind in ("vote", "resign"):
            # a signature check each, so bounded apart from the message rate (§10.6)
            bucket = self._statement_rate.setdefault(
                seat, _Bucket(STATEMENTS_PER_S, 2 * STATEMENTS_PER_S)
            )
            if not bucket.take(now):
                self.dropped += 1
                return
            if kind == "vote":
                self.owner.mesh_vote(seat, msg["v"])
            else:
                self.owner.mesh_resign(seat, msg["r"])

    def _on_entries(self, seat: int, start: int, entries: list[bytes], now: float) -> None:
        s = self.session
        before = len(s)
        for i in range(len(entries)):
            self._asked.pop((seat, start + i), None)
        held = s.entries
        if entries and 0 < start <= len(held):
            try:
                prev = decode_entry(entries[0]).prev
            except RemoteProtocolError:
                prev = b""
            if prev != hashlib.sha256(held[start - 1]).digest():
                # it does not chain onto our log: fetch its predecessor from the same peer,
                # walking back until the two chains meet (there the session sees the fork)
                self._ask(seat, start - 1, now, count=1)
                if start == len(held):
                    return
        gap = self.owner.deliver(start, entries, self.name(seat))
        self.direct_new += len(self.session) - before
        self._note_accepted(before, now)
        self.heard(seat, start, entries)
        if gap is not None:
            # the missing entry is most often on its way from its author (a direct link can
            # overtake another): ask only if it is still missing after GAP_GRACE (`tick`);
            # the owner keeps the newer entry meanwhile
            self._gaps.setdefault((seat, gap), now)

    def _note_accepted(self, before: int, now: float) -> None:
        after = len(self.session)
        held = self.session.entries if self._early else []
        for seq in range(before, after):
            self._accepted_at[seq] = now
            for seat, digest in self._early.pop(seq, {}).items():
                if hashlib.sha256(held[seq]).digest() == digest:
                    self._sources.setdefault(seq, set()).add(seat)
        if self._early:
            self._early = {k: v for k, v in self._early.items() if k >= after}
        if len(self._accepted_at) > WATCHED:
            for seq in sorted(self._accepted_at)[: len(self._accepted_at) - WATCHED]:
                self._accepted_at.pop(seq, None)
                self._sources.pop(seq, None)

    def _on_head(self, seat: int, h: list[Any], now: float, *, fetch: bool = True) -> None:
        seq, digest = h[0], h[1]
        p = self.peers[seat]
        p.head = (seq, digest)
        if not fetch:
            return
        held = self.session.entries
        if seq < len(held):
            if hashlib.sha256(held[seq]).digest() != digest:
                self._ask(seat, seq, now, count=1)  # same seq, another entry: fetch it
        else:
            self._ask(seat, len(held), now)  # it is ahead of us: fetch what it has

    def _ask(self, seat: int, seq: int, now: float, count: int = MAX_GET) -> None:
        if seq < 1 or self.verdict is not None:
            return
        k = (seat, seq)
        if now - self._ask_last.get(k, 0.0) < ASK_AGAIN:
            return
        self._ask_last[k] = now
        if len(self._ask_last) > 4 * TRACKED:
            self._ask_last = {kk: t for kk, t in self._ask_last.items() if now - t < 2.0}
        if len(self._asked) < TRACKED:
            self._asked.setdefault(k, now)
        self.publish(pack("get", **{"from": seq, "n": count, "to": seat}))

    # ----- proofs ----------------------------------------------------------------------------
    def on_cheat(self, offending: bytes) -> Verdict | None:
        """Our session stopped on a cheat: build the proof, check it as anyone would, keep it
        next to our log and send it to every peer we can reach."""
        if self.verdict is not None:
            return self.verdict
        try:
            proof = evidence.make_proof(self.session.entries, offending)
            conviction = evidence.check(proof, self.session.entries[0])
        except (ValueError, RemoteProtocolError) as exc:
            log.warning("our own proof does not check: %s", exc)
            return None
        self.verdict = Verdict(conviction.seat, conviction.reason, self._keep(proof))
        self._broadcast_proof(proof)
        return self.verdict

    def on_rejected(self, raw: bytes, exc: RemoteProtocolError) -> None:
        """Our session refused `raw` without stopping (an illegal move, a lying result, an entry
        out of turn…). If its author's own signature on our chain proves the fault, it is a
        cheat like any other: proof, verdict, stop."""
        if self.verdict is not None or evidence.convicted_by(self.session, raw, exc) is None:
            return
        verdict = self.on_cheat(raw)
        if verdict is not None:
            self.owner.mesh_stop(verdict)

    def _keep(self, proof: bytes) -> Path | None:
        path = self.owner.mesh_log_path()
        if path is None:
            return None
        try:
            evidence.keep(path, proof)
        except (OSError, ZooError) as exc:
            self.owner.mesh_notice(f"could not save the proof next to the log: {exc}")
            return None
        saved: Path = evidence.proofs_path(path)
        return saved

    def _on_proof(self, seat: int, msg: dict[str, Any], now: float) -> None:
        if self.verdict is not None:
            return
        bucket = self._proof_rate.setdefault(seat, _Bucket(PROOFS_PER_S, 2))
        if not bucket.take(now):
            self.dropped += 1
            return
        try:
            conviction = evidence.check(msg["p"], self.session.entries[0])
        except RemoteProtocolError as exc:
            self.dropped += 1
            log.warning("a proof that came from %s proves nothing: %s", self.name(seat), exc.reason)
            return
        self.verdict = Verdict(conviction.seat, conviction.reason, self._keep(msg["p"]))
        self._broadcast_proof(msg["p"], skip=seat)
        self.owner.mesh_stop(self.verdict)

    # ----- periodic --------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Heads and cards on every direct link; name who holds entries back."""
        self._retired.clear()  # a new poll comes next: it cannot name a closed socket
        if not self._more_done and self._more is not None and self._more.ready():
            self._make_card()  # the router answered: our card again, with the mapped endpoint
        self._ask_gaps(now)
        up = self._up(now)
        if now - self._last_heads >= HEAD_EVERY or up != self._told_up:
            # also at once when whom we hear directly changed: until the others know, the
            # host relays every entry to us a second time (§10.4)
            self._last_heads = now
            self._told_up = up
            head = pack("head", h=list(self._head()), up=up)
            if self._greet:  # gossip: every card we know, to everyone who hears us
                self._greet = False
                for card in self.cards.values():
                    self.publish(card)
            self.publish(head)
            self.owner.mesh_tunnel(head, None)
            self.owner.mesh_tunnel(self.card_msg, None)  # the host may not have it (a restart)
        self._name_holders(now)

    def _ask_gaps(self, now: float) -> None:
        """Ask for the entries still missing GAP_GRACE after a newer one came."""
        if not self._gaps:
            return
        held = len(self.session)
        for (seat, seq), since in list(self._gaps.items()):
            if held > seq:
                del self._gaps[(seat, seq)]
            elif now - since >= GAP_GRACE:
                del self._gaps[(seat, seq)]
                self._ask(seat, seq, now)

    def due(self) -> float:
        """When `tick` has something to do next at the latest (the loop wakes by then)."""
        return min(self._gaps.values(), default=self.started + 1e9) + GAP_GRACE

    def _name_holders(self, now: float) -> None:
        held = len(self.session)
        for (seat, seq), t in list(self._asked.items()):
            p = self.peers.get(seat)
            if now - t < HOLD_BACK:
                continue
            del self._asked[(seat, seq)]
            if p is None or p.head is None or p.head[0] < seq or ("held", seat) in self._named:
                continue
            if not self.hears(seat, self.seat, now):
                continue  # it does not hear our `get` (no direct link our way, e.g. behind NAT)
            self._named.add(("held", seat))
            what = self._what(seq) if seq < held else f"entry {seq}"
            self.owner.mesh_notice(
                f"{self.name(seat)} holds back {what}: it advertises it but does not send it"
            )
        for seq, t in list(self._accepted_at.items()):
            if now - t < HOLD_BACK:
                continue
            author = self._author(seq)
            srcs = self._sources.get(seq, set())
            if (
                author is not None
                and author != self.seat
                and author not in self.session.resigned  # every peer computes a stand-in's
                and author not in srcs
                and srcs
                and author in self.peers
                and now - self.peers[author].heard < LIVE
                # the author had linked to us well before: its push to us cannot have raced
                # the link's setup (it sends its card first on a new link)
                and 0 < self.peers[author].first_heard <= t - HOLD_BACK
                # and its publisher spoke well after: had it published the entry, that would
                # have arrived first (a publisher keeps its order); a crashed author is silent
                and self.peers[author].heard > t + HOLD_BACK / 2
                and ("author", author) not in self._named
            ):
                self._named.add(("author", author))
                via = ", ".join(self.name(x) for x in sorted(srcs))
                self.owner.mesh_notice(
                    f"{self.name(author)} did not send us its own {self._what(seq)}; "
                    f"it reached us from {via}"
                )
            self._accepted_at.pop(seq, None)
            self._sources.pop(seq, None)

    def _author(self, seq: int) -> int | None:
        try:
            return decode_entry(self.session.entries[seq]).seat
        except (RemoteProtocolError, IndexError):
            return None

    def _what(self, seq: int) -> str:
        try:
            e = decode_entry(self.session.entries[seq])
        except (RemoteProtocolError, IndexError):
            return f"entry {seq}"
        return f"entry {seq} ({shown(e.kind, 20)})"

    def close(self) -> None:
        """Close our sockets (a short linger lets a last proof leave)."""
        log.info(
            "mesh: %d entries came first over direct links (%s); %d frames dropped",
            self.direct_new,
            ", ".join(self.name(p) for p in sorted(self.peers)),
            self.dropped,
        )
        for p in list(self.peers.values()):
            self._close_sub(p)
        self.pub.close(linger=500)
        if self._own_ctx:  # (a shared one is the owner's to destroy, after us)
            self.ctx.destroy(linger=0)  # bounded: any socket still open goes with no linger


def advertise_for(host: str) -> tuple[str, str]:
    """(bind, advertise) addresses for our listener, in the family we reached the host with:
    loopback stays on loopback; otherwise the local address the route to the host uses."""
    if host in ("127.0.0.1", "localhost", "::1", "[::1]"):
        return ("127.0.0.1", "127.0.0.1") if "::" not in host else ("[::1]", "[::1]")
    import socket

    try:
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET  # invites keep IPv6 bare
        with socket.socket(fam, socket.SOCK_DGRAM) as s:
            s.connect((host.strip("[]"), 9))
            addr: str = s.getsockname()[0]
    except OSError:
        return ("127.0.0.1", "127.0.0.1")
    if fam == socket.AF_INET6:
        return (f"[{addr}]", f"[{addr}]")
    return (addr, addr)
