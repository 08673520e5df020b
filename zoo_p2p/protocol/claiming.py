"""Clocks, claims, resignations and stand-ins in a `Session` (PROTOCOL.md §10): `Standing`
decides, the session appends.

`Claiming` is the part of `Session` that asks the session's `Standing` (standing.py) about
votes, claims, resignations and stand-ins and appends the entries that follow: a claim once
the votes are complete, a resignation, a resigned seat's stand-in entries (§10.4), and a
play-on claim's re-deal (§10.7, with redeal.py). It also holds the log's read view that
`Standing` uses (`standing.Log`: `head`, `entry`, `author`, `commit`).
"""

from __future__ import annotations

from typing import Any

from zoo_p2p.errors import LocalProtocolError, RemoteProtocolError, StatementCheatError
from zoo_p2p.protocol.crypto import public_key_bytes, sha256
from zoo_p2p.protocol.encoding import Entry, Kind, decode_entry, make_entry, strict_unpack
from zoo_p2p.protocol.events import CheatDetected, Event
from zoo_p2p.protocol.liveness import (
    Claimed,
    Ending,
    PlayOn,
    Resignation,
    Vote,
    parse_resignation,
    sign_resignation,
    sign_vote,
)
from zoo_p2p.protocol.moves import decode_move, encode_move
from zoo_p2p.protocol.redeal import RedealError, RedealRound, hidden_part, state_mismatch
from zoo_p2p.protocol.session_base import SessionBase
from zoo_p2p.protocol.standin import reference_move, stand_in_public_key
from zoo_p2p.protocol.standing import PLAY_FLOORS


class Claiming(SessionBase):
    """Clocks, claims, resignations, stand-ins and play-on (§10): `Standing`'s part of `Session`."""

    # --- stand-ins (§10.4) ---------------------------------------------------------------
    def stand_in_entry(self) -> bytes | None:
        """The entry a resigned seat's stand-in owes now, or None (the floor is a playing seat's,
        or nobody's). A pure function of the log (§10.4): its key is derived from the opened seed,
        its links, seed and result from that seed, its move from the reference policy; Ed25519
        signatures are deterministic, so every peer computes these very bytes. Not appended."""
        f = self._floor
        stand_in = None if f is None else self._standing.stand_in(f.seat)
        if self._stopped is not None or f is None or stand_in is None:
            return None
        key, tables = stand_in
        body: Any
        if f.kind == Kind.MOVE:
            assert self.state is not None
            body = encode_move(reference_move(self.state))
        elif f.kind == Kind.REVEAL and tables is not None:
            body = [self._links_of(f.seat, tables)]
        elif f.kind == Kind.REDEAL and tables is not None:
            body = self._redeal_body(f.seat, self.opened_seeds[f.seat])
        elif f.kind == Kind.SEED:
            body = [self.opened_seeds[f.seat]]
        elif f.kind == Kind.RESULT:
            body = [list(self.final_scores or ())]
        else:  # pragma: no cover - a resignation stands only after the opening round (and a
            # claimed seat's stand-in holds only move floors, §10.7)
            raise LocalProtocolError(f"a stand-in owes no {f.kind!r}")
        return make_entry(key, len(self._entries), self._head, f.seat, f.kind, body)

    def _check_stand_in(self, e: Entry) -> None:
        """A stand-in's entry stands only if it is byte for byte the one every peer computes
        (§10.4). Its key is public, so a different one proves nothing about who made it: it is
        rejected naming no seat."""
        want = self.stand_in_entry()
        if want == e.raw:
            return
        who = f"the stand-in of {self.who(e.seat)}"
        if want is None:
            why = f"{who} does not hold the floor (floor: {self._floor})"
        else:
            w = decode_entry(want)
            what = f"move {decode_move(w.body)}" if w.kind == Kind.MOVE else repr(w.kind)
            got = e.kind
            if e.kind == Kind.MOVE:
                try:
                    got = f"move {decode_move(e.body)}"
                except RemoteProtocolError:
                    got = "a malformed move"
            why = (
                f"not the entry {who} plays here: the reference policy gives {what}, this is "
                f"{got} (every peer computes the stand-in's entries, §10.4)"
            )
        raise RemoteProtocolError(why, entry=e.raw)

    # --- clocks, claims, resignations (§10): `Standing` decides, the session appends ----------
    @property
    def ending(self) -> Ending | None:
        """How the game ended, once a claim (or a resignation in a 2-seat game) ended it."""
        return self._standing.ending

    @property
    def resigned(self) -> dict[int, int]:
        """Seat -> index of its `resign` entry (3–4 seats: its stand-in plays on)."""
        return self._standing.resigned

    @property
    def played_on(self) -> tuple[PlayOn, ...]:
        """Each claim that did not end the game (§10.7), in log order."""
        return tuple(self._standing.played_on)

    def played_on_in(self, events: list[Event]) -> list[PlayOn]:
        """The claims among ``events`` that played on (§10.7): what every front end says."""
        said = {(ev.seat, ev.at) for ev in events if isinstance(ev, Claimed)}
        return [p for p in self._standing.played_on if (p.seat, p.at) in said]

    @property
    def out(self) -> dict[int, int]:
        """Seat -> index of the play-on claim that put it out (its stand-in plays on, §10.7)."""
        return self._standing.claimed_out

    @property
    def left(self) -> bool:
        """True once we signed our resignation: we sign nothing more (§10.4)."""
        return self._standing.left

    @property
    def head(self) -> bytes:
        """The hash of the last entry (the genesis's: the game id)."""
        return self._head

    def entry(self, k: int) -> bytes:
        """Entry `k` of the log."""
        return self._entries[k]

    def author(self, k: int) -> int:
        """The seat of entry `k` (a stand-in's entries: its seat)."""
        return self._authors[k]

    def commit(self, seat: int) -> tuple[list[bytes], bytes] | None:
        """`seat`'s table commitments and its `commit` entry, once it committed."""
        if len(self._commits) <= seat:
            return None
        return self._commits[seat], self._entries[self._commit_seq[seat]]

    def time_allowed(self) -> int | None:
        """Seconds the floor holder has for the entry it owes now (None: nobody owes one)."""
        f = self.floor
        return None if f is None else self.clocks.for_kind(f.kind)

    def can_claim(self) -> bool:
        """True if we hold a seat and another seat holds the floor (so we may vote to claim)."""
        return self._key is not None and self._standing.can_claim(self.seat)

    def vote_claim(self) -> Vote:
        """Sign our vote that the floor holder's time ran out at the current head.

        From now on we refuse the floor holder's entry at this position (the vote binds us), so
        no claim can be completed by the others while we go on with the late answer."""
        f = self.floor
        if not self.can_claim() or f is None or self.seat is None:
            raise LocalProtocolError("nobody else holds the floor: there is nothing to claim")
        at = len(self._entries)
        vote = sign_vote(self._key_or_fail(), self.game_id, at, self._head, f.seat, self.seat)
        self._standing.bind()
        self.add_vote(vote)
        return vote

    def release_vote(self) -> None:
        """Take back our binding vote (another voter went on with the floor holder's answer)."""
        self._standing.release_vote()

    @property
    def voted(self) -> bool:
        """True while our vote against the floor holder at the current head binds us."""
        return self._standing.voted

    def add_vote(self, vote: Vote) -> bool:
        """Keep a claim vote about the current head; False (dropped) if stale or wrong."""
        return self._standing.add_vote(vote)

    def votes_missing(self) -> list[int]:
        """Seats whose vote the claim against the current floor holder still lacks."""
        return self._standing.votes_missing()

    def resign(self) -> Resignation:
        """Sign our resignation: opens our seed and, with 3–4 seats, names the stand-in's key,
        derived from that seed (§10.4): from then on every peer computes the seat's entries.

        The statement is not an entry: the floor holder appends it (§10.4). Send it to all."""
        if self._standing.left:
            raise LocalProtocolError("we resigned already")
        if self.seat is None or self._seed is None:
            raise LocalProtocolError("only a playing seat can resign")
        if self.state is None or self.floor is None:
            raise LocalProtocolError("a seat can resign only while the game is being played")
        if self.floor.kind not in PLAY_FLOORS:
            raise LocalProtocolError("the game is decided (the last move is played): too late")
        stand_in = None
        if self.n > 2:
            if self._standing.everyone_else_resigned(self.seat):
                raise LocalProtocolError("every other seat has resigned: nobody would play on")
            stand_in = stand_in_public_key(self.game_id, self.seat, self._seed)
        r = sign_resignation(
            self._key_or_fail(), self.game_id, self.seat, len(self._entries), self._seed, stand_in
        )
        self._standing.left = True  # we sign nothing more: the floor holder appends it
        return r

    def add_resignation(self, r: Resignation) -> bool:
        """Check a seat's signed resignation statement at once (§10.4, "an acceptable statement")
        and keep it until it is in the log.

        False (dropped; nothing changes) unless it is signed by its seat's genesis key, the
        opening round is complete, and it can still stand (the game is being played, its seat
        has not resigned or signed an entry after `at`). Raises StatementCheatError, stopping the
        session, when its signer's own signature proves it wrong (a seed that misses the seat's
        commitments, a stand-in field that is not the derived key): a proof against the
        resigner (§9) whose offending element is the statement itself; it is never appended."""
        standing = self._standing
        if self._stopped is not None or self.state is None or not standing.statement_signed(r):
            return False
        fault = standing.statement_fault(r)
        if fault is not None:
            self._statement_cheat(None, r, *fault)
        return standing.keep(r)

    def _statement_cheat(
        self, e: Entry | None, r: Resignation, reason: str, evidence: tuple[bytes, ...]
    ) -> None:
        """Stop: seat `r.seat` signed a wrong statement. The offending element is the entry that
        carries it, or, before any entry does, the statement itself (§9.1)."""
        statement = r.to_bytes()
        offending = statement if e is None else e.raw
        ev = (offending, *evidence)
        self._stopped = CheatDetected(r.seat, reason, ev)
        raise StatementCheatError(
            f"{self.who(r.seat)} cheated: {reason}",
            statement=statement,
            entry=offending,
            seat=r.seat,
            evidence=ev,
        )

    def statement_signer(self, statement: bytes) -> int | None:
        """The seat whose genesis-key signature `statement` (a resignation, §10.4) carries."""
        try:
            r = parse_resignation(strict_unpack(statement, "a resignation", types_checked=True))
        except RemoteProtocolError:
            return None
        return r.seat if self._standing.statement_signed(r) else None

    def seat_key(self, seat: int) -> bytes:
        """The raw public key that signs for `seat` now (a stand-in's after a resignation)."""
        return public_key_bytes(self._standing.key(seat))

    def outcome(self) -> Ending:
        """How the game ended so far: finished, claimed, resigned, or abandoned (still open)."""
        return self._standing.outcome(self.final_scores if self.finished else None)

    def _totals(self) -> tuple[int, ...]:
        st = self.state
        if st is None:
            return tuple(0 for _ in range(self.n))
        return tuple(s.total for s in st.scores())

    def _owed_liveness(self) -> list[bytes]:
        """A claim to append (our votes are complete), or a resignation we must append."""
        if self._floor is None or self.seat is None:
            return []
        claim = self._standing.owed_claim()
        if claim is not None:
            if self._standing.would_play_on(claim[0], claim[1]):  # every voter computes it
                raw = self._standing.play_on_claim(claim)
                self._accept(decode_entry(raw), local=True)
                return [raw]
            return [self._append_local(Kind.CLAIM, claim)]
        owed = self._standing.owed_resignation(self.seat)
        if owed is None:
            return []
        r, ours = owed
        if ours:
            return [self._append_local(Kind.RESIGN, r.to_body())]
        raw = self._standing.stand_in_resignation(r)  # the resigner's floor: its stand-in's
        self._accept(decode_entry(raw), local=True)
        return [raw]

    def _append_local(self, kind: str, body: Any) -> bytes:
        assert self.seat is not None
        raw = make_entry(self._key_or_fail(), len(self._entries), self._head, self.seat, kind, body)
        self._accept(decode_entry(raw), local=True)
        return raw

    def _on_claim(self, e: Entry, local: bool) -> list[Event]:
        standing = self._standing
        standing.check_claim(e, e.seq, e.seat)
        c, at = e.body[0], e.body[1]
        if (
            e.seq == at
            and standing.would_play_on(c, at)
            and e.raw != standing.play_on_claim(e.body)
        ):
            raise self._reject(
                e,
                f"a claim that plays on is the entry every peer computes, authored by "
                f"{self.who(c)} and signed with its stand-in's key (§10.7.2), not one signed by "
                f"{self.who(e.seat)}",
            )
        if not standing.plays_on(e):
            events = standing.on_claim(e, self.clocks)
            self.finished = True
            return events
        return self._play_on(e)

    def _play_on(self, e: Entry) -> list[Event]:
        """A claim that does not end the game (§10.7): its seat is out, a stand-in plays it on,
        and the live seats re-deal the hidden part (the `redeal` floors that follow)."""
        standing = self._standing
        c, at = e.body[0], e.body[1]
        floor = self._floor
        assert floor is not None and self.state is not None
        prev = self.redeals[-1] if self.redeals and not self.redeals[-1].complete else None
        if prev is not None:  # a dealer stalled on its `redeal`: this round replaces that one
            restart, move_seat = prev.restart, prev.move_seat
        elif floor.kind == Kind.REVEAL:
            restart, move_seat = list(self._questions), floor.seat
        else:
            restart, move_seat = None, floor.seat
        try:
            hidden = hidden_part(self.known_tokens, self.mutant_reveals, self.variant)
        except RedealError as exc:  # pragma: no cover - every link was checked (§4.4)
            raise self._reject(e, f"the public record has no hidden part: {exc}") from None
        why = state_mismatch(hidden, self.state)
        if why is not None:  # pragma: no cover - the session feeds the engine what it reveals
            raise LocalProtocolError(f"hidden part and rules engine disagree: {why}")
        hc = sha256(e.raw)
        dealers = tuple(i for i in standing.live() if i != c)
        by = tuple(v[0] for v in e.body[2])
        self.redeals.append(
            RedealRound(
                claim_seq=e.seq,
                claimed=c,
                claim_hash=hc,
                hidden=hidden,
                digest=hidden.digest(self.game_id),
                dealers=dealers,
                known=dict(self.known_tokens),
                reveals=dict(self.mutant_reveals),
                restart=restart,
                move_seat=move_seat,
                commits={},
                commit_seq={},
                images={d: [{} for _ in hidden.table_ids()] for d in dealers},
                tables={},
            )
        )
        play = PlayOn(
            c,
            at,
            e.seq,
            by,
            dealers,
            len(hidden.covered),
            len(hidden.copies),
        )
        events = standing.put_out(e, play)
        self._questions, self._inputs = [], []
        if self.seat == c:
            self.seat, self._key = None, None  # our seat went to the stand-in: we watch
            self.replaced_at = e.seq
        return events

    def _on_redeal(self, e: Entry, local: bool) -> list[Event]:
        """A dealer's commitments over the hidden part (§10.7): checked against our own."""
        r = self.redeals[-1]  # (the floor is `redeal` only during the last round)
        why = r.shape_problem(e.body)
        if why is not None:
            if local:  # pragma: no cover - we derive ours from the same hidden part
                raise LocalProtocolError(f"our own redeal body is malformed: {why}")
            raise self._reject(e, f"redeal body: {why}")
        r.commits[e.seat] = list(e.body[1])
        r.commit_seq[e.seat] = e.seq
        if r.complete and r.restart is not None:
            self._start_round(r.restart)  # the interrupted round, asked of the re-deal
        return []

    def _claim_conflict(self, e: Entry) -> list[Event]:
        """Another seat's claim for a position we already filled: the same claim (ignored), or,
        when we are the claimed seat and what we hold from there on are our late answers (and
        the stand-in entries after them), a claim we adopt: we append its body after them
        (§10.3). Anything else is refused; it convicts nobody (it is not on our chain)."""
        held = decode_entry(self._entries[e.seq])
        if held.kind == Kind.CLAIM and held.body == e.body:
            return []
        b = e.body
        ours = isinstance(b, list) and len(b) == 3 and b[0] == self.seat
        playing = self._floor is not None and self._key is not None and not self.left
        if not ours or self.seat is None or not playing:
            done = self._floor is None and self.ending is None
            why = " (every result is signed: nothing may follow the last result)" if done else ""
            raise RemoteProtocolError(
                f"seq {e.seq} is already taken; this claim conflicts with our log{why}",
                entry=e.raw,
                seat=e.seat,
            )
        return self._standing.adopt(e, self.seat)  # valid after what we hold, by us?

    def _owed_adoption(self) -> list[bytes]:
        """The claim we adopt (`_claim_conflict`), appended before anything else we owe: it ends
        the log. Dropped if what we appended since makes it invalid (the game ended, say)."""
        body = self._standing.take_adoption()
        if body is None or self._floor is None:
            return []
        try:
            return [self._append_local(Kind.CLAIM, body)]
        except RemoteProtocolError:
            return []

    def _on_resign(self, e: Entry, local: bool) -> list[Event]:
        r = self._standing.check_resign(e)
        fault = self._standing.statement_fault(r)
        if fault is not None:
            if local:  # pragma: no cover - add_resignation refused it: we never append it
                raise LocalProtocolError(f"our own resign entry carries a bad statement: {fault}")
            self._statement_cheat(e, r, *fault)
        events = self._standing.on_resign(e, r, self._totals())
        if r.new_key is None:
            self.finished = True
        elif self.seat == r.seat:
            self.seat, self._key = None, None  # our seat went to the stand-in
        return events
