"""Direct links (protocol/TRANSPORT.md §10.1-§10.2), sans-I/O: whose card we hold, which of its
endpoints we subscribe to, and the race among them.

`DirectLinks` keeps, per other seat, the card we hold (through `zoo_p2p.net.cards.CardBook`)
and the subscriptions to its publisher: one per endpoint of the card in a race, the first to
deliver kept (`_won`), the others closed; a newer card under the same key keeps the link that is
up if its endpoint is still on the card, one under another key starts a new race. It signs our
own card and passes every card it takes on. It opens nothing itself: a transport fills in
`_subscribe`, `_drop_sub` and `_emit` (`zoo_p2p.net.mesh.Mesh` over ZeroMQ,
`zoo_p2p.net.memmesh.MemoryMesh` in memory), and `now` is passed in.
`zoo_p2p.net.gossip.MeshCore` builds on it: what rides on the links.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.cards import Card, CardBook, CardCheck, check_card
from zoo_p2p.net.invite import InviteError
from zoo_p2p.net.messages import MAX_EPS, MeshCard, endpoint
from zoo_p2p.text import seat_word, shown

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

__all__ = [
    "MSGS_PER_S",
    "DirectLinks",
    "FixedEndpoints",
    "MeshOwner",
    "MeshSetup",
    "MoreEndpoints",
    "PeerLinks",
    "Verdict",
]

log = logging.getLogger("zoo_p2p.net.mesh")

MSGS_PER_S = 2000.0  # messages read per peer and second; beyond it they are dropped

H = TypeVar("H")  # a transport's handle for one subscription (a ZeroMQ SUB socket)


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


@dataclass(frozen=True)
class MeshSetup:
    """How our direct-link publisher is reached (TRANSPORT.md §10), given to a transport peer
    when it is built (`zoo_p2p.net.peer.Host` / `Joiner`, from `zoo_p2p.cli.hosting`): its port
    (0: any), the endpoints our card adds (a router's mapping, our onion), and over Tor
    (`hidden`) nothing but those on our card, onions dialled through the SOCKS port `socks`
    (§10.9)."""

    port: int = 0
    more: MoreEndpoints | None = None
    hidden: bool = False
    socks: tuple[str, int] | None = None


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

    def deliver(
        self, start: int, entries: list[bytes], source: str, by: int | None = None
    ) -> int | None: ...
    def may_check(self, seat: int) -> bool: ...
    def checked(self, seat: int, n: int = 1) -> None: ...
    def mesh_tunnel(self, data: bytes, to: int | None) -> None: ...
    def mesh_notice(self, text: str) -> None: ...
    def mesh_log_path(self) -> Path | None: ...
    def mesh_vote(self, seat: int, data: bytes) -> None: ...
    def mesh_resign(self, seat: int, data: bytes) -> None: ...

    @property
    def stopped(self) -> Any: ...
    def mesh_stop(self, verdict: Verdict) -> None: ...


@dataclass
class PeerLinks(Generic[H]):
    """What we know about one other seat's direct links (`H`: the transport's subscription)."""

    card: Card
    subs: dict[str, H]  # endpoint -> subscription still in the race (§10.2)
    rate: Bucket
    sub: H | None = None  # the subscription that completed first: the only one read
    via: str | None = None  # its endpoint
    heard: float = 0.0  # last message from this seat's publisher
    first_heard: float = 0.0  # first message from this seat's publisher (0: never)
    head: tuple[int, bytes] | None = None  # its last advertised head
    up: tuple[bool, ...] = ()  # which seats it said it hears directly (with `up_at`)
    up_at: float = 0.0


class DirectLinks(Generic[H]):
    """Whose card we hold and our subscriptions to each seat's publisher (see the module
    docstring). A transport subclasses it (through `MeshCore`) and fills in `_emit`,
    `_subscribe` and `_drop_sub`."""

    def __init__(
        self,
        owner: MeshOwner,
        *,
        port: int,
        skey: bytes,
        advertise: list[str],
        more: MoreEndpoints | None = None,
        wall: Callable[[], float],
        check: CardCheck = check_card,
    ) -> None:
        s = owner.session
        assert s is not None
        self.owner = owner
        self.session: Session = s
        self.seat: int | None = s.seat
        self.n = s.n
        self.game_id = s.game_id
        self._pubs = [Ed25519PublicKey.from_public_bytes(si.public_key) for si in s.seats]
        self.port = port
        self._skey = skey
        self._advertise = advertise
        self._more = more
        self._wall = wall  # the clock our card's counter is read from (a test's is fake)
        self.book = CardBook(self.game_id, self._pubs, self.seat, check)
        self.peers: dict[int, PeerLinks[H]] = {}
        self.dropped = 0
        self._greet = False  # publish every card we know at the next tick
        self._more_done = False  # `more` was ready and taken into our card
        if self.seat is not None:
            self._make_card()

    # ----- what a transport fills in ---------------------------------------------------------
    def _emit(self, data: bytes) -> bool:
        """Publish `data` to every subscriber of ours; False if it could not be sent."""
        raise NotImplementedError

    def _subscribe(self, seat: int, ep: str, skey: bytes) -> H | None:
        """Open a subscription to `seat`'s publisher at `ep` (CURVE server key `skey`), or
        None if it cannot be opened."""
        raise NotImplementedError

    def _drop_sub(self, sub: H) -> None:
        """Close a subscription (never read again)."""
        raise NotImplementedError

    # ----- our card --------------------------------------------------------------------------
    @property
    def card(self) -> Card | None:
        """Ours (made again when `more` is ready)."""
        return self.book.card

    @property
    def card_msg(self) -> bytes:
        """Our card's message."""
        return self.book.card_msg

    @property
    def cards(self) -> dict[int, bytes]:
        """seat -> the card message we hold of it (ours too)."""
        return self.book.cards

    @property
    def card_n(self) -> dict[int, int]:
        """seat -> the counter of the card we hold of it (ours too)."""
        return self.book.card_n

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
        if not eps:
            # nothing to put on a card yet (over Tor our onion is still being published, or
            # was not): no card, so nobody dials us; we still dial the seats whose cards come
            log.info("direct links: no card of ours (%s)", "not yet" if self._more else "none")
            return
        if not self.book.sign(self.owner.key, eps, self._skey, self._wall()):
            return
        assert self.card is not None
        self._greet = True
        log.info("direct links: our card says %s", ", ".join(self.card.endpoints))
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

    # ----- names ----------------------------------------------------------------------------
    def name(self, seat: int) -> str:
        """`seat 2 (Blue)`: how people read a seat."""
        if 0 <= seat < self.n:
            return seat_word(seat, self.session.seats[seat].team.label)
        return seat_word(seat)

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

    # ----- sending ---------------------------------------------------------------------------
    def publish(self, data: bytes) -> bool:
        """Publish one mesh message to every seat subscribed to us (never blocks)."""
        data = self.outgoing(data)
        if not data:
            return False
        return self._emit(data)

    def outgoing(self, data: bytes) -> bytes:
        """Everything we publish passes here (a test's hostile peer overrides it)."""
        return data

    # ----- cards -----------------------------------------------------------------------------
    def _on_card(self, msg: MeshCard, sender: int | None, direct: bool, now: float) -> None:
        """A card from anywhere (`sender`'s publisher if `direct`, else the host link). Only a
        card with a greater counter than the one we hold for its seat is checked, and only a
        valid one is taken and passed on: an equal or older card (a replay, or gossip of what we
        hold) costs no signature check and starts nothing, so two peers can never swap cards
        back and forth (§10.2)."""
        seat = msg.seat
        if seat >= self.n:
            return
        if seat == self.seat:
            if self.book.outbid(msg):
                log.warning(
                    "direct links: an earlier card of ours is newer than ours (the clock went "
                    "back?); signing ours again above it"
                )
                self._make_card()
            return
        if seat in self.session.resigned:
            # nobody plays that seat (every peer computes its stand-in) and its key is public
            log.info("a card for %s, which resigned: nobody to link to", self.name(seat))
            return
        offer = self.book.offer(msg, sender, now, self.owner, self.name(seat))
        if offer.bad:
            self.dropped += 1
        elif offer.back and direct:
            self.publish(offer.back)
        elif offer.back:
            self.owner.mesh_tunnel(offer.back, seat)
        elif offer.take is not None:
            self._take_card(offer.take)

    def _take_card(self, card: Card) -> None:
        """A checked card newer than the one we held for its seat (the book holds it now): link
        to it, pass it on."""
        seat = card.seat
        old = self.peers.get(seat)
        if old is not None and old.card.skey == card.skey:
            self._moved(old, card)  # the same publisher (it learned another address)
        else:
            if old is not None:  # that seat restarted: a new publisher, a new race
                self._close_sub(old)
                del self.peers[seat]
            self._race(card)
        self.owner.mesh_tunnel(self.cards[seat], None)  # the host passes cards on; joiners no-op
        if self.seat == 0:
            # and tells that seat every card it holds: it may have had none of them (a seat
            # whose publisher started late, after its hello)
            for other, msg_other in self.cards.items():
                if other != seat:
                    self.owner.mesh_tunnel(msg_other, seat)
        self._greet = True  # gossip the new card on our publisher too

    # ----- the race of a card's endpoints (§10.1) --------------------------------------------
    def _race(self, card: Card) -> None:
        """One subscription per signed endpoint, in a race: the first to hear from the seat's
        publisher (its CURVE handshake completed) is kept, the others closed (§10.1)."""
        seat = card.seat
        subs: dict[str, H] = {}
        for ep in card.endpoints:
            sub = self._subscribe(seat, ep, card.skey)
            if sub is not None:
                subs[ep] = sub
        if not subs:
            return
        self.peers[seat] = PeerLinks(card, subs, Bucket(MSGS_PER_S, MSGS_PER_S))
        log.info("linking directly to %s at %s", self.name(seat), shown(", ".join(card.endpoints)))

    def _moved(self, p: PeerLinks[H], card: Card) -> None:
        """A newer card of a seat under the same key: keep the link we have while its endpoint
        is still on the card; else race the card's endpoints (keeping those already racing)."""
        seat = card.seat
        p.card = card
        if p.sub is not None and p.via in card.endpoints:
            log.info("%s is also at %s", self.name(seat), shown(", ".join(card.endpoints)))
            return
        for ep, gone in list(p.subs.items()):
            if ep not in card.endpoints:
                self._drop_sub(gone)
                del p.subs[ep]
        p.sub, p.via = None, None
        for ep in card.endpoints:
            if ep not in p.subs:
                sub = self._subscribe(seat, ep, card.skey)
                if sub is not None:
                    p.subs[ep] = sub
        log.info("%s is now at %s", self.name(seat), shown(", ".join(card.endpoints)))

    def _close_sub(self, p: PeerLinks[H]) -> None:
        for sub in list(p.subs.values()):
            self._drop_sub(sub)
        p.subs.clear()

    def _won(self, p: PeerLinks[H], won: H) -> None:
        """`won` heard from the seat first: keep it, close the rest of the race."""
        for ep, sub in list(p.subs.items()):
            if sub is won:
                p.sub, p.via = sub, ep
            else:
                self._drop_sub(sub)
                del p.subs[ep]
        log.info("direct link up: we hear %s at %s", self.name(p.card.seat), shown(p.via))

    def cut(self, seat: int) -> None:
        """Drop our direct link to `seat` (it cost us too many checks, TRANSPORT.md §11): it
        reaches us through the host from now on, or through a new card of its own."""
        p = self.peers.get(seat)
        if p is None or not p.subs:
            return
        self._close_sub(p)
        p.sub = p.via = None
        log.warning("dropped the direct link to %s", self.name(seat))
