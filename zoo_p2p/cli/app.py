"""The ``zoo`` command's table of contents: every command, in the order ``zoo --help`` lists them.

Each command is its options (`zoo_p2p.cli.options`, defaults from `zoo_p2p.defaults`) and one
call into the module that does the work; those modules never import typer. They are imported
when their command runs, so that ``zoo --help`` stays fast.

    play     zoo_p2p.cli.play.play            (--local: cli.local, else cli.netcmds)
    verify   zoo_p2p.cli.verify.verify_command
    replay   zoo_p2p.cli.replay.replay_main   (exports: cli.exportcmd)
    host     zoo_p2p.cli.netcmds.host         -> cli.runners.run_host -> cli.hosting.build_host
    join     zoo_p2p.cli.netcmds.join         -> cli.joining.run_join -> cli.hosting.build_joiner
    bot      zoo_p2p.cli.netcmds.bot          -> cli.joining.run_join
    resume   zoo_p2p.cli.netcmds.resume       -> cli.runners.run_resume (build_host/build_joiner)
    watch    zoo_p2p.cli.watch.watch_main     -> net.spectate.Spectator
    arena    zoo_p2p.cli.arena.arena_command

One voice (TEAM.md): exit codes are 0 ok, 1 our error (one red line), 2 usage, 130 Ctrl-C, and
`zoo_p2p.cli.exits` is the one place that maps an error to its code; no traceback reaches a
user (``ZOO_DEBUG=1`` shows it). Output that cannot take UTF-8 (``LANG=C``, a latin-1
terminal, ``PYTHONIOENCODING=ascii``) gets ASCII, and ``NO_COLOR`` turns colour off.
"""

import contextlib
import functools
import importlib
import os
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

from zoo_p2p import defaults
from zoo_p2p.cli import options as o
from zoo_p2p.cli.exits import epilog

app = typer.Typer(
    epilog=epilog(),
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


@contextlib.contextmanager
def _usage() -> Iterator[None]:
    """Around a command's body: a `zoo_p2p.errors.UsageError` it raises before anything starts
    (two options that disagree, a value out of range for this log) is said as click says a bad
    value: the usage line, "Error: Invalid value…", exit 2."""
    from zoo_p2p.errors import UsageError

    try:
        yield
    except UsageError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.param) from None


TARGETS: dict[str, tuple[str, dict[str, str]]] = {}
"""command -> what it runs and its aliases (see `_runs`)"""


def _runs(target: str, **alias: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A command is its signature (its options) and this: it calls `target` ("module:function",
    imported only when the command runs, so that ``zoo --help`` stays fast) with every option by
    name, inside `_usage`. `alias` maps a name of the target's to the option that gives it
    instead or as well (`players="players_n"`: the target's `players` is ``--players``, else the
    hidden ``-n``). tests/cli/test_table_of_contents.py checks that each command's options are
    exactly its target's parameters."""
    module, _, function = target.partition(":")

    def command(stub: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(stub)  # typer reads the options and the help from the stub
        def run(**options: Any) -> None:
            for name, option in alias.items():
                given = options.pop(option)
                options[name] = options.pop(name, None) or given
            body = getattr(importlib.import_module(module), function)
            with _usage():
                body(**options)

        TARGETS[stub.__name__] = (target, alias)
        return run

    return command


# `zoo --help` lists each command on one line of an 80-column terminal: said whole, never cut
@app.command(short_help="Play against 1-3 bots over loopback (--local: in this process).")
@_runs("zoo_p2p.cli.play:play")
def play(
    players: o.Players = None,
    bots: o.PlayBots = None,
    level: o.Level = defaults.BOT_LEVEL,
    think: o.Think = None,
    local: o.Local = False,
    hotseat: o.Hotseat = 0,
    team: o.TeamOpt = None,
    variant: o.VariantOpt = "standard",
    seed: o.Seed = None,
    log: o.LogOpt = None,
    name: o.Name = "you",
    plain: o.Plain = False,
) -> None:
    """Play against 1-3 bots (each a real peer over loopback); --local for a network-free game."""


@app.command(short_help="Audit game logs: signatures, chain, moves, reveals, the deal.")
@_runs("zoo_p2p.cli.verify:verify_command", paths="logs")
def verify(logs: o.Logs, json: o.Json = False) -> None:
    """Audit game logs from their bytes alone: signatures, chain, moves, reveals, the deal."""


@app.command(short_help="Step through a game log move by move; export it (--html, --text).")
@_runs("zoo_p2p.cli.replay:replay_main")
def replay(
    log: o.ReplayLog,
    at: o.At = None,
    dump: o.Dump = False,
    analyse: o.Analyse = False,
    plies: o.Plies = None,
    seed: o.AnalysisSeed = 0,
    html: o.Html = None,
    text: o.TextOut = None,
    plain: o.Plain = False,
) -> None:
    """Step through a game log (or a text record) move by move: the board, reveals, the deal.

    With --html/--text it writes the exports instead (with --analyse, the move marks too).
    """


@app.command(short_help="Host a game: print an invite, wait, play, save the log.")
@_runs("zoo_p2p.cli.netcmds:host", players="players_n")
def host(
    players: o.Players = None,
    bots: o.HostBots = 0,
    level: o.Level = defaults.BOT_LEVEL,
    think: o.Think = None,
    variant: o.VariantOpt = "standard",
    first: o.First = "random",
    port: o.Port = 0,
    bind: o.HostBind = None,
    address: o.Address = None,
    log: o.LogOpt = None,
    name: o.Name = "host",
    team: o.TeamOpt = None,
    invite_file: o.InviteFile = None,
    curve: o.Curve = True,
    identity: o.Identity = None,
    give_up: o.GiveUp = None,
    delay: o.Delay = 0.0,
    announce: o.Announce = True,
    upnp: o.Upnp = False,
    qr: o.Qr = False,
    move_time: o.MoveTime = defaults.MOVE_TIME,
    reveal_time: o.RevealTime = defaults.REVEAL_TIME,
    hints: o.Hints = False,
    on_leave: o.OnLeave = None,
    spectators: o.Spectators = defaults.SPECTATORS,
    tor: o.TorLaunch = False,
    tor_control: o.TorControlOpt = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
    players_n: o.HiddenPlayers = None,
    bot: o.HiddenBot = None,
) -> None:
    """Host a game: print an invite, wait for the players, play, save the log."""


@app.command()
@_runs("zoo_p2p.cli.netcmds:join")
def join(
    invite: o.MaybeInvite = None,
    name: o.Name = "player",
    team: o.TeamOpt = None,
    log: o.LogOpt = None,
    identity: o.Identity = None,
    give_up: o.GiveUp = None,
    upnp: o.Upnp = False,
    no_hints: o.NoHints = False,
    spectators: o.SeatSpectators = 0,
    tor: o.TorLaunch = False,
    tor_socks: o.TorSocksOpt = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
) -> None:
    """Join a game from its invite and play at this terminal."""


@app.command()
@_runs("zoo_p2p.cli.netcmds:bot")
def bot(
    invite: o.MaybeInvite = None,
    level: o.Level = defaults.BOT_LEVEL,
    think: o.Think = None,
    name: o.BotName = None,
    team: o.BotTeam = None,
    log: o.LogOpt = None,
    identity: o.BotIdentity = None,
    seed: o.Seed = None,
    delay: o.Delay = 0.0,
    give_up: o.GiveUp = None,
    upnp: o.Upnp = False,
    spectators: o.SeatSpectators = 0,
    tor: o.TorLaunch = False,
    tor_socks: o.TorSocksOpt = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
) -> None:
    """Join a game as a bot peer (its own key, over the network)."""


@app.command(short_help="Go on with an unfinished game from its log.")
@_runs("zoo_p2p.cli.netcmds:resume", level="bot")
def resume(
    log: o.ResumeLog,
    invite: o.ResumeInvite = None,
    port: o.ResumePort = None,
    bind: o.ResumeBind = None,
    level: o.ResumeLevel = None,
    bot: o.HiddenBot = None,
    identity: o.ResumeIdentity = None,
    give_up: o.GiveUp = None,
    tor: o.TorLaunch = False,
    tor_socks: o.TorSocksOpt = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
) -> None:
    """Continue an unfinished game from its log, as host or joiner, once all seats are back."""


@app.command(short_help="Watch a live game as a spectator: every entry checked, a log kept.")
@_runs("zoo_p2p.cli.watch:watch_main")
def watch(
    invite: o.WatchInvites = None,
    log: o.LogOpt = None,
    give_up: o.GiveUp = None,
    tor: o.TorLaunch = False,
    tor_socks: o.TorSocksOpt = None,
    quiet: o.Quiet = False,
    verbose: o.Verbose = False,
    plain: o.Plain = False,
) -> None:
    """Watch a live game as a spectator, from its invite (none: pick one on the LAN).

    You get the log from the first entry and every entry as it is played, each one checked
    here; you see the board, the seats, their clocks and who is connected, as a player does
    (nobody holds a private card in this game: there is nothing to hide from you). You sign
    nothing and count for nothing; your own log is kept and `zoo verify` reads it like a
    seat's. A cheat you see (a fork) stops the watch with the proof kept beside your log (exit
    4). The host decides how many may watch (zoo host --spectators N), and any seat may let
    you in too (zoo join --spectators N prints its watch invite): give several invites and
    you watch through the next when one refuses you, leaves or falls silent. An onion invite
    goes through Tor (--tor or --tor-socks).
    """


@app.command(short_help="Bots against bots: win rates (95 % CI), scores, ms a move.")
@_runs("zoo_p2p.cli.arena:arena_command")
def arena(
    games: o.Games = defaults.ARENA_GAMES,
    players: o.ArenaPlayers = None,
    levels: o.Levels = defaults.ARENA_LEVELS,
    variant: o.ArenaVariant = "standard",
    seed: o.ArenaSeed = None,
    think: o.ArenaThink = None,
    plies: o.ArenaPlies = None,
    json: o.Json = False,
    jobs: o.Jobs = None,
) -> None:
    """Play bots against each other locally: win rates (95 % CI), average scores, ms per move."""


def main() -> None:
    """Console-script entry point: the exit codes and output rules of the module docstring."""
    from zoo_p2p.cli.output import prepare_output

    prepare_output()
    from zoo_p2p.cli.exits import fail

    try:
        app()
    except (Exception, KeyboardInterrupt) as exc:  # the last line of defence: one red line
        if os.environ.get("ZOO_DEBUG") and not isinstance(exc, KeyboardInterrupt | BrokenPipeError):
            raise
        fail(exc)


if __name__ == "__main__":
    main()
