"""The re-deal (docs/design/PLAY-ON.md): its fairness at a larger sample, and what it costs.

Fairness: `--games` simulated dropouts (3–4 seats, random bots, a random ply), even games
observed under their original deal, odd ones under the re-deal; for each scenario and statistic
Pearson's two-sample χ², its degrees of freedom and log10 of its exact p-value:

- honest: every remaining seat honest; colluders: all but one (identity and reversed tables);
- control: no honest seat (must give tiny p-values: the test can see a biased re-deal).

Whole games through `Session` (`--session-games N`, 0 to skip; tests/protocol/play_on_games.py,
the larger run of tests/protocol/test_play_on_fairness.py): N seeded 3–4 seat games, a seat
dropping at a reveal floor after 0–6 moves in the odd ones; per statistic of the interrupted
round's answer, the same χ² lines (`session ...`): every seat honest; `session colluders
honest-last`, every live seat but the last with the identity for its tables; and `session
control` with every seat's re-deal tables the identity (must give tiny p-values).

Cost (CPU, one peer): one seat's re-deal derivation (tables, salts and commitments over the
hidden part of a game at the median point of the simulations) against the same seat's opening
derivation (`SeatTables.from_seed` and its §4.3 commitments), measured in the same run, and
their ratio; likewise a whole round (3 remaining seats' commitments, composition, the new deal)
against a whole 4-seat opening derivation.

Prints `name: value` lines. Pure CPU: run under `nice`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.protocol.redeal_sim import (  # noqa: E402
    STATS,
    TableSource,
    homogeneity,
    honest,
    identity,
    play_games,
    redeal_samples,
    reverse,
)
from zoo_p2p.protocol.deal import SeatTables  # noqa: E402
from zoo_p2p.protocol.redeal import (  # noqa: E402
    RedealTables,
    apply_redeal,
    compose_redeal,
)
from zoo_p2p.protocol.simulate import LocalGame  # noqa: E402
from zoo_p2p.rules import Variant  # noqa: E402

SCENARIOS: dict[str, list[TableSource] | None] = {
    "honest": None,
    "colluders honest-first": [honest, identity, reverse],
    "colluders honest-last": [reverse, identity, honest],
    "control no-honest": [identity, reverse, identity],
}


def paired_median_us(
    first: Callable[[], object], second: Callable[[], object], rounds: int
) -> tuple[float, float]:
    """Median µs of each, measured alternately (so that load on a shared machine hits both)."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        for fn, out in ((first, a), (second, b)):
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1e6)
    return statistics.median(a), statistics.median(b)


def session_fairness(games: int) -> None:
    """The χ² lines of whole games through `Session`, honest and with identity tables."""
    from tests.protocol import play_on_games

    fair = play_on_games.play_many(games, seed=121)
    print(f"session games: {fair.games}")
    print(f"session games re-dealt: {fair.claims}")
    real = RedealTables.from_seed
    honest: set[bytes] = set()

    def last_is_honest(game: LocalGame, live: list[int]) -> None:
        honest.add(game.seeds[live[-1]])

    runs: list[tuple[str, play_on_games.Observed]] = [("session honest", fair)]
    nobody: set[bytes] = set()
    for name, who in (("session colluders honest-last", honest), ("session control", nobody)):
        RedealTables.from_seed = play_on_games.colluding_tables(who)  # type: ignore[method-assign]
        try:
            hook = last_is_honest if who is honest else None
            runs.append((name, play_on_games.play_many(games, seed=121, parity=1, on_claim=hook)))
        finally:
            RedealTables.from_seed = real  # type: ignore[method-assign]
    for name, redealt in runs:
        for stat in play_on_games.STATS:
            x2, df, p = homogeneity(fair.kept[stat], redealt.redealt[stat])
            print(f"{name} {stat} chi2: {x2:.1f}")
            print(f"{name} {stat} df: {df}")
            print(f"{name} {stat} log10 p: {math.log10(max(p, 1e-300)):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=6000)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--session-games", type=int, default=600)
    a = ap.parse_args()
    if a.session_games:
        session_fairness(a.session_games)
    played = play_games(a.games, seed=121)
    print(f"games: {len(played)}")
    for name, seats in SCENARIOS.items():
        s = redeal_samples(played, seats, seed=122)
        for stat in STATS:
            x2, df, p = homogeneity(s.original[stat], s.redealt[stat])
            print(f"{name} {stat} chi2: {x2:.1f}")
            print(f"{name} {stat} df: {df}")
            print(f"{name} {stat} log10 p: {math.log10(max(p, 1e-300)):.2f}")
    # cost, at the median hidden part of the simulations
    by_size = sorted(played, key=lambda d: len(d.hidden.covered))
    d = by_size[len(by_size) // 2]
    h = d.hidden
    gid, claim = bytes(range(32)), bytes(range(32, 64))
    seeds = [bytes([k]) * 32 for k in range(4)]

    def opening_seat() -> object:
        return SeatTables.from_seed(seeds[0], gid, general=False).commitments(gid, 0)

    def redeal_seat() -> object:
        return RedealTables.from_seed(seeds[0], gid, claim, h).commitments(gid, claim, 0)

    def opening_round() -> object:
        return [
            SeatTables.from_seed(seeds[k], gid, general=False).commitments(gid, k) for k in range(4)
        ]

    def redeal_round() -> object:
        tables = [RedealTables.from_seed(seeds[k], gid, claim, h) for k in range(3)]
        for k, t in enumerate(tables):
            t.commitments(gid, claim, k)
        composed = compose_redeal(h, [t.tables for t in tables])
        return apply_redeal(h, composed, d.known, d.reveals, Variant.STANDARD)

    print(f"hidden part covered slots: {len(h.covered)}")
    print(f"hidden part mutant tables: {len(h.copies)}")
    o_seat, r_seat = paired_median_us(opening_seat, redeal_seat, a.rounds)
    o_round, r_round = paired_median_us(opening_round, redeal_round, max(1, a.rounds // 4))
    print(f"opening derivation per seat us: {o_seat:.0f}")
    print(f"redeal derivation per seat us: {r_seat:.0f}")
    print(f"redeal/opening per seat: {r_seat / o_seat:.2f}")
    print(f"opening derivation 4 seats us: {o_round:.0f}")
    print(f"redeal round 3 seats us: {r_round:.0f}")
    print(f"redeal round/opening 4 seats: {r_round / o_round:.2f}")


if __name__ == "__main__":
    main()
