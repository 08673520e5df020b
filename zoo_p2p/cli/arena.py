"""``zoo arena``: headless games between bots, with win rates and 95 % confidence intervals."""

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.table import Table

    from zoo_p2p.bots.arena import ArenaReport, LevelStats

BOTS_HELP = (
    "One bot level per seat, comma-separated (2-4 seats; rotated between games): "
    "random (random legal moves), greedy (one ply: points minus exposure and mutant risk), "
    "hard (Monte Carlo search over sampled hidden cards)."
)


def arena_command(
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games to play.")] = 100,
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", min=2, max=4, help="Seats (2-4); --bots is cycled."),
    ] = None,
    bots: Annotated[str, typer.Option("--bots", "-b", help=BOTS_HELP)] = "hard,greedy",
    variant: Annotated[
        str, typer.Option("--variant", help="standard, general (no mutants) or both.")
    ] = "standard",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed the deals and the bots (reproducible).")
    ] = None,
    think: Annotated[
        float | None,
        typer.Option("--think", min=0.01, help="Hard bot's seconds per move (default 0.8)."),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel processes.")] = 1,
) -> None:
    """Play bots against each other locally: win rates (95 % CI), average scores, ms per move."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from zoo_p2p.bots.arena import ArenaError, ArenaReport, plan_games, run_games

    levels = [b.strip().lower() for b in bots.split(",") if b.strip()]
    if players is not None and levels:
        levels = [levels[i % len(levels)] for i in range(players)]
    if seed is None:
        import secrets  # lazy: keeps `zoo --help` fast

        seed = secrets.randbelow(2**31)
    err = Console(stderr=True)
    try:
        specs = plan_games(levels, games, variant=variant, seed=seed, think=think)
    except ArenaError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from None
    report = ArenaReport()
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
    if json:
        out = report.to_json()
        out.update(seed=seed, bots=levels, variant=variant, think=think)
        import json as jsonlib

        print(jsonlib.dumps(out, indent=2))
        return
    console = Console()
    title = f"{games} games, {len(levels)} seats, {variant}, seed {seed}"
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
