"""``zoo host``, ``zoo join``, ``zoo bot``, ``zoo resume`` and the networked ``zoo play``: the
options `zoo_p2p.cli.app` parsed, a driver chosen for our seat, a runner of
`zoo_p2p.cli.runners` called. No typer here: a command ends through `zoo_p2p.cli.exits`.

Imported only when one of these commands runs (`zoo_p2p.cli.app`), so ``zoo --help`` stays fast.
"""

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from zoo_p2p import defaults, storage
from zoo_p2p.cli import exits, joining, lan, runners, screen
from zoo_p2p.cli.botdriver import BotDriver
from zoo_p2p.cli.plain import PlainDriver, SayHandler
from zoo_p2p.cli.runners import HostPlan
from zoo_p2p.cli.tor import tor_plan
from zoo_p2p.driver import Driver
from zoo_p2p.errors import FileError, UsageError, ZooError
from zoo_p2p.rules import Variant
from zoo_p2p.text import shown

Start = Callable[[Driver, Console], int]


def run_human(plain: bool, console: Console, start: Start, *, networked: bool = True) -> int:
    """Run `start` with the person at this terminal as the driver: the full-screen app when
    there is one and a terminal, else the plain line mode. `networked`: other people play over
    the network (no expert hints); False for `zoo play`, whose other seats are its own bots.

    The app (``zoo_p2p.tui.run.run_network(start)``) runs `start(driver, console)` in a worker
    thread with its own driver and a console that writes into its message area.
    """
    if not screen.use_plain(plain):
        run_network = screen.tui_entry("run_network")
        if run_network is not None:
            code: int = run_network(start, networked=networked)
            return code
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
) -> Driver:
    """A bot of `level` at our seat."""
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
    level = logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


@contextlib.contextmanager
def holding_log(log: Path | None, command: str) -> Iterator[None]:
    """Hold the lock of `log` while `command` runs (``zoo host``): its log, sidecar and bots'
    folder are this process's alone. Another live process holding it, or a lock or log that
    cannot be (a directory, a FIFO, a link, a path through a file): one red line, exit 1."""
    if log is None:  # a default log path: named after the game, nobody else's
        yield
        return
    try:
        lock = storage.lock_log(log, command)
    except storage.LogInUse as exc:
        advice = "" if command == "zoo resume" else ", or use another --log"
        Console(stderr=True, highlight=False).print(
            Text(f"{shown(str(exc), 500)}: wait for it to end{advice}", style="red")
        )
        exits.end(1)
    except FileError as exc:
        Console(stderr=True, highlight=False).print(
            Text(shown(str(exc), 500), style="red"),
            soft_wrap=True,  # one line: a path to copy
        )
        exits.end(1)
    with lock:
        yield


def exit_with(run: Callable[[], int]) -> NoReturn:
    """Run a command body and exit with its code; an error it raises ends it as every command
    ends on one (`zoo_p2p.cli.exits.fail`: usage errors 2, our own errors one red line and 1,
    Ctrl-C 130)."""
    try:
        code = run()
    except (ZooError, KeyboardInterrupt) as exc:
        exits.fail(exc)
    exits.end(code)


def team_index(team: str | None) -> int | None:
    """0..3 for a team name checked by the option, None stays None."""
    return None if team is None else ("yellow", "blue", "green", "red").index(team)


def host(
    *,
    players: int | None,
    bots: int,
    level: str,
    think: float | None,
    variant: str,
    first: str,
    port: int,
    bind: str | None,
    address: str | None,
    log: Path | None,
    name: str,
    team: str | None,
    invite_file: Path | None,
    curve: bool,
    identity: Path | None,
    give_up: float | None,
    delay: float,
    announce: bool,
    upnp: bool,
    qr: bool,
    move_time: int,
    reveal_time: int,
    hints: bool,
    spectators: int,
    tor: bool,
    tor_control: str | None,
    quiet: bool,
    verbose: bool,
    plain: bool,
    bot: str | None,
    on_leave: str | None = None,
) -> None:
    """Host a game: print an invite, wait for the players, play, save the log.

    `on_leave` (PROTOCOL.md §10.7.1): play-on or end; None for the default (play-on at 3–4
    seats)."""
    setup_logging(verbose, quiet)
    seats = players or 2
    own_bot = bot is not None or bots >= seats
    if bots > seats:
        raise UsageError(f"--bots {bots} is more than the {seats} seats")
    first_seat = None if first == "random" else _seat_number(first, seats)
    if on_leave is not None and on_leave not in ("play-on", "end"):
        raise UsageError(f"--on-leave is play-on or end, not {on_leave!r}")
    if on_leave == "play-on" and seats < 3:
        raise UsageError("--on-leave play-on needs 3 or 4 seats (2 seats always end)")
    console = console_for(quiet)
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
        on_leave=on_leave,
        spectators=spectators,
        tor=tor_plan(tor, control=tor_control),
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
        raise UsageError(f"--first: 'random' or a seat number 1-{seats}, not {text!r}")
    return n - 1


def host_start(plan: HostPlan) -> Start:
    """How `zoo host` and the networked `zoo play` start: host the game `plan` describes, with
    whatever driver plays our seat."""

    def start(driver: Driver, console: Console) -> int:
        return runners.run_host(plan, driver, console)

    return start


def join(
    *,
    invite: str | None,
    name: str,
    team: str | None,
    log: Path | None,
    identity: Path | None,
    give_up: float | None,
    upnp: bool,
    no_hints: bool,
    tor: bool,
    tor_socks: str | None,
    quiet: bool,
    verbose: bool,
    plain: bool,
    spectators: int = 0,
) -> None:
    """Join a game from its invite and play at this terminal."""
    console = command_console(verbose, quiet)

    def start_with(chosen: str | None) -> Start:
        def start(driver: Driver, con: Console) -> int:
            return joining.run_join(
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
                tor=tor_plan(tor, socks=tor_socks),
                spectators=spectators,
            )

        return start

    if invite is not None:  # a usage error before anything opens, full screen or not
        problem = lan.invite_problem(invite)
        if problem is not None:
            raise UsageError(problem, param="'INVITE'")
    with holding_log(log, "zoo join"):
        if invite is None and not screen.use_plain(plain):
            pick = screen.tui_entry("run_join_picked")
            if pick is not None:  # the games found on the LAN are listed in the app (issue 11)
                exit_with(lambda: pick_and_join(console, pick, start_with))
        run_seat(start_with(invite), console, plain=plain)


def pick_and_join(
    console: Console,
    pick: Callable[..., int],
    start_with: Callable[[str | None], Start],
    *,
    watch: bool = False,
) -> int:
    """The app lists the games on the LAN live (browsed in the background); the one picked is
    joined (`watch`: watched, and a full game may be picked too)."""
    code: int = pick(lan.lan_source, start_with, check=lan.invite_problem, watch=watch)
    return code


def bot(
    *,
    invite: str | None,
    level: str,
    think: float | None,
    name: str | None,
    team: str | None,
    log: Path | None,
    identity: Path | None,
    seed: int | None,
    delay: float,
    give_up: float | None,
    upnp: bool,
    tor: bool,
    tor_socks: str | None,
    quiet: bool,
    verbose: bool,
    spectators: int = 0,
) -> None:
    """Join a game as a bot peer (its own key, over the network)."""
    console = command_console(verbose, quiet)

    def body() -> int:
        return joining.run_join(
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
            tor=tor_plan(tor, socks=tor_socks),
            bot_level=level,
            spectators=spectators,
        )

    with holding_log(log, "zoo bot"):  # one process per seat: a bot's log is its alone too
        exit_with(body)


def resume(
    *,
    log: Path,
    invite: str | None,
    port: int | None,
    bind: str | None,
    level: str | None,
    identity: Path | None,
    give_up: float | None,
    quiet: bool,
    verbose: bool,
    plain: bool,
    tor: bool = False,
    tor_socks: str | None = None,
) -> None:
    """Continue an unfinished game from its log, as host or joiner, once all seats are back."""
    console = command_console(verbose, quiet)

    def start(driver: Driver, con: Console) -> int:
        return runners.run_resume(
            log,
            invite_text=invite,
            port=port,
            bind=bind,
            identity=identity,
            give_up=give_up,
            driver=driver,
            console=con,
            bot_level=level,
            tor=tor_plan(tor, socks=tor_socks),
        )

    with holding_log(log, "zoo resume"):
        run_seat(start, console, plain=plain, bot=level)


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
        bot_delay=float(os.environ.get("ZOO_BOT_DELAY", str(defaults.PLAY_BOT_DELAY))),
        hints=True,  # the genesis says so: the log shows it, `zoo resume` keeps hints on
    )
    # every other seat is a bot this command starts: the person may ask the expert for hints
    with holding_log(log, "zoo play"):
        run_seat(host_start(plan), console, plain=plain, networked=False)
