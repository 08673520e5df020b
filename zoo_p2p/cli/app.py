"""The ``zoo`` command: thin typer commands over library modules (imports stay lazy for speed).

One voice (TEAM.md): shared options come from `zoo_p2p.cli.options`; exit codes are 0 ok, 1 our
error (one red line), 2 usage, 130 Ctrl-C; no traceback reaches a user (``ZOO_DEBUG=1`` shows
it). Output that cannot take UTF-8 (``LANG=C``, a latin-1 terminal, ``PYTHONIOENCODING=ascii``)
gets ASCII, and ``NO_COLOR`` turns colour off.
"""

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from zoo_p2p.cli import options as o

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: right on every terminal, and fast (no markdown import)
    pretty_exceptions_enable=False,
    help="Apocalypse at the Zoo of Carson City, peer to peer: no server, no trusted dealer.",
)


def _version(value: bool) -> None:
    if value:
        from zoo_p2p import __version__

        typer.echo(f"zoo {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Apocalypse at the Zoo of Carson City, peer to peer: no server, no trusted dealer."""


# `zoo --help` lists each command on one line of an 80-column terminal: said whole, never cut
@app.command(short_help="Play against 1-3 bots over loopback (--local: in this process).")
def play(
    players: o.Players = None,
    bots: Annotated[
        int | None,
        typer.Option("--bots", min=0, max=3, metavar="N", help="Bot opponents (default 1)."),
    ] = None,
    level: o.Level = "greedy",
    think: o.Think = None,
    local: Annotated[
        bool, typer.Option("--local", help="Play in this process: no network, no peers, no log.")
    ] = False,
    hotseat: Annotated[
        int,
        typer.Option(
            "--hotseat", min=0, max=4, metavar="N", help="N humans share this terminal (local)."
        ),
    ] = 0,
    team: o.TeamOpt = None,
    variant: o.VariantOpt = "standard",
    seed: o.Seed = None,
    log: o.LogOpt = None,
    name: o.Name = "you",
    plain: o.Plain = False,
) -> None:
    """Play against 1-3 bots (each a real peer over loopback); --local for a network-free game."""
    humans = hotseat or 1
    if bots is None:
        bots = (players - humans) if players is not None else (0 if hotseat else 1)
    elif players is not None and players != humans + bots:
        raise typer.BadParameter(
            f"--players {players} but {humans} human(s) and --bots {bots} make {humans + bots}"
        )
    if not 2 <= humans + bots <= 4:
        raise typer.BadParameter(f"a game has 2 to 4 players, not {humans + bots}")
    if local or hotseat:
        from zoo_p2p.cli.local import play_local
        from zoo_p2p.cli.netcmds import use_plain

        play_local(
            bots=bots,
            level=level,
            hotseat=hotseat,
            team=team,
            variant=variant,
            seed=seed,
            think=think,
            plain=use_plain(plain),
        )
        return
    from zoo_p2p.cli import netcmds

    netcmds.play_command(
        bots=bots,
        level=level,
        think=think,
        team=team,
        variant=variant,
        log=log,
        name=name,
        plain=plain,
    )


@app.command(short_help="Audit game logs: signatures, chain, moves, reveals, the deal.")
def verify(
    logs: Annotated[
        list[Path],
        typer.Argument(metavar="LOG...", help="Game log files to audit.", show_default=False),
    ],
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Audit game logs from their bytes alone: signatures, chain, moves, reveals, the deal."""
    from zoo_p2p.cli.verify import verify_command

    verify_command(logs, json=json)


@app.command(short_help="Step through a game log move by move; export it (--html, --text).")
def replay(
    log: Annotated[Path, typer.Argument(metavar="LOG", help="A game log file.")],
    at: Annotated[
        int | None,
        typer.Option("--at", metavar="N", help="Show the board after move N (0: the start)."),
    ] = None,
    dump: Annotated[
        bool, typer.Option("--dump", help="Print the whole game as text, no prompts.")
    ] = False,
    analyse: Annotated[
        bool,
        typer.Option(
            "--analyse",
            "--analyze",
            help="Score every move with the expert bot: inaccuracies, mistakes, blunders.",
        ),
    ] = False,
    plies: Annotated[
        int | None,
        typer.Option("--plies", min=100, metavar="N", help="Analysis budget: plies per move."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the analysis.")] = 0,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", metavar="PATH", help="Write one self-contained offline HTML page of the game."
        ),
    ] = None,
    text: Annotated[
        Path | None,
        typer.Option(
            "--text", metavar="PATH", help="Write the compact text record (one move per line)."
        ),
    ] = None,
    plain: o.Plain = False,
) -> None:
    """Step through a game log (or a text record) move by move: the board, reveals, the deal.

    With --html/--text it writes the exports instead (with --analyse, the move marks too).
    """
    from zoo_p2p.bots.analysis import DEFAULT_WORK
    from zoo_p2p.cli.exportcmd import export_command, is_text_record, view_text_record

    work = DEFAULT_WORK if plies is None else plies
    if html is not None or text is not None:
        export_command(log, html=html, text=text, analyse=analyse, plies=work, seed=seed)
        return
    if is_text_record(log):
        view_text_record(log, at=at, dump=dump)
        return
    from zoo_p2p.cli.netcmds import tui_entry, use_plain

    if at is None and not dump and not use_plain(plain):
        run_replay = tui_entry("run_replay")  # the full-screen replay (zoo_p2p.tui)
        if run_replay is not None:
            from zoo_p2p.cli.replay import refusal
            from zoo_p2p.errors import LogError

            try:  # a file that is no log is refused before the screen opens, as in --plain
                code = run_replay(log, analyse=analyse, plies=work, seed=seed)
            except LogError as exc:
                from rich.console import Console
                from rich.text import Text

                Console(stderr=True).print(Text(refusal(log, exc), style="red"))
                raise typer.Exit(1) from None
            if code:
                raise typer.Exit(code)
            return
    from zoo_p2p.cli.replay import replay_command

    replay_command(log, at=at, dump=dump, analysis=analyse, plies=work, seed=seed)


from zoo_p2p.cli import netcmds as _netcmds  # noqa: E402 - zoo host/join/bot/resume (issue 4)

_netcmds.register(app)

from zoo_p2p.cli.arena import arena_command  # noqa: E402 - zoo arena (issue 5)

app.command("arena", short_help="Bots against bots: win rates (95 % CI), scores, ms a move.")(
    arena_command
)


def main() -> None:
    """Console-script entry point: the exit codes and output rules of the module docstring."""
    from zoo_p2p.cli.output import prepare_output

    prepare_output()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as exc:  # the last line of defence: one red line, never a traceback
        if os.environ.get("ZOO_DEBUG"):
            raise
        from zoo_p2p.cli.output import fail

        fail(exc)


if __name__ == "__main__":
    main()
