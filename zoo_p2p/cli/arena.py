"""``zoo arena``: headless games between bots, with win rates and 95 % confidence intervals."""

from typing import TYPE_CHECKING, Annotated

import typer

from zoo_p2p.text import shown

if TYPE_CHECKING:
    from rich.table import Table

    from zoo_p2p.bots.arena import ArenaReport, LevelStats

LEVELS_HELP = (
    "One bot level per seat, comma-separated (2-4 seats; rotated between games): "
    "random (random legal moves), greedy (one ply: points minus exposure and mutant risk), "
    "hard (Monte Carlo over the best one-ply moves), expert (tree search, exact odds), "
    "peek (the expert told the hidden deal: measurement only), peek-mutants and peek-bottoms "
    "(told only the mutants, or only the face-down bottoms: measurement only)."
)


def arena_command(
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, metavar="N", help="Games to play.")
    ] = 100,
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-p", min=2, max=4, metavar="N", help="Seats (2-4); --levels is cycled."
        ),
    ] = None,
    levels_: Annotated[
        str, typer.Option("--levels", metavar="a,b,…", help=LEVELS_HELP)
    ] = "expert,hard",
    variant: Annotated[
        str,
        typer.Option(
            "--variant",
            metavar="standard|general|both",
            help="standard, general (no mutants) or both.",
        ),
    ] = "standard",
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="N", help="Seed the deals and the bots (reproducible)."),
    ] = None,
    think: Annotated[
        float | None,
        typer.Option(
            "--think",
            min=0.01,
            metavar="SECONDS",
            help="Search bots' seconds per move (default 0.8).",
        ),
    ] = None,
    plies: Annotated[
        int | None,
        typer.Option(
            "--plies",
            min=1,
            metavar="N",
            help="Search bots' budget in simulated plies per move instead of --think: the same "
            "for every bot, deterministic with --seed whatever the machine's load.",
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, metavar="N", help="Parallel processes (default: every core)."
        ),
    ] = None,
) -> None:
    """Play bots against each other locally: win rates (95 % CI), average scores, ms per move."""
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.text import Text

    from zoo_p2p.bots.arena import ArenaError, ArenaReport, default_jobs, plan_games, run_games

    levels = [b.strip().lower() for b in levels_.split(",") if b.strip()]
    from zoo_p2p.bots import MEASUREMENT_LEVELS

    err = Console(stderr=True)
    # a wrong name is said as such, before any count of seats (one red line, exit 1, as every
    # other refusal of the arena's line-up)
    wrong = next((lv for lv in levels if lv not in MEASUREMENT_LEVELS), None)
    if wrong is not None or (players is None and len(levels) == 1):
        why = (
            f"--levels: unknown level {shown(wrong, 20)!r}: choose {', '.join(MEASUREMENT_LEVELS)}"
            if wrong is not None
            else f"--levels {levels[0]} is one seat: give one level per seat "
            f"({levels[0]},greedy) or --players N"
        )
        err.print(Text(why, style="red"))
        raise typer.Exit(1)
    if players is not None and levels:
        levels = [levels[i % len(levels)] for i in range(players)]
    if seed is None:
        import secrets  # lazy: keeps `zoo --help` fast

        seed = secrets.randbelow(2**31)
    try:
        specs = plan_games(levels, games, variant=variant, seed=seed, think=think, work=plies)
    except ArenaError as e:
        err.print(Text(str(e), style="red"))
        raise typer.Exit(1) from None
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
        task = progress.add_task(" vs ".join(levels), total=games)
        for result in run_games(specs, jobs):
            report.add(result)
            progress.advance(task)
    wall = time.perf_counter() - t0
    if json:
        out = report.to_json()
        out.update(
            seed=seed,
            lineup=levels,
            variant=variant,
            think=think,
            plies=plies,
            jobs=jobs,
            wall_seconds=round(wall, 1),
        )
        import json as jsonlib

        print(jsonlib.dumps(out, indent=2))
        return
    console = Console()
    budget = f"{plies} plies/move" if plies is not None else f"think {think or 0.8} s"
    title = (
        f"{games} games, {len(levels)} seats, {variant}, seed {seed}, {budget}, "
        f"{jobs} jobs, {wall:.0f} s"
    )
    console.print(render_report(report, title))
    console.print(
        "win: a tie is a shared win, each of k tied seats gets 1/k (ties: shared wins);\n"
        "CI: 95 % Wilson interval; margin: score minus the best other seat"
    )


def render_report(report: "ArenaReport", title: str) -> "Table":
    """The per-level table (and per-variant rows when several variants were played)."""
    from rich.table import Table

    table = Table(title=title)
    for col in ("bot", "seats", "win", "95 % CI", "ties", "score", "margin", "ms/move"):
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=col == "bot")

    def row(name: str, s: "LevelStats") -> None:
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
