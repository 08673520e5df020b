"""`zoo watch INVITE...`: watch a live game as a spectator (protocol/TRANSPORT.md §12).

The spectator gets the log from the genesis and every entry after it, checks each one with its
own session as it comes, shows the game as a seat sees it (the full-screen app, or `--plain`),
and keeps its own log, which `zoo verify` reads like a seat's. It signs nothing.

An invite is the host's or a seat's watch invite (`zoo join --spectators N`, §12.6). With
several, the spectator watches through the first; when it refuses, leaves or falls silent
(SOURCE_SILENT) or stalls (no entry for longer than the game's clocks allow, §12.6), it goes
on through the next from the entries it holds, so a host that hides the game cannot hide it
from a spectator that holds a seat's invite. An onion invite goes
through Tor (`--tor`, `--tor-socks`), as `zoo join` does.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from rich.text import Text

from zoo_p2p import storage
from zoo_p2p.cli import exits, lan, screen
from zoo_p2p.cli.plain import PlainDriver, clock_line
from zoo_p2p.cli.render import render_board, seat_label
from zoo_p2p.cli.runners import GameFiles, audit_entries, score_line
from zoo_p2p.cli.tor import TorPlan, joining_route, route_options, tor_plan, tor_reason
from zoo_p2p.driver import Driver, GameLink, Outcome
from zoo_p2p.errors import LogError, RemoteProtocolError, UsageError
from zoo_p2p.net.invite import Invite, InviteError, format_address
from zoo_p2p.net.peer import JoinOptions
from zoo_p2p.net.spectate import Spectator, watcher_session
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.session import Session
from zoo_p2p.text import shown

__all__ = ["WatchDriver", "run_watch", "run_watcher", "watch_main", "watch_start"]

Start = Callable[[Driver, Console], int]
SOURCE_SILENT = 10.0  # seconds an invite's peer may be silent before we watch through the next
WATCH_HELP = "You are watching: no seat is yours. 'b' shows the board and the legend, 'q' stops."


class WatchDriver(PlainDriver):
    """The line mode for a spectator: the board after every change, the seats and notices as
    a player sees them; nothing to type but `b` and `q` (the end of input stops nothing)."""

    def on_started(self, link: GameLink) -> None:
        self.link = link
        s = link.session
        assert s is not None and s.state is not None
        self.shadow = s.state.clone()
        self.shown_moves = len(s.state.history)
        self.out(Text(WATCH_HELP, style="bold"))
        if s.genesis.has_clocks:
            self.out(clock_line(s.genesis.clocks.move))
        self.out(render_board(s.state, self.names(s), me=None, legend=True))
        who = seat_label(s.state, s.state.to_move, self.names(s))
        played = len(s.state.history)
        lead = f"{played} move{'' if played == 1 else 's'} played; to move: " if played else ""
        self.out(Text.assemble(lead or "first to move: ", who))

    def on_fd(self, fd: int, link: GameLink) -> bool:
        if fd == self.stdin_fd:
            data = os.read(fd, 4096)
            if not data:
                return False  # no more input (a pipe, a script): go on watching
            for line in data.decode("utf-8", "replace").splitlines():
                word = line.strip().lower()
                if word in ("q", "quit", "exit"):
                    link.leave("you stopped watching")
                    return False
                s = link.session
                if word == "b" and s is not None and s.state is not None:
                    self.out(render_board(s.state, self.names(s), me=None, legend=True))
            return True
        return super().on_fd(fd, link)


def watch_main(
    *,
    invite: list[str] | None,
    log: Path | None,
    give_up: float | None,
    quiet: bool,
    verbose: bool,
    plain: bool,
    tor: bool = False,
    tor_socks: str | None = None,
) -> None:
    """`zoo watch`: the invites checked first (a usage error), then the full-screen app (or
    the LAN list in it, without an invite) or the line mode."""
    from zoo_p2p.cli import netcmds

    console = netcmds.command_console(verbose, quiet)
    invites = invite or []
    for text in invites:
        problem = lan.invite_problem(text)
        if problem is not None:
            raise UsageError(problem, param="'INVITE'")
    plan = tor_plan(tor, socks=tor_socks)

    def start_with(chosen: str | None) -> Start:
        return watch_start(chosen, log=log, give_up=give_up, more=invites[1:], tor=plan)

    first = invites[0] if invites else None
    with netcmds.holding_log(log, "zoo watch"):
        if first is None and not screen.use_plain(plain):
            pick = screen.tui_entry("run_join_picked")
            if pick is not None:  # the games found on the LAN, listed in the app
                netcmds.exit_with(
                    lambda: netcmds.pick_and_join(console, pick, start_with, watch=True)
                )
        netcmds.exit_with(lambda: run_watcher(plain, console, start_with(first)))


def run_watcher(plain: bool, console: Console, start: Start) -> int:
    """The full-screen app when there is one and a terminal, else the line mode."""
    if not screen.use_plain(plain):
        run_network = screen.tui_entry("run_network")
        if run_network is not None:
            code: int = run_network(start, networked=True)
            return code
    return start(WatchDriver(console, networked=True, ask_claims=False), console)


def _resume(path: Path) -> tuple[Session, storage.LogWriter]:
    """Our own earlier log of this game (a spectator that watches again with --log)."""
    more = f"`zoo verify {path}` says more"
    try:
        entries = storage.read_log(path).entries
    except LogError as exc:
        raise NetError(f"cannot watch on from {path}: {exc}; {more}") from None
    if not entries:
        raise NetError(f"{path} holds no entries")
    try:
        session = watcher_session(entries[0])
        for e in entries[1:]:
            session.receive(e)
    except RemoteProtocolError as exc:
        raise NetError(f"cannot watch on from {path}: {exc}; {more}") from None
    return session, storage.LogWriter(path)


def _parse(text: str) -> Invite:
    try:
        return Invite.parse(text)
    except InviteError as exc:
        raise UsageError(str(exc)) from None


def run_watch(
    invite_text: str | None,
    *,
    log_path: Path | None,
    give_up: float | None,
    driver: Driver,
    console: Console,
    more: Sequence[str] = (),
    tor: TorPlan | None = None,
) -> int:
    """Watch the game of `invite_text` (None: pick one on the LAN) with `driver` showing it;
    when its peer refuses us, leaves or falls silent, through the invites of `more` in turn
    (TRANSPORT.md §12.6), from the entries we hold."""
    first = lan.pick_game(console, lan.BROWSE_SECONDS, watch=True) if invite_text is None else None
    invites = [first or _parse(invite_text or ""), *(_parse(t) for t in more)]
    session: Session | None = None
    sink: storage.LogWriter | None = None
    if log_path is not None and log_path.exists() and log_path.stat().st_size > 0:
        session, sink = _resume(log_path)
        console.print(Text(f"watching on from {shown(log_path)}, entry {len(session.entries)}"))
    files = GameFiles(log_path, storage.NetSidecar(role="watch", invite=str(invites[0])))
    for i, invite in enumerate(invites):
        last = i == len(invites) - 1
        silent = give_up if give_up is not None or last else SOURCE_SILENT
        spectator, outcome = _watch_through(
            invite, (silent, not last), tor or TorPlan(), (driver, console), files, session, sink
        )
        done = outcome.finished or spectator.witness.verdict is not None
        if last or done or outcome.reason == "interrupted":
            break
        session = spectator.session
        path = spectator.sink.path if isinstance(spectator.sink, storage.LogWriter) else None
        sink = storage.LogWriter(path) if session is not None and path is not None else None
        nxt = invites[i + 1]
        console.print(
            Text(
                f"{shown(outcome.reason)}; watching on through the next invite "
                f"({format_address((nxt.host, nxt.port))}, {nxt.fingerprint}) from entry "
                f"{len(session) if session is not None else 0}",
                style="yellow",
            ),
            soft_wrap=True,
        )
    return finish_watch(spectator, outcome, files.path, console)


def _watch_through(
    invite: Invite,
    leave_when: tuple[float | None, bool],
    tor: TorPlan,
    shown_by: tuple[Driver, Console],
    files: GameFiles,
    session: Session | None,
    sink: storage.LogWriter | None,
) -> tuple[Spectator, Outcome]:
    """One spectator run through one invite (an onion one through Tor); `leave_when`: the
    silence we take, and whether a stall stops us (there is a next invite)."""
    driver, console = shown_by
    silent, fail_over = leave_when
    with joining_route(console, tor, invite, publish=False, verb="watching") as via:
        fwd = via.fwd
        spectator = Spectator(
            via.invite,
            key=Ed25519PrivateKey.generate(),  # the link's; a spectator signs nothing with it
            driver=driver,
            make_session=watcher_session,
            open_log=files.open_new,
            fingerprint=fingerprint,
            options=JoinOptions(
                name="spectator",
                give_up=silent,
                **route_options(fwd, invite),
            ),
            session=session,
            sink=sink,
            # over Tor: the seats' onions through our Tor client only; we publish nothing
            mesh_setup=None
            if via.mesh is None
            else lan.MeshSetup(hidden=True, socks=via.mesh.socks),
            fail_over=fail_over,
        )
        where = format_address((invite.host, invite.port))
        console.print(Text(f"watching the game at {where} ({invite.fingerprint})…"))
        spectator.catch_up()
        outcome = spectator.run()
        if not outcome.finished and fwd is not None:
            outcome = dataclasses.replace(outcome, reason=tor_reason(outcome.reason, fwd))
    return spectator, outcome


def finish_watch(
    spectator: Spectator, outcome: Outcome, log_path: Path | None, console: Console
) -> int:
    """How the watch ended, the scores, where our log is and what its audit says; the exit
    code: 0 a finished game whose log checks, 4 a seat proven to cheat, 130 Ctrl-C, else 1."""
    s = spectator.session
    if s is None:
        console.print(Text(f"nothing to watch: {shown(outcome.reason)}", style="red"))
        return exits.INTERRUPTED if outcome.reason == "interrupted" else exits.ERROR
    path = spectator.sink.path if isinstance(spectator.sink, storage.LogWriter) else log_path
    ok, verdict = audit_entries(list(s.entries))
    style = "green" if ok and outcome.finished else "yellow"
    console.print(Text(f"{shown(outcome.reason)}; {len(s.entries)} entries", style=style))
    scores = score_line(s)
    if scores is not None:
        console.print(scores)
    if s.ending is not None:
        console.print(Text(s.outcome().describe(s.seats), style="bold"))
    heard = spectator.witness.links()
    if heard:
        keys = [si.public_key for si in s.seats]
        relay = keys.index(spectator.host_pub) if spectator.host_pub in keys else 0
        via = "the host" if relay == 0 else spectator.seat_name(relay)  # a seat's watch port
        parts = [
            f"{spectator.seat_name(seat)}: {'direct' if up else f'through {via} only'}"
            for seat, up in heard.items()
        ]
        console.print(Text("seats heard: " + "; ".join(parts)))
    console.print(Text(f"log saved: {path}", style="bold"), soft_wrap=True)
    if ok:
        verdict = "ok: every signature, link, move, reveal and seed checks out"
    head, _, rest = verdict.partition(":")
    console.print(Text(f"audit: {head.upper()}" + (f" —{rest}" if rest else ""), style=style))
    if spectator.witness.verdict is not None:
        return exits.CHEAT
    if outcome.reason == "interrupted":
        return exits.INTERRUPTED
    return exits.OK if outcome.finished and ok else exits.ERROR


def watch_start(
    invite: str | None,
    *,
    log: Path | None,
    give_up: float | None,
    more: Sequence[str] = (),
    tor: TorPlan | None = None,
) -> Start:
    """What `zoo watch` runs once the screen (or the line mode) is up."""

    def start(driver: Driver, con: Console) -> int:
        return run_watch(
            invite, log_path=log, give_up=give_up, driver=driver, console=con, more=more, tor=tor
        )

    return start
