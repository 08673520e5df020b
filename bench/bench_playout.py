"""The search bots' playout move choice: the scored list against the fused ``noisy_best``.

Prints one ``name: value`` figure per line: simulated plies per second for each way of
choosing a playout move on the same positions with the same draws (both pick the same
moves: tests/bots/test_noisy_best.py), and their ratio measured in the same run.
Single process, single core. Run: python bench/bench_playout.py [--positions N] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.policy import noisy_best, public_odds, scored_moves
from zoo_p2p.rules import KnownDeal, Move, State, Team, Variant

Pick = Callable[[State, list[float], Callable[[], float], float], Move | None]


def listed(state: State, odds: list[float], rand: Callable[[], float], noise: float) -> Move | None:
    """The playouts' former loop: build the scored list, then add the noise."""
    best: Move | None = None
    best_s = -1e9
    for s, m in scored_moves(state, odds):
        s += rand() * noise
        if s > best_s:
            best_s, best = s, m
    return best


def positions(n: int, seed: int) -> list[State]:
    """``n`` positions (with their deal) from greedy games, every fourth ply."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        state = KnownDeal.random(rng, Variant.STANDARD).new_state(
            [Team.YELLOW, Team.BLUE], first_seat=0
        )
        bots = [make_bot("greedy", seed=rng.randrange(2**32)) for _ in range(2)]
        while not state.is_terminal() and len(out) < n:
            if len(state.history) % 4 == 0:
                out.append(state.clone())
            state.apply(bots[state.to_move].choose(state.public()))
    return out


def playouts(start: list[State], pick: Pick, seed: int) -> tuple[int, float]:
    """Play every position to the end with ``pick`` (noise 1.5); plies and seconds."""
    rng = random.Random(seed)
    plies = 0
    t0 = time.perf_counter()
    for s in start:
        st = s.clone()
        while not st.is_terminal():
            m = pick(st, public_odds(st), rng.random, 1.5)
            assert m is not None
            st.apply_unchecked(m)
            plies += 1
    return plies, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    start = positions(args.positions, args.seed)
    rates: dict[str, list[float]] = {"listed": [], "fused": []}
    for r in range(args.rounds):  # interleaved, so a noisy machine hits both alike
        for name, pick in (("listed", listed), ("fused", noisy_best)):
            plies, secs = playouts(start, pick, args.seed + r)
            rates[name].append(plies / secs)
    listed_rate = statistics.median(rates["listed"])
    fused_rate = statistics.median(rates["fused"])
    print(f"positions: {len(start)}")
    print(f"playout_plies_per_s_listed: {listed_rate:.0f}")
    print(f"playout_plies_per_s_fused: {fused_rate:.0f}")
    print(f"fused_speedup: {fused_rate / listed_rate:.2f}")


if __name__ == "__main__":
    main()
