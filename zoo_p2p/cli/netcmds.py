"""The typer commands ``zoo host``, ``zoo join``, ``zoo bot``, ``zoo resume`` and the networked
``zoo play``: options in, a driver chosen, a runner of `zoo_p2p.cli.runners` called.

The network stack is imported only when a command runs, so that ``zoo --help`` stays fast.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console

from zoo_p2p.errors import UsageError, ZooError

if TYPE_CHECKING:
    from zoo_p2p.driver import Driver


def _driver(
    level: str | None, console: Console, *, seed: int | None = None, delay: float = 0.0
) -> Driver:
    """A bot of `level` at our seat, or the person at this terminal (level None)."""
    if level:
        from zoo_p2p.cli.botdriver import BotDriver

        return BotDriver(level, seed=seed, delay=delay, console=console)
    from zoo_p2p.cli.plain import PlainDriver

    return PlainDriver(console)


def _team(text: str | None) -> int | None:
    from zoo_p2p.cli.runners import parse_team

    try:
        return parse_team(text)
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None


def _console(quiet: bool) -> Console:
    return Console(quiet=quiet, highlight=False, soft_wrap=False)


def _setup_logging(verbose: bool, quiet: bool) -> None:
    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


# ----------------------------------------------------------------------------- commands
# Options that several commands share.
InviteArg = Annotated[str, typer.Argument(help="The invite string the host printed.")]
GiveUpOpt = Annotated[float | None, typer.Option(help="Stop after N s without the host.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log the transport.")]


def _exit_with(run: Callable[[], int]) -> NoReturn:
    """Run a command body and exit with its code; our own errors are one red line, exit 1."""
    try:
        code = run()
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    except ZooError as exc:
        from rich.text import Text

        Console(stderr=True).print(Text(str(exc), style="red"))
        raise typer.Exit(1) from None
    raise typer.Exit(code)


def host_cmd(
    players: Annotated[
        int,
        typer.Option(
            "--players", "-n", min=2, max=4, help="Seats at the table, you included (2-4)."
        ),
    ] = 2,
    variant: Annotated[str, typer.Option(help="standard or general (no mutants).")] = "standard",
    first: Annotated[
        str, typer.Option(help="First player: 'random' (fair draw) or a seat 1-4.")
    ] = "random",
    port: Annotated[int, typer.Option(help="TCP port to listen on (0: any free port).")] = 0,
    bind: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
    address: Annotated[str | None, typer.Option(help="Address written in the invite.")] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the game log.")] = None,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "host",
    team: Annotated[str | None, typer.Option(help="Your team: yellow, blue, green, red.")] = None,
    bots: Annotated[int, typer.Option(min=0, max=3, help="Start K bot peers here.")] = 0,
    level: Annotated[str, typer.Option(help="Level of the --bots peers.")] = "greedy",
    bot: Annotated[str | None, typer.Option(help="Let a bot of this level play your seat.")] = None,
    invite_file: Annotated[Path | None, typer.Option(help="Also write the invite here.")] = None,
    curve: Annotated[bool, typer.Option(help="Encrypt with CURVE (default on).")] = True,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: Annotated[float | None, typer.Option(help="Stop after N s with nobody else.")] = None,
    delay: Annotated[float, typer.Option(help="Seconds a bot waits before moving.")] = 0.0,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Host a game: print an invite, wait for the players, play, save the log."""
    _setup_logging(verbose, quiet)
    first_seat = None if first == "random" else int(first) - 1
    if first_seat is not None and not 0 <= first_seat < players:
        raise typer.BadParameter("--first: 'random' or a seat number 1..players")
    console = _console(quiet)
    _exit_with(
        lambda: _host(
            players=players,
            variant=variant,
            first=first_seat,
            port=port,
            bind=bind,
            address=address,
            log_path=log,
            name=name,
            team=_team(team),
            bots=bots,
            level=level,
            invite_file=invite_file,
            curve=curve,
            identity=identity,
            give_up=give_up,
            driver=_driver(bot, console, delay=delay),
            console=console,
        )
    )


def _host(
    *,
    players: int,
    variant: str,
    first: int | None,
    port: int,
    bind: str,
    address: str | None,
    log_path: Path | None,
    name: str,
    team: int | None,
    bots: int,
    level: str,
    invite_file: Path | None,
    curve: bool,
    identity: Path | None,
    give_up: float | None,
    driver: Driver,
    console: Console,
    bot_delay: float = 0.0,
) -> int:
    from zoo_p2p.cli.local import parse_variant
    from zoo_p2p.cli.runners import HostPlan, run_host

    plan = HostPlan(
        players=players,
        variant=parse_variant(variant),
        first=first,
        port=port,
        bind=bind,
        address=address,
        log_path=log_path,
        name=name,
        team=team,
        bots=bots,
        level=level,
        invite_file=invite_file,
        curve=curve,
        identity=identity,
        give_up=give_up,
        bot_delay=bot_delay,
    )
    return run_host(plan, driver, console)


def join_cmd(
    invite: InviteArg,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "player",
    team: Annotated[
        str | None, typer.Option(help="Ask for a team: yellow, blue, green, red.")
    ] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the game log.")] = None,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: GiveUpOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Join a game from its invite and play at this terminal."""
    _setup_logging(verbose, False)
    from zoo_p2p.cli.runners import run_join

    console = _console(False)
    _exit_with(
        lambda: run_join(
            invite,
            name=name,
            team=_team(team),
            log_path=log,
            identity=identity,
            give_up=give_up,
            driver=_driver(None, console),
            console=console,
            ephemeral=False,
        )
    )


def bot_cmd(
    invite: InviteArg,
    level: Annotated[str, typer.Option(help="random, greedy or hard.")] = "greedy",
    name: Annotated[str | None, typer.Option(help="The bot's name at the table.")] = None,
    team: Annotated[str | None, typer.Option(help="Ask for a team.")] = None,
    log: Annotated[Path | None, typer.Option(help="Where to save the bot's log.")] = None,
    identity: Annotated[
        Path | None,
        typer.Option(help="Key file (created if missing); default: a fresh key for this run."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the bot's choices.")] = None,
    delay: Annotated[float, typer.Option(help="Seconds to wait before each move.")] = 0.0,
    give_up: GiveUpOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Join a game as a bot peer (its own key, over the network)."""
    _setup_logging(verbose, quiet)
    from zoo_p2p.cli.runners import run_join

    console = _console(quiet)
    _exit_with(
        lambda: run_join(
            invite,
            name=name or f"{level} bot",
            team=_team(team),
            log_path=log,
            identity=identity,
            give_up=give_up,
            driver=_driver(level, console, seed=seed, delay=delay),
            console=console,
            ephemeral=True,
        )
    )


def resume_cmd(
    log: Annotated[Path, typer.Argument(help="The log of the unfinished game.")],
    invite: Annotated[
        str | None, typer.Option(help="Invite, if not stored beside the log.")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Host: port to listen on again.")] = None,
    bind: Annotated[str | None, typer.Option(help="Host: address to listen on.")] = None,
    bot: Annotated[str | None, typer.Option(help="Let a bot of this level play our seat.")] = None,
    identity: Annotated[
        Path | None, typer.Option(help="Ed25519 key file (default: yours).")
    ] = None,
    give_up: Annotated[float | None, typer.Option(help="Stop after N s alone.")] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Continue an unfinished game from its log, as host or joiner, once all seats are back."""
    _setup_logging(verbose, quiet)
    from zoo_p2p.cli.runners import run_resume

    console = _console(quiet)
    _exit_with(
        lambda: run_resume(
            log,
            invite_text=invite,
            port=port,
            bind=bind,
            identity=identity,
            give_up=give_up,
            driver=_driver(bot, console),
            console=console,
        )
    )


def play_command(
    *, bots: int, level: str, team: str | None, variant: str, log: Path | None, name: str
) -> None:
    """You against 1-3 bots, each a real peer process over loopback; the log saved and audited."""
    _setup_logging(False, False)
    console = _console(False)
    _exit_with(
        lambda: _host(
            players=bots + 1,
            variant=variant,
            first=None,
            port=0,
            bind="127.0.0.1",
            address="127.0.0.1",
            log_path=log,
            name=name,
            team=_team(team),
            bots=bots,
            level=level,
            invite_file=None,
            curve=True,
            identity=None,
            give_up=None,
            driver=_driver(None, console),
            console=console,
            bot_delay=float(os.environ.get("ZOO_BOT_DELAY", "0.6")),
        )
    )


def register(app: typer.Typer) -> None:
    """Add the network commands to the ``zoo`` app."""
    app.command("host")(host_cmd)
    app.command("join")(join_cmd)
    app.command("bot")(bot_cmd)
    app.command("resume")(resume_cmd)
