"""The baseline bots: ``random`` and ``greedy`` (one ply)."""

from __future__ import annotations

import random

from zoo_p2p.bots.base import greedy_score, mutant_odds, public_position
from zoo_p2p.rules import Move, State


class RandomBot:
    """Plays a uniformly random legal move."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Move:
        """A random legal move for the seat to move."""
        _pub, moves = public_position(state)
        return moves[int(self.rng.random() * len(moves))]


class GreedyBot:
    """One ply: the move with the best immediate points minus what it exposes (ties at random)."""

    level = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def ranked(self, state: State) -> list[tuple[float, Move]]:
        """Every legal move with its one-ply score, best first (stable for equal scores)."""
        pub, moves = public_position(state)
        odds = mutant_odds(pub)
        scored = [(greedy_score(pub, m, odds), m) for m in moves]
        scored.sort(key=lambda sm: -sm[0])
        return scored

    def choose(self, state: State) -> Move:
        """The best one-ply move for the seat to move."""
        scored = self.ranked(state)
        best = scored[0][0]
        top = [m for s, m in scored if s >= best - 1e-9]
        return top[int(self.rng.random() * len(top))]
