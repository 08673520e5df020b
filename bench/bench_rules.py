"""Rules engine benchmark: random full-game playouts and legal-move generations per second.

Prints one ``name: value`` figure per line. Single process, single core.
Run: python bench/bench_rules.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time

from zoo_p2p.rules import KnownDeal, Team, Variant


def playouts_per_second(n_players: int, variant: Variant, seconds: float, seed: int) -> float:
    """Deal a fresh random game and play it out uniformly at random, as many times as fit."""
    rng = random.Random(seed)
    teams = list(Team)[:n_players]
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            deal = KnownDeal.random(rng, variant)
            state = deal.new_state(teams, first_seat=count % n_players)
            state.playout(rng)
        count += 50
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def checked_playouts_per_second(seconds: float, seed: int) -> float:
    """Random games through the public API: legal_moves() then apply() (checked) each ply."""
    rng = random.Random(seed)
    teams = [Team.YELLOW, Team.RED]
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = KnownDeal.random(rng).new_state(teams)
        while not state.is_terminal():
            moves = state.legal_moves()
            state.apply(moves[int(rng.random() * len(moves))])
        count += 1
    return count / (time.perf_counter() - start)


def movegen_per_second(seconds: float, seed: int) -> float:
    """legal_moves() calls per second over positions sampled from random games."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < 2000:
        state = KnownDeal.random(rng).new_state([Team.YELLOW, Team.RED])
        while not state.is_terminal():
            positions.append(state.clone())
            moves = state.legal_moves()
            state.apply_unchecked(moves[int(rng.random() * len(moves))])
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p in positions:
            p._term = None  # measure the terminal test too, not a cached answer
            p.legal_moves()
        count += len(positions)
    return count / (time.perf_counter() - start)


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    s = args.seconds
    print(f"random 2-player playouts/s: {playouts_per_second(2, Variant.STANDARD, s, 1):.0f}")
    print(f"random 4-player playouts/s: {playouts_per_second(4, Variant.STANDARD, s, 2):.0f}")
    print(
        f"random 2-player general playouts/s: {playouts_per_second(2, Variant.GENERAL, s, 3):.0f}"
    )
    print(f"checked-API 2-player games/s: {checked_playouts_per_second(s, 4):.0f}")
    print(f"legal-move generations/s: {movegen_per_second(s, 5):.0f}")


if __name__ == "__main__":
    main()
