"""Run a networked game: host, join, resume, with a driver at our seat; return the exit code.

Glue between storage (identity, log, sidecar), the protocol session, the peers of
`zoo_p2p.net.peer` and whichever `zoo_p2p.driver.Driver` the command chose for our seat. The typer
commands in `zoo_p2p.cli.netcmds` parse options and call these.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from rich.text import Text

from zoo_p2p import storage
from zoo_p2p.cli import lan
from zoo_p2p.cli.hosting import (
    Genesis,
    HostSetup,
    JoinSetup,
    Reaching,
    build_host,
    build_joiner,
    session_factory,
)
from zoo_p2p.cli.plain import ConsoleDriver, PlainDriver
from zoo_p2p.cli.spawn import (
    bots_dir_for,
    end_old_bots,
    reap,
    respawn,
    spawn_bots,
    watch_bots,
)
from zoo_p2p.cli.tor import (
    TorMesh,
    TorPlan,
    hosting_onion,
    joining_route,
    route_options,
    tor_reason,
)
from zoo_p2p.driver import Driver
from zoo_p2p.errors import (
    LocalProtocolError,
    LogError,
    NotationError,
    RemoteProtocolError,
    UsageError,
)
from zoo_p2p.files import write_atomic
from zoo_p2p.net.invite import Invite, InviteError
from zoo_p2p.net.peer import (
    LEAVE_ACK_WAIT,
    Host,
    HostOptions,
    Joiner,
    JoinOptions,
    Link,
    Outcome,
    raw_public,
)
from zoo_p2p.net.spectators import DEFAULT_SPECTATORS
from zoo_p2p.net.torlink import SocksForwarder
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.liveness import DEFAULT_MOVE_TIME, DEFAULT_REVEAL_TIME, Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant
from zoo_p2p.text import shown

if TYPE_CHECKING:
    from zoo_p2p.net.portmap import BackgroundMapping


# ----------------------------------------------------------------------------- adapters
def load_key(path: Path | None = None, *, ephemeral: bool = False) -> Ed25519PrivateKey:
    """Our Ed25519 identity: from `path` (created 0600 if missing), the user's, or a fresh one."""
    if ephemeral and path is None:
        return Ed25519PrivateKey.generate()
    return storage.load_or_create_identity(path)


def audit_entries(entries: list[bytes]) -> tuple[bool, str]:
    """Run the protocol auditor: (ok, one-line verdict with the first fault if any)."""
    report = audit(entries)
    verdict = report.verdict
    if report.fault_index is not None:
        verdict += f" at entry {report.fault_index}: {report.fault_reason}"
    elif report.notes:
        verdict += ": " + report.notes[0] + "; everything in it checks out"
    return report.ok, verdict


@dataclass
class GameFiles:
    """Where this run's log goes (`path`, or the default name once the game id is known) and
    the sidecar written beside it when the log opens."""

    path: Path | None
    sidecar: storage.NetSidecar

    def open_new(self, session: Session) -> storage.LogWriter:
        """The log of a new game (refused if the file already holds one)."""
        self.path = self.path or storage.default_log_path(session.game_id)
        return storage.new_game_log(self.path, self.sidecar)


def resume_session(key: Ed25519PrivateKey, path: Path) -> tuple[Session, storage.LogWriter]:
    """Rebuild our session from a log file; the log is reopened for appending."""
    more = f"`zoo verify {path}` says more"
    try:
        entries = storage.read_log(path).entries
    except LogError as exc:  # its reason names the entry ("entry 0: bytes at offset 0 …")
        raise NetError(f"cannot resume {path}: {exc}; {more}") from None
    if not entries:
        raise NetError(f"{path} holds no entries")
    index = 0
    try:
        try:
            session = session_factory(key)(entries[0])
        except LocalProtocolError:  # not our game: said after the entries are checked
            session = Session(entries[0])
        for e in entries[1:]:
            index += 1
            session.receive(e)
    except RemoteProtocolError as exc:  # a corrupt or forged entry: say which one
        raise NetError(f"cannot resume {path}: entry {index}: {exc}; {more}") from None
    if session.seat is None:
        if raw_public(key) in [s.public_key for s in session.seats]:  # our resignation is in it
            raise NetError(f"{path}: we resigned this game; its stand-in plays our seat on")
        raise NetError(
            f"{path}: our key plays no seat of this game; pass --identity with the key it "
            "was played with"
        )
    if len(session.entries) != len(entries):  # pragma: no cover - storage drops torn tails
        raise NetError(f"{path}: only {len(session.entries)} of {len(entries)} entries chain")
    return session, storage.LogWriter(path)


def parse_team(text: str | None) -> int | None:
    """'yellow'/'y' ... -> 0..3, None stays None."""
    if text is None:
        return None
    try:
        return int(Team.parse(text))
    except NotationError as exc:
        raise UsageError(str(exc)) from None


# ----------------------------------------------------------------------------- running
def score_line(session: Session) -> Text | None:
    """'scores: name (Team) 23 (wins), …' once the game is over, else None."""
    st = session.state
    if st is None or not st.is_terminal():
        return None
    winners = set(st.winners())
    line = Text("scores: ")
    for i, sc in enumerate(st.scores()):
        if i:
            line.append(", ")
        info = session.seats[sc.seat]
        line.append(f"{shown(info.name, 40)} ({info.team.label}) {sc.total}")
        if sc.seat in winners:
            line.append(" (wins)" if len(winners) == 1 else " (shared win)", style="bold")
    return line


def finish(
    link: Link,
    outcome: Outcome,
    log_path: Path | None,
    console: Console,
    *,
    key_kept: bool = True,
    identity: Path | None = None,
    bot_level: str | None = None,
) -> int:
    """Say how the run ended, the scores, where the log is, and what the audit says; return
    the exit code (0 finished and sound, 130 interrupted, else 1). ``key_kept`` false: our key
    was made for this run only (`zoo bot` without --identity), so no `zoo resume` can go on;
    ``identity``: the key file named by --identity, which the resume hint names too, as it names
    ``bot_level`` (a bot's seat goes on played by a bot of its level, not by the person)."""
    interrupted = outcome.reason == "interrupted"
    driver = link.driver
    if isinstance(driver, PlainDriver):  # --plain: the cursor may sit after the move prompt
        driver.end_prompt()
    if isinstance(link, Joiner) and link.leave_heard is False:  # we said leave; never answered
        console.print(
            Text(
                f"the host did not confirm our leave within {LEAVE_ACK_WAIT:g} s: "
                "the others may show this seat as lost, not as left",
                style="yellow",
            )
        )
    s = link.session
    if s is None:
        console.print(Text(f"no game: {shown(outcome.reason)}", style="red"))
        return 130 if interrupted else 1
    path = link.sink.path if isinstance(link.sink, storage.LogWriter) else log_path
    entries = list(s.entries)
    ok, verdict = audit_entries(entries)
    style = "green" if ok and outcome.finished else "yellow"
    reason = shown(outcome.reason)
    if outcome.finished and s.ending is not None and s.ending.never_started:
        reason = "the game never started"  # not "game over": a claim with no result (§10.5)
    console.print(Text(f"{reason}; {len(entries)} entries", style=style))
    scores = score_line(s)
    if scores is not None:
        console.print(scores)
    ending = s.outcome().describe(s.seats) if s.ending is not None else None
    said = driver.shown_notices if isinstance(driver, ConsoleDriver) else []
    if ending is not None and ending not in said:  # claimed, never started or resigned (§10);
        console.print(Text(ending, style="bold"))  # unless a notice just printed it here
    lan.say_links(console, link)
    console.print(Text(f"log saved: {path}", style="bold"), soft_wrap=True)  # one line to copy
    if ok:
        verdict = "ok: every signature, link, move, reveal and seed checks out"
    head, _, rest = verdict.partition(":")
    console.print(Text(f"audit: {head.upper()}" + (f" —{rest}" if rest else ""), style=style))
    resumable = (
        not s.finished
        and path is not None
        and not link.resigned_self
        and not outcome.never_started  # a seat never took its place: nothing to continue
    )
    if resumable and not key_kept:
        console.print(
            Text(
                "this game cannot be resumed here: the bot's key was made for this run only "
                "(a bot started with --identity PATH keeps its key)",
                style="yellow",
            )
        )
    elif resumable:
        key_option = f"--identity {identity} " if identity is not None else ""  # not the default
        if bot_level is not None:
            key_option = f"--level {bot_level} {key_option}"
        console.print(
            Text(f"to continue this game: zoo resume {key_option}{path}", style="bold"),
            soft_wrap=True,
        )
    if interrupted:
        return 130
    return 0 if outcome.finished and ok else 1


def guess_address() -> str:
    """This machine's address on the network it would route through (127.0.0.1 if none)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr: str = s.getsockname()[0]
            return addr
    except OSError:
        return "127.0.0.1"


def _open_addr(bind: str) -> bool:
    return bind in ("0.0.0.0", "*")


@dataclass
class HostPlan:
    """Everything `run_host` needs: the table, the network, our seat and the bots."""

    players: int
    variant: Variant
    first: int | None
    port: int
    bind: str | None  # None: every reachable address (issue 11)
    address: str | None
    log_path: Path | None
    name: str
    team: int | None
    bots: int
    level: str
    think: float | None
    invite_file: Path | None
    curve: bool
    identity: Path | None
    give_up: float | None
    bot_delay: float = 0.0
    announce: bool = True  # advertise on the LAN (mDNS)
    upnp: bool = False  # ask the router for a port mapping
    qr: bool = False  # also draw the invite as a QR code
    move_time: int = DEFAULT_MOVE_TIME  # seconds per move before a claim (PROTOCOL.md §10)
    reveal_time: int = DEFAULT_REVEAL_TIME  # seconds per reveal, seed, result…
    hints: bool = False  # the genesis allows hints: every seat may ask the expert (§3.2)
    on_leave: str | None = None  # the table rule (§10.7): None = play-on at 3–4 seats
    spectators: int = DEFAULT_SPECTATORS  # at most this many watch (TRANSPORT.md §12; 0: none)
    tor: TorPlan = field(default_factory=TorPlan)  # on an onion service (TRANSPORT.md §3.5)
    tor_mesh: TorMesh | None = None  # our direct links over Tor (§10.9), set by `run_host`

    def options(self) -> HostOptions:
        """The host's options of this plan (the one place a plan becomes them)."""
        return HostOptions(
            players=self.players,
            port=self.port,
            curve=self.curve,
            name=self.name,
            team=self.team,
            give_up=self.give_up,
            hints=self.hints,
            spectators=self.spectators,
        )

    def sidecar(self) -> storage.NetSidecar:
        """What the sidecar beside the log says of this host before it listens."""
        return storage.NetSidecar(
            role="host",
            port=self.port,
            bind=self.bind or lan.AUTO,
            curve=self.curve,
            upnp=self.upnp,
        )

    def setup(
        self, key: Ed25519PrivateKey, driver: Driver, where: lan.ListenPlan, files: GameFiles
    ) -> HostSetup:
        """What `build_host` makes the host of this plan from: listening at `where`, its new
        log opened by `files`."""
        return HostSetup(
            key=key,
            driver=driver,
            options=self.options(),
            reach=Reaching(
                listen=where,
                variant=self.variant.value,
                upnp=self.upnp,
                announce=self.announce,
                qr=self.qr,
                show_invite=self.bots < self.players - 1,  # a seat is open for a person
            ),
            open_log=files.open_new,
            genesis=Genesis(
                self.variant,
                self.first,
                Clocks(self.move_time, self.reveal_time),
                hints=self.hints,
                on_leave=self.on_leave,
            ),
            mesh=tor_mesh(self.tor_mesh),
        )


def tor_mesh(mesh: TorMesh | None) -> lan.MeshSetup:
    """Our direct links over Tor (TRANSPORT.md §10.9) as a peer is built with them; none: the
    default publisher."""
    if mesh is None:
        return lan.MeshSetup()
    return lan.MeshSetup(port=mesh.port, more=mesh.more, hidden=True, socks=mesh.socks)


def run_host(plan: HostPlan, driver: Driver, console: Console) -> int:
    """Host a game with `driver` at our seat and return the exit code; with `plan.tor`, on an
    onion service only (listening on 127.0.0.1, the onion alone in the invite, no LAN
    announcement, no router mapping)."""
    if not plan.tor.wanted:
        return _run_host(plan, driver, console)
    _refuse_used_log(plan.log_path)
    # (a free port is picked once our tor listens: it takes ports of its own, `auto`)
    with hosting_onion(console, plan.tor, plan.port) as route:
        hidden = dataclasses.replace(
            plan,
            port=route.onion.port,
            bind="127.0.0.1",
            address=route.onion.host,
            announce=False,
            upnp=False,
            tor_mesh=route.mesh,
        )
        return _run_host(hidden, driver, console)


def _refuse_used_log(log: Path | None) -> None:
    """A new game's log must not overwrite one."""
    if log is not None and log.exists() and log.stat().st_size:
        raise UsageError(f"{log} already holds a log; use `zoo resume {log}` or another --log")


def _loud(console: Console) -> Console:
    """Where a change to the user's files or processes is said: even with --quiet (on stderr)."""
    return Console(stderr=True, highlight=False) if console.quiet else console


def _loopback_invite(host: Host, where: lan.ListenPlan) -> Invite:
    """The host's invite at the loopback address it listens on, for our own bots."""
    here = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(where.bind, where.bind)
    return host.invite.with_addresses([(here, host.port)])


def _run_host(plan: HostPlan, driver: Driver, console: Console) -> int:
    """`run_host` once the addresses are known: build the host, start our bots, run the game."""
    _refuse_used_log(plan.log_path)
    if plan.log_path is None and plan.bots:
        # our bots' folder is named after the log (`<log>.bots/`, beside it) and is made before
        # the game id exists: such a log is named by the date and a random tag instead
        plan = dataclasses.replace(plan, log_path=storage.default_log_path(os.urandom(4)))
    key = load_key(plan.identity)
    if not plan.curve:
        console.print(Text("CURVE is off: traffic is readable on the network", style="red"))
    where = lan.listen_plan(plan.bind, plan.address)
    files = GameFiles(plan.log_path, plan.sidecar())
    fp = fingerprint(raw_public(key))
    if plan.name == "you":  # zoo play: not "you are you"
        console.print(Text(f"your fingerprint: {fp}"))
    else:
        console.print(Text(f"you are {shown(plan.name, 40)} — fingerprint {fp}"))
    host, reach = build_host(plan.setup(key, driver, where, files), console)
    files.sidecar = dataclasses.replace(files.sidecar, port=host.port, invite=str(host.invite))
    if plan.invite_file is not None:  # whole or not at all, never through a link
        write_atomic(plan.invite_file, f"{host.invite}\n".encode())
    bots_dir = _host_bots_dir(plan, files, console)
    outcome = _host_game(plan, host, reach, _loopback_invite(host, where), bots_dir, console)
    return finish(host, outcome, files.path, console, identity=plan.identity)


def _host_bots_dir(plan: HostPlan, files: GameFiles, console: Console) -> Path:
    """Our bots' folder, named in the sidecar: our bots keep their keys and logs with the game,
    so `zoo resume` can restart them; what an earlier game left there (its log since deleted)
    is moved aside, never reused or deleted."""
    bots_dir, moved = bots_dir_for(plan.log_path)
    if moved is not None:  # a change to the user's files: said even with --quiet (on stderr)
        _loud(console).print(
            Text(f"moved {shown(bots_dir)} (an earlier game's bots) aside to {shown(moved)}"),
            style="yellow",
            soft_wrap=True,  # two paths to copy: whole, never cut
        )
    files.sidecar = dataclasses.replace(
        files.sidecar, bots_dir=str(bots_dir), bot_level=plan.level, bot_count=plan.bots
    )
    return bots_dir


def _host_game(
    plan: HostPlan, host: Host, reach: lan.Reach, local: Invite, bots_dir: Path, console: Console
) -> Outcome:
    """Start our bots (over loopback, at `local`, whatever the invite says), wait for the
    players and run the game; then reap the bots, give back the router mapping and the LAN
    announcement, and remove the bots' folder if it stayed empty."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        if plan.bots:
            procs += spawn_bots(
                local,
                plan.bots,
                plan.level,
                plan.bot_delay,
                bots_dir,
                think=plan.think,
                keep_keys=True,
            )
            watch_bots(host, procs, bots_dir, console)
        others = plan.players - 1
        console.print(f"waiting for {others} player{'' if others == 1 else 's'} to join…")
        host.start_if_ready()
        return host.run()
    finally:
        reap(procs)
        reach.close()
        if not any(bots_dir.iterdir()):
            bots_dir.rmdir()


def run_resume(
    log_path: Path,
    *,
    invite_text: str | None,
    port: int | None,
    bind: str | None,
    identity: Path | None,
    give_up: float | None,
    driver: Driver,
    console: Console,
    bot_level: str | None = None,
    tor: TorPlan | None = None,
) -> int:
    """Continue an unfinished game from our log: as its host (rebind) or as a joiner; with
    `bot_level` (--level) a bot of that level plays our seat; a joiner of an onion invite
    goes through Tor (`tor`: --tor or --tor-socks, else a usage error: the name is never
    looked up)."""
    key = load_key(identity)
    stored = storage.read_sidecar(log_path)
    sidecar = stored or storage.NetSidecar(role="join")
    session, sink = resume_session(key, log_path)
    if stored is not None and (stored.role == "host") != (session.seat == 0):
        sink.close()  # the host's key resuming a joiner's log, or back: one seat, two processes
        mine = "the host's seat" if session.seat == 0 else f"seat {(session.seat or 0) + 1}"
        raise NetError(
            f"cannot resume {shown(log_path)}: it is the log of "
            f"{'the host' if stored.role == 'host' else 'a joiner'}, but your key plays {mine}; "
            "pass --identity with the key this log was played with"
        )
    if session.finished:
        sink.close()
        console.print(
            Text(f"{shown(log_path)} holds a finished game; see `zoo verify {shown(log_path)}`")
        )
        return 0
    resumed = _Resumed(GameFiles(log_path, sidecar), key, driver, console, session, sink)
    routes = contextlib.ExitStack()  # a joiner's Tor (closed after the run)
    if session.seat == 0:
        _resume_host(resumed, port=port, bind=bind, give_up=give_up)
    else:
        _resume_joiner(resumed, routes, invite_text=invite_text, give_up=give_up, tor=tor)
    assert resumed.link is not None
    try:
        outcome = resumed.link.run()
        if not outcome.finished and resumed.fwd is not None:  # an onion we never reached
            outcome = dataclasses.replace(outcome, reason=tor_reason(outcome.reason, resumed.fwd))
    except BaseException:
        routes.close()
        raise
    finally:
        resumed.release()
    try:
        return finish(
            resumed.link, outcome, log_path, console, identity=identity, bot_level=bot_level
        )
    finally:
        routes.close()  # our tor and forwarder, once our last words have left through them


@dataclass
class _Resumed:
    """A resumed game's parts, and what its run holds until it ends (bots, router mappings)."""

    files: GameFiles
    key: Ed25519PrivateKey
    driver: Driver
    console: Console
    session: Session
    sink: storage.LogWriter
    link: Link | None = None
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    mapping: BackgroundMapping | None = None
    reach: lan.Reach | None = None
    fwd: SocksForwarder | None = None

    def release(self) -> None:
        """Reap our bots, give back the router mappings."""
        reap(self.procs)
        if self.mapping is not None:
            self.mapping.close()
        if self.reach is not None:
            self.reach.close()


def _resume_host(r: _Resumed, *, port: int | None, bind: str | None, give_up: float | None) -> None:
    """Resume as the host: end the crashed host's bots, listen on the same addresses (with
    --upnp, ask the router again, bounded), restart our bots, start when the seats are in."""
    sidecar, console, session = r.files.sidecar, r.console, r.session
    bots_dir = Path(sidecar.bots_dir) if sidecar.bots_dir else None
    if bots_dir is not None and bots_dir.is_dir():  # the crashed host's bots may live on
        try:
            ended = end_old_bots(bots_dir, sidecar.bot_count)
        except NetError:
            r.sink.close()
            raise
        say = _loud(console)
        for n, pid in ended:  # a process of the user's ended: said even with --quiet
            line = f"ended bot {n} of the crashed host (process {pid}): it was still running"
            say.print(Text(line), style="yellow", soft_wrap=True)
    where = lan.listen_plan(bind or sidecar.bind, None)
    console.print(f"resuming as host from entry {len(session.entries)}")
    host, r.reach = build_host(
        HostSetup(
            key=r.key,
            driver=r.driver,
            options=HostOptions(
                players=len(session.seats),
                port=port or sidecar.port,
                curve=sidecar.curve,
                name=session.seats[0].name,
                give_up=give_up,
            ),
            reach=Reaching(
                listen=where,
                upnp=sidecar.upnp,
                show_invite=sidecar.bot_count < len(session.seats) - 1,  # a person's seat
            ),
            open_log=r.files.open_new,
            session=session,
            sink=r.sink,
        ),
        console,
    )
    if bots_dir is not None and bots_dir.is_dir():
        r.procs = respawn(
            _loopback_invite(host, where), bots_dir, sidecar.bot_count, sidecar.bot_level
        )
        if r.procs:
            console.print(f"restarting our {len(r.procs)} bot(s)")
    host.start_if_ready()
    r.link = host


def _resume_joiner(
    r: _Resumed,
    routes: contextlib.ExitStack,
    *,
    invite_text: str | None,
    give_up: float | None,
    tor: TorPlan | None,
) -> None:
    """Resume as a joiner: the invite given or stored beside the log, through Tor for an
    onion (its route entered on `routes`), with --upnp the router asked again."""
    sidecar, session = r.files.sidecar, r.session
    text = invite_text or sidecar.invite
    if not text:
        r.sink.close()
        raise UsageError("no invite stored beside the log: pass --invite")
    try:
        invite = Invite.parse(text)
    except InviteError as exc:
        r.sink.close()
        raise UsageError(str(exc)) from None
    me = session.seats[session.seat] if session.seat is not None else None
    try:
        via = routes.enter_context(joining_route(r.console, tor or TorPlan(), invite))
    except BaseException:
        r.sink.close()
        raise
    r.fwd = via.fwd
    # it joined with --upnp: ask the router again (in the background); over Tor: its onion
    mapped = lan.map_mesh_port(r.console, invite) if via.mesh is None and sidecar.upnp else None
    r.link = build_joiner(
        JoinSetup(
            invite=via.invite,
            key=r.key,
            driver=r.driver,
            options=JoinOptions(
                name=me.name if me else "player",
                team=int(me.team) if me else None,
                give_up=give_up,
                curve=invite.server_key != bytes(32),
                **route_options(r.fwd, invite),
            ),
            open_log=r.files.open_new,
            session=session,
            sink=r.sink,
            mesh=mapped[0] if mapped is not None else tor_mesh(via.mesh),
        )
    )
    r.mapping = mapped[1] if mapped is not None else None
    r.link.catch_up()
