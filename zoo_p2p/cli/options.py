"""The one voice of the ``zoo`` commands: every option of every command, defined once.

The same thing has the same name everywhere (TEAM.md): `--players/-p` is the seat count,
`--bots` how many of the seats bots play, `--level` a bot's level, and so on. A command of
`zoo_p2p.cli.app` takes these types rather than spelling its own. Values are checked while the
command line is parsed, so a bad one is a usage error (exit 2) before anything starts. With
`zoo_p2p.cli.app`, the only module that imports typer; the defaults are `zoo_p2p.defaults`.

No `from __future__ import annotations` here or in `app.py`: typer then reads real types
instead of evaluating strings, which keeps ``zoo --help`` fast.
"""

import os
from pathlib import Path
from typing import Annotated

import typer

from zoo_p2p import defaults
from zoo_p2p.cli.exits import missing_file


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


def existing(value: Path | list[Path] | None) -> Path | list[Path] | None:
    """A file (or files) named on the command line that must exist: one that does not is a
    usage error (exit 2), in the one wording every command uses (`exits.missing_file`), said
    before anything starts. A path that is there but is no file we can read is refused later,
    by what reads it, with its reason."""
    for path in value if isinstance(value, list) else [value] if value is not None else []:
        if not os.path.lexists(path):
            raise typer.BadParameter(missing_file(path))
    return value


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
Spectators = Annotated[
    int,
    typer.Option(
        "--spectators",
        min=0,
        max=64,
        metavar="N",
        help="At most N spectators may watch (zoo watch INVITE; 0: none).",
    ),
]
SeatSpectators = Annotated[
    int,
    typer.Option(
        "--spectators",
        min=0,
        max=64,
        metavar="N",
        help=(
            "Let at most N spectators watch through you (prints a watch invite; 0: none), "
            "so the host cannot hide the game from them."
        ),
    ),
]
WatchInvites = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[INVITE]...",
        help=(
            "The host's invite or a seat's watch invite; several: watched through the first "
            "that admits you, then the next if it refuses, leaves or falls silent."
        ),
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
InviteArg = Annotated[str, typer.Argument(metavar="INVITE", help="The invite the host printed.")]
Delay = Annotated[
    float,
    typer.Option("--delay", min=0.0, metavar="SECONDS", help="Seconds a bot waits before moving."),
]

# ----- options of one command each (`zoo_p2p.cli.app` lists the commands) -------------------
PlayBots = Annotated[
    int | None,
    typer.Option("--bots", min=0, max=3, metavar="N", help="Bot opponents (default 1)."),
]
Local = Annotated[
    bool, typer.Option("--local", help="Play in this process: no network, no peers, no log.")
]
Hotseat = Annotated[
    int,
    typer.Option(
        "--hotseat", min=0, max=4, metavar="N", help="N humans share this terminal (local)."
    ),
]
Logs = Annotated[
    list[Path],
    typer.Argument(
        metavar="LOG...", help="Game log files to audit.", show_default=False, callback=existing
    ),
]
ReplayLog = Annotated[
    Path,
    typer.Argument(metavar="LOG", help="A game log file (or a text record).", callback=existing),
]
At = Annotated[
    int | None,
    typer.Option("--at", metavar="N", help="Show the board after move N (0: the start)."),
]
Dump = Annotated[
    bool,
    typer.Option(
        "--dump",
        help="Print the whole game as text, no prompts. In every mode a faulty log exits "
        "as zoo verify does: 4 (a seat cheated) or 5 (rejected).",
    ),
]
Analyse = Annotated[
    bool,
    typer.Option(
        "--analyse",
        "--analyze",
        help="Score every move with the expert bot: inaccuracies, mistakes, blunders.",
    ),
]
Plies = Annotated[
    int | None,
    typer.Option("--plies", min=100, metavar="N", help="Analysis budget: plies per move."),
]
AnalysisSeed = Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the analysis.")]
Html = Annotated[
    Path | None,
    typer.Option(
        "--html", metavar="PATH", help="Write one self-contained offline HTML page of the game."
    ),
]
TextOut = Annotated[
    Path | None,
    typer.Option(
        "--text", metavar="PATH", help="Write the compact text record (one move per line)."
    ),
]

# zoo host
HostBots = Annotated[
    int,
    typer.Option(
        "--bots",
        min=0,
        max=4,
        metavar="N",
        help="How many seats bots play here (all of them: a headless bot game).",
    ),
]
First = Annotated[
    str, typer.Option(metavar="SEAT", help="First player: 'random' (fair draw) or a seat 1-4.")
]
Address = Annotated[
    str | None,
    typer.Option(metavar="ADDR", help="Address(es) written in the invite, comma-separated."),
]
InviteFile = Annotated[
    Path | None, typer.Option(metavar="PATH", help="Also write the invite here.")
]
Curve = Annotated[bool, typer.Option(help="Encrypt with CURVE (default on).")]
Hints = Annotated[
    bool,
    typer.Option(
        "--hints",
        help="Allow hints at this table: written in the genesis, every seat may ask the "
        "expert (x); joiners are told before they take a seat.",
    ),
]
OnLeave = Annotated[
    str | None,
    typer.Option(
        "--on-leave",
        metavar="play-on|end",
        help="The table rule, written in the genesis and shown to joiners: when a seat "
        "stops answering, the others re-deal what nobody has seen and play on (play-on, "
        "the default at 3-4 seats), or the game ends (end; always at 2 seats).",
    ),
]
HiddenPlayers = Annotated[int | None, typer.Option("-n", min=2, max=4, hidden=True)]
HiddenBot = Annotated[str | None, typer.Option("--bot", hidden=True, callback=check_level)]

# Tor (issue 22, TRANSPORT.md §3.5)
TorLaunch = Annotated[
    bool,
    typer.Option(
        "--tor",
        help="Go through Tor: start a private tor (the `tor` package); your address is hidden "
        "from the other players.",
    ),
]
TorControlOpt = Annotated[
    str | None,
    typer.Option(
        "--tor-control",
        metavar="HOST:PORT",
        help="Host on an onion service of a running Tor, through its control port.",
    ),
]
TorSocksOpt = Annotated[
    str | None,
    typer.Option(
        "--tor-socks",
        metavar="HOST:PORT",
        help="Join an onion invite through a running Tor's SOCKS port.",
    ),
]

# zoo join
NoHints = Annotated[
    bool,
    typer.Option(
        "--no-hints",
        help="Refuse a table that allows hints (the expert's advice for every seat): "
        "leave before taking a seat.",
    ),
]

# zoo bot
BotName = Annotated[str | None, typer.Option(metavar="NAME", help="The bot's name at the table.")]
BotTeam = Annotated[
    str | None,
    typer.Option(
        "--team",
        callback=check_team,
        metavar="TEAM",
        help="The bot's team: yellow, blue, green or red.",
    ),
]
BotIdentity = Annotated[
    Path | None,
    typer.Option(
        metavar="PATH",
        help="Key file (created if missing; with it the bot's game can be resumed); "
        "default: a fresh key for this run only.",
    ),
]

# zoo resume
ResumeLog = Annotated[
    Path,
    typer.Argument(
        metavar="LOG",
        help="The log of the unfinished game.",
        callback=existing,  # a wrong path is a usage error, said before anything starts
    ),
]
ResumeInvite = Annotated[
    str | None, typer.Option(metavar="INVITE", help="Invite, if not stored beside the log.")
]
ResumePort = Annotated[
    int | None,
    typer.Option(min=0, max=65535, metavar="N", help="Host: port to listen on again."),
]
ResumeBind = Annotated[str | None, typer.Option(metavar="ADDR", help="Host: address to listen on.")]
ResumeLevel = Annotated[
    str | None,
    typer.Option(
        "--level",
        callback=check_level,
        metavar="LEVEL",
        help="Let a bot of this level play our seat: random, greedy, hard or expert.",
    ),
]
ResumeIdentity = Annotated[
    Path | None,
    typer.Option(
        "--identity",
        metavar="PATH",
        callback=existing,  # a game goes on with the key it was played with, never a new one
        help="The Ed25519 key file the game was played with (default: yours).",
    ),
]

# zoo arena
LEVELS_HELP_ARENA = (
    "One bot level per seat, comma-separated (2-4 seats; rotated between games): "
    "random (random legal moves), greedy (one ply: points minus exposure and mutant risk), "
    "hard (Monte Carlo over the best one-ply moves), expert (tree search, exact odds), "
    "peek (the expert told the hidden deal: measurement only), peek-mutants and peek-bottoms "
    "(told only the mutants, or only the face-down bottoms: measurement only)."
)
Games = Annotated[int, typer.Option("--games", "-n", min=1, metavar="N", help="Games to play.")]
ArenaPlayers = Annotated[
    int | None,
    typer.Option(
        "--players", "-p", min=2, max=4, metavar="N", help="Seats (2-4); --levels is cycled."
    ),
]
Levels = Annotated[str, typer.Option("--levels", metavar="a,b,…", help=LEVELS_HELP_ARENA)]
ArenaVariant = Annotated[
    str,
    typer.Option(
        "--variant",
        metavar="standard|general|both",
        help="standard, general (no mutants) or both.",
    ),
]
ArenaSeed = Annotated[
    int | None,
    typer.Option("--seed", metavar="N", help="Seed the deals and the bots (reproducible)."),
]
ArenaThink = Annotated[
    float | None,
    typer.Option(
        "--think",
        min=0.01,
        metavar="SECONDS",
        help=f"Search bots' seconds per move (default {defaults.THINK:g}).",
    ),
]
ArenaPlies = Annotated[
    int | None,
    typer.Option(
        "--plies",
        min=1,
        metavar="N",
        help="Search bots' budget in simulated plies per move instead of --think: the same "
        "for every bot, deterministic with --seed whatever the machine's load.",
    ),
]
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=1, metavar="N", help="Parallel processes (default: every core)."
    ),
]
