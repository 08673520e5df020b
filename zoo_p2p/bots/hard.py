"""The ``hard`` bot: information-set Monte Carlo tree search (single observer).

Each iteration samples the hidden facts (bottom cards, mutant flags) consistently with
everything public (``State.determinize``), walks one shared tree of moves with UCB1
corrected for availability, plays the game out with a cheap policy and backs up each
seat's reward (its share of the win, blended with its score margin).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from zoo_p2p.bots.base import public_position
from zoo_p2p.rules import Move, State

DEFAULT_THINK = 0.9
"""Seconds per move when ``think`` is not given (the budget is 1 s on one core)."""

WORK_PER_SECOND = 60_000
"""Simulated plies per second of ``think`` in seeded (deterministic) mode, calibrated low."""

SAFETY = 1.25
"""Seeded mode still stops at ``SAFETY * think`` wall seconds (only on a very slow machine)."""

MARGIN_SCALE = 40.0


class _Node:
    __slots__ = ("avail", "children", "n", "seat", "w")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.children: dict[Move, _Node] = {}


def rewards(state: State, margin_weight: float = 0.3) -> list[float]:
    """Each seat's reward in [0, 1] at the end of a playout: win share blended with margin."""
    totals = [s.total for s in state.scores()]
    best = max(totals)
    n_best = totals.count(best)
    out = []
    for p, t in enumerate(totals):
        win = 1.0 / n_best if t == best else 0.0
        other = max(totals[:p] + totals[p + 1 :])
        m = 0.5 + (t - other) / (2 * MARGIN_SCALE)
        m = 0.0 if m < 0.0 else 1.0 if m > 1.0 else m
        out.append((1 - margin_weight) * win + margin_weight * m)
    return out


class HardBot:
    """Information-set MCTS with a time budget; deterministic (work-bounded) when seeded."""

    level = "hard"

    def __init__(
        self,
        seed: int | None = None,
        think: float | None = None,
        *,
        work: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        exploration: float = 0.7,
    ) -> None:
        self.think = DEFAULT_THINK if think is None else float(think)
        if self.think <= 0:
            raise ValueError("think time must be positive")
        self.rng = random.Random(seed)
        if work is None and seed is not None:
            work = max(1, int(self.think * WORK_PER_SECOND))
        self.work = work
        self.clock = clock
        self.exploration = exploration
        self.last_iterations = 0

    def choose(self, state: State) -> Move:
        """Search from the public state and play the most visited move."""
        pub, moves = public_position(state)
        if len(moves) == 1:
            return moves[0]
        root = self.search(pub)
        best = max(root.children.items(), key=lambda mc: (mc[1].n, mc[1].w))
        return best[0]

    def search(self, pub: State) -> _Node:
        """Run the iterations from ``pub`` and return the root of the tree."""
        rng = self.rng
        rand = rng.random
        clock = self.clock
        limit = self.think * (SAFETY if self.work is not None else 1.0)
        deadline = clock() + limit
        work_left = self.work
        root = _Node(-1)
        c = self.exploration
        it = 0
        base_plies = len(pub.history)
        while True:
            it += 1
            det = pub.with_oracle(pub.determinize(rng))
            node = root
            path = [root]
            while not det.is_terminal():
                moves = det.legal_moves()
                children = node.children
                untried = [m for m in moves if m not in children]
                if untried:
                    m = untried[int(rand() * len(untried))]
                    child = _Node(det.to_move)
                    children[m] = child
                    for mm in moves:
                        ch = children.get(mm)
                        if ch is not None:
                            ch.avail += 1
                    det.apply_unchecked(m)
                    path.append(child)
                    break
                best_m = moves[0]
                best_u = -1.0
                for mm in moves:
                    ch = children[mm]
                    ch.avail += 1
                    u = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                    if u > best_u:
                        best_u = u
                        best_m = mm
                det.apply_unchecked(best_m)
                node = children[best_m]
                path.append(node)
            if not det.is_terminal():
                det.playout(rng)
            r = rewards(det)
            for nd in path[1:]:
                nd.n += 1
                nd.w += r[nd.seat]
            if work_left is not None:
                work_left -= len(det.history) - base_plies + 4
                if work_left <= 0:
                    break
            if (it & 7) == 0 and clock() >= deadline:
                break
        self.last_iterations = it
        return root
