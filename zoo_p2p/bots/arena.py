"""Headless matches between bots on local known deals, and their statistics (no typer here).

Seats are rotated between games on the same deal (game ``g`` plays deal ``g // n`` with the
levels shifted by ``g % n``), so every level sits in every seat on every deal equally often.
A tie is a shared win: each of the ``k`` tied seats is credited ``1/k`` of a win; shared wins
are also counted separately.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from zoo_p2p.bots import MEASUREMENT_LEVELS, make_bot
from zoo_p2p.rules import KnownDeal, Team, Variant

Z95 = 1.959963984540054


class ArenaError(ValueError):
    """Arena settings that cannot be played (bad levels, player count, games...)."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


@dataclass(frozen=True)
class GameSpec:
    """One game to play: which deal, which level in which seat."""

    index: int
    levels: tuple[str, ...]
    variant: Variant
    deal_seed: str
    bot_seed: str
    think: float | None
    work: int | None = None
    """Simulated plies per move for the search bots (deterministic), instead of ``think``."""


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game, per seat."""

    index: int
    levels: tuple[str, ...]
    variant: Variant
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    plies: int
    think_seconds: tuple[float, ...]
    moves: tuple[int, ...]
    max_move_seconds: tuple[float, ...]


def plan_games(
    levels: Sequence[str],
    games: int,
    *,
    variant: str = "standard",
    seed: int = 0,
    think: float | None = None,
    work: int | None = None,
) -> list[GameSpec]:
    """The games of a match, seats rotated on each deal; ``variant`` standard|general|both.

    ``work`` (simulated plies per move) gives every search bot the same deterministic budget;
    without it ``think`` seconds bound them (and a seed still fixes the deals).
    """
    n = len(levels)
    if not 2 <= n <= 4:
        raise ArenaError(f"2 to 4 seats, not {n}")
    for lv in levels:
        if lv not in MEASUREMENT_LEVELS:
            raise ArenaError(
                f"unknown bot level {lv!r}: choose one of {', '.join(MEASUREMENT_LEVELS)}"
            )
    if work is not None and work < 1:
        raise ArenaError("the work budget must be at least one ply")
    if games < 1:
        raise ArenaError("play at least one game")
    if variant not in ("standard", "general", "both"):
        raise ArenaError(f"unknown variant {variant!r}: standard, general or both")
    specs = []
    for g in range(games):
        deal_no, shift = divmod(g, n)
        if variant == "both":
            var = Variant.STANDARD if deal_no % 2 == 0 else Variant.GENERAL
        else:
            var = Variant(variant)
        rotated = tuple(levels[(s - shift) % n] for s in range(n))
        specs.append(
            GameSpec(g, rotated, var, f"{seed}:deal:{deal_no}", f"{seed}:game:{g}", think, work)
        )
    return specs


def play_game(spec: GameSpec, clock: Callable[[], float] = time.perf_counter) -> GameResult:
    """Play one game between bots on a random known deal (seat 0 moves first)."""
    n = len(spec.levels)
    deal = KnownDeal.random(random.Random(spec.deal_seed), spec.variant)
    teams = [Team(t) for t in range(n)]
    state = deal.new_state(teams, first_seat=0)
    seeder = random.Random(spec.bot_seed)
    bots = [
        make_bot(
            lv, seed=seeder.randrange(2**32), think=spec.think, work=spec.work, measurement=True
        )
        for lv in spec.levels
    ]
    peeks = [getattr(b, "peeks", False) for b in bots]
    spent = [0.0] * n
    counts = [0] * n
    worst = [0.0] * n
    plies = 0
    while not state.is_terminal():
        p = state.to_move
        t0 = clock()
        # only ``peek`` is handed the hidden deal; every other bot gets the public state
        move = bots[p].choose(state if peeks[p] else state.public())
        dt = clock() - t0
        spent[p] += dt
        counts[p] += 1
        worst[p] = max(worst[p], dt)
        state.apply(move)
        plies += 1
    totals = tuple(s.total for s in state.scores())
    return GameResult(
        spec.index,
        spec.levels,
        spec.variant,
        totals,
        tuple(state.winners()),
        plies,
        tuple(spent),
        tuple(counts),
        tuple(worst),
    )


def default_jobs() -> int:
    """One process per core this process may use."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_games(specs: Sequence[GameSpec], jobs: int | None = None) -> Iterator[GameResult]:
    """Play the games in ``jobs`` processes (default: every core); results as they complete."""
    if jobs is None:
        jobs = default_jobs()
    jobs = min(jobs, len(specs))
    if jobs <= 1:
        for spec in specs:
            yield play_game(spec)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(play_game, specs, chunksize=1)


@dataclass
class LevelStats:
    """Aggregated results of one level over all its seats and games."""

    level: str
    seats: int = 0
    wins: float = 0.0
    sole_wins: int = 0
    shared_wins: int = 0
    score_sum: int = 0
    margin_sum: int = 0
    think_seconds: float = 0.0
    moves: int = 0
    max_move_seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        """Wins (ties shared fractionally) per seat played."""
        return self.wins / self.seats if self.seats else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """95 % Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.seats)

    @property
    def mean_score(self) -> float:
        """Average final score."""
        return self.score_sum / self.seats if self.seats else 0.0

    @property
    def mean_margin(self) -> float:
        """Average score minus the best other seat's score."""
        return self.margin_sum / self.seats if self.seats else 0.0

    @property
    def ms_per_move(self) -> float:
        """Average thinking time per move, in milliseconds."""
        return 1000 * self.think_seconds / self.moves if self.moves else 0.0


@dataclass
class ArenaReport:
    """The statistics of a match, per level and per variant."""

    games: int = 0
    plies: int = 0
    by_level: dict[str, LevelStats] = field(default_factory=dict)
    by_variant: dict[str, dict[str, LevelStats]] = field(default_factory=dict)

    def add(self, result: GameResult) -> None:
        """Count one game."""
        self.games += 1
        self.plies += result.plies
        table = self.by_variant.setdefault(result.variant.value, {})
        for stats in (self.by_level, table):
            _add(stats, result)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary."""

        def level_json(s: LevelStats) -> dict[str, object]:
            lo, hi = s.ci95
            return {
                "seats": s.seats,
                "wins": s.wins,
                "sole_wins": s.sole_wins,
                "shared_wins": s.shared_wins,
                "win_rate": s.win_rate,
                "ci95": [lo, hi],
                "mean_score": s.mean_score,
                "mean_margin": s.mean_margin,
                "ms_per_move": s.ms_per_move,
                "max_ms_per_move": 1000 * s.max_move_seconds,
            }

        return {
            "games": self.games,
            "ties": "a tie is a shared win: each of k tied seats gets 1/k of a win",
            "levels": {k: level_json(v) for k, v in self.by_level.items()},
            "variants": {
                var: {k: level_json(v) for k, v in table.items()}
                for var, table in self.by_variant.items()
            },
        }


def _add(table: dict[str, LevelStats], r: GameResult) -> None:
    k = len(r.winners)
    for seat, lv in enumerate(r.levels):
        s = table.setdefault(lv, LevelStats(lv))
        s.seats += 1
        if seat in r.winners:
            s.wins += 1.0 / k
            if k == 1:
                s.sole_wins += 1
            else:
                s.shared_wins += 1
        s.score_sum += r.totals[seat]
        s.margin_sum += r.totals[seat] - max(t for i, t in enumerate(r.totals) if i != seat)
        s.think_seconds += r.think_seconds[seat]
        s.moves += r.moves[seat]
        s.max_move_seconds = max(s.max_move_seconds, r.max_move_seconds[seat])
