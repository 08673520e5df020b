"""A spectator: watches a live game without a seat (protocol/TRANSPORT.md §12).

It links to the host like a joiner (knock, the host's signed welcome checked against the
invite's fingerprint), then says `watch` instead of `hello`. The host sends it the log from the
genesis and every entry after, the seats' presence and every card it holds. With the cards the
spectator subscribes to every seat's publisher as a seat does (`Witness`), so it hears every
author first-hand and the host cannot show it another game: every entry, from any path, goes
through its own keyless `Session`, and a fork stops it with the proof kept beside its log and
sent to the host. It signs nothing, votes in no claim and is counted in none.

Built on the joiner (`zoo_p2p.net.peer.Joiner`): the host link, its reconnects, guards and
tables are the joiner's; what differs is said here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from zoo_p2p.driver import Outcome
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net import evidence, messages, wire
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.cards import Card, CardBook
from zoo_p2p.net.early import subscriber
from zoo_p2p.net.mesh import HEAD_EVERY, LIVE, MESH_HWM, Verdict, pack
from zoo_p2p.net.messages import (
    MeshCard,
    MeshEntries,
    MeshHead,
    MeshProof,
    Message,
    WireError,
    decode_mesh,
)
from zoo_p2p.net.peer import Joiner
from zoo_p2p.net.stall import StallWatch
from zoo_p2p.net.torlink import SocksForwarder, dial_route, first_refusal
from zoo_p2p.protocol.session import Session
from zoo_p2p.text import seat_word, shown

__all__ = ["Spectator", "Witness", "watcher_session"]

log = logging.getLogger("zoo_p2p.net.spectate")

MSGS_PER_S = 2000.0  # messages read per publisher and second (as a seat reads, §10.6)
PROOFS_PER_S = 1.0  # received proofs checked per source and second (burst 2)


def _watch_limits(sub: zmq.Socket[bytes]) -> None:
    """A spectator's SUB: closed at once, nothing to send but its subscription (no SNDHWM)."""
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.MAXMSGSIZE, wire.MAX_FRAME)
    sub.setsockopt(zmq.RCVHWM, MESH_HWM)
    sub.setsockopt(zmq.HEARTBEAT_IVL, 1000)
    sub.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3000)
    sub.setsockopt(zmq.HEARTBEAT_TTL, 6000)


def watcher_session(genesis: bytes) -> Session:
    """A spectator's session: the genesis and no key (it checks every entry, signs none)."""
    return Session(genesis)


@dataclass
class _Sub:
    """One seat's publisher as the spectator hears it."""

    card: Card
    subs: dict[str, zmq.Socket[bytes]]  # endpoint -> SUB still in the race (§10.1)
    rate: Bucket
    sub: zmq.Socket[bytes] | None = None  # the one that delivered first: the only one read
    via: str | None = None  # its endpoint
    heard: float = 0.0
    head: tuple[int, bytes] | None = None
    told: set[int] = field(default_factory=set)  # seqs whose other hash we named


class Witness:
    """The spectator's subscriptions to the seats' publishers, its head gossip and its proofs."""

    def __init__(self, owner: Spectator) -> None:
        self.owner = owner
        self.peers: dict[int, _Sub] = {}
        self.book: CardBook | None = None
        self._proof_rate: dict[int, Bucket] = {}
        self._by_sub: dict[Any, int] = {}
        self._retired: set[Any] = set()
        self._fwds: dict[Any, SocksForwarder] = {}  # over Tor: a SUB's forwarder to its onion
        self._not_dialled: set[str] = set()
        self._client = zmq.curve_keypair()
        self._last_head = 0.0
        self.verdict: Verdict | None = None
        self.dropped = 0

    # ----- cards ---------------------------------------------------------------------------
    def _book(self) -> CardBook | None:
        """The cards we hold (meshcore's `CardBook`, with no card of our own)."""
        s = self.owner.session
        if s is None:
            return None
        if self.book is None:
            pubs = [Ed25519PublicKey.from_public_bytes(si.public_key) for si in s.seats]
            self.book = CardBook(s.game_id, pubs, None)
        return self.book

    def on_card(self, msg: MeshCard, sender: int) -> None:
        """A seat's card (from the host, sender 0, or a publisher): §10.2's rules (a newer one
        is checked, at most 4 at once then 1 a second per seat), then we link to it."""
        s = self.owner.session
        book = self._book()
        if s is None or book is None or msg.seat >= len(s.seats) or msg.seat in s.resigned:
            return
        offer = book.offer(
            msg, sender, time.monotonic(), self.owner, self.owner.seat_name(msg.seat)
        )
        if offer.bad:
            self.dropped += 1
        elif offer.take is not None:
            self._link(offer.take)

    def _link(self, card: Card) -> None:
        """Subscribe to the publisher of a card we now hold (keeping a link that is up)."""
        old = self.peers.get(card.seat)
        if old is not None and old.card.skey == card.skey and old.via in card.endpoints:
            old.card = card  # the same publisher, still where we hear it: keep the link
            return
        if old is not None:
            del self.peers[card.seat]
            self._close(old)
        self._race(card)

    def _race(self, card: Card) -> None:
        subs: dict[str, zmq.Socket[bytes]] = {}
        for ep in card.endpoints:
            sub = self._subscribe(ep, card.skey)
            if sub is not None:
                subs[ep] = sub
        if not subs:
            return
        self.peers[card.seat] = _Sub(card, subs, Bucket(MSGS_PER_S, MSGS_PER_S))
        for sub in subs.values():
            self._by_sub[sub] = card.seat
            self.owner.poller.register(sub, zmq.POLLIN)
        log.info("watching %s at %s", self.owner.seat_name(card.seat), ", ".join(card.endpoints))

    def _route(self, ep: str) -> tuple[str, SocksForwarder | None] | None:
        """Where a SUB connects for `ep`, as a seat's mesh decides (`torlink.dial_route`,
        TRANSPORT.md §10.9), or None if we do not dial it, said once an endpoint."""
        setup = self.owner.mesh_setup
        route = dial_route(ep, setup.socks, setup.hidden)
        if not isinstance(route, str):
            return route
        if first_refusal(self._not_dialled, ep):
            log.info("not watching a publisher at %s: %s", shown(ep), route)
        return None

    def _subscribe(self, ep: str, skey: bytes) -> zmq.Socket[bytes] | None:
        route = self._route(ep)
        if route is None:
            return None
        target, fwd = route
        client = self._client if self.owner.options.curve else None
        sub = subscriber(self.owner.ctx, skey, client, setup=_watch_limits)
        try:
            sub.connect(target)
        except zmq.ZMQError as exc:
            log.warning("cannot subscribe at %s: %s", shown(ep), exc)
            sub.close(linger=0)
            if fwd is not None:
                fwd.close()
            return None
        if fwd is not None:
            self._fwds[sub] = fwd
        return sub

    def _close(self, p: _Sub) -> None:
        for sub in p.subs.values():
            self._drop_sub(sub)
        p.subs.clear()
        p.sub = None

    def _drop_sub(self, sub: zmq.Socket[bytes]) -> None:
        with contextlib.suppress(KeyError):
            self.owner.poller.unregister(sub)
        self._by_sub.pop(sub, None)
        self._retired.add(sub)
        sub.close(linger=0)
        fwd = self._fwds.pop(sub, None)
        if fwd is not None:
            fwd.close()

    # ----- receiving -----------------------------------------------------------------------
    def owns(self, sock: Any) -> bool:
        """True if `sock` is (or was, in this poll) one of our subscriptions."""
        return sock in self._by_sub or sock in self._retired

    def hears(self) -> list[bool]:
        """Which seats we heard from their own publisher in the last 2.5 s."""
        s = self.owner.session
        now = time.monotonic()
        n = len(s.seats) if s is not None else 0
        return [i in self.peers and now - self.peers[i].heard < LIVE for i in range(n)]

    def on_socket(self, sock: Any) -> None:
        """Drain one publisher (at most 1000 messages a call)."""
        seat = self._by_sub.get(sock)
        if seat is None:
            return
        p = self.peers[seat]
        if p.sub is None:  # the first endpoint to deliver wins the race
            p.sub = sock
            for ep, other in list(p.subs.items()):
                if other is sock:
                    p.via = ep
                else:
                    self._drop_sub(other)
                    del p.subs[ep]
            log.info("direct link up: we hear %s", self.owner.seat_name(seat))
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
                msg = decode_mesh(data)
            except WireError as exc:
                self.dropped += 1
                log.warning("dropped a message from seat %d: %s", seat, exc.reason)
                continue
            p.heard = now
            self._on_direct(seat, p, msg)
            if self.owner.stopped is not None or self.peers.get(seat) is not p:
                return

    def _on_direct(self, seat: int, p: _Sub, msg: messages.MeshMessage) -> None:
        """A publisher's table: entries, heads, proofs and cards; gets, votes and resignation
        statements are for the seats (their effect reaches us as entries)."""
        match msg:
            case MeshEntries():
                p.head = msg.h
                if self.owner.session is not None:
                    self.owner.deliver(msg.start, list(msg.e), self.owner.seat_name(seat), seat)
            case MeshHead():
                p.head = msg.h
                self._compare(seat, p)
            case MeshProof():
                self.on_proof(seat, msg.p)
            case MeshCard():
                self.on_card(msg, seat)
            case _:
                pass

    def on_tunnel(self, data: bytes) -> None:
        """A mesh message over the host link: cards, the host's head, proofs."""
        try:
            msg = decode_mesh(data)
        except WireError as exc:
            self.dropped += 1
            log.warning("dropped a tunnelled mesh message: %s", exc.reason)
            return
        match msg:
            case MeshCard():
                self.on_card(msg, 0)
            case MeshProof():
                self.on_proof(None, msg.p)
            case _:
                pass  # the host's head (it sends us its entries anyway)

    def _compare(self, seat: int, p: _Sub) -> None:
        """A seat advertises an entry we hold with another hash: say so once per seq (a notice:
        the entry itself, if a publisher sends it, makes the proof)."""
        s = self.owner.session
        if s is None or p.head is None:
            return
        seq, digest = p.head
        if seq < len(s) and seq not in p.told and hashlib.sha256(s.entries[seq]).digest() != digest:
            p.told.add(seq)
            self.owner.mesh_notice(
                f"{self.owner.seat_name(seat)} advertises another entry {seq} than the one "
                "we hold: the host may be showing us another game"
            )

    # ----- proofs --------------------------------------------------------------------------
    def on_proof(self, seat: int | None, proof: bytes) -> None:
        """A proof from a publisher (`seat`) or the host (None): checked against our genesis,
        kept beside our log, sent to the host, and we stop with its verdict."""
        s = self.owner.session
        if s is None or self.verdict is not None or self.owner.stopped is not None:
            return
        now = time.monotonic()
        key = -1 if seat is None else seat
        if not self._proof_rate.setdefault(key, Bucket(PROOFS_PER_S, 2, now)).take(now):
            self.dropped += 1
            return
        try:
            conviction = evidence.check(proof, s.entries[0])
        except RemoteProtocolError as exc:
            self.dropped += 1
            log.warning("a proof that proves nothing: %s", shown(exc.reason))
            return
        self.adopt(proof, conviction.seat, conviction.reason)

    def adopt(self, proof: bytes, seat: int, reason: str) -> Verdict:
        """Keep a checked proof, send it on, stop with its verdict."""
        self.verdict = Verdict(seat, reason, self.owner.keep(proof))
        self.owner.send_proof(proof)
        self.owner.mesh_stop(self.verdict)
        return self.verdict

    # ----- periodic ------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Our head to the host every 0.5 s (we are a witness, TRANSPORT.md §12.3)."""
        self._retired.clear()
        s = self.owner.session
        if s is not None and self.book is not None and self.book.later:
            for card in self.book.due(now, s.resigned):
                self._link(card)  # a newer card that waited for the card rate
        if s is None or now - self._last_head < HEAD_EVERY or self.owner.host_pub is None:
            return
        self._last_head = now
        head = [len(s) - 1, hashlib.sha256(s.entries[-1]).digest()]
        up = self.hears()
        self.owner.send_mesh(wire_head(head, up))

    def links(self) -> dict[int, bool]:
        """Seat -> whether its publisher reached us (also once closed)."""
        return {seat: p.via is not None for seat, p in sorted(self.peers.items())}

    def close(self) -> None:
        for p in self.peers.values():
            self._close(p)
        for fwd in self._fwds.values():
            fwd.close()
        self._fwds.clear()


def wire_head(head: list[Any], up: list[bool]) -> bytes:
    """A mesh `head` message (the one a seat publishes, §10.3)."""
    return pack("head", h=head, up=up)


class Spectator(Joiner):
    """Watches a game: the joiner's host link, `watch` instead of `hello`, no seat, no entry of
    its own; the seats' publishers through `Witness`. With `fail_over`, a stalled source
    (TRANSPORT.md §12.6) stops it, so that it watches on through the next invite; without, the
    stall is only said."""

    def __init__(self, *args: Any, fail_over: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.witness = Witness(self)
        self.admitted: messages.Watching | None = None
        self.fail_over = fail_over
        self.stall = StallWatch(self.now, self._have())

    def seat_name(self, seat: int) -> str:
        """`seat 2 (Blue)`."""
        s = self.session
        if s is not None and 0 <= seat < len(s.seats):
            return seat_word(seat, s.seats[seat].team.label)
        return seat_word(seat)

    def source_name(self) -> str:
        """Whom we watch through: `the host`, or `seat 2 (Blue)'s watch port` (§12.6)."""
        s = self.session
        keys = [si.public_key for si in s.seats] if s is not None else []
        if self.host_pub in keys[1:]:
            return f"{self.seat_name(keys.index(self.host_pub))}'s watch port"
        return "the host"

    # ----- the host link -------------------------------------------------------------------
    def _hello(self) -> None:
        """Where a joiner says hello, a spectator says `watch` (TRANSPORT.md §12.1)."""
        s = self.session
        game = s.game_id if s is not None else None
        self._send(messages.encode(messages.Watch(game=game, have=self._have())))

    def _from_host(self, msg: Message) -> None:
        match msg:
            case messages.Watching():
                if self.admitted is None:
                    self.driver.on_notice(
                        f"watching: {msg.n} spectator(s) now, at most {msg.most}; "
                        "every entry is checked here as it comes"
                    )
                self.admitted = msg
            case messages.Tunnel():
                self.witness.on_tunnel(msg.m)
            case messages.Claim() | messages.Resign() | messages.Sync():
                self.dropped += 1  # for the seats; a spectator holds nothing to resync from
            case _:
                super()._from_host(msg)

    def _genesis_ok(self, session: Session) -> bool:
        """The identity whose welcome we checked (the host's, or a seat's that admits us,
        TRANSPORT.md §12.6) plays a seat of this genesis: it is that seat's game."""
        return any(si.public_key == self.host_pub for si in session.seats)

    def resign_and_leave(self, reason: str) -> None:
        """A spectator has no seat to resign: it just stops watching."""
        self.leave(reason)

    def send_mesh(self, data: bytes) -> None:
        """A mesh message (our head, a proof) to the host."""
        self._send(wire.pack("mesh", m=data))

    def send_proof(self, proof: bytes) -> None:
        """A proof to the host, which checks it and passes it to every seat (§12.3)."""
        try:
            self.send_mesh(pack("proof", p=proof))
        except WireError:
            log.warning("the proof (%d bytes) is too large to send in one frame", len(proof))

    def publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        """Nothing of ours to send: a spectator signs no entry."""

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """We have no mesh of our own: nothing goes through here."""

    # ----- proofs --------------------------------------------------------------------------
    def keep(self, proof: bytes) -> Any:
        """Append `proof` to our `.proofs` (None if there is no log or it cannot be written)."""
        return evidence.keep_beside(self.mesh_log_path(), proof, self.mesh_notice)

    def _keep_proof(self, offending: bytes) -> Verdict | None:
        """Our session stopped on a cheat: the proof, checked as anyone would, kept and sent."""
        s = self.session
        assert s is not None
        if self.witness.verdict is not None:
            return self.witness.verdict
        try:
            proof = evidence.make_proof(s.entries, offending)
            conviction = evidence.check(proof, s.entries[0])
        except (ValueError, RemoteProtocolError) as exc:
            log.warning("our own proof does not check: %s", exc)
            return None
        self.witness.verdict = Verdict(conviction.seat, conviction.reason, self.keep(proof))
        self.send_proof(proof)
        return self.witness.verdict

    def _refused(self, entry: bytes, exc: RemoteProtocolError) -> None:
        """An entry our session refused without stopping: if its author's own signature on
        our chain proves the fault (an illegal move, a lying result), a proof like a fork's."""
        s = self.session
        if s is None or self.witness.verdict is not None:
            return
        if evidence.convicted_by(s, entry, exc) is None:
            return
        verdict = self._keep_proof(entry)
        if verdict is not None:
            self.mesh_stop(verdict)

    # ----- loop ----------------------------------------------------------------------------
    def on_socket(self, sock: Any) -> None:
        if self.witness.owns(sock):
            self.witness.on_socket(sock)
        else:
            super().on_socket(sock)

    def tick(self, now: float) -> None:
        super().tick(now)
        if self.stopped is None:
            self.witness.tick(now)
        if self.stopped is None:
            self._check_stall(now)

    def _check_stall(self, now: float) -> None:
        """A source that sends no entry for longer than the game's clocks allow (§12.6): with
        a next invite we stop, so that it watches on; on the last one we say so, once a head."""
        stalled = self.stall.check(self.session, now)
        if stalled is None:
            return
        line = stalled.line(self.source_name(), self.seat_name(stalled.seat))
        log.info("%s", line)
        if self.fail_over:
            self.stop(Outcome(False, line, self._have()))
        else:
            self.driver.on_notice(f"{line}: it may be hiding the game")

    def close(self) -> None:
        self.witness.close()
        super().close()
