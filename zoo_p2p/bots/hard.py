"""The ``hard`` bot: determinized Monte Carlo search with heavy playouts.

Every simulation samples the hidden facts (bottom cards, mutant flags) consistently with
everything public (``State.determinize``: one mutant per value 0..3 among the cards of that
value still in the zoo, the remaining card counts), so a capture's real risk is weighed.
The candidate moves (the best ``width`` by the one-ply policy) are compared by paired
successive halving: each round samples one deal and plays every live candidate out with the
noisy one-ply policy for every seat (same sampled cards, same playout seed), scoring the
searching seat's reward (its share of the win blended with its score margin).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from zoo_p2p import defaults
from zoo_p2p.bots.base import public_position
from zoo_p2p.bots.policy import noisy_best, public_odds, scored_moves
from zoo_p2p.rules import Move, State

DEFAULT_THINK = defaults.THINK  # seconds per move (zoo_p2p.defaults)
"""Seconds per move when ``think`` is not given (the budget is 1 s on one core)."""

WORK_PER_SECOND = 55_000
"""Simulated plies per second of ``think`` in seeded (deterministic) mode, calibrated low."""

SAFETY = 1.0
"""Seeded mode also stops at ``SAFETY * think`` wall seconds: deterministic unless the machine
is too slow to finish the work in time (the 1 s budget wins over reproducibility)."""

MARGIN_SCALE = 30.0

PRIOR = 0.01
"""Reward per point of one-ply score added to a candidate's mean: prefers the sure thing."""


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


def policy_playout(
    state: State, rng: random.Random, noise: float = 1.5, limit: int | None = None
) -> int:
    """Play ``state`` (with an oracle) by the noisy one-ply policy to the end, or for at most
    ``limit`` plies; return the plies played."""
    rand = rng.random
    plies = 0
    while (limit is None or plies < limit) and not state.is_terminal():
        best_m = noisy_best(state, public_odds(state), rand, noise)
        assert best_m is not None
        state.apply_unchecked(best_m)
        plies += 1
    return plies


class HardBot:
    """Determinized Monte Carlo search with a time budget; deterministic when seeded."""

    level = "hard"

    def __init__(
        self,
        seed: int | None = None,
        think: float | None = None,
        *,
        work: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        width: int = 12,
        noise: float = 1.5,
        margin_weight: float = 0.5,
    ) -> None:
        self.think = DEFAULT_THINK if think is None else float(think)
        if self.think <= 0:
            raise ValueError("think time must be positive")
        self.rng = random.Random(seed)
        if work is None and seed is not None:
            work = max(1, int(self.think * WORK_PER_SECOND))
        self.work = work
        self.clock = clock
        self.width = width
        self.noise = noise
        self.margin_weight = margin_weight
        self.last_simulations = 0

    def candidates(self, pub: State) -> list[tuple[float, Move]]:
        """The moves worth simulating, with their one-ply scores: the ``width`` best."""
        scored = scored_moves(pub, public_odds(pub))
        order = {m: i for i, m in enumerate(pub.legal_moves())}
        scored.sort(key=lambda sm: (-sm[0], order[sm[1]]))
        return scored[: self.width]

    def choose(self, state: State) -> Move:
        """Search from the public state and play the best-valued move."""
        pub, moves = public_position(state)
        if len(moves) == 1:
            return moves[0]
        scored = self.candidates(pub)
        cands = [m for _s, m in scored]
        if len(cands) == 1:
            return cands[0]
        n, w = self.search(pub, cands)
        # survivors of the halving, by mean reward nudged towards the one-ply score
        best = max(
            (i for i in range(len(cands)) if n[i] == max(n)),
            key=lambda i: (w[i] / n[i] + PRIOR * scored[i][0], -i),
        )
        return cands[best]

    def search(self, pub: State, cands: list[Move]) -> tuple[list[int], list[float]]:
        """Paired successive halving: each round samples one deal and plays every live candidate.

        All live candidates meet the same sampled hidden cards and the same playout seed in
        every round, so their means compare on equal terms; the worse half is dropped after
        8, 24, 56... rounds. Returns each candidate's rounds and reward sum.
        """
        rng = self.rng
        clock = self.clock
        limit = self.think * (SAFETY if self.work is not None else 1.0)
        deadline = clock() + limit
        work_left = self.work
        me = pub.to_move
        k = len(cands)
        n = [0] * k
        w = [0.0] * k
        alive = list(range(k))
        rounds = 0
        next_cut = 8
        sims = 0
        done = False
        while not done:
            oracle = pub.determinize(rng)
            seed = rng.getrandbits(64)
            for i in alive:
                det = pub.with_oracle(oracle)
                det.apply_unchecked(cands[i])
                plies = policy_playout(det, random.Random(seed), self.noise)
                n[i] += 1
                w[i] += rewards(det, self.margin_weight)[me]
                sims += 1
                if work_left is not None:
                    work_left -= plies + 2
            rounds += 1
            if work_left is not None and work_left <= 0:
                done = True
            if clock() >= deadline:
                done = True
            if rounds == next_cut and len(alive) > 2:
                alive.sort(key=lambda j: (-w[j], j))
                alive = alive[: max(2, (len(alive) + 1) // 2)]
                next_cut = 2 * next_cut + 8
        self.last_simulations = sims
        # only candidates still alive have met every round: rank them alone
        for j in range(k):
            if j not in alive:
                n[j] = 0
        return n, w
