"""The ``zoo`` command: thin typer commands over library modules (imports stay lazy for speed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

LEVEL_HELP = "Bot level: random, greedy or hard."
TEAM_HELP = "Your team: yellow, blue, green or red."
VARIANT_HELP = "standard, or general (no mutants)."

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Apocalypse at the Zoo of Carson City, peer to peer: no server, no trusted dealer.",
)


@app.callback()
def _root() -> None:
    """Apocalypse at the Zoo of Carson City, peer to peer: no server, no trusted dealer."""


@app.command()
def play(
    bots: Annotated[int, typer.Option("--bots", "-b", min=1, max=3, help="Bot opponents.")] = 1,
    level: Annotated[str, typer.Option("--level", "-l", help=LEVEL_HELP)] = "greedy",
    local: Annotated[
        bool, typer.Option("--local", help="Play in this process: no network, no peers, no log.")
    ] = False,
    hotseat: Annotated[
        int, typer.Option("--hotseat", min=0, max=4, help="N humans share this terminal (local).")
    ] = 0,
    team: Annotated[str | None, typer.Option("--team", "-t", help=TEAM_HELP)] = None,
    variant: Annotated[str, typer.Option("--variant", help=VARIANT_HELP)] = "standard",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed a reproducible local deal.")
    ] = None,
    log: Annotated[Path | None, typer.Option("--log", help="Where to save the game log.")] = None,
    name: Annotated[str, typer.Option("--name", help="Your name at the table.")] = "you",
) -> None:
    """Play against 1-3 bots (each a real peer over loopback); --local for a network-free game."""
    if local or hotseat:
        from zoo_p2p.cli.local import play_local

        play_local(bots=bots, level=level, hotseat=hotseat, team=team, variant=variant, seed=seed)
        return
    from zoo_p2p.cli import netcmds

    netcmds.play_command(bots=bots, level=level, team=team, variant=variant, log=log, name=name)


@app.command()
def verify(
    logs: Annotated[
        list[Path], typer.Argument(help="Game log files to audit.", show_default=False)
    ],
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Audit game logs from their bytes alone: signatures, chain, moves, reveals, the deal."""
    from zoo_p2p.cli.verify import verify_command

    verify_command(logs, json=json)


from zoo_p2p.cli.replay import replay_cli  # noqa: E402 - zoo replay (options live in replay.py)

app.command("replay")(replay_cli)


from zoo_p2p.cli import netcmds as _netcmds  # noqa: E402 - zoo host/join/bot/resume (issue 4)

_netcmds.register(app)

from zoo_p2p.cli.arena import arena_command  # noqa: E402 - zoo arena (issue 5)

app.command("arena")(arena_command)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
