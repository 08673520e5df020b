"""The re-deal round's cost against the opening round's, in one process (PROTOCOL.md §10.7).

4 seats, every peer's `Session` in this process (no network: what the round costs the peers,
signatures, checks and derivations included). For each game: the time from the genesis to the
first move floor (every `commit` and `open` delivered to every seat), and, after seat 3 stops
answering at a move floor, the time from the first vote to the last `redeal` entry delivered to
the three others (votes, the computed claim, three `redeal` entries). Prints `name: value`
lines: the medians and their ratio, measured in the same run.

    .venv/bin/python bench/bench_play_on.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoo_p2p.protocol.encoding import Kind  # noqa: E402
from zoo_p2p.protocol.playon_samples import claim, play_on_game, run_until  # noqa: E402


def one(label: str) -> tuple[float, float]:
    """(opening seconds, re-deal round seconds) of one 4-seat game."""
    game, rng = play_on_game(4, label)
    everyone = [0, 1, 2, 3]
    t0 = time.perf_counter()
    run_until(game, rng, everyone, lambda f: f.kind == Kind.MOVE)
    opening = time.perf_counter() - t0
    moves = [0]

    def stop(f: object) -> bool:
        kind = getattr(f, "kind", None)
        moves[0] += kind == Kind.MOVE
        return getattr(f, "seat", None) == 2 and kind == Kind.MOVE and moves[0] > 8

    run_until(game, rng, everyone, stop)
    rest = [0, 1, 3]
    t0 = time.perf_counter()
    claim(game, rest)
    run_until(game, rng, rest, lambda f: f.kind != Kind.REDEAL)
    redeal = time.perf_counter() - t0
    assert game.sessions[0].redeals and game.sessions[0].redeals[-1].complete
    return opening, redeal


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    a = ap.parse_args()
    rows = [one(f"bench {i}") for i in range(a.games)]
    op = statistics.median(r[0] for r in rows)
    rd = statistics.median(r[1] for r in rows)
    print(f"games: {a.games}")
    print(f"opening round (4 commit + 4 open, every seat checks all) median: {op * 1e3:.1f} ms")
    print(f"re-deal round (3 votes, the claim, 3 redeal) median: {rd * 1e3:.1f} ms")
    print(f"re-deal / opening: {rd / op:.2f}")


if __name__ == "__main__":
    random.seed(0)
    main()
