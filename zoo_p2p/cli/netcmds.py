"""The typer commands ``zoo host``, ``zoo join``, ``zoo bot``, ``zoo resume`` and the networked
``zoo play``: options in, a driver chosen, a runner of `zoo_p2p.cli.runners` called.

The network stack is imported only when a command runs, so that ``zoo --help`` stays fast.
"""

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from zoo_p2p.cli import options as o
from zoo_p2p.errors import UsageError, ZooError
from zoo_p2p.text import shown

if TYPE_CHECKING:
    from zoo_p2p.cli.runners import HostPlan
    from zoo_p2p.driver import Driver

Start = Callable[["Driver", Console], int]


def use_plain(plain: bool) -> bool:
    """The line mode when asked for, or when stdout or stdin is not a terminal."""
    return plain or not (sys.stdout.isatty() and sys.stdin.isatty())


def tui_entry(name: str) -> Callable[..., int] | None:
    """`zoo_p2p.tui.run.<name>` when the full-screen app provides it (and textual imports)."""
    import importlib

    try:
        module = importlib.import_module("zoo_p2p.tui.run")
    except ImportError:
        return None
    fn = getattr(module, name, None)
    return fn if callable(fn) else None


def run_human(plain: bool, console: Console, start: Start, *, networked: bool = True) -> int:
    """Run `start` with the person at this terminal as the driver: the full-screen app when
    there is one and a terminal, else the plain line mode. `networked`: other people play over
    the network (no expert hints); False for `zoo play`, whose other seats are its own bots.

    The app (``zoo_p2p.tui.run.run_network(start)``) runs `start(driver, console)` in a worker
    thread with its own driver and a console that writes into its message area.
    """
    if not use_plain(plain):
        run_network = tui_entry("run_network")
        if run_network is not None:
            code: int = run_network(start, networked=networked)
            return code
    import logging

    from zoo_p2p.cli.plain import PlainDriver, SayHandler

    driver = PlainDriver(console, networked=networked)
    if sys.stderr.isatty() and sys.stdout.isatty():  # one terminal: logs go through the driver
        root = logging.getLogger()
        for h in list(root.handlers):
            if isinstance(h, logging.StreamHandler):
                root.removeHandler(h)
        root.addHandler(SayHandler(driver))
    return start(driver, console)


def bot_driver(
    level: str, console: Console, *, seed: int | None, delay: float, think: float | None
) -> "Driver":
    """A bot of `level` at our seat."""
    from zoo_p2p.cli.botdriver import BotDriver

    return BotDriver(level, seed=seed, delay=delay, think=think, console=console)


def console_for(quiet: bool) -> Console:
    """The console every command prints to."""
    return Console(quiet=quiet, highlight=False, soft_wrap=False)


def command_console(verbose: bool, quiet: bool) -> Console:
    """What every network command does first: transport logs on stderr at the level asked for,
    and the console it prints to."""
    setup_logging(verbose, quiet)
    return console_for(quiet)


def run_seat(
    start: Start,
    console: Console,
    *,
    plain: bool,
    bot: str | None = None,
    delay: float = 0.0,
    think: float | None = None,
    networked: bool = True,
) -> NoReturn:
    """Run `start` with a bot of level `bot` at our seat, or else the person at this terminal
    (`networked` as `run_human` takes it), and exit with its code."""
    if bot is not None:
        exit_with(
            lambda: start(bot_driver(bot, console, seed=None, delay=delay, think=think), console)
        )
    exit_with(lambda: run_human(plain, console, start, networked=networked))


def setup_logging(verbose: bool, quiet: bool) -> None:
    """Transport logs on stderr: warnings by default, everything with -v, errors with -q."""
    import logging

    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


@contextlib.contextmanager
def holding_log(log: Path | None, command: str) -> Iterator[None]:
    """Hold the lock of `log` while `command` runs (``zoo host``): its log, sidecar and bots'
    folder are this process's alone. Another live process holding it: one red line, exit 1."""
    if log is None:  # a default log path: named after the game, nobody else's
        yield
        return
    from zoo_p2p import storage

    try:
        lock = storage.lock_log(log, command)
    except storage.LogInUse as exc:
        advice = "" if command == "zoo resume" else ", or use another --log"
        Console(stderr=True, highlight=False).print(
            Text(f"{shown(str(exc), 500)}: wait for it to end{advice}", style="red")
        )
        raise typer.Exit(1) from None
    with lock:
        yield


def exit_with(run: Callable[[], int]) -> NoReturn:
    """Run a command body and exit with its code: usage errors exit 2, our own errors are one
    red line and exit 1, Ctrl-C exits 130."""
    try:
        code = run()
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    except ZooError as exc:
        from rich.text import Text

        from zoo_p2p.text import shown

        Console(stderr=True, highlight=False).print(Text(shown(str(exc), 500), style="red"))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    raise typer.Exit(code)


# PROTOCOL.md §10.1 defaults (zoo_p2p.protocol.liveness; not imported: `zoo --help` stays light)
DEFAULT_MOVE_TIME = 300
DEFAULT_REVEAL_TIME = 15


def team_index(team: str | None) -> int | None:
    """0..3 for a team name checked by the option, None stays None."""
    return None if team is None else ("yellow", "blue", "green", "red").index(team)


def host_cmd(
    players: o.Players = None,
    bots: Annotated[
        int,
        typer.Option(
            "--bots",
            min=0,
            max=4,
            metavar="N",
            help="How many seats bots play here (all of them: a headless bot game).",
        ),
    ] = 0,
    level: o.Level = "greedy",
    think: o.Think = None,
    variant: o.VariantOpt = "standard",
    first: Annotated[
        str, typer.Option(metavar="SEAT", help="First player: 'random' (fair draw) or a seat 1-4.")
    ] = "random",
    port: o.Port = 0,
    bind: o.HostBind = None,
    address: Annotated[
        str | None,
        typer.Option(metavar="ADDR", help="Address(es) written in the invite, comma-separated."),
    ] = None,
    log: o.LogOpt = None,
    name: o.Name = "host",
    team: o.TeamOpt = None,
    invite_file: Annotated[
        Path | None, typer.Option(metavar="PATH", help="Also write the invite here.")
    ] = None,
    curve: Annotated[bool, typer.Option(help="Encrypt with CURVE (default on).")] = True,
    identity: o.Identity = None,
    give_up: o.GiveUp = None,
    delay: o.Delay = 0.0,
    announce: o.Announce = True,
    upnp: o.Upnp = False,
    qr: o.Qr = False,
    move_time: o.MoveTime = DEFAULT_MOVE_TIME,
    reveal_time: o.RevealTime = DEFAULT_REVEAL_TIME,
    hints: Annotated[
        bool,
        typer.Option(
            "--hints",
            help="Allow hints at this table: written in the genesis, every seat may ask the "
            "expert (x); joiners are told before they take a seat.",
        ),
    ] = False,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
    players_n: Annotated[int | None, typer.Option("-n", min=2, max=4, hidden=True)] = None,
    bot: Annotated[str | None, typer.Option("--bot", hidden=True, callback=o.check_level)] = None,
) -> None:
    """Host a game: print an invite, wait for the players, play, save the log."""
    setup_logging(verbose, quiet)
    seats = players or players_n or 2
    own_bot = bot is not None or bots >= seats
    if bots > seats:
        raise typer.BadParameter(f"--bots {bots} is more than the {seats} seats")
    first_seat = None if first == "random" else _seat_number(first, seats)
    console = console_for(quiet)
    from zoo_p2p.cli.runners import HostPlan  # the command runs: the network stack is needed
    from zoo_p2p.rules import Variant

    plan = HostPlan(
        players=seats,
        variant=Variant(variant),
        first=first_seat,
        port=port,
        bind=bind,
        address=address,
        log_path=log,
        name=name,
        team=team_index(team),
        bots=bots - 1 if own_bot and bot is None else bots,
        level=level,
        think=think,
        invite_file=invite_file,
        curve=curve,
        identity=identity,
        give_up=give_up,
        bot_delay=delay,
        announce=announce,
        upnp=upnp,
        qr=qr,
        move_time=move_time,
        reveal_time=reveal_time,
        hints=hints,
    )
    own_level = (bot or level) if own_bot else None
    with holding_log(log, "zoo host"):
        run_seat(host_start(plan), console, plain=plain, bot=own_level, delay=delay, think=think)


def _seat_number(text: str, seats: int) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= seats:
        raise typer.BadParameter(f"--first: 'random' or a seat number 1-{seats}, not {text!r}")
    return n - 1


def host_start(plan: "HostPlan") -> Start:
    """How `zoo host` and the networked `zoo play` start: host the game `plan` describes, with
    whatever driver plays our seat."""

    def start(driver: "Driver", console: Console) -> int:
        from zoo_p2p.cli.runners import run_host

        return run_host(plan, driver, console)

    return start


def join_cmd(
    invite: o.MaybeInvite = None,
    name: o.Name = "player",
    team: o.TeamOpt = None,
    log: o.LogOpt = None,
    identity: o.Identity = None,
    give_up: o.GiveUp = None,
    upnp: o.Upnp = False,
    no_hints: Annotated[
        bool,
        typer.Option(
            "--no-hints",
            help="Refuse a table that allows hints (the expert's advice for every seat): "
            "leave before taking a seat.",
        ),
    ] = False,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
) -> None:
    """Join a game from its invite and play at this terminal."""
    console = command_console(verbose, quiet)

    def start_with(chosen: str | None) -> Start:
        def start(driver: "Driver", con: Console) -> int:
            from zoo_p2p.cli.runners import run_join

            return run_join(
                chosen,
                name=name,
                team=team_index(team),
                log_path=log,
                identity=identity,
                give_up=give_up,
                driver=driver,
                console=con,
                ephemeral=False,
                upnp=upnp,
                refuse_hints=no_hints,
            )

        return start

    if invite is not None:  # a usage error before anything opens, full screen or not
        from zoo_p2p.cli import lan

        problem = lan.invite_problem(invite)
        if problem is not None:
            raise typer.BadParameter(problem, param_hint="'INVITE'")
    with holding_log(log, "zoo join"):
        if invite is None and not use_plain(plain):
            pick = tui_entry("run_join_picked")
            if pick is not None:  # the games found on the LAN are listed in the app (issue 11)
                exit_with(lambda: pick_and_join(console, pick, start_with))
        run_seat(start_with(invite), console, plain=plain)


def pick_and_join(
    console: Console, pick: Callable[..., int], start_with: Callable[[str | None], Start]
) -> int:
    """The app lists the games on the LAN live (browsed in the background); the one picked is
    joined."""
    from zoo_p2p.cli import lan

    code: int = pick(lan.lan_source, start_with, check=lan.invite_problem)
    return code


def bot_cmd(
    invite: o.MaybeInvite = None,
    level: o.Level = "greedy",
    think: o.Think = None,
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="The bot's name at the table.")
    ] = None,
    team: Annotated[
        str | None,
        typer.Option(
            "--team",
            callback=o.check_team,
            metavar="TEAM",
            help="The bot's team: yellow, blue, green or red.",
        ),
    ] = None,
    log: o.LogOpt = None,
    identity: Annotated[
        Path | None,
        typer.Option(
            metavar="PATH",
            help="Key file (created if missing; with it the bot's game can be resumed); "
            "default: a fresh key for this run only.",
        ),
    ] = None,
    seed: o.Seed = None,
    delay: o.Delay = 0.0,
    give_up: o.GiveUp = None,
    upnp: o.Upnp = False,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
) -> None:
    """Join a game as a bot peer (its own key, over the network)."""
    console = command_console(verbose, quiet)

    def body() -> int:
        from zoo_p2p.cli.runners import run_join

        return run_join(
            invite,
            name=name or f"{level} bot",
            team=team_index(team),
            log_path=log,
            identity=identity,
            give_up=give_up,
            driver=bot_driver(level, console, seed=seed, delay=delay, think=think),
            console=console,
            ephemeral=True,
            upnp=upnp,
        )

    exit_with(body)


def resume_cmd(
    log: Annotated[
        Path,
        typer.Argument(
            metavar="LOG",
            help="The log of the unfinished game.",
            exists=True,  # a wrong path is a usage error, said before anything starts
            dir_okay=False,
        ),
    ],
    invite: Annotated[
        str | None, typer.Option(metavar="INVITE", help="Invite, if not stored beside the log.")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, metavar="N", help="Host: port to listen on again."),
    ] = None,
    bind: Annotated[
        str | None, typer.Option(metavar="ADDR", help="Host: address to listen on.")
    ] = None,
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            callback=o.check_level,
            metavar="LEVEL",
            help="Let a bot of this level play our seat: random, greedy, hard or expert.",
        ),
    ] = None,
    bot: Annotated[str | None, typer.Option("--bot", hidden=True, callback=o.check_level)] = None,
    identity: o.Identity = None,
    give_up: o.GiveUp = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
) -> None:
    """Continue an unfinished game from its log, as host or joiner, once all seats are back."""
    console = command_console(verbose, quiet)

    def start(driver: "Driver", con: Console) -> int:
        from zoo_p2p.cli.runners import run_resume

        return run_resume(
            log,
            invite_text=invite,
            port=port,
            bind=bind,
            identity=identity,
            give_up=give_up,
            driver=driver,
            console=con,
        )

    with holding_log(log, "zoo resume"):
        run_seat(start, console, plain=plain, bot=level or bot)


def play_command(
    *,
    bots: int,
    level: str,
    think: float | None,
    team: str | None,
    variant: str,
    log: Path | None,
    name: str,
    plain: bool,
) -> None:
    """You against 1-3 bots, each a real peer process over loopback; the log saved and audited."""
    console = command_console(False, False)
    from zoo_p2p.cli.runners import HostPlan
    from zoo_p2p.rules import Variant

    plan = HostPlan(
        players=bots + 1,
        variant=Variant(variant),
        first=None,
        port=0,
        bind="127.0.0.1",
        address="127.0.0.1",
        log_path=log,
        name=name,
        team=team_index(team),
        bots=bots,
        level=level,
        think=think,
        invite_file=None,
        curve=True,
        identity=None,
        give_up=None,
        bot_delay=float(os.environ.get("ZOO_BOT_DELAY", "0.6")),
        hints=True,  # the genesis says so: the log shows it, `zoo resume` keeps hints on
    )
    # every other seat is a bot this command starts: the person may ask the expert for hints
    with holding_log(log, "zoo play"):
        run_seat(host_start(plan), console, plain=plain, networked=False)


def register(app: typer.Typer) -> None:
    """Add the network commands to the ``zoo`` app."""
    app.command("host", short_help="Host a game: print an invite, wait, play, save the log.")(
        host_cmd
    )
    app.command("join")(join_cmd)
    app.command("bot")(bot_cmd)
    app.command("resume", short_help="Go on with an unfinished game from its log.")(resume_cmd)
