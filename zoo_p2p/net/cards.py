"""Address cards (protocol/TRANSPORT.md §10.2), sans-I/O: what a card signs, how it is checked,
and which card of each seat a peer holds.

A card says where a seat publishes and with which CURVE key, under the seat's Ed25519 signature
and a counter `n` (`card/v3`). A peer holds, per seat, the checked card with the greatest `n`;
an equal or older one is dropped before any signature check (a replay changes nothing), a newer
one is checked, taken at most CARDS_BURST at once and then CARDS_PER_S a second (its newest
waiting for a token), and only a taken card is passed on. `CardBook` is that rule as data: it
reads no clock (`now` is passed in), opens no socket and sends nothing; it tells its caller
(`zoo_p2p.net.gossip.MeshCore`) what to do with each card that comes (`Offer`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any, Protocol

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.messages import MAX_CARD_N, MeshCard, check_mesh, unpack_mesh_map

__all__ = [
    "CARDS_BURST",
    "CARDS_PER_S",
    "DOMAIN_CARD",
    "Card",
    "CardBook",
    "Offer",
    "card_msg",
    "card_signed_bytes",
    "check_card",
    "pack",
    "unpack",
]

log = logging.getLogger("zoo_p2p.net.mesh")

DOMAIN_CARD = b"zoo-p2p/card/v3"  # what a card's signature covers (with its counter `n`)
CARDS_PER_S = 1.0  # newer cards of one seat taken per second (burst CARDS_BURST), whoever sends
CARDS_BURST = 4.0  # them: a run signs 1-3 (its first, the mapped one, one signed again)


def pack(kind: str, **fields: Any) -> bytes:
    """Encode one mesh message (checked, so we never send junk)."""
    msg = {"t": kind, **fields}
    check_mesh(msg)
    return bytes(msgpack.packb(msg, use_bin_type=True))


def unpack(data: bytes) -> dict[str, Any]:
    """Decode and check one mesh message; `wire.WireError` on anything odd."""
    return unpack_mesh_map(data)


def card_signed_bytes(game_id: bytes, seat: int, n: int, ep: str | list[str], skey: bytes) -> bytes:
    """What a card's Ed25519 signature covers: the game, the seat, the card's counter (a newer
    card of the seat has a greater one, TRANSPORT.md §10.2), the endpoint(s) and the key. One
    endpoint is signed as a string, several as a list (msgpack tells the two apart)."""
    return bytes(msgpack.packb([DOMAIN_CARD, game_id, seat, n, ep, skey], use_bin_type=True))


@dataclass(frozen=True)
class Card:
    """A seat's direct-link address(es), checked against that seat's key from the genesis."""

    seat: int
    ep: str  # the first endpoint
    skey: bytes  # CURVE public key of its publisher (it is the CURVE server there)
    more: tuple[str, ...] = ()  # the other endpoints of a multi-endpoint card, in its order
    n: int = 0  # its counter: of two cards of one seat, the one with the greater n is newer

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Every endpoint of the card: a subscriber connects to each (TRANSPORT.md §10.2)."""
        return (self.ep, *self.more)

    def wire_ep(self) -> str | list[str]:
        """The card's `ep` field: a string for one endpoint, a list for several."""
        return self.ep if not self.more else list(self.endpoints)


def card_msg(card: Card, sig: bytes) -> bytes:
    """The `card` message for `card` and its signature."""
    return pack("card", seat=card.seat, n=card.n, ep=card.wire_ep(), skey=card.skey, sig=sig)


def check_card(pub: Ed25519PublicKey, game_id: bytes, msg: MeshCard) -> Card | None:
    """The card in `msg` if `pub` signed it for this game, else None.

    A relay cannot substitute an endpoint or a key: every field is under the seat's signature.
    """
    ep = msg.ep
    data = card_signed_bytes(game_id, msg.seat, msg.n, _ep_form(ep), msg.skey)
    try:
        pub.verify(msg.sig, data)
    except InvalidSignature:
        return None
    if isinstance(ep, str):
        return Card(msg.seat, ep, msg.skey, n=msg.n)
    return Card(msg.seat, ep[0], msg.skey, tuple(ep[1:]), msg.n)


def _ep_form(ep: str | tuple[str, ...]) -> str | list[str]:
    return ep if isinstance(ep, str) else list(ep)


CardCheck = Callable[[Ed25519PublicKey, bytes, MeshCard], Card | None]


class Budget(Protocol):
    """The signature-check budget of whoever sent a card (TRANSPORT.md §11: the peer's)."""

    def may_check(self, seat: int) -> bool: ...
    def checked(self, seat: int, n: int = 1) -> None: ...


@dataclass(frozen=True)
class Offer:
    """What to do with a card that came (`CardBook.offer`): nothing (the default), drop it
    (`bad`: counted), show the sender the card we hold of it (`back`), or take `take` (already
    held by the book: link to it and pass it on)."""

    take: Card | None = None
    back: bytes = b""
    bad: bool = False


NOTHING = Offer()


class CardBook:
    """The cards one peer holds, one per seat (ours too), and the rules of §10.2 that decide
    which. `seat` is ours (None: we sign no card, as a spectator)."""

    def __init__(
        self,
        game_id: bytes,
        pubs: list[Ed25519PublicKey],
        seat: int | None,
        check: CardCheck = check_card,
    ) -> None:
        self.game_id = game_id
        self.pubs = pubs
        self.seat = seat
        self.check = check
        self.card: Card | None = None  # ours
        self.card_msg = b""
        self.cards: dict[int, bytes] = {}  # seat -> card message (ours too)
        # the counter of the newest valid card we hold per seat (ours too): only a card with a
        # greater one is checked and taken (TRANSPORT.md §10.2)
        self.card_n: dict[int, int] = {}
        self.floor = 0  # our next card's counter is above this (an earlier run's card)
        self.healed = False  # we signed our card again above an earlier run's (once a run)
        self.rate: dict[int, Bucket] = {}  # seat -> newer cards of it we may take
        self.rate_told: set[int] = set()
        self.later: dict[int, tuple[Card, bytes]] = {}  # seat -> newest checked, waiting
        self.told_back: dict[int, int] = {}  # seat -> the n of its card we showed it (once)

    # ----- ours ------------------------------------------------------------------------------
    def sign(self, key: Ed25519PrivateKey, eps: list[str], skey: bytes, wall: float) -> bool:
        """Sign our card over `eps` (at `wall`, unix seconds) unless the one we hold says the
        same and is above the floor; True if a new card is held."""
        assert self.seat is not None
        if self.card is not None and self.card.endpoints == tuple(eps) and self.card.n > self.floor:
            return False
        # our counter: above every card we signed in this run and any earlier run's we saw,
        # and at least the wall clock in ms (a restart signs later than the run before it)
        held = self.card.n if self.card is not None else 0
        n = max(held + 1, self.floor + 1, int(wall * 1000))
        if n > MAX_CARD_N:  # pragma: no cover - nobody signs past 2^64 - 1
            return False
        card = Card(self.seat, eps[0], skey, tuple(eps[1:]), n)
        sig = key.sign(card_signed_bytes(self.game_id, self.seat, n, card.wire_ep(), skey))
        self.card = card
        self.card_msg = card_msg(card, sig)
        self.cards[self.seat] = self.card_msg
        self.card_n[self.seat] = n
        return True

    def outbid(self, msg: MeshCard) -> bool:
        """A card for our own seat came back. Ours, or an older one: False. One of an earlier
        run of ours with a counter not below ours (its clock was ahead of ours): every peer
        holding it would drop our card, so we must sign ours again above it (True, and the
        floor is raised), once a run: two live processes of one seat must not outbid each other
        without end."""
        ours = self.card
        if ours is None or self.healed or msg.n < ours.n or msg.n >= MAX_CARD_N:
            return False
        if msg.n == ours.n and msg.skey == ours.skey:
            return False  # ours (no other run signs with our publisher's key): no check needed
        assert self.seat is not None
        card = self.check(self.pubs[self.seat], self.game_id, msg)
        if card is None or card == self.card:
            return False
        self.healed = True
        self.floor = card.n
        return True

    # ----- theirs ----------------------------------------------------------------------------
    def offer(
        self, msg: MeshCard, sender: int | None, now: float, budget: Budget, name: str
    ) -> Offer:
        """A card of another seat (not resigned) from `sender` (None: our host link's host, for
        a joiner): steps 2 to 5 of TRANSPORT.md §10.2. `name` is how the log names its seat."""
        seat = msg.seat
        waiting = self.later.get(seat)
        held = self.card_n.get(seat, -1)
        if msg.n <= max(held, waiting[0].n if waiting else -1):
            # the card we hold, or an older one: a replay never takes a link away
            if seat == sender and msg.n < held and self.told_back.get(seat) != held:
                # that seat itself sends a card older than the one we hold of it: a run of
                # it whose clock is behind an earlier run's. Show it the card we hold, once
                # (it signs its card again above it, §10.2)
                self.told_back[seat] = held
                return Offer(back=self.cards[seat])
            return NOTHING
        if sender is not None and not budget.may_check(sender):
            return Offer(bad=True)  # its link has no signature check left (TRANSPORT.md §11)
        card = self.check(self.pubs[seat], self.game_id, msg)
        if card is None:
            if sender is not None:
                budget.checked(sender)
            log.warning("dropped a card for %s with a bad signature", name)
            return Offer(bad=True)
        rate = self.rate.setdefault(seat, Bucket(CARDS_PER_S, CARDS_BURST, now))
        if not rate.take(now):
            # only that seat signs its cards: it alone could make us open and close links (and
            # connect to whatever it names) this fast. Its newest card waits for a token (one
            # per seat; taken by `due`), the older ones are gone
            self.later[seat] = (card, msg.sig)
            if seat not in self.rate_told:
                self.rate_told.add(seat)
                log.warning("%s signs new cards too fast: taking one a second", name)
            return NOTHING
        self.later.pop(seat, None)
        self.hold(card, msg.sig)
        return Offer(take=card)

    def hold(self, card: Card, sig: bytes) -> None:
        """`card` (checked, newer than the one held) is now the one we hold of its seat."""
        self.card_n[card.seat] = card.n
        self.cards[card.seat] = card_msg(card, sig)

    def due(self, now: float, resigned: Container[int]) -> list[Card]:
        """The waiting cards that the card rate gives a token for now (each now held), in seat
        order; a waiting card that is no longer newer, or of a seat that resigned, is gone."""
        taken: list[Card] = []
        for seat, (card, sig) in list(self.later.items()):
            if seat in resigned or card.n <= self.card_n.get(seat, -1):
                del self.later[seat]
            elif self.rate[seat].take(now):
                del self.later[seat]
                self.hold(card, sig)
                taken.append(card)
        return taken
