"""The one voice of the ``zoo`` commands: every option that several commands share, defined once.

The same thing has the same name everywhere (TEAM.md): `--players/-p` is the seat count,
`--bots` how many of the seats bots play, `--level` a bot's level, and so on. A command takes
these types rather than spelling its own. Values are checked while the command line is parsed,
so a bad one is a usage error (exit 2) before anything starts.

No `from __future__ import annotations` here or in the command modules: typer then reads real
types instead of evaluating strings, which keeps ``zoo --help`` fast.
"""

from pathlib import Path
from typing import Annotated

import typer


def check_level(value: str | None) -> str | None:
    """A bot level that exists and is offered for play (case-insensitive)."""
    if value is None:
        return None
    from zoo_p2p.bots import LEVELS

    offered = [lv for lv in LEVELS if lv != "peek"]
    v = value.strip().lower()
    if v not in offered:
        raise typer.BadParameter(f"unknown level {value!r}: choose {', '.join(offered)}")
    return v


def check_variant(value: str) -> str:
    """'standard' or 'general' (also 's', 'g')."""
    v = value.strip().lower()
    for name in ("standard", "general"):
        if v in (name, name[0]):
            return name
    raise typer.BadParameter(f"unknown variant {value!r}: choose standard or general")


def check_team(value: str | None) -> str | None:
    """A team name or its first letter."""
    if value is None:
        return None
    v = value.strip().lower()
    for name in ("yellow", "blue", "green", "red"):
        if v in (name, name[0]):
            return name
    raise typer.BadParameter(f"unknown team {value!r}: choose yellow, blue, green or red")


LEVEL_HELP = "Bot level: random, greedy, hard or expert."

Players = Annotated[
    int | None,
    typer.Option(
        "--players", "-p", min=2, max=4, metavar="N", help="Seats at the table, you included (2-4)."
    ),
]
Level = Annotated[
    str, typer.Option("--level", callback=check_level, metavar="LEVEL", help=LEVEL_HELP)
]
Think = Annotated[
    float | None,
    typer.Option(
        "--think",
        min=0.01,
        metavar="SECONDS",
        help="A search bot's (hard, expert) seconds per move.",
    ),
]
Seed = Annotated[
    int | None, typer.Option("--seed", metavar="N", help="Seed, for a reproducible run.")
]
VariantOpt = Annotated[
    str,
    typer.Option(
        "--variant",
        callback=check_variant,
        metavar="standard|general",
        help="standard, or general (no mutants).",
    ),
]
LogOpt = Annotated[
    Path | None, typer.Option("--log", metavar="PATH", help="Where to save the game log.")
]
Identity = Annotated[
    Path | None,
    typer.Option("--identity", metavar="PATH", help="Ed25519 key file (default: yours)."),
]
Name = Annotated[str, typer.Option("--name", metavar="NAME", help="Your name at the table.")]
TeamOpt = Annotated[
    str | None,
    typer.Option(
        "--team", callback=check_team, metavar="TEAM", help="Your team: yellow, blue, green or red."
    ),
]
Port = Annotated[
    int,
    typer.Option("--port", min=0, max=65535, metavar="N", help="TCP port to listen on (0: any)."),
]
Bind = Annotated[str, typer.Option("--bind", metavar="ADDR", help="Address to listen on.")]
HostBind = Annotated[
    str | None,
    typer.Option(
        "--bind", metavar="ADDR", help="Address to listen on (default: every reachable one)."
    ),
]
Announce = Annotated[
    bool, typer.Option("--announce/--no-announce", help="Announce the game on the LAN (mDNS).")
]
Upnp = Annotated[bool, typer.Option("--upnp", help="Ask the router to forward the port (UPnP).")]
Qr = Annotated[bool, typer.Option("--qr", help="Also show the invite as a QR code.")]
MaybeInvite = Annotated[
    str | None,
    typer.Argument(
        metavar="[INVITE]", help="The invite the host printed (none: pick a game on the LAN)."
    ),
]
GiveUp = Annotated[
    float | None,
    typer.Option("--give-up", min=0.1, metavar="SECONDS", help="Stop after this long alone."),
]
MoveTime = Annotated[
    int,
    typer.Option(
        "--move-time",
        min=1,
        max=86_400,
        metavar="SECONDS",
        help="How long a seat may think over a move before the others may claim the game.",
    ),
]
RevealTime = Annotated[
    int,
    typer.Option(
        "--reveal-time",
        min=1,
        max=86_400,
        metavar="SECONDS",
        help="How long a seat may take for what its software computes (reveals, seeds…).",
    ),
]
Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print nothing but errors and what was done to your files (on stderr).",
    ),
]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Log the transport.")]
Plain = Annotated[
    bool,
    typer.Option(
        "--plain",
        help="Line mode for pipes, screen readers and scripts (automatic when not a terminal).",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
InviteArg = Annotated[str, typer.Argument(metavar="INVITE", help="The invite the host printed.")]
Delay = Annotated[
    float,
    typer.Option("--delay", min=0.0, metavar="SECONDS", help="Seconds a bot waits before moving."),
]
