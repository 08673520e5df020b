"""The fair deal's entries in a `Session`: commit, open, moves with their reveal chains, seed
and result (PROTOCOL.md §4, §5, §7).

`Dealing` is the part of `Session` that checks each of these entries against the seat's
commitments (a mismatch is a cheat, with the entries that prove it), feeds the rules `State`
what is revealed, and builds the bodies the local seat owes (`_owed_body`). After a play-on
claim (§10.7) reveals use the last complete re-deal's tables.
"""

from __future__ import annotations

from typing import Any

from zoo_p2p.errors import IllegalMoveError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.bodies import is_bin
from zoo_p2p.protocol.deal import (
    COMMIT_SIZE,
    DEAL_TABLE,
    NONCE_SIZE,
    SALT_SIZE,
    SEED_SIZE,
    SeatTables,
    commitment,
    compose,
    first_player,
    mutant_copy,
    nonce_commitment,
    table_size,
)
from zoo_p2p.protocol.encoding import Entry, Kind
from zoo_p2p.protocol.events import (
    CardRevealed,
    Event,
    Finished,
    GameOver,
    GameStarted,
    MoveApplied,
    MutantRevealed,
    ResultSigned,
    SeedOpened,
    SeedsOpened,
)
from zoo_p2p.protocol.moves import decode_move
from zoo_p2p.protocol.redeal import (
    RedealTables,
    apply_redeal,
    commitment_problem,
    compose_redeal,
    redeal_commitment,
)
from zoo_p2p.protocol.session_base import Question, SessionBase
from zoo_p2p.rules import N_SQUARES, State


class Dealing(SessionBase):
    """Commit, reveal chains and the end of the game: the deal's entries of `Session`."""

    # --- commit -------------------------------------------------------------------
    def _on_commit(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 2 and is_bin(b[0], COMMIT_SIZE)):
            raise self._reject(e, "commit body is not [nonce_commitment, tables]")
        tables = b[1]
        if not (isinstance(tables, list) and len(tables) == self._n_tables):
            raise self._reject(e, f"commit must hold {self._n_tables} tables")
        for t, blob in enumerate(tables):
            if not is_bin(blob, table_size(t) * COMMIT_SIZE):
                raise self._reject(e, f"commit table {t} has the wrong size")
        self._nonce_commits.append(b[0])
        self._commits.append(list(tables))
        self._commit_seq.append(e.seq)
        if e.seat + 1 == self.n:
            self._start_round([(DEAL_TABLE, s) for s in range(N_SQUARES)])
        return []

    # --- reveal chains ---------------------------------------------------------------
    def _start_round(self, questions: list[Question]) -> None:
        """Ask `questions` ((table, slot or copy) each): the chain's first inputs are the slot
        and copy themselves, or after a re-deal their indices in its hidden part (§10.7)."""
        self._questions = questions
        r = self._round()
        self._inputs = [idx if r is None else r.input_of(t, idx) for t, idx in questions]

    def _my_links(self) -> list[list[Any]]:
        assert self._tables is not None and self.seat is not None
        return self._links_of(self.seat, self._tables)

    def _links_of(self, seat: int, tables: SeatTables) -> list[list[Any]]:
        """`seat`'s links of the current round, from its §4 tables or, after a re-deal, from the
        re-deal tables its seed gives (ours, or a resigned dealer's opened seed)."""
        r = self._round()
        if r is None:
            return [
                [tables.tables[t][x], tables.salts[t][x]]
                for (t, _), x in zip(self._questions, self._inputs, strict=True)
            ]
        mine = r.tables.get(seat)
        if mine is None:
            seed = self._seed if seat == self.seat else self.opened_seeds[seat]
            assert seed is not None
            mine = RedealTables.from_seed(seed, self.game_id, r.claim_hash, r.hidden)
            r.tables[seat] = mine
        return [mine.link(t, x) for (t, _), x in zip(self._questions, self._inputs, strict=True)]

    def _redeal_body(self, seat: int, seed: bytes) -> list[Any]:
        """The `redeal` body `seat` owes in the current round: its tables from `seed` (§10.7)."""
        r = self.redeals[-1]
        tables = RedealTables.from_seed(seed, self.game_id, r.claim_hash, r.hidden)
        r.tables[seat] = tables
        return [r.claim_hash, tables.commitments(self.game_id, r.claim_hash, seat)]

    def _check_links(self, e: Entry, links: Any) -> list[int]:
        """Check one seat's links of the current round; return the new chain values."""
        qs = self._questions
        if not (isinstance(links, list) and len(links) == len(qs)):
            raise self._reject(e, f"expected {len(qs)} reveal links")
        seat = e.seat
        r = self._round()
        if r is None:
            commits = self._commits[seat]
            images = self._images[seat]
            committed = self._entries[self._commit_seq[seat]]
            what = "reveal"
        else:  # after a re-deal: its tables, commitments and revealed pairs (§10.7)
            commits = r.commits[seat]
            images = r.images[seat]
            committed = self._entries[r.commit_seq[seat]]
            what = "re-deal reveal"
        outs: list[int] = []
        fresh: dict[tuple[int, int], int] = {}
        for (t, _), x, link in zip(qs, self._inputs, links, strict=True):
            if not (
                isinstance(link, list)
                and len(link) == 2
                and type(link[0]) is int
                and is_bin(link[1], SALT_SIZE)
            ):
                raise self._reject(e, "a reveal link is not [value, salt]")
            v, salt = link
            if r is None:
                k = t
                size = table_size(t)
                ok = (
                    0 <= v <= 255
                    and commitment(self.game_id, seat, t, x, v, salt)
                    == (commits[t][x * COMMIT_SIZE : (x + 1) * COMMIT_SIZE])
                )
            else:
                k = r.hidden.table_ids().index(t)
                size = r.hidden.size(t)
                got = redeal_commitment(self.game_id, r.claim_hash, r.digest, seat, t, x, v, salt)
                ok = 0 <= v <= 255 and got == commits[k][x * COMMIT_SIZE : (x + 1) * COMMIT_SIZE]
            if not ok:
                self._cheat(
                    e,
                    seat,
                    f"{what} of table {t} index {x} does not match its commitment",
                    (e.raw, committed),
                )
            if v >= size:
                self._cheat(
                    e,
                    seat,
                    f"{'re-deal ' if r else ''}table {t} maps {x} to {v}: not a permutation",
                    (e.raw, committed),
                )
            prior = images[k].get(v)
            if (prior is not None and prior[0] != x) or fresh.get((t, v), x) != x:
                ev: tuple[bytes, ...] = (e.raw,)
                if prior is not None:
                    ev += (self._entries[prior[1]],)
                self._cheat(
                    e,
                    seat,
                    f"table {t} maps two indices to {v}: not a permutation (duplicate card)",
                    ev,
                )
            fresh[(t, v)] = x
            outs.append(v)
        return outs

    def _record_links(self, seat: int, seq: int, outs: list[int]) -> None:
        r = self._round()
        images = self._images[seat] if r is None else r.images[seat]
        for (t, _), x, v in zip(self._questions, self._inputs, outs, strict=True):
            k = t if r is None else r.hidden.table_ids().index(t)
            images[k][v] = (x, seq)
        self._inputs = outs

    def _on_open(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 2 and is_bin(b[0], NONCE_SIZE)):
            raise self._reject(e, "open body is not [nonce, links]")
        if nonce_commitment(self.game_id, e.seat, b[0]) != self._nonce_commits[e.seat]:
            self._cheat(
                e,
                e.seat,
                "first-player nonce does not match its commitment",
                (e.raw, self._entries[self._commit_seq[e.seat]]),
            )
        outs = self._check_links(e, b[1])
        events: list[Event] = []
        if e.seat + 1 == self.n:
            tokens = outs
            top_values = [t // 10 for t in tokens]
            nonces = [*self._nonces, b[0]]
            first = self.genesis.first_player
            if first is None:
                first = first_player(self.game_id, nonces)
            try:
                state = State.new(
                    [s.team for s in self.seats],
                    top_values,
                    variant=self.variant,
                    first_seat=first,
                )
            except ValueError as exc:  # impossible once every link is checked (§4.4)
                raise self._reject(e, f"the revealed top cards are impossible: {exc}") from None
            self._record_links(e.seat, e.seq, outs)
            self._nonces.append(b[0])
            self.state = state
            self.first_seat = first
            for sq, tok in enumerate(tokens):
                self.known_tokens[sq] = tok
                events.append(CardRevealed(sq, tok // 10, 1))
            events.append(GameStarted(first))
            self._questions = []
            self._after_turn(events)
        else:
            self._record_links(e.seat, e.seq, outs)
            self._nonces.append(b[0])
        return events

    def _after_turn(self, events: list[Event]) -> None:
        """A move (and its reveal round) is fully resolved: the totals change; at the end of the
        game, the final scores are known (the floor then goes to seed, `_floor_after`)."""
        st = self.state
        assert st is not None
        self._turn_done = True
        if st.is_terminal():
            totals = tuple(s.total for s in st.scores())
            self.final_scores = totals
            events.append(GameOver(totals, tuple(st.winners())))

    def _on_move(self, e: Entry, local: bool) -> list[Event]:
        st = self.state
        assert st is not None
        try:
            mv = decode_move(e.body)
        except RemoteProtocolError as exc:
            if local:
                raise IllegalMoveError(exc.reason) from None
            raise self._reject(e, exc.reason) from None
        try:
            st.apply(mv)
        except IllegalMoveError as exc:
            if local:
                raise
            raise self._reject(e, f"illegal move {mv}: {exc}") from None
        events: list[Event] = [MoveApplied(e.seat, mv)]
        needs = st.needs
        if needs is None:
            self._after_turn(events)
            return events
        qs: list[Question] = []
        if needs.bottom:
            qs.append((DEAL_TABLE, N_SQUARES + needs.square))
        if needs.mutant_value is not None:
            slot = needs.square if needs.layer == 1 else N_SQUARES + needs.square
            tok = self.known_tokens[slot]
            if tok // 10 != needs.mutant_value:  # pragma: no cover - rules/protocol mismatch
                raise LocalProtocolError("captured card's token does not match its value")
            qs.append((1 + needs.mutant_value, tok % 10))
        self._needs_seat = e.seat
        self._start_round(qs)
        return events

    def _on_reveal(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 1):
            raise self._reject(e, "reveal body is not [links]")
        outs = self._check_links(e, b[0])
        if e.seat != self.chain_seats()[-1]:
            self._record_links(e.seat, e.seq, outs)
            return []
        st = self.state
        assert st is not None and st.needs is not None
        needs = st.needs
        bottom: int | None = None
        mutant: bool | None = None
        events: list[Event] = []
        r = self._round()
        # after a re-deal the deal chain ends at an index into the unrevealed tokens (§10.7)
        tokens = [
            v if r is None or t != DEAL_TABLE else r.hidden.tokens[v]
            for (t, _), v in zip(self._questions, outs, strict=True)
        ]
        for (t, _), v in zip(self._questions, tokens, strict=True):
            if t == DEAL_TABLE:
                bottom = v // 10
                events.append(CardRevealed(needs.square, bottom, 0))
            else:
                mutant = v == 0
                events.append(MutantRevealed(needs.square, t - 1, mutant, self._needs_seat))
        try:
            st.reveal(bottom=bottom, mutant=mutant)
        except ValueError as exc:  # impossible once every link is checked (§4.4)
            raise self._reject(e, f"the revealed card is impossible: {exc}") from None
        for (t, idx), v in zip(self._questions, tokens, strict=True):
            if t == DEAL_TABLE:
                self.known_tokens[idx] = v
            else:
                self.mutant_reveals[(t - 1, idx)] = v == 0
        self._record_links(e.seat, e.seq, outs)
        self._questions = []
        self._after_turn(events)
        return events

    # --- end ---------------------------------------------------------------------------
    def _on_seed(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 1 and is_bin(b[0], SEED_SIZE)):
            raise self._reject(e, "seed body is not [seed]")
        tables = SeatTables.from_seed(b[0], self.game_id, general=self.general)
        derived = tables.commitments(self.game_id, e.seat)
        for t, (got, want) in enumerate(zip(derived, self._commits[e.seat], strict=True)):
            if got != want:
                bad = next(
                    i
                    for i in range(table_size(t))
                    if got[i * 32 : i * 32 + 32] != want[i * 32 : i * 32 + 32]
                )
                self._cheat(
                    e,
                    e.seat,
                    f"opened seed does not match the commitment of table {t} index {bad} "
                    "(committed tables were not the seed's permutations)",
                    (e.raw, self._entries[self._commit_seq[e.seat]]),
                )
        for t, images in enumerate(self._images[e.seat]):
            for v, (x, seq) in images.items():
                if tables.tables[t][x] != v:  # pragma: no cover - implied by the commitments
                    self._cheat(
                        e,
                        e.seat,
                        f"opened seed contradicts the reveal of table {t} index {x}",
                        (e.raw, self._entries[seq]),
                    )
        for r in self.redeals:  # every re-deal it committed to, with the hidden part of then
            if e.seat not in r.commits:
                continue
            why = commitment_problem(
                r.hidden, self.game_id, r.claim_hash, e.seat, r.commits[e.seat], b[0]
            )
            if why is not None:
                self._cheat(
                    e,
                    e.seat,
                    f"opened seed does not match its re-deal after the claim at entry "
                    f"{r.claim_seq}: {why}",
                    (e.raw, self._entries[r.commit_seq[e.seat]]),
                )
        self._seeds[e.seat] = b[0]
        self._seat_tables[e.seat] = tables
        events: list[Event] = [SeedOpened(e.seat)]
        if e.seat != self.end_seats()[-1]:
            return events
        last = self._round()
        if last is None:
            deal = compose([self._seat_tables[i].tables[DEAL_TABLE] for i in range(self.n)])
            copies: tuple[int, ...] = ()
            if not self.general:
                copies = tuple(
                    mutant_copy(
                        compose([self._seat_tables[i].tables[1 + v] for i in range(self.n)])
                    )
                    for v in range(4)
                )
        else:  # the final layout: what is public, and the last re-deal's layout of the rest
            per_seat = [
                RedealTables.from_seed(
                    self._seeds[d], self.game_id, last.claim_hash, last.hidden, with_salts=False
                ).tables
                for d in last.dealers
            ]
            known = apply_redeal(
                last.hidden,
                compose_redeal(last.hidden, per_seat),
                last.known,
                last.reveals,
                self.variant,
            )
            deal, copies = list(known.slot_tokens), known.mutant_copies
        for slot, tok in self.known_tokens.items():
            if deal[slot] != tok:  # pragma: no cover - implied by the commitment checks
                raise self._reject(e, f"slot {slot} revealed {tok} but the seeds give {deal[slot]}")
        self.opened_deal = SeedsOpened(tuple(deal), copies)
        events.append(self.opened_deal)
        return events

    def _on_result(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (
            isinstance(b, list)
            and len(b) == 1
            and isinstance(b[0], list)
            and all(type(x) is int for x in b[0])
        ):
            raise self._reject(e, "result body is not [[total, ...]]")
        totals = tuple(b[0])
        if totals != self.final_scores:
            raise self._reject(e, f"signed result {totals} differs from scores {self.final_scores}")
        events: list[Event] = [ResultSigned(e.seat, totals)]
        if e.seat == self.end_seats()[-1]:
            self.finished = True
            events.append(Finished(totals))
        return events

    # --- what the local seat owes ------------------------------------------------------
    def _owed_body(self, kind: str) -> Any:
        assert self._tables is not None and self._nonce is not None and self._seed is not None
        assert self.seat is not None
        if kind == Kind.COMMIT:
            return [nonce_commitment(self.game_id, self.seat, self._nonce), self._my_commits]
        if kind == Kind.OPEN:
            return [self._nonce, self._my_links()]
        if kind == Kind.REVEAL:
            return [self._my_links()]
        if kind == Kind.SEED:
            return [self._seed]
        if kind == Kind.RESULT:
            return [list(self.final_scores or ())]
        if kind == Kind.REDEAL:
            return self._redeal_body(self.seat, self._seed)
        raise LocalProtocolError(f"nothing automatic to send for {kind!r}")  # pragma: no cover
