"""A fast one-ply policy on raw square codes, for the hard bot's simulations.

It scores every legal move like the ``greedy`` bot (immediate points, an opponent's
character counting twice, minus the expected mutant loss, minus the largest character
left open to capture) but in constant time per move, without copying the state. It also
charges part of the value of a Zoo card a step uncovers, which the next player may take.
"""

from __future__ import annotations

from collections.abc import Callable

from zoo_p2p.rules import Move, State, Variant
from zoo_p2p.rules.board import COPIES_PER_VALUE, NEIGHBOURS, SENDS, STEPS
from zoo_p2p.rules.state import CHAR, MUTANT, UNKNOWN

UNCOVER = 0.5
"""Share of an uncovered Zoo card's value charged to the step that uncovers it."""


def public_odds(state: State) -> list[float]:
    """Chance that capturing a Zoo card of each value 0..4 reveals the mutant (public facts)."""
    odds = [0.0] * 5
    if state.variant is Variant.GENERAL:
        return odds
    left = [COPIES_PER_VALUE] * 4
    for seat in range(state.n_seats):
        for v in state.captured_zoo(seat):
            if v < 4:
                left[v] -= 1
    found = state.mutants_found
    for v in range(4):
        if v not in found and left[v] > 0:
            odds[v] = 1.0 / left[v]
    return odds


def scored_moves(state: State, odds: list[float]) -> list[tuple[float, Move]]:
    """Every legal move of the seat to move with its one-ply score (unsorted)."""
    out: list[tuple[float, Move]] = []
    _scan(state, odds, out)
    return out


def noisy_best(
    state: State, odds: list[float], rand: Callable[[], float], noise: float
) -> Move | None:
    """The move ``scored_moves`` would pick after adding ``rand() * noise`` to each score.

    The same scores, the same order and the same draws as a loop over ``scored_moves``, hence
    the same move, but without building the list (the playouts' hot path).
    """
    return _scan(state, odds, None, rand, noise)


def _scan(
    state: State,
    odds: list[float],
    out: list[tuple[float, Move]] | None,
    rand: Callable[[], float] | None = None,
    noise: float = 0.0,
) -> Move | None:
    """Score every legal move of the seat to move, in one fixed order: into ``out`` when it is
    a list, else keep the best after adding ``rand() * noise`` to each score (and return it)."""
    p = state.to_move
    top, under = state.square_codes()
    # highest opponent healthy character next to each square
    adj = [-1] * 25
    for q in range(25):
        c = top[q]
        if CHAR <= c < MUTANT:
            s, v = divmod(c - CHAR, 8)
            if s != p:
                for n in NEIGHBOURS[q]:
                    if v > adj[n]:
                        adj[n] = v
    pos = state.on_board(p)
    threatened = sorted((v for v, q in pos.items() if adj[q] >= v), reverse=True)
    base = 2 * threatened[0] if threatened else 0
    best: Move | None = None
    best_s = -1e9
    hand = state.hand(p)
    if hand:
        for q in range(25):
            zv = top[q]
            if 0 <= zv < UNKNOWN:
                o2 = odds[zv] * 2
                a = adj[q]
                for v in hand:
                    exp = 2 * v if a >= v and 2 * v > base else base
                    sc = zv - o2 * v - exp
                    if out is not None:
                        out.append((sc, SENDS[v][q]))
                        continue
                    assert rand is not None
                    sc += rand() * noise
                    if sc > best_s:
                        best_s = sc
                        best = SENDS[v][q]
    for v, q in pos.items():
        # exposure of the others once this one has moved
        if threatened and threatened[0] == v:
            rest = 2 * threatened[1] if len(threatened) > 1 else 0
        else:
            rest = base
        u = under[q]
        unc = UNCOVER * u if 0 <= u < UNKNOWN else (UNCOVER * 2 if u == UNKNOWN else 0.0)
        for n in NEIGHBOURS[q]:
            c = top[n]
            if c < 0 or c == UNKNOWN:
                continue
            if c < UNKNOWN:
                gain = c - odds[c] * 2 * v
            elif c < MUTANT:
                s, tv = divmod(c - CHAR, 8)
                if s == p or tv > v:
                    continue
                gain = 2.0 * tv
            else:
                gain = float((c - MUTANT) % 8)
            exp = 2 * v if adj[n] >= v and 2 * v > rest else rest
            sc = gain - exp - unc
            if out is not None:
                out.append((sc, STEPS[q, n]))
                continue
            assert rand is not None
            sc += rand() * noise
            if sc > best_s:
                best_s = sc
                best = STEPS[q, n]
    return best
