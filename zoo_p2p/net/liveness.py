"""Clocks and claims in a running peer (PROTOCOL.md §10): the floor holder's clock, claim votes,
resignations on the wire. A component of the peer's core (`PeerCore.live`, held, not mixed in),
ticking with the loop turn's `now`; it reads no clock. The session decides what is valid.

Wire messages (TRANSPORT.md): `claim {vote}` carries one vote (msgpack `[claimed, at, seat, sig]`),
`resign {r, key}` one resignation statement (`key` is empty: no private key travels any more).
The host relays both to every other seat; joiners send theirs to the host. Both also travel on
the direct links (mesh messages `vote {v}`, `resign {r}`, TRANSPORT.md §10.3), so a host that
drops them cannot keep a stalled game from ending or hide a resignation: the voter publishes its
vote with every re-send, the resigner its statement, and every peer publishes a resignation it
accepts once more. Nobody runs the stand-in of a resigned seat: every peer's session computes
its entries (PROTOCOL.md §10.4) and `_advance` sends them like our own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from zoo_p2p.driver import ClaimQuestion, Driver, GameLink, Outcome, SeatPresence
from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.net import wire
from zoo_p2p.net.messages import unpack_statement
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.liveness import (
    Resignation,
    Vote,
    parse_resignation,
    parse_vote,
)
from zoo_p2p.text import replaced_notice, seat_word, shown

if TYPE_CHECKING:
    from zoo_p2p.net.core.parts import PeerMesh
    from zoo_p2p.protocol.session import Session

log = logging.getLogger("zoo_p2p.net")
T = TypeVar("T")

# what a seat is awaited for, as the "waiting for" line names it
_AWAITED = {
    "move": "a move",
    "reveal": "a reveal",
    "commit": "a commitment",
    "open": "an opening",
    "seed": "its seed",
    "result": "a signed result",
}

# what the floor holder owes, as the claim question names it
_OWED = {
    Kind.MOVE: "its move",
    Kind.REVEAL: "its reveal",
    Kind.COMMIT: "its commitment",
    Kind.OPEN: "its opening",
    Kind.SEED: "its seed",
    Kind.RESULT: "its signed result",
}

VOTE_RESEND = 1.0  # seconds between re-sends of our vote while the claim is incomplete


RESIGN_SEAL_WAIT = 2.0
"""Seconds a seat that resigned a two-seat game waits for the floor holder's entry with its
resignation (PROTOCOL.md §10.4), which ends the game, before it leaves: its own log then says
how the game ended (with 3-4 seats it says that the seat resigned, and the game goes on)."""


class LivenessPeer(GameLink, Protocol):
    """What the claims and resignations need of the peer that holds them (`PeerCore`)."""

    driver: Driver
    mesh: PeerMesh | None
    dropped: int
    now: float  # the loop turn's time
    _leave_reason: str  # what our `leave` tells the host, when not our own closing words

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Send a claim or resign message on (host: every seat but `skip_seat`; joiner: host)."""
        ...

    def _advance(self, before: int, events: list[Any] | None = None) -> None: ...
    def may_check(self, seat: int) -> bool: ...
    def checked(self, seat: int, n: int = 1) -> None: ...
    def stop(self, outcome: Outcome) -> None: ...
    def _seat_has_left(self, seat: int) -> bool: ...


class Liveness:
    """The clock of the floor holder as this peer sees it, and the claim/resign plumbing: a
    component of the peer (`PeerCore.live`), ticking with the loop turn's `now`."""

    def __init__(self, peer: LivenessPeer) -> None:
        self.peer = peer
        self._clock_len = -1  # log length when the floor last changed hands (as we saw it)
        self._clock_start = 0.0
        self._offered = False  # the current stall was offered to the driver (or claimed)
        # the person was asked about the current stall: (late seat, until when, asking now —
        # else waiting as the person chose); at `until` we claim, or ask again after a wait
        self._asked: tuple[int, float | None, bool] | None = None
        self._votes_told: tuple[int, ...] | None = None  # votes a pending claim lacked, as told
        self._my_vote: Vote | None = None
        self._vote_sent = 0.0
        self._told_ending = False
        self._told_replaced = False  # we said that a play-on claim put our seat out (§10.7)
        self.resigned_self = False  # we signed our resignation (the exit says so, not "resume")
        # we resigned and leave once the floor holder's entry with it is in our log (so our
        # own log says how the game ended), or at this monotonic time: (reason, until)
        self._leave_sealed: tuple[str, float] | None = None
        self._resigned_seat: int | None = None  # the seat we resigned (our session forgets it)
        self._votes_held: dict[int, bytes] = {}  # seat -> its vote that the session accepted
        self._resigns_held: set[bytes] = set()  # resignation statements the session accepted

    def _from_peer(self, what: str, parse: Callable[[Any], T], data: bytes) -> T | None:
        """`parse` of a peer's msgpack bytes, or None when they do not parse (counted, logged
        as "dropped WHAT: why")."""
        try:
            return parse(unpack_statement(data))
        except RemoteProtocolError as exc:
            self.peer.dropped += 1
            log.warning("dropped %s: %s", what, shown(exc.reason))
            return None

    # ----- the clock ----------------------------------------------------------------------
    def floor_clock(self, now: float | None = None) -> tuple[int, float, int] | None:
        """(floor seat, seconds it has held the floor as we saw it, seconds allowed), or None."""
        s = self.peer.session
        if s is None or s.finished or s.floor is None:
            return None
        now = self.peer.now if now is None else now
        if self._clock_len != len(s):
            return (s.floor.seat, 0.0, s.clocks.for_kind(s.floor.kind))
        return (s.floor.seat, now - self._clock_start, s.clocks.for_kind(s.floor.kind))

    def tick(self, now: float) -> None:
        """Every loop turn: restart the clock when the floor moves; offer or sign a claim when
        the floor holder's time has run out; re-send our vote until the claim is complete."""
        s = self.peer.session
        if self._leave_sealed is not None:
            reason, until = self._leave_sealed
            sealed = s is None or self._resigned_seat in s.resigned or s.ending is not None
            if sealed or now >= until:
                self._leave_sealed = None
                if not sealed:  # our log cannot say it: the closing line does
                    reason += (
                        f" (the entry with our resignation had not reached us within "
                        f"{RESIGN_SEAL_WAIT:g} s)"
                    )
                self.peer.leave(reason)
        if s is None or s.stopped is not None:
            return
        if s.ending is not None and not self._told_ending:
            self._told_ending = True
            self.peer.driver.on_notice(s.outcome().describe(s.seats))
        if s.replaced_at is not None and not self._told_replaced:
            self._told_replaced = True
            self.peer.driver.on_notice(replaced_notice(s.replaced_at))
        f = s.floor
        if f is None:
            return
        if self._clock_len != len(s):
            self._clock_len, self._clock_start, self._offered = len(s), now, False
            self._question_gone(s)
            self._votes_told = None
            return
        if s.voted:
            self._tell_votes(s, now)
            if self._my_vote is not None and now - self._vote_sent >= VOTE_RESEND:
                self._send_vote(self._my_vote, now)
            return
        allowed = s.clocks.for_kind(f.kind)
        if f.kind == Kind.COMMIT and f.seat != 0 and s.can_claim():
            # its commit is a seat's first entry: before it, the seat never took its place
            # (PROTOCOL.md §3.2): nothing to claim against it, the game never started
            if self.peer._seat_has_left(f.seat) or now - self._clock_start >= allowed:
                self._never_started(f.seat, allowed)
            return
        if self._asked is not None:
            self._tell_votes(s, now)
            self._question_tick(now, allowed)
            return
        if self._offered or not s.can_claim() or now - self._clock_start < allowed:
            return
        self._offered = True
        self._offer_claim(now, allowed)

    # ----- the person's question: claim now, or wait (a bounded wait) ----------------------
    def _offer_claim(self, now: float, allowed: int) -> None:
        """The floor holder's time ran out: a driver that asks its person (`on_claim_offer`
        returns False) gets one more clock period for the answer; any other claims at once."""
        question = self._claim_question(now, claims_in=allowed)
        if question is None or self.peer.driver.on_claim_offer(question, self.peer):
            self._asked = None
            self.claim()
            return
        self._asked = (question.seat, now + allowed, True)
        if self.peer.session is not None:  # the question says whose votes the claim lacks now
            self._votes_told = tuple(self.peer.session.votes_missing())

    def _claim_question(
        self, now: float, *, claims_in: int | None = None, came: tuple[int, ...] = ()
    ) -> ClaimQuestion | None:
        """The question about the current floor holder, with the pending claim's votes."""
        s = self.peer.session
        if s is None or s.floor is None or s.seat is None:
            return None
        f = s.floor
        missing = s.votes_missing()
        voted = [
            i for i in range(len(s.seats)) if i not in (f.seat, *missing) and i not in s.resigned
        ]

        def word(i: int) -> str:
            return seat_word(i, s.seats[i].team.label)

        return ClaimQuestion(
            seat=f.seat,
            who=word(f.seat),
            what=_OWED.get(f.kind, "its next entry"),
            waited=int(now - self._clock_start),
            voted=tuple(["you"] * (s.seat in voted) + [word(i) for i in voted if i != s.seat]),
            missing=tuple(
                ["you"] * (s.seat in missing) + [word(i) for i in missing if i != s.seat]
            ),
            claims_in=claims_in,
            came=tuple("you" if i == s.seat else word(i) for i in came),
        )

    def claim_votes(self) -> str:
        """The pending claim against the floor holder, for the "waiting for" line: ``claim
        votes 1 of 2: seat 2 (Green); still needed: you``, or "" when no seat has voted."""
        q = self._claim_question(self.peer.now)
        return "" if q is None else q.votes_text()

    def _question_tick(self, now: float, allowed: int) -> None:
        """While the person is asked, or waits: the bound of one more clock period."""
        assert self._asked is not None
        seat, until, asking = self._asked
        if until is None:  # the person just chose to wait: one more clock period from now
            self._asked = (seat, now + allowed, asking)
            return
        if now < until:
            return
        if not asking:  # the wait the person chose is over: ask again
            self._asked = None
            self._offer_claim(now, allowed)
            return
        self._asked = None
        self._claim_closed("no answer: claiming the game for you")
        self.claim()

    def _tell_votes(self, s: Session, now: float) -> None:
        """While a claim is pending (we voted, or our person is asked or waits): say whose votes
        it still lacks whenever that changes (the claim notice or the question said it first).
        The driver's `on_claim_votes` gets the question again, updated (while the person is
        asked, with the time left before we claim by ourselves; `BaseDriver`: a notice)."""
        missing = tuple(s.votes_missing())
        if self._votes_told is None or missing == self._votes_told or s.floor is None:
            self._votes_told = missing
            return
        came = [i for i in self._votes_told if i not in missing]
        self._votes_told = missing
        if not missing or not came:
            return  # complete (the claim entry follows), or a stale vote dropped
        self._votes_changed(now, tuple(came))

    def _votes_changed(self, now: float, came: tuple[int, ...]) -> None:
        """Hand the driver's `on_claim_votes` the updated question."""
        left = None
        if self._asked is not None and self._asked[2] and self._asked[1] is not None:
            left = max(0, int(self._asked[1] - now + 0.999))  # whole seconds, rounded up
        question = self._claim_question(now, claims_in=left, came=came)
        if question is not None:
            self.peer.driver.on_claim_votes(question, self.peer)

    def _question_gone(self, s: Session) -> None:
        """The log grew while the person was asked or waited: the question goes away."""
        if self._asked is None:
            return
        seat = self._asked[0]
        self._asked = None
        who = seat_word(seat, s.seats[seat].team.label)
        try:
            answered = decode_entry(s.entries[-1]).seat == seat
        except (RemoteProtocolError, IndexError):  # our own log: cannot happen, but say less
            answered = False
        if seat in s.out:  # a claim that played on: authored by its seat, not its answer
            self._claim_closed(
                f"{who} is out: a stand-in plays its seat on and the others re-deal what "
                "nobody has seen (PROTOCOL.md §10.7)"
            )
            return
        self._claim_closed(
            f"{who} answered: the game goes on"
            if answered
            else f"the game moved on (no answer from {who} is owed any more)"
        )

    def _claim_closed(self, text: str) -> None:
        self.peer.driver.on_claim_closed(text, self.peer)

    def claim_now(self) -> bool:
        """The person answered "claim": sign our vote (False: the question is gone, the floor
        moved meanwhile, so there is nothing of that stall to claim)."""
        if self._asked is None or not self._asked[2]:
            return False
        self._asked = None
        return self.claim()

    def claim_wait(self) -> bool:
        """The person answered "wait": one more clock period, then the question comes again
        (False: the question is gone meanwhile)."""
        s = self.peer.session
        if self._asked is None or not self._asked[2] or s is None:
            return False
        seat = self._asked[0]
        allowed = s.time_allowed() or 0
        self._asked = (seat, None, False)  # the loop's next turn starts the wait
        who = seat_word(seat, s.seats[seat].team.label)
        self.peer.driver.on_notice(f"waiting {allowed} s more for {who}; then you are asked again")
        return True

    def _never_started(self, seat: int, allowed: int) -> None:
        """Stop without a result: the seat owing its first commit left or let its clock run out,
        so it never agreed to this game (its genesis may say what it refused, e.g. hints)."""
        s = self.peer.session
        assert s is not None
        who = seat_word(seat, s.seats[seat].team.label)
        why = (
            "left before taking its seat"
            if self.peer._seat_has_left(seat)
            else f"did not take its seat (no commitment within {allowed} s)"
        )
        self.peer.stop(
            Outcome(
                False,
                f"the game never started: {who} {why}; it signed nothing in this game: no result",
                len(s),
                never_started=True,
            )
        )

    def claim(self) -> bool:
        """Sign our vote against the floor holder (its time ran out) and send it to everyone.
        The claim entry follows as soon as every other seat's vote is here. False if there is
        nothing to claim any more (the floor moved meanwhile)."""
        s = self.peer.session
        if s is None or not s.can_claim() or s.voted:
            return False
        f = s.floor
        assert f is not None
        try:
            vote = s.vote_claim()
        except LocalProtocolError:
            return False
        self._my_vote = vote
        who = seat_word(f.seat, s.seats[f.seat].team.label)
        self.peer.driver.on_notice(
            f"{who} did not answer within {s.clocks.for_kind(f.kind)} s: we claim the game"
            + (
                " (the claim still lacks the votes of "
                + ", ".join(seat_word(i, s.seats[i].team.label) for i in s.votes_missing())
                + ")"
                if s.votes_missing()
                else ""
            )
        )
        now = self.peer.now
        self._send_vote(vote, now)
        self._votes_changed(now, ())  # the "waiting for" line counts our vote now
        self.peer._advance(len(s))
        return True

    def _send_vote(self, vote: Vote, now: float) -> None:
        self._vote_sent = now
        data = vote.to_bytes()
        self.peer._liveness_out(wire.pack("claim", vote=data), None)
        self._mesh_statement("vote", data)  # and on the direct links: a claim needs no host

    def _mesh_statement(self, kind: str, data: bytes) -> None:
        if self.peer.mesh is not None:
            self.peer.mesh.publish_statement(kind, data)

    def on_vote(self, seat: int | None, data: bytes) -> None:
        """A claim vote from a peer (the host relays it on if it holds). `seat`: the link's
        seat (None: the host link of a joiner, which relays every seat's vote)."""
        by = 0 if seat is None else seat  # who made us check it
        s = self.peer.session
        if s is None:
            return
        vote = self._from_peer("a claim vote", parse_vote, data)
        if vote is None:
            return
        if seat is not None and vote.seat != seat:
            self.peer.dropped += 1
            log.warning("dropped a claim vote relayed for another seat")
            return
        held = (
            self._votes_held.get(vote.seat) == data
            and vote.at == len(s)
            and vote.seat not in s.votes_missing()
        )
        if not held:  # the same vote again (a re-send, or the other path): checked already
            if not self.peer.may_check(by):
                self.peer.dropped += 1
                return
            if not s.add_vote(vote):
                if vote.at == len(s):  # (about another head, it was not even checked)
                    self.peer.checked(by)
                log.info("a claim vote about entry %d is not about our head (%d)", vote.at, len(s))
                return
            self._votes_held[vote.seat] = data
        # relayed again even when held: a seat one entry behind dropped the earlier copy
        self.peer._liveness_out(wire.pack("claim", vote=data), vote.seat)
        if not held:
            self.peer._advance(len(s))

    def release_if_moved_on(self, start: int, entries: list[bytes]) -> None:
        """While our vote binds us, entries beyond the floor holder's answer show that some seat
        went on with that answer: our claim cannot complete, so we take our vote back."""
        s = self.peer.session
        if s is None or not s.voted or start + len(entries) <= len(s) + 1 or s.floor is None:
            return
        claimed = s.floor.seat
        for seq, raw in enumerate(entries, start):
            if seq <= len(s):
                continue
            try:
                author = decode_entry(raw).seat
            except RemoteProtocolError:
                continue
            # the claimed seat's own follow-ups prove nothing; another voter's entry does
            if author not in (claimed, s.seat):
                s.release_vote()
                self._my_vote = None
                self.peer.driver.on_notice("the game went on without our claim: we take it back")
                return

    # ----- resignation ----------------------------------------------------------------------
    def resign_and_leave(self, reason: str) -> None:
        """A person leaves for good (`q`, confirmed): a seated joiner in a game being played
        signs its resignation first (PROTOCOL.md §10.4) — with 3–4 seats a stand-in plays on,
        its entries computed by every peer, with 2 the other seat wins. We leave once the
        entry with our resignation is in our log (so our own log says that we resigned, and
        with 2 seats how the game ended), at most RESIGN_SEAL_WAIT later. The host
        just leaves (it relays the game: without it nothing goes on; `zoo resume` continues it)."""
        s = self.peer.session
        if (
            s is not None
            and s.seat not in (None, 0)
            and s.state is not None
            and s.floor is not None
            and not s.finished
        ):
            stand = len(s.seats) > 2
            try:
                self.resign()
            except LocalProtocolError as exc:
                log.warning("could not resign: %s", exc)
            else:
                self.resigned_self = True
                self._resigned_seat = s.seat
                # the host (and through it the others) reads "<name>, seat 3 (Green), left:
                # resigned", not our own closing words ("you resigned …")
                self.peer._leave_reason = "resigned"
                reason += (
                    "; you resigned and a stand-in plays on in your seat (every peer computes "
                    "its moves)"
                    if stand
                    else "; you resigned: the other seat wins"
                )
                # the entry with it (with two seats it ends the game) in our log too
                self._leave_sealed = (reason, self.peer.now + RESIGN_SEAL_WAIT)
                return
        self.peer.leave(reason)

    def resign(self) -> Resignation:
        """Sign our resignation and send it to every seat (host link and direct links)."""
        s = self.peer.session
        if s is None:
            raise LocalProtocolError("no game to resign from")
        r = s.resign()
        data = r.to_bytes()
        self.peer._liveness_out(wire.pack("resign", r=data, key=b""), None)
        self._mesh_statement("resign", data)
        return r

    def on_resign(
        self, seat: int | None, data: bytes, key: bytes = b"", by: int | None = None
    ) -> None:
        """A resignation statement from a peer (`key`: what older peers sent the host, the
        stand-in's private key; ignored, nobody runs a stand-in any more). `by`: the seat
        whose link brought it, when that is not `seat` (a direct link passes any seat's on)."""
        if by is None:
            by = 0 if seat is None else seat
        s = self.peer.session
        if s is None:
            return
        r = self._from_peer("a resignation", parse_resignation, data)
        if r is None:
            return
        if seat is not None and r.seat != seat:
            self.peer.dropped += 1
            log.warning("dropped a resignation relayed for another seat")
            return
        if data in self._resigns_held or r.seat in s.resigned:
            return  # the same statement by the other path, or one already in the log
        if not self.peer.may_check(by):
            self.peer.dropped += 1
            return
        try:
            kept = s.add_resignation(r)
        except CheatError as exc:  # signed by the resigner and provably wrong (§10.4)
            self.peer.dropped += 1
            log.warning("a resignation statement is a proof of cheating: %s", shown(exc.reason))
            self.peer._advance(len(s))  # the session stopped: the proof is kept and sent (mesh)
            return
        if not kept:
            self.peer.checked(by, 2)  # the stand-in key derived from its seed, and its signature
            self.peer.dropped += 1
            log.warning("dropped a resignation that does not verify or can no longer stand")
            return
        if len(self._resigns_held) < 16:  # each seat resigns once; a few spare for garbage
            self._resigns_held.add(data)
        if r.seat != self._resigned_seat:  # (our own comes back from the host: we said it)
            who = seat_word(r.seat, s.seats[r.seat].team.label)
            self.peer.driver.on_notice(
                f"{who} resigned"
                + (
                    "; a stand-in plays on in its seat (every peer computes its moves)"
                    if r.new_key is not None
                    else ""
                )
            )
        self.peer._liveness_out(wire.pack("resign", r=data, key=b""), r.seat)
        self._mesh_statement("resign", data)  # passed on once: the resigner may be gone
        self.peer._advance(len(s))

    def awaited(self, seats_state: list[SeatPresence]) -> list[tuple[int, str]]:
        """What the game waits for, from whom: [(seat index, "a move" | "a reveal" | …)].

        A seat that is lost or has left is awaited for "a reconnect" (one that resigned: for
        "its stand-in", whose entries every peer computes). A pending claim against it follows in
        brackets: "a move (claim votes 1 of 2: seat 2 (Green); still needed: you)".
        """
        s = self.peer.session
        if s is None or s.finished or s.floor is None:
            return []
        f = s.floor
        st = seats_state[f.seat] if f.seat < len(seats_state) else None
        if st is not None and st.state != "connected":
            what = "its stand-in" if f.seat in s.resigned else "a reconnect"
        else:
            what = _AWAITED.get(f.kind, "its next entry")
        votes = self.claim_votes()
        return [(f.seat, f"{what} ({votes})" if votes else what)]
