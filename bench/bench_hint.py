"""The expert's hint during a game: how long one takes, and how soon a stopped one ends.

Prints one ``name: value`` figure per line. Single process, single core; positions from seeded
greedy games (2 players, standard), sampled every few plies.
Run: python bench/bench_hint.py [--positions N] [--work PLIES]
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.analysis import HINT_WORK, hint
from zoo_p2p.rules import KnownDeal, State, Team, Variant


def positions(n: int, seed: int) -> list[State]:
    """``n`` public positions from greedy games, every fifth ply."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        deal = KnownDeal.random(rng, Variant.STANDARD)
        state = deal.new_state([Team.YELLOW, Team.BLUE], first_seat=0)
        bots = [make_bot("greedy", seed=rng.randrange(2**32)) for _ in range(2)]
        while not state.is_terminal() and len(out) < n:
            if len(state.history) % 5 == 0:
                out.append(state.public())
            state.apply(bots[state.to_move].choose(state.public()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--work", type=int, default=HINT_WORK)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    times = []
    for st in positions(args.positions, args.seed):
        t0 = time.perf_counter()
        hint(st, networked=False, work=args.work)
        times.append(time.perf_counter() - t0)
    print(f"hint ms median ({args.work} plies): {1000 * statistics.median(times):.0f}")
    print(f"hint ms max ({args.work} plies): {1000 * max(times):.0f}")
    # a hint stopped 50 ms in (the position changed): how long until its search has ended
    st = positions(1, args.seed + 1)[0]
    stop = threading.Event()
    timer = threading.Timer(0.05, stop.set)
    t0 = time.perf_counter()
    timer.start()
    hint(st, networked=False, work=100 * args.work, stop=stop.is_set)
    stopped_after = time.perf_counter() - t0
    print(f"stopped hint ends after ms: {1000 * (stopped_after - 0.05):.0f}")


if __name__ == "__main__":
    main()
