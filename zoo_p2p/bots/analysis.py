"""Post-game analysis: every move scored by the expert's search, and where a game was lost.

For each move of a game the expert searches the public position the mover faced (the move
actually played is always searched at least ``min_visits`` times, so it is estimated fairly even
when the search would not have looked at it) and reports, from the mover's point of view:

* ``value``: the expected final margin (the mover's score minus the best other seat's) after the
  move played, and ``best_value`` after the best move the search found;
* ``win`` / ``best_win``: the chance of winning (ties shared) after each;
* ``loss``: how many points of expected margin the move gave away against the best move,
  and a ``mark``: ``inaccuracy`` (``?!``), ``mistake`` (``?``) or ``blunder`` (``??``).

Front-ends (the plain replay, the full-screen replay, the HTML export) call ``analyse_entries``
(a log's raw entries) or ``analyse_positions`` (states and moves) and show ``MoveMark`` objects;
``summary`` counts them per seat. ``hint`` is "the expert would play …", for local games of one
person against bots, or at a networked table whose genesis allows them (every seat agreed,
PROTOCOL.md §3.2): it refuses other networked games and hot-seat tables (``hint_refusal``).

Deterministic: the search uses a budget in simulated plies and a seed per move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass

from zoo_p2p import defaults
from zoo_p2p.bots.expert import ExpertBot
from zoo_p2p.errors import ZooError
from zoo_p2p.rules import Move, State

INACCURACY = 3.0
MISTAKE = 6.0
BLUNDER = 10.0
"""Points of expected final margin lost against the best move, for each mark."""

DEFAULT_WORK = defaults.ANALYSIS_WORK
"""Simulated plies searched per move (`zoo_p2p.defaults`)."""

MIN_VISITS = 8
"""Rounds (sampled deals) every compared move meets, at least."""

FULL_GAME = 1000
"""Playout length for the analysis: to the end of the game."""

MARKS: tuple[tuple[float, str, str], ...] = (
    (BLUNDER, "blunder", "??"),
    (MISTAKE, "mistake", "?"),
    (INACCURACY, "inaccuracy", "?!"),
)


class HintRefused(ZooError, ValueError):
    """Hints are offered only in local games of one person against bots; the message says why."""


@dataclass(frozen=True)
class MoveMark:
    """The analysis of one move: what it was worth against the best, for its mover."""

    ply: int
    """0-based index of the move in the game (the game's ``ply``-th move)."""
    seat: int
    """0-based seat of the mover (people read ``seat_word(seat)``)."""
    move: Move
    best: Move
    value: float
    best_value: float
    win: float
    best_win: float
    loss: float
    mark: str
    """``""``, ``"inaccuracy"``, ``"mistake"`` or ``"blunder"``."""
    symbol: str
    """``""``, ``"?!"``, ``"?"`` or ``"??"``."""
    forced: bool
    """The mover had a single legal move (never marked)."""
    stand_in: bool = False
    """A stand-in played it (its seat resigned or was claimed out, PROTOCOL.md §10.4, §10.7):
    the frozen reference rule chose it, not a player, so it is not graded."""

    def describe(self) -> str:
        """One plain line, e.g. ``5@C3 ?? (-12.4 against 6@B2: +3.1 expected, 58 % win)``."""
        if self.stand_in:
            return f"{self.move} (a stand-in's move: the frozen rule plays this seat, not a player)"
        if self.forced:
            return f"{self.move} (the only legal move)"
        head = f"{self.move}{(' ' + self.symbol) if self.symbol else ''}"
        if self.move == self.best or self.loss < 0.05:
            return f"{head} (best: {self.value:+.1f} expected, {100 * self.win:.0f} % win)"
        return (
            f"{head} ({self.value:+.1f} expected, {100 * self.win:.0f} % win; "
            f"the expert would play {self.best}: {self.best_value:+.1f}, "
            f"{100 * self.best_win:.0f} % win)"
        )


@dataclass(frozen=True)
class SeatSummary:
    """How one seat played over the game."""

    seat: int
    moves: int
    inaccuracies: int
    mistakes: int
    blunders: int
    average_loss: float
    """Mean points of expected margin lost per move (0 is the expert's own play)."""


def classify(loss: float) -> tuple[str, str]:
    """The mark and its symbol for a move that lost ``loss`` points against the best."""
    for threshold, mark, symbol in MARKS:
        if loss >= threshold:
            return mark, symbol
    return "", ""


def analyse_move(
    state: State,
    move: Move,
    *,
    ply: int = 0,
    work: int = DEFAULT_WORK,
    seed: int = 0,
    min_visits: int = MIN_VISITS,
) -> MoveMark:
    """Score ``move`` in the public ``state`` (the seat to move plays it) against the best."""
    pub = state.public()
    legal = pub.legal_moves()
    if move not in legal:
        raise ValueError(f"{move} is not legal in this position")
    seat = pub.to_move
    if len(legal) == 1:
        return MoveMark(ply, seat, move, move, 0.0, 0.0, 0.0, 0.0, 0.0, "", "", True)
    # playouts to the very end: the figures are final margins and real win chances.
    # Phase 1 finds the best move; phase 2 compares it with the move played on fresh deals, so
    # the loss is not inflated by picking the luckiest of many noisy means.
    search = ExpertBot(seed=seed, work=work * 3 // 5, rollout=FULL_GAME)
    stats = search.evaluate(pub, focus=[move], min_visits=min_visits)
    found = max(stats, key=lambda s: (s.margin, s.move == move)).move
    if found == move:
        mine = best = next(s for s in stats if s.move == move)
    else:
        check = ExpertBot(seed=seed + 1, work=work * 2 // 5, rollout=FULL_GAME)
        pair = {s.move: s for s in check.evaluate(pub, only=[move, found], min_visits=min_visits)}
        mine, best = pair[move], pair[found]
        if mine.margin >= best.margin:
            best = mine
    loss = 0.0 if best.move == move else best.margin - mine.margin
    mark, symbol = classify(loss)
    return MoveMark(
        ply,
        seat,
        move,
        best.move,
        mine.margin,
        best.margin,
        mine.win,
        best.win,
        loss,
        mark,
        symbol,
        False,
    )


def analyse_positions(
    positions: Iterable[tuple[State, Move]],
    *,
    work: int = DEFAULT_WORK,
    seed: int = 0,
    min_visits: int = MIN_VISITS,
    plies: Container[int] | None = None,
    progress: Callable[[int], None] | None = None,
    stand_ins: Container[int] = (),
) -> list[MoveMark]:
    """Score every ``(state before the move, move)`` of a game (only ``plies`` if given); a ply
    in ``stand_ins`` was a stand-in's (§10.4, §10.7): the rule it follows, not graded."""
    out = []
    for ply, (state, move) in enumerate(positions):
        if plies is not None and ply not in plies:
            continue
        if ply in stand_ins:
            seat = state.to_move
            out.append(
                MoveMark(ply, seat, move, move, 0.0, 0.0, 0.0, 0.0, 0.0, "", "", False, True)
            )
            if progress is not None:
                progress(ply)
            continue
        out.append(
            analyse_move(
                state,
                move,
                ply=ply,
                work=work,
                seed=seed * 1_000_003 + ply,
                min_visits=min_visits,
            )
        )
        if progress is not None:
            progress(ply)
    return out


def positions_from_entries(entries: Sequence[bytes]) -> list[tuple[State, Move]]:
    """The public state before each move of a log, with the move (stops at a faulty entry)."""
    return moves_from_entries(entries)[0]


def moves_from_entries(entries: Sequence[bytes]) -> tuple[list[tuple[State, Move]], set[int]]:
    """``positions_from_entries``, and the plies a stand-in played (its seat had resigned or
    was claimed out before that move's entry, PROTOCOL.md §10.4, §10.7)."""
    from zoo_p2p.protocol.events import MoveApplied
    from zoo_p2p.protocol.session import Session
    from zoo_p2p.protocol.walk import walk

    if not entries:
        return [], set()
    out: list[tuple[State, Move]] = []
    stand_ins: set[int] = set()
    session = Session(entries[0])
    for step in walk(session, entries[1:], states=True):
        for ev in step.events:
            if isinstance(ev, MoveApplied) and step.before is not None:
                if stood_in(session.resigned, session.out, ev.seat, step.index):
                    stand_ins.add(len(out))
                out.append((step.before, ev.move))
    return out, stand_ins


def stood_in(resigned: dict[int, int], out: dict[int, int], seat: int, index: int) -> bool:
    """A move of ``seat`` at entry ``index`` is its stand-in's: the seat resigned, or a claim
    that played on put it out, at an earlier entry."""
    gone = [k for k in (resigned.get(seat), out.get(seat)) if k is not None]
    return any(k < index for k in gone)


def analyse_entries(
    entries: Sequence[bytes],
    *,
    work: int = DEFAULT_WORK,
    seed: int = 0,
    min_visits: int = MIN_VISITS,
    plies: Container[int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[MoveMark]:
    """Score every move of a game log (raw entries, genesis first; only ``plies`` if given);
    a stand-in's moves are the rule it follows, not graded."""
    positions, stand_ins = moves_from_entries(entries)
    return analyse_positions(
        positions,
        work=work,
        seed=seed,
        min_visits=min_visits,
        plies=plies,
        progress=progress,
        stand_ins=stand_ins,
    )


def summary(marks: Iterable[MoveMark], n_seats: int) -> list[SeatSummary]:
    """Per seat: moves, inaccuracies, mistakes, blunders and the mean loss per move."""
    rows = []
    marks = list(marks)
    for seat in range(n_seats):
        own = [m for m in marks if m.seat == seat and not m.stand_in]  # a stand-in's: no grade
        mine = [m for m in own if not m.forced]
        rows.append(
            SeatSummary(
                seat,
                len(own),
                sum(m.mark == "inaccuracy" for m in mine),
                sum(m.mark == "mistake" for m in mine),
                sum(m.mark == "blunder" for m in mine),
                sum(m.loss for m in mine) / len(mine) if mine else 0.0,
            )
        )
    return rows


HINT_WORK = DEFAULT_WORK
"""Simulated plies a hint searches (about 0.3 s on a loaded core)."""

HINTS_OFF_NETWORKED = "hints are off at this table: its host did not allow them (zoo host --hints)"
HINTS_OFF_PEOPLE = (
    "hints are off when two or more people play at this table: "
    "each would see the expert's advice for the other"
)


@dataclass(frozen=True)
class Hint:
    """What the expert would play in a position, and how the search rates it for the mover."""

    move: Move
    win: float
    """Chance of winning (ties shared) after the move, with playouts to the end of the game."""
    margin: float
    """Expected final margin after the move: the mover's score minus the best other seat's."""

    def describe(self, dash: str = "\u2014") -> str:
        """``the expert would play 6@C3 — win chance 62 %`` (``dash``: "-" where only ASCII
        shows)."""
        return f"the expert would play {self.move} {dash} win chance {100 * self.win:.0f} %"


def hint_refusal(*, networked: bool, people: int = 1, agreed: bool = False) -> str | None:
    """Why hints are off in this kind of game, or None when they are offered.

    The one decision point every front-end asks (and ``hint`` enforces): hints are for local
    games where one person plays against bots, and for networked games whose genesis allows
    them (``agreed``: ``session.genesis.hints``, PROTOCOL.md §3.2; every seat that joined
    agreed). In any other networked game a hint is outside help the other seats never agreed
    to; at a hot-seat table of two or more people it would advise each person against the other.
    """
    if networked and not agreed:
        return HINTS_OFF_NETWORKED
    if people > 1:
        return HINTS_OFF_PEOPLE
    return None


def position_seed(state: State) -> int:
    """A seed drawn from the public position itself: the same position, the same hint."""
    return int.from_bytes(state.public().digest()[:8], "big")


def hint(
    state: State,
    *,
    networked: bool,
    people: int = 1,
    agreed: bool = False,
    work: int = HINT_WORK,
    seed: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> Hint | None:
    """The move the expert would play for the seat to move, with its win chance.

    Offered only in local games of one person against bots, or where the genesis allows hints
    (``agreed``): ``HintRefused`` (saying why) when ``hint_refusal(networked=..., people=...,
    agreed=...)`` gives a reason. The search sees the public
    state only, spends ``work`` simulated plies (deterministic: the seed is ``position_seed``
    unless given) and plays out to the end of the game, so ``win`` is a real win chance.
    ``stop`` (polled between search rounds, from any thread) ends the search early; the hint is
    then None (a front-end stops a hint whose position has changed).
    """
    why = hint_refusal(networked=networked, people=people, agreed=agreed)
    if why is not None:
        raise HintRefused(why)
    pub = state.public()
    halt = stop or (lambda: False)

    def clock() -> float:
        # no wall clock: the budget is ``work``; the clock only jumps past the deadline on stop
        return math.inf if halt() else 0.0

    bot = ExpertBot(
        seed=position_seed(pub) if seed is None else seed,
        think=1.0,
        work=work,
        clock=clock,
        rollout=FULL_GAME,
    )
    stats = bot.evaluate(pub)
    if halt():
        return None
    best = stats[0]
    return Hint(best.move, best.win, best.margin)
