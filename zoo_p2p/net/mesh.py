"""No trusted relay: direct links between every pair of peers, heads, pull gossip, fork and
withholding detection, and proofs of cheating that reach every peer (protocol/TRANSPORT.md §10).

Once a peer holds the genesis it also **publishes** (a CURVE-server `PUB` socket of its own, in its
own ZeroMQ context) and makes a **card**: its endpoint and the publisher's CURVE key, signed with
its seat's Ed25519 key and bound to the game id, so no relay can substitute either. Cards travel
through the host (tunnelled in a `mesh` transport message) and over every direct link. Each
carries a counter under the signature: a seat's newer card (a restart, another address) has a
greater one, and only a newer card replaces the one held and is passed on, so a replay changes
nothing and two peers never swap cards back and forth. For every
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

This module is the mesh's ZeroMQ side only: the publisher, one `SUB` per endpoint in a race,
reading them, and keeping proofs on disk. What the mesh decides (cards, heads, `get`, forks,
withholding, proofs, the bounds) is `zoo_p2p.net.gossip.MeshCore`, which reads no clock: the
loop that drives a `Mesh` passes `now` to `tick(now)` and `on_readable(sock, now)`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from zmq.utils import z85

from zoo_p2p.net import evidence
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.cards import (
    CARDS_BURST,
    CARDS_PER_S,
    DOMAIN_CARD,
    Card,
    card_signed_bytes,
    check_card,
    pack,
    unpack,
)
from zoo_p2p.net.early import HINT_BUFFER, HINT_BYTES, HINT_TTL, MESH_HWM, EarlyLinks
from zoo_p2p.net.early import limits as _limits
from zoo_p2p.net.early import publisher as _publisher
from zoo_p2p.net.early import subscriber as _subscriber
from zoo_p2p.net.gossip import (
    ASK_AGAIN,
    GAP_GRACE,
    GETS_PER_S,
    GREET_EVERY,
    HEAD_EVERY,
    MSGS_PER_S,
    PROOFS_PER_S,
    STATEMENTS_PER_S,
    FixedEndpoints,
    MeshCore,
    MeshOwner,
    MoreEndpoints,
    PeerLinks,
    Verdict,
)
from zoo_p2p.net.holdback import HOLD_BACK, LIVE, TRACKED, WATCHED
from zoo_p2p.net.messages import (
    MAX_CARD_N,
    MAX_EP,
    MAX_EPS,
    MAX_GET,
    MAX_STATEMENT,
    MeshCard,
    WireError,
    decode_mesh,
    endpoint,
    endpoint_ok,
)
from zoo_p2p.net.torlink import NOT_V3, SocksForwarder, dial_route, first_refusal
from zoo_p2p.text import shown

__all__ = [
    "ASK_AGAIN",
    "CARDS_BURST",
    "CARDS_PER_S",
    "DOMAIN_CARD",
    "GAP_GRACE",
    "GETS_PER_S",
    "GREET_EVERY",
    "HEAD_EVERY",
    "HINT_BUFFER",
    "HOLD_BACK",
    "LIVE",
    "MAX_CARD_N",
    "MAX_EP",
    "MAX_EPS",
    "MAX_GET",
    "MAX_STATEMENT",
    "MESH_HWM",
    "MSGS_PER_S",
    "PROOFS_PER_S",
    "STATEMENTS_PER_S",
    "TRACKED",
    "WATCHED",
    "Bucket",
    "Card",
    "EarlyLinks",
    "FixedEndpoints",
    "Mesh",
    "MeshOwner",
    "MoreEndpoints",
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

_Bucket = Bucket  # (its older name)
_Peer = PeerLinks


class SocketOwner(MeshOwner, Protocol):
    """What a `Mesh` needs from its peer besides `MeshOwner`: the poller of its loop."""

    poller: zmq.Poller


def free_port(bind: str) -> int:
    """A TCP port free right now on `bind` (for a publisher whose port is mapped beforehand)."""
    import socket

    host = bind.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
    return port


def _check_card(pub: Ed25519PublicKey, game_id: bytes, msg: MeshCard) -> Card | None:
    # (`check_card` is looked up here at each call: a test counts the checks)
    return check_card(pub, game_id, msg)


class Mesh(MeshCore[zmq.Socket[bytes]]):
    """One peer's direct links over ZeroMQ (see the module docstring). `clock` is read only
    where the caller passes no `now` (at the start, and `on_socket`, `on_tunnel`, `hears`,
    `relay_needed` without one); a loop that reads its clock once a turn passes it instead."""

    def __init__(
        self,
        owner: SocketOwner,
        *,
        bind: str | Sequence[str],
        advertise: str | Sequence[str],
        curve: bool = True,
        port: int = 0,
        more: MoreEndpoints | None = None,
        fresh: bool = False,
        ctx: zmq.Context[zmq.Socket[bytes]] | None = None,
        wall: Callable[[], float] = time.time,
        clock: Callable[[], float] = time.monotonic,
        hidden: bool = False,
        socks: tuple[str, int] | None = None,
        early: EarlyLinks | None = None,
    ) -> None:
        s = owner.session
        assert s is not None and s.seat is not None
        self.poller = owner.poller
        self.curve = curve
        self._clock = clock
        # the owner's context when it gives one: one I/O thread for the host link and the mesh
        # (a thread hop less per entry on a busy machine); else our own
        self._own_ctx = ctx is None
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context() if ctx is None else ctx
        binds = [bind] if isinstance(bind, str) else list(bind)
        # hinted subscriptions (§10.10): adopted by a card that names them, else closed
        self._hinted: dict[tuple[str, bytes], zmq.Socket[bytes]] = {}
        self._held: dict[Any, list[bytes]] = {}  # hinted socket -> frames read before its card
        self._hinted_until = clock() + HINT_TTL
        self._replay: list[tuple[int, zmq.Socket[bytes]]] = []  # adopted, with frames held
        spub = self._take_publisher(early, any(":" in b for b in binds))
        # over Tor (TRANSPORT.md §10.9): we dial onion endpoints through the Tor client at
        # `socks` (our own SOCKS forwarder per endpoint, never libzmq's), loopback ones as
        # they are, and no other address (it would learn ours)
        self._hidden = hidden
        self._socks = socks
        self._fwds: dict[zmq.Socket[bytes], SocksForwarder] = {}
        self._not_dialled: set[str] = set()  # endpoints we said we do not dial (once each)
        self._by_sub: dict[Any, int] = {}
        self._retired: set[Any] = set()  # subscriptions closed since the last tick
        bound, more = (early.port, more) if early is not None else self._bind(binds, port, more)
        self.poller.register(self.pub, zmq.POLLIN)
        for sub in self._hinted.values():
            self.poller.register(sub, zmq.POLLIN)
        super().__init__(
            owner,
            now=clock(),
            port=bound,
            skey=z85.decode(spub),
            advertise=[advertise] if isinstance(advertise, str) else list(advertise),
            more=more,
            fresh=fresh,
            wall=wall,
            check=_check_card,
        )

    def _take_publisher(self, early: EarlyLinks | None, ipv6: bool) -> bytes:
        """Our publisher and the key our subscribers authenticate with: the ones we started in
        the lobby (`early`, bound already: its key is our hint's; its hinted subscriptions are
        ours to adopt or close), else new ones. Returns the publisher's public key (z85)."""
        if early is None:
            self.pub, spub = _publisher(self.ctx, self.curve, ipv6)
            self._client = zmq.curve_keypair()
            return spub
        early.adopted = True
        self.pub, self._client = early.pub, early.client
        self._hinted = dict(early.subs)
        return early.spub

    def _bind(
        self, binds: list[str], port: int, more: MoreEndpoints | None
    ) -> tuple[int, MoreEndpoints | None]:
        """Bind our publisher on every address of `binds` with one port (`port`, or a random
        one if 0 or taken: then `more`, mapped to `port`, is of no use and dropped)."""
        first, rest = binds[0], binds[1:]
        if port:
            try:
                self.pub.bind(f"tcp://{first}:{port}")
            except zmq.ZMQError as exc:
                log.warning("cannot listen on port %d for direct links (%s)", port, exc)
                more, port = None, 0
        if not port:
            port = self.pub.bind_to_random_port(f"tcp://{first}")
        for b in rest:
            try:
                self.pub.bind(f"tcp://{b}:{port}")
            except zmq.ZMQError as exc:
                log.info("direct links: cannot also listen on %s (%s)", shown(b), exc)
        return port, more

    _limits = staticmethod(_limits)

    # ----- the transport's side of MeshCore --------------------------------------------------
    def _emit(self, data: bytes) -> bool:
        try:
            self.pub.send(data, flags=zmq.NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    def _route(self, seat: int, ep: str) -> tuple[str, SocksForwarder | None] | None:
        """Where a SUB connects for `ep` (and the forwarder it goes through), or None if we
        do not dial it (`torlink.dial_route`, TRANSPORT.md §10.9), said once an endpoint."""
        route = dial_route(ep, self._socks, self._hidden)
        if not isinstance(route, str):
            return route
        why = route
        if why == NOT_V3:
            why += " (and an onion name is never looked up in DNS)"
        if first_refusal(self._not_dialled, ep):
            log.info("not linking to %s at %s: %s", self.name(seat), shown(ep), why)
        return None

    def _subscribe(self, seat: int, ep: str, skey: bytes) -> zmq.Socket[bytes] | None:
        hinted = self._hinted.pop((ep, skey), None)
        if hinted is not None:  # a signed card names this very endpoint and key: ours now
            self._by_sub[hinted] = seat
            if self._held.get(hinted):
                self._replay.append((seat, hinted))  # it has spoken: it wins (`_replayed`)
            log.info("early link adopted for %s at %s", self.name(seat), shown(ep))
            return hinted
        route = self._route(seat, ep)
        if route is None:
            return None
        target, fwd = route
        sub = _subscriber(self.ctx, skey, self._client if self.curve else None)
        try:
            sub.connect(target)
        except zmq.ZMQError as exc:
            log.warning("cannot link to %s at %s: %s", self.name(seat), shown(ep), exc)
            sub.close(linger=0)
            if fwd is not None:
                fwd.close()
            return None
        if fwd is not None:
            self._fwds[sub] = fwd
        self._by_sub[sub] = seat
        self.poller.register(sub, zmq.POLLIN)
        return sub

    def _drop_sub(self, sub: zmq.Socket[bytes]) -> None:
        with contextlib.suppress(KeyError):
            self.poller.unregister(sub)
        self._by_sub.pop(sub, None)
        self._retired.add(sub)  # the poll that is being handled may still name it
        sub.close(linger=0)
        fwd = self._fwds.pop(sub, None)
        if fwd is not None:
            fwd.close()

    def _keep(self, proof: bytes) -> Path | None:
        return evidence.keep_beside(self.owner.mesh_log_path(), proof, self.owner.mesh_notice)

    # ----- the loop's side -------------------------------------------------------------------
    @property
    def over_tor(self) -> bool:
        """True when every link goes through Tor (we dial onions and loopback only, §10.9)."""
        return self._hidden

    def owns(self, sock: Any) -> bool:
        """True if `sock` is our publisher or one of our subscriptions (or was, until this poll
        was handled)."""
        return (
            sock is self.pub
            or sock in self._by_sub
            or sock in self._retired
            or sock in self._held
            or any(sock is h for h in self._hinted.values())
        )

    def _on_subscribers(self, now: float) -> None:
        """Our publisher heard subscriptions (at most 1000 per call): a subscriber completed its
        handshake, and our head and cards go out at once (`MeshCore.subscribed`)."""
        fresh = False
        for _ in range(1000):
            try:
                data = self.pub.recv(flags=zmq.NOBLOCK)
            except zmq.Again:
                break
            fresh = fresh or data[:1] == b"\x01"
        if fresh:
            self.subscribed(now)

    def on_readable(self, sock: Any, now: float) -> None:
        """Drain one subscription that the poll named (at most 1000 messages per call, so the
        loop stays fair), all at `now`; or our publisher, which hears subscriptions arrive."""
        if sock is self.pub:
            self._on_subscribers(now)
            return
        seat = self._by_sub.get(sock)
        if seat is None:
            self._on_hinted(sock, now)
            self._replayed(now)
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
            if not self.on_frame(seat, data, now):
                return

    def _on_hinted(self, sock: Any, now: float) -> None:
        """A hinted socket that no card has adopted yet spoke (its CURVE handshake completed
        with the hinted key). Its frames are held, unread, at most HINT_BUFFER (HINT_BYTES): all
        they can be is attributed to the seat whose card later names this endpoint and key.
        A card among them is offered as any card is (its signature is its own proof; the
        seat's newer card is what adopts the socket)."""
        key = next((k for k, h in self._hinted.items() if h is sock), None)
        if key is None:
            return
        held = self._held.setdefault(sock, [])
        for _ in range(HINT_BUFFER):
            try:
                data = sock.recv(flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            held.append(data)
            if len(held) > HINT_BUFFER or sum(map(len, held)) > HINT_BYTES:
                log.info("early link at %s: too much before a card; closed", shown(key[0]))
                self._drop_hinted(key)
                return
            try:
                msg = decode_mesh(data)
            except WireError:
                continue
            if isinstance(msg, MeshCard) and msg.skey == key[1] and msg.seat < self.n:
                eps = (msg.ep,) if isinstance(msg.ep, str) else tuple(msg.ep)
                if key[0] in eps:
                    self._on_card(msg, msg.seat, False, now)
                    if sock in self._by_sub:
                        return  # adopted (`_replayed` reads what it held)

    def _drop_hinted(self, key: tuple[str, bytes]) -> None:
        sock = self._hinted.pop(key, None)
        if sock is None:
            return
        self._held.pop(sock, None)
        with contextlib.suppress(KeyError):
            self.poller.unregister(sock)
        self._retired.add(sock)
        sock.close(linger=0)

    def _replayed(self, now: float) -> None:
        """Adopted hinted sockets that spoke before their card: each wins its seat's race
        (it completed its handshake with the card's key first) and what it held is read now,
        in order, as if it had just arrived."""
        while self._replay:
            seat, sock = self._replay.pop(0)
            held = self._held.pop(sock, [])
            p = self.peers.get(seat)
            if p is None or sock not in p.subs.values() or self._by_sub.get(sock) != seat:
                continue
            if p.sub is None:
                self._won(p, sock)
            for data in held:
                if not self.on_frame(seat, data, now):
                    break

    def on_socket(self, sock: Any) -> None:
        """`on_readable` at our clock's time (for a loop that passes no `now`)."""
        self.on_readable(sock, self._clock())

    def on_tunnel(self, seat: int | None, data: bytes, now: float | None = None) -> None:
        """A mesh message that came through the host link (`MeshCore.on_tunnel`)."""
        now = self._clock() if now is None else now
        super().on_tunnel(seat, data, now)
        self._replayed(now)

    def hears(self, seat: int, author: int, now: float | None = None) -> bool:
        """True when `seat` told us lately that it hears `author` directly."""
        return super().hears(seat, author, self._clock() if now is None else now)

    def relay_needed(self, seat: int, entries: list[bytes], now: float | None = None) -> bool:
        """Whether the host must still relay `entries` to `seat` (`MeshCore.relay_needed`)."""
        return super().relay_needed(seat, entries, self._clock() if now is None else now)

    def tick(self, now: float) -> None:
        """Heads and cards on every direct link; name who holds entries back."""
        self._retired.clear()  # a new poll comes next: it cannot name a closed socket
        self._replayed(now)
        if self._hinted and (now >= self._hinted_until or len(self.peers) >= self.n - 1):
            # every other seat's card is taken (or the hints had their time): a hinted socket
            # that none of them named was a wrong hint, and it costs us nothing more
            for key in list(self._hinted):
                self._drop_hinted(key)
        super().tick(now)

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
        for key in list(self._hinted):
            self._drop_hinted(key)
        for fwd in self._fwds.values():
            fwd.close()
        self._fwds.clear()
        with contextlib.suppress(KeyError):
            self.poller.unregister(self.pub)
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
