"""``zoo arena``: headless games between bots, with win rates and 95 % confidence intervals."""

from __future__ import annotations

import json as jsonlib
import secrets
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from zoo_p2p import defaults
from zoo_p2p.bots import MEASUREMENT_LEVELS
from zoo_p2p.bots.arena import (
    ArenaError,
    ArenaReport,
    LevelStats,
    default_jobs,
    plan_games,
    run_games,
)
from zoo_p2p.errors import UsageError
from zoo_p2p.text import shown


def arena_command(
    *,
    games: int,
    players: int | None,
    levels: str,
    variant: str,
    seed: int | None,
    think: float | None,
    plies: int | None,
    json: bool,
    jobs: int | None,
) -> None:
    """Play bots against each other locally: win rates (95 % CI), average scores, ms per move."""
    lineup = [b.strip().lower() for b in levels.split(",") if b.strip()]
    err = Console(stderr=True)
    # a wrong name is said as such, before any count of seats: a usage error (exit 2), as every
    # other refusal of the arena's line-up
    wrong = next((lv for lv in lineup if lv not in MEASUREMENT_LEVELS), None)
    if wrong is not None:
        raise UsageError(
            f"unknown level {shown(wrong, 20)!r}: choose {', '.join(MEASUREMENT_LEVELS)}",
            param="'--levels'",
        )
    if players is None and len(lineup) == 1:
        raise UsageError(
            f"{lineup[0]} is one seat: give one level per seat ({lineup[0]},greedy) or --players N",
            param="'--levels'",
        )
    if players is not None and lineup:
        lineup = [lineup[i % len(lineup)] for i in range(players)]
    if seed is None:
        seed = secrets.randbelow(2**31)
    try:
        specs = plan_games(lineup, games, variant=variant, seed=seed, think=think, work=plies)
    except ArenaError as e:  # a line-up or a budget no game can be played with
        raise UsageError(str(e)) from None
    jobs = jobs or default_jobs()
    report = ArenaReport()
    t0 = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=json,
    ) as progress:
        task = progress.add_task(" vs ".join(lineup), total=games)
        for result in run_games(specs, jobs):
            report.add(result)
            progress.advance(task)
    wall = time.perf_counter() - t0
    if json:
        out = report.to_json()
        out.update(
            seed=seed,
            lineup=lineup,
            variant=variant,
            think=think,
            plies=plies,
            jobs=jobs,
            wall_seconds=round(wall, 1),
        )
        print(jsonlib.dumps(out, indent=2))
        return
    console = Console()
    budget = f"{plies} plies/move" if plies is not None else f"think {think or defaults.THINK:g} s"
    title = (
        f"{games} games, {len(lineup)} seats, {variant}, seed {seed}, {budget}, "
        f"{jobs} jobs, {wall:.0f} s"
    )
    console.print(render_report(report, title))
    console.print(
        "win: a tie is a shared win, each of k tied seats gets 1/k (ties: shared wins);\n"
        "CI: 95 % Wilson interval; margin: score minus the best other seat"
    )


def render_report(report: ArenaReport, title: str) -> Table:
    """The per-level table (and per-variant rows when several variants were played)."""
    table = Table(title=title)
    for col in ("bot", "seats", "win", "95 % CI", "ties", "score", "margin", "ms/move"):
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=col == "bot")

    def row(name: str, s: LevelStats) -> None:
        lo, hi = s.ci95
        table.add_row(
            name,
            str(s.seats),
            f"{100 * s.win_rate:.1f}%",
            f"{100 * lo:.0f}-{100 * hi:.0f}%",
            str(s.shared_wins),
            f"{s.mean_score:.1f}",
            f"{s.mean_margin:+.1f}",
            f"{s.ms_per_move:.0f}",
        )

    for name, s in report.by_level.items():
        row(name, s)
    if len(report.by_variant) > 1:
        for var, per in report.by_variant.items():
            for name, s in per.items():
                row(f"{name} ({var})", s)
    return table
