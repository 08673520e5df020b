"""A game as a list of moves with the facts each one revealed: what the exports are made of.

A `GameRecord` is built from a signed log (through an observer `Session`, which checks every
entry) or read back from the text export. Either way `positions()` replays it through the rules
engine, so every board an export shows is the engine's own state, not a copy of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.bodies import ON_LEAVE_PLAY_ON
from zoo_p2p.protocol.events import CardRevealed, GameStarted, MoveApplied, MutantRevealed
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.walk import walk
from zoo_p2p.rules import N_SQUARES, Move, State, Team, Variant
from zoo_p2p.text import shown

__all__ = ["GameRecord", "MoveRecord", "Redeal", "public_name", "record_from_entries"]

MAX_REDEAL_WORDS = 300  # characters of a re-deal's words (a claim's description is under 200)


def public_name(name: str, seat: int) -> str:
    """The name an export shows for a seat: its signed name, except the word "you" (the name
    `zoo play` signs for the person at the terminal), which means nothing on a page made for
    others ("you (Yellow) moves their 3"): that seat is "seat N" instead, as `zoo verify` says."""
    return f"seat {seat + 1}" if name.strip().casefold() == "you" else name


@dataclass(frozen=True)
class MoveRecord:
    """One move and the hidden facts that its capture made public (None: nothing was asked)."""

    seat: int
    move: Move
    bottom: int | None = None
    mutant: bool | None = None


class Redeal(NamedTuple):
    """A claim that played on (PROTOCOL.md §10.7), where it came in a game's moves."""

    after: int  # moves played before the claim
    words: str  # what happened, in words (who was put out, a stand-in plays on, who re-dealt)
    seat: int  # the seat put out: a stand-in plays it from here on
    dealers: tuple[int, ...]  # the live seats that re-dealt, in seat order


@dataclass(frozen=True)
class GameRecord:
    """Everything an export shows: seats, the opening tops, the moves, the deal and a verdict.

    ``bottoms`` (25 values) and ``mutant_squares`` (top-layer squares and bottom-layer squares
    whose card hid a mutant, as ``(square, layer)``) are known only when every seed was opened.
    """

    names: tuple[str, ...]
    teams: tuple[Team, ...]
    variant: Variant
    first_seat: int
    top_values: tuple[int, ...]
    moves: tuple[MoveRecord, ...]
    game_id: str | None = None
    verdict: str | None = None
    bottoms: tuple[int, ...] | None = None
    mutant_cards: tuple[tuple[int, int], ...] = field(default_factory=tuple)
    hints: bool = False  # the genesis allowed hints: every seat agreed (PROTOCOL.md §3.2)
    redeals: tuple[Redeal, ...] = field(default=(), compare=False)
    """Each claim that played on (PROTOCOL.md §10.7), in order. The text record carries them
    (its `redeal` lines); the words take no part in equality (a text record's are its own)."""
    play_on: bool = False  # the genesis' table rule is play-on (PROTOCOL.md §10.7.1)

    def __post_init__(self) -> None:
        n = len(self.teams)
        if not 2 <= n <= 4 or len(self.names) != n:
            raise ValueError(f"a game has 2 to 4 seats with one name each, not {n}")
        if len(self.top_values) != N_SQUARES:
            raise ValueError(f"the opening needs {N_SQUARES} top values")
        if not 0 <= self.first_seat < n:
            raise ValueError(f"first seat {self.first_seat} is not one of the {n} seats")
        if self.bottoms is not None and len(self.bottoms) != N_SQUARES:
            raise ValueError(f"the deal needs {N_SQUARES} bottom values")
        out: set[int] = set()
        for k, r in enumerate(self.redeals, start=1):
            problem = _redeal_problem(r, n, out, len(self.moves))
            if problem is not None:
                raise ValueError(f"re-deal {k}: {problem}")
            out.add(r.seat)
        if self.redeals and not self.play_on:
            raise ValueError("a re-deal in a game whose table rule is not play-on")

    def out_at(self, move: int) -> dict[int, int]:
        """The seats put out by the claims before move ``move`` (from 1) was played, each with
        the number of moves played before its claim: a stand-in played their moves from there."""
        return {r.seat: r.after for r in self.redeals if r.after < move}

    def opening(self) -> State:
        """The position when the top cards were turned face up."""
        return State.new(
            self.teams, self.top_values, variant=self.variant, first_seat=self.first_seat
        )

    def positions(self) -> list[State]:
        """The board before the first move, then after each move and its reveals.

        The last move may lack its reveal when the game stopped there (a claimed or abandoned
        game): its position then waits for the reveal that never came.

        Raises `ValueError` (an `IllegalMoveError` or a refused reveal) at the first move the
        rules refuse, naming its number.
        """
        st = self.opening()
        out = [st.clone()]
        for i, m in enumerate(self.moves, start=1):
            try:
                if st.is_terminal():
                    raise ValueError("the game was already over")
                if m.seat != st.to_move:
                    raise ValueError(
                        f"it was seat {st.to_move + 1}'s turn, not seat {m.seat + 1}'s"
                    )
                st.apply(m.move)
                need = st.needs
                if need is not None and i == len(self.moves) and m.bottom is m.mutant is None:
                    pass  # the game stopped before this move's reveal (a claim or an abandon)
                elif need is not None:
                    st.reveal(
                        bottom=m.bottom if need.bottom else None,
                        mutant=m.mutant if need.mutant_value is not None else None,
                    )
            except ValueError as exc:
                raise ValueError(f"move {i} ({m.move}): {exc}") from None
            out.append(st.clone())
        return out


def record_from_entries(entries: Sequence[bytes], verdict: str | None = None) -> GameRecord:
    """Read a signed log through an observer session: every move and what it revealed.

    Stops quietly at the first entry the session refuses (the verdict says why); raises
    `ValueError` when the log does not get as far as the opening (nothing to show).
    """
    if not entries:
        raise ValueError("the log is empty")
    try:
        session = Session(entries[0])
    except RemoteProtocolError as exc:
        raise ValueError(f"entry 0 is not a genesis: {exc.reason}") from None
    moves: list[MoveRecord] = []
    redeals: list[Redeal] = []
    tops: tuple[int, ...] | None = None
    for step in walk(session, entries[1:]):  # ends at the first entry refused
        for p in session.played_on_in(step.events):
            words = shown(p.describe(session.seats), MAX_REDEAL_WORDS)
            redeals.append(Redeal(len(moves), words, p.seat, tuple(p.dealers)))
        for ev in step.events:
            if isinstance(ev, GameStarted) and session.state is not None:
                tops = tuple(_top_value(session.state, sq) for sq in range(N_SQUARES))
            elif isinstance(ev, MoveApplied):
                moves.append(MoveRecord(ev.seat, ev.move))
            elif isinstance(ev, CardRevealed) and moves and ev.layer == 0:
                last = moves[-1]
                moves[-1] = MoveRecord(last.seat, last.move, ev.value, last.mutant)
            elif isinstance(ev, MutantRevealed) and moves:
                last = moves[-1]
                moves[-1] = MoveRecord(last.seat, last.move, last.bottom, ev.is_mutant)
    if tops is None or session.first_seat is None:
        raise ValueError("the log stops before the top cards were turned over: no board to show")
    bottoms: tuple[int, ...] | None = None
    mutants: list[tuple[int, int]] = []
    deal = session.opened_deal
    if deal is not None:
        bottoms = tuple(deal.slot_tokens[N_SQUARES + q] // 10 for q in range(N_SQUARES))
        if session.variant is Variant.STANDARD:
            for slot, tok in enumerate(deal.slot_tokens):
                v, copy = divmod(tok, 10)
                if v < len(deal.mutant_copies) and deal.mutant_copies[v] == copy:
                    mutants.append((slot % N_SQUARES, 1 if slot < N_SQUARES else 0))
    return GameRecord(
        names=tuple(public_name(s.name, i) for i, s in enumerate(session.seats)),
        teams=tuple(s.team for s in session.seats),
        variant=session.variant,
        first_seat=session.first_seat,
        top_values=tops,
        moves=tuple(moves),
        game_id=session.game_id.hex(),
        verdict=verdict,
        bottoms=bottoms,
        mutant_cards=tuple(sorted(mutants)),
        hints=session.genesis.hints,
        redeals=tuple(redeals),
        play_on=session.genesis.on_leave == ON_LEAVE_PLAY_ON,
    )


def _redeal_problem(r: Redeal, n: int, out: set[int], moves: int) -> str | None:
    """Why a re-deal cannot be one of a game of ``n`` seats with these seats already out and
    this many moves (PROTOCOL.md §10.7.2), or None."""
    if n < 3:
        return "a 2-seat game always ends with the claim"
    if not 0 <= r.after <= moves:
        return f"after move {r.after}, in a game of {moves} moves"
    if not 0 <= r.seat < n:
        return f"seat {r.seat + 1} is not one of the {n} seats"
    if r.seat in out:
        return f"seat {r.seat + 1} was already out"
    if len(r.dealers) < 2:
        return "re-dealt by fewer than two seats: that claim ends the game"
    if list(r.dealers) != sorted(set(r.dealers)):
        return "the seats that re-dealt are not listed once each, in seat order"
    for d in r.dealers:  # a seat that resigned re-deals no more either, but no record says so
        if not 0 <= d < n or d in out or d == r.seat:
            return f"seat {d + 1} re-dealt, but it is no live seat"
    return None


def _top_value(st: State, sq: int) -> int:
    card = st.top(sq)
    if card.kind != "zoo" or card.value is None:
        raise ValueError(f"square {sq} shows no Zoo card at the opening")
    return card.value
