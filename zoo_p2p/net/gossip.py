"""What rides on the direct links (protocol/TRANSPORT.md §10.3-§10.6), sans-I/O: heads, `get`,
fork walking, withholding notices, proofs, votes and resignations, and the bounds on them.

`MeshCore` builds on `zoo_p2p.net.links.DirectLinks` (whose card we hold, our subscriptions)
and does what each mesh message asks. It reads no clock (every entry point takes `now`), opens
no socket and writes no file: what it publishes goes out through `_emit`, the subscriptions it
wants opened or closed through `_subscribe` / `_drop_sub`, and a proof to keep through `_keep`,
each filled in by a transport (`zoo_p2p.net.mesh.Mesh`, over ZeroMQ) or in memory
(`zoo_p2p.net.memmesh.MemoryMesh`: what it would publish comes back from each call, for tests
and for a witness that holds no seat). What the session must see goes to its owner, the peer
(`MeshOwner`): entries to `deliver`, statements, notices, the verdict.

The rules it keeps: a head we cannot place makes us `get` the entry from whoever advertised it;
an entry that does not chain onto our log makes us fetch its predecessor from the same peer, so
two chains that split are walked back to the split, where the session sees a fork; an entry
that overtakes its predecessor is kept and the gap asked for only if it stays; a peer that
advertises an entry and does not deliver it when asked, and an author whose entry reaches us
only from others, are named (`zoo_p2p.net.holdback`: a notice, not a verdict).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net import evidence, wire
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.cards import CardCheck, check_card, pack
from zoo_p2p.net.holdback import LIVE, TRACKED, HoldBack
from zoo_p2p.net.links import (
    MSGS_PER_S,
    DirectLinks,
    FixedEndpoints,
    MeshOwner,
    MoreEndpoints,
    PeerLinks,
    Verdict,
)
from zoo_p2p.net.messages import (
    MAX_GET,
    Head,
    MeshCard,
    MeshEntries,
    MeshGet,
    MeshHead,
    MeshMessage,
    MeshProof,
    MeshResign,
    MeshVote,
    WireError,
    decode_mesh,
)
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.evidence import decode_proof

__all__ = [
    "ASK_AGAIN",
    "GAP_GRACE",
    "GETS_PER_S",
    "GREET_EVERY",
    "HEAD_EVERY",
    "MSGS_PER_S",
    "PROOFS_PER_S",
    "STATEMENTS_PER_S",
    "FixedEndpoints",
    "MeshCore",
    "MeshOwner",
    "MoreEndpoints",
    "PeerLinks",
    "Verdict",
]

log = logging.getLogger("zoo_p2p.net.mesh")

HEAD_EVERY = 0.5  # seconds between heads on an idle direct link
GREET_EVERY = 0.05  # a new subscriber gets our head at once, at most this often
ASK_AGAIN = 0.25  # re-ask one peer for one seq at most this often
GAP_GRACE = 0.02  # seconds an entry may be missing behind a newer one before we ask for it
GETS_PER_S = 40.0  # `get` requests served per peer and second (token bucket, burst 40)
PROOFS_PER_S = 1.0  # received proofs checked per peer and second (burst 2)
STATEMENTS_PER_S = 10.0  # votes and resignations taken per peer and second (burst 20)

H = TypeVar("H")  # a transport's handle for one subscription (a ZeroMQ SUB socket)


def _chain_length(proof: bytes) -> int:
    """How many entries a proof's chain holds (1 if it does not even decode)."""
    try:
        return max(1, len(decode_proof(proof).chain))
    except RemoteProtocolError:
        return 1


class MeshCore(DirectLinks[H]):
    """One peer's view of the direct links and everything that rides on them (see the module
    docstring). A transport subclasses it and fills in `_emit`, `_subscribe` and `_drop_sub`
    (and `_keep` to keep proofs on disk)."""

    def __init__(
        self,
        owner: MeshOwner,
        *,
        now: float,
        port: int,
        skey: bytes,
        advertise: list[str],
        more: MoreEndpoints | None = None,
        fresh: bool = False,
        wall: Callable[[], float],
        check: CardCheck = check_card,
    ) -> None:
        self._get_rate: dict[int, Bucket] = {}
        self._proof_rate: dict[int, Bucket] = {}
        self._statement_rate: dict[int, Bucket] = {}
        self._ask_last: dict[tuple[int, int], float] = {}  # (peer seat, seq) -> last asked
        self.verdict: Verdict | None = None
        self._last_heads = 0.0
        self._told_up: list[bool] = []  # the `up` of our last head
        self._gaps: dict[tuple[int, int], float] = {}  # (seat, missing seq) -> since when
        # no publisher of our seat ran before ours in this game (we wrote the genesis or took
        # the seat from it, and hold no entry of our seat that another process signed): every
        # report that a seat hears us is about this publisher (see `hears`)
        self.fresh = fresh
        self.direct_new = 0  # entries that reached our log first over a direct link
        self.started = now
        self._greeted = 0.0  # when a new subscription last made us send a head at once
        super().__init__(
            owner, port=port, skey=skey, advertise=advertise, more=more, wall=wall, check=check
        )
        self.holdback = HoldBack(self.seat)  # who we asked for what, who sent us what

    def _keep(self, proof: bytes) -> Path | None:
        """Keep a proof next to our log; where (None: nowhere)."""
        return None

    # ----- state -----------------------------------------------------------------------------
    def _head(self) -> tuple[int, bytes]:
        entries = self.session.entries
        return len(entries) - 1, hashlib.sha256(entries[-1]).digest()

    def _up(self, now: float) -> list[bool]:
        return [
            i == self.seat or (i in self.peers and now - self.peers[i].heard < LIVE)
            for i in range(self.n)
        ]

    def hears(self, seat: int, author: int, now: float) -> bool:
        """True when `seat` told us lately that it hears `author` directly."""
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

    def relay_needed(self, seat: int, entries: list[bytes], now: float) -> bool:
        """Whether a relay (the host) must still pass `entries` on to `seat`: unless `seat`
        hears every one of their authors directly, it must (the fallback path)."""
        for raw in entries:
            try:
                author = decode_entry(raw).seat
            except RemoteProtocolError:
                return True
            if not self.hears(seat, author, now):
                return True
        return False

    # ----- sending ---------------------------------------------------------------------------
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

    # ----- receiving -------------------------------------------------------------------------
    def on_frame(self, seat: int, data: bytes, now: float) -> bool:
        """One frame read from `seat`'s subscription that won its race. False: read no more
        from it now (its link was replaced or cut, or we stopped)."""
        p = self.peers[seat]
        sub = p.sub
        if not p.rate.take(now):
            self.dropped += 1
            return True
        try:
            msg = decode_mesh(data)
        except WireError as exc:
            self.dropped += 1
            log.warning("dropped a message from %s: %s", self.name(seat), exc.reason)
            return True
        if not p.first_heard:
            self._greet = True  # a new link: tell it every card we know
        self._heard_from(p, now)
        if isinstance(msg, MeshCard):
            self._on_card(msg, seat, True, now)
            # that seat's link was replaced (a newer card), or cut
            return self.peers.get(seat) is p and p.sub is sub
        self._on_msg(seat, msg, now)
        if self.verdict is not None and self._stopped():
            return False
        return p.sub is sub  # what it sent cost too much: its link was cut (and closed)

    @staticmethod
    def _heard_from(p: PeerLinks[H], now: float) -> None:
        p.heard = now
        if not p.first_heard:
            p.first_heard = now

    def _stopped(self) -> bool:
        return self.owner.stopped is not None

    def on_tunnel(self, seat: int | None, data: bytes, now: float) -> None:
        """A mesh message that came through the host link: the host link's table is cards,
        proofs and heads (§10.3); any other kind is dropped, and the log says why. `seat`: the
        link's seat (None for a joiner's host link, which carries every seat's cards)."""
        try:
            msg = decode_mesh(data)
        except WireError as exc:
            self.dropped += 1
            log.warning("dropped a tunnelled mesh message: %s", exc.reason)
            return
        match msg:
            case MeshCard():
                self._on_card(msg, seat, False, now)
            case MeshProof() if seat is not None:
                self._on_proof(seat, msg.p, now)
            case MeshHead() if seat is not None and seat in self.peers:
                self._on_head(seat, msg.h, now)
            case MeshProof() | MeshHead():
                pass  # the host's own (a joiner's host link) or a seat we have no peer for
            case _:
                log.info("dropped a tunnelled mesh %s: only cards, heads and proofs", msg.T)

    def _on_msg(self, seat: int, msg: MeshMessage, now: float) -> None:
        """The direct links' table: every kind of §10.3 (a card is taken before, in
        `on_frame`)."""
        match msg:
            case MeshEntries():
                self._on_head(seat, msg.h, now, fetch=False)
                self._on_entries(seat, msg.start, list(msg.e), now)
            case MeshHead():
                p = self.peers[seat]
                p.up, p.up_at = msg.up, now
                self._on_head(seat, msg.h, now)
            case MeshGet():
                self._on_get(seat, msg, now)
            case MeshProof():
                self._on_proof(seat, msg.p, now)
            case MeshVote() if self._statement_allowed(seat, now):
                self.owner.mesh_vote(seat, msg.v)
            case MeshResign() if self._statement_allowed(seat, now):
                self.owner.mesh_resign(seat, msg.r)
            case MeshCard():
                self._on_card(msg, seat, True, now)

    def _on_get(self, seat: int, msg: MeshGet, now: float) -> None:
        if msg.to != self.seat:
            return  # a request to another seat (we hear every request its author publishes)
        bucket = self._get_rate.setdefault(seat, Bucket(GETS_PER_S, GETS_PER_S))
        if not bucket.take(now):
            self.dropped += 1
            return
        batch = self.session.entries[msg.start : msg.start + msg.n]
        if batch:
            self.publish(pack("ent", **{"from": msg.start, "e": batch, "h": list(self._head())}))

    def _statement_allowed(self, seat: int, now: float) -> bool:
        """A vote or a resignation costs a signature check, so it is bounded apart from the
        message rate (§10.6); False: dropped (counted)."""
        bucket = self._statement_rate.setdefault(
            seat, Bucket(STATEMENTS_PER_S, 2 * STATEMENTS_PER_S)
        )
        if bucket.take(now):
            return True
        self.dropped += 1
        return False

    # ----- entries, heads and asks (§10.4) ---------------------------------------------------
    def _on_entries(self, seat: int, start: int, entries: list[bytes], now: float) -> None:
        s = self.session
        before = len(s)
        self.holdback.answered(seat, start, len(entries))
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
        gap = self.owner.deliver(start, entries, self.name(seat), seat)
        self.direct_new += len(self.session) - before
        self._note_accepted(before, now)
        self.heard(seat, start, entries)
        if gap is not None:
            # the missing entry is most often on its way from its author (a direct link can
            # overtake another): ask only if it is still missing after GAP_GRACE (`tick`);
            # the owner keeps the newer entry meanwhile
            self._gaps.setdefault((seat, gap), now)

    def heard(self, seat: int, start: int, entries: list[bytes]) -> None:
        """Entries numbered from `start` reached us from `seat` (direct or over the host link)."""
        self.holdback.heard(seat, start, entries, self.session.entries)

    def _note_accepted(self, before: int, now: float) -> None:
        self.holdback.accepted(before, len(self.session), now, lambda: self.session.entries)

    @property
    def _sources(self) -> dict[int, set[int]]:
        return self.holdback.sources

    @property
    def _early(self) -> dict[int, dict[int, bytes]]:
        return self.holdback.early

    def _on_head(self, seat: int, h: Head, now: float, *, fetch: bool = True) -> None:
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
        self.holdback.asking(seat, seq, now, self._hears_us(seat, now))
        self.publish(pack("get", **{"from": seq, "n": count, "to": seat}))

    def _hears_us(self, seat: int, now: float) -> bool:
        return self.seat is not None and self.hears(seat, self.seat, now)

    # ----- proofs (§10.5) --------------------------------------------------------------------
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

    def _on_proof(self, seat: int, proof: bytes, now: float) -> None:
        if self.verdict is not None:
            return
        bucket = self._proof_rate.setdefault(seat, Bucket(PROOFS_PER_S, 2))
        if not bucket.take(now) or not self.owner.may_check(seat):
            self.dropped += 1
            return
        try:
            conviction = evidence.check(proof, self.session.entries[0])
        except RemoteProtocolError as exc:
            self.dropped += 1
            # up to one signature check per entry of its chain, all for nothing
            self.owner.checked(seat, _chain_length(proof))
            log.warning("a proof that came from %s proves nothing: %s", self.name(seat), exc.reason)
            return
        self.verdict = Verdict(conviction.seat, conviction.reason, self._keep(proof))
        self._broadcast_proof(proof, skip=seat)
        self.owner.mesh_stop(self.verdict)

    # ----- periodic --------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Heads and cards on every direct link; name who holds entries back."""
        for card in self.book.due(now, self.session.resigned) if self.book.later else []:
            self._take_card(card)  # a waiting card got its token
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
                for card_data in self.cards.values():
                    self.publish(card_data)
            self.publish(head)
            self.owner.mesh_tunnel(head, None)
            if self.card_msg:  # the host may not have it (a restart)
                self.owner.mesh_tunnel(self.card_msg, None)
        self._name_holders(now)

    def subscribed(self, now: float) -> None:
        """A subscriber completed its handshake with our publisher (its subscription arrived):
        our head and every card we hold go out at the next tick, at once, not at the next head
        up to HEAD_EVERY later (§10.1), at most every GREET_EVERY (a subscriber that subscribes
        without end makes us send no faster)."""
        if now - self._greeted >= GREET_EVERY:
            self._greeted = now
            self._greet = True
            self._last_heads = 0.0  # (the next tick sends a head)

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
        """Who holds the game up (§10.4): notices, never verdicts."""
        for text in self.holdback.notices(
            now,
            lambda: self.session.entries,
            self.peers,
            self.session.resigned,
            lambda seat: self._hears_us(seat, now),
            self.name,
        ):
            self.owner.mesh_notice(text)
