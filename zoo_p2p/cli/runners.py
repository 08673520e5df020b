"""Run a networked game: host, join, resume, with a driver at our seat; return the exit code.

Glue between storage (identity, log, sidecar), the protocol session, the peers of
`zoo_p2p.net.peer` and whichever `zoo_p2p.driver.Driver` the command chose for our seat. The typer
commands in `zoo_p2p.cli.netcmds` parse options and call these.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import socket
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from rich.text import Text

from zoo_p2p import storage
from zoo_p2p.cli import lan
from zoo_p2p.cli.spawn import (
    bots_dir_for,
    reap,
    respawn,
    spawn_bots,
    watch_bots,
)
from zoo_p2p.driver import Driver
from zoo_p2p.errors import (
    LocalProtocolError,
    LogError,
    NotationError,
    RemoteProtocolError,
    UsageError,
)
from zoo_p2p.net.invite import Invite, InviteError, format_address
from zoo_p2p.net.peer import (
    LEAVE_ACK_WAIT,
    Host,
    HostOptions,
    Joiner,
    JoinOptions,
    Link,
    LobbySeat,
    Outcome,
    raw_private,
    raw_public,
)
from zoo_p2p.net.wire import NetError, derive_secret
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.events import SeatInfo
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


def seat_secrets(key: Ed25519PrivateKey, genesis: bytes) -> tuple[bytes, bytes]:
    """(seed, nonce) for our seat in this game: derived from our key and the genesis, so a crash
    or `zoo resume` finds the same secrets without storing them anywhere."""
    gid = hashlib.sha256(genesis).digest()
    priv = raw_private(key)
    return derive_secret(priv, b"seat-seed", gid), derive_secret(priv, b"first-nonce", gid)


def session_factory(key: Ed25519PrivateKey) -> Callable[[bytes], Session]:
    """A function genesis -> our playing Session."""

    def make(genesis: bytes) -> Session:
        seed, nonce = seat_secrets(key, genesis)
        return Session(genesis, key=key, seed=seed, nonce=nonce)

    return make


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
        raise NetError(f"{path}: our key plays no seat of this game")
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


def genesis_factory(
    key: Ed25519PrivateKey,
    variant: Variant,
    first: int | None,
    clocks: Clocks | None = None,
    *,
    hints: bool = False,
) -> Callable[[list[LobbySeat]], bytes]:
    """A function lobby -> signed genesis (with the clocks of PROTOCOL.md §10, and `hints: true`
    when every seat may ask the expert, §3.2)."""

    def make(lobby: list[LobbySeat]) -> bytes:
        seats = [SeatInfo(s.name, s.pub, Team(s.team)) for s in lobby]
        return Session.create_genesis(
            key, seats, variant, first, os.urandom(32), clocks, hints=hints
        )

    return make


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
) -> int:
    """Say how the run ended, the scores, where the log is, and what the audit says; return
    the exit code (0 finished and sound, 130 interrupted, else 1). ``key_kept`` false: our key
    was made for this run only (`zoo bot` without --identity), so no `zoo resume` can go on."""
    interrupted = outcome.reason == "interrupted"
    end_prompt = getattr(getattr(link, "driver", None), "end_prompt", None)
    if callable(end_prompt):  # --plain: the cursor may sit after the move prompt
        end_prompt()
    if getattr(link, "leave_heard", None) is False:  # we said leave; the host never answered
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
    said = getattr(getattr(link, "driver", None), "shown_notices", ())
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
        and not getattr(link, "resigned_self", False)
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
        console.print(
            Text(f"to continue this game: zoo resume {path}", style="bold"), soft_wrap=True
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


def run_host(plan: HostPlan, driver: Driver, console: Console) -> int:
    """Host a game with `driver` at our seat and return the exit code."""
    log = plan.log_path
    if log is not None and log.exists() and log.stat().st_size:
        raise UsageError(f"{log} already holds a log; use `zoo resume {log}` or another --log")
    key = load_key(plan.identity)
    if not plan.curve:
        console.print(Text("CURVE is off: traffic is readable on the network", style="red"))
    where = lan.listen_plan(plan.bind, plan.address)
    files = GameFiles(
        plan.log_path,
        storage.NetSidecar(
            role="host",
            port=plan.port,
            bind=plan.bind or lan.AUTO,
            curve=plan.curve,
            upnp=plan.upnp,
        ),
    )
    lan_driver = lan.LanDriver(driver)
    opts = HostOptions(
        players=plan.players,
        bind=where.bind,
        also_bind=where.also_bind,
        port=plan.port,
        curve=plan.curve,
        name=plan.name,
        team=plan.team,
        give_up=plan.give_up,
        hints=plan.hints,
    )
    host = Host(
        key=key,
        driver=lan_driver,
        make_session=session_factory(key),
        open_log=files.open_new,
        options=opts,
        make_genesis=genesis_factory(
            key,
            plan.variant,
            plan.first,
            Clocks(plan.move_time, plan.reveal_time),
            hints=plan.hints,
        ),
        fingerprint=fingerprint,
        address=where.advertise[0],
    )
    fp = fingerprint(raw_public(key))
    if plan.name == "you":  # zoo play: not "you are you"
        console.print(Text(f"your fingerprint: {fp}"))
    else:
        console.print(Text(f"you are {shown(plan.name, 40)} — fingerprint {fp}"))
    reach = lan.set_up_host(
        console,
        host,
        where,
        driver=lan_driver,
        name=plan.name,
        players=plan.players,
        variant=plan.variant.value,
        upnp=plan.upnp,
        announce=plan.announce,
        qr=plan.qr,
        hints=plan.hints,
        show_invite=plan.bots < plan.players - 1,  # a seat is open for a person
    )
    files.sidecar = dataclasses.replace(files.sidecar, port=host.port, invite=str(host.invite))
    if plan.invite_file is not None:
        tmp = plan.invite_file.with_name(plan.invite_file.name + ".tmp")
        tmp.write_text(str(host.invite) + "\n")
        tmp.replace(plan.invite_file)
    procs: list[subprocess.Popen[bytes]] = []
    # our bots keep their keys and logs with the game, so `zoo resume` can restart them; what
    # an earlier game left there (its log since deleted) is moved aside, never reused or deleted
    bots_dir, moved = bots_dir_for(plan.log_path)
    if moved is not None:  # a change to the user's files: said even with --quiet (on stderr)
        (Console(stderr=True, highlight=False) if console.quiet else console).print(
            Text(f"moved {shown(bots_dir)} (an earlier game's bots) aside to {shown(moved)}"),
            style="yellow",
            soft_wrap=True,  # two paths to copy: whole, never cut
        )
    files.sidecar = dataclasses.replace(
        files.sidecar, bots_dir=str(bots_dir), bot_level=plan.level, bot_count=plan.bots
    )
    here = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(where.bind, where.bind)
    local = host.invite.with_addresses([(here, host.port)])
    try:
        if plan.bots:  # our own bots come in over loopback whatever the invite says
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
        outcome = host.run()
    finally:
        reap(procs)
        reach.close()
        if not any(bots_dir.iterdir()):
            bots_dir.rmdir()
    return finish(host, outcome, files.path, console)


def run_join(
    invite_text: str | None,
    *,
    name: str,
    team: int | None,
    log_path: Path | None,
    identity: Path | None,
    give_up: float | None,
    driver: Driver,
    console: Console,
    ephemeral: bool,
    curve: bool = True,
    upnp: bool = False,
    refuse_hints: bool = False,
) -> int:
    """Join a game with `driver` at our seat; resumes if `log_path` already holds it.
    With no invite, look for games on the LAN and join the one picked (issue 11); with `upnp`,
    the router is asked (in the background) to forward our direct-link port; with
    `refuse_hints` (`--no-hints`) we leave a table that allows hints (PROTOCOL.md §3.2)."""
    if invite_text is None:
        invite = lan.pick_game(console, lan.BROWSE_SECONDS)
    else:
        try:
            invite = Invite.parse(invite_text, allow_no_curve=not curve)
        except InviteError as exc:
            raise UsageError(str(exc)) from None
    hint = lan.reach_hint(invite)
    if hint:
        console.print(Text(hint, style="yellow"))
    key = load_key(identity, ephemeral=ephemeral)
    session: Session | None = None
    sink: storage.LogWriter | None = None
    if log_path is not None and log_path.exists() and log_path.stat().st_size > 0:
        session, sink = resume_session(key, log_path)
        console.print(Text(f"resuming {shown(log_path)} from entry {len(session.entries)}"))
    files = GameFiles(log_path, storage.NetSidecar(role="join", invite=str(invite), upnp=upnp))
    joiner = _joiner(
        invite,
        key,
        driver,
        files,
        JoinOptions(
            name=name,
            team=team,
            give_up=give_up,
            curve=curve and invite.server_key != bytes(32),
            refuse_hints=refuse_hints,
        ),
        session,
        sink,
    )
    console.print(
        Text(
            f"joining {format_address((joiner.invite.host, joiner.invite.port))} "
            f"as {shown(name, 40)} "
            f"({fingerprint(raw_public(key))})…"
        )
    )
    mapping = lan.map_mesh_port(console, joiner, invite) if upnp else None
    try:
        joiner.catch_up()
        outcome = joiner.run()
    finally:
        if mapping is not None:
            mapping.close()
    if joiner.other_game and log_path is not None:  # not "to continue this game: zoo resume"
        raise NetError(
            f"{log_path} is the log of another game, and the host at this invite is gathering "
            "a new one: it turned us away; pass another --log (or move that file aside)"
        )
    return finish(
        joiner, outcome, files.path, console, key_kept=not (ephemeral and identity is None)
    )


def _joiner(
    invite: Invite,
    key: Ed25519PrivateKey,
    driver: Driver,
    files: GameFiles,
    options: JoinOptions,
    session: Session | None,
    sink: storage.LogWriter | None,
) -> Joiner:
    """A joiner whose sessions come from our key and whose new log goes where `files` says."""
    return Joiner(
        invite,
        key=key,
        driver=driver,
        make_session=session_factory(key),
        open_log=files.open_new,
        fingerprint=fingerprint,
        options=options,
        session=session,
        sink=sink,
    )


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
) -> int:
    """Continue an unfinished game from our log: as its host (rebind) or as a joiner."""
    key = load_key(identity)
    sidecar = storage.read_sidecar(log_path) or storage.NetSidecar(role="join")
    session, sink = resume_session(key, log_path)
    if session.finished:
        sink.close()
        console.print(
            Text(f"{shown(log_path)} holds a finished game; see `zoo verify {shown(log_path)}`")
        )
        return 0
    files = GameFiles(log_path, sidecar)
    link: Link
    procs: list[subprocess.Popen[bytes]] = []
    mapping: BackgroundMapping | None = None
    reach: lan.Reach | None = None
    if session.seat == 0:
        where = lan.listen_plan(bind or sidecar.bind, None)
        opts = HostOptions(
            players=len(session.seats),
            bind=where.bind,
            also_bind=where.also_bind,
            port=port or sidecar.port,
            curve=sidecar.curve,
            name=session.seats[0].name,
            give_up=give_up,
        )
        host = Host(
            key=key,
            driver=driver,
            make_session=session_factory(key),
            open_log=files.open_new,
            options=opts,
            make_genesis=lambda lobby: b"",
            fingerprint=fingerprint,
            session=session,
            sink=sink,
            address=where.advertise[0],
        )
        console.print(f"resuming as host from entry {len(session.entries)}")
        # the same addresses as before, and with --upnp the router asked again (bounded)
        reach = lan.set_up_host(
            console, host, where, driver=None, name=session.seats[0].name,
            players=len(session.seats), variant="", upnp=sidecar.upnp, announce=False, qr=False,
            show_invite=sidecar.bot_count < len(session.seats) - 1,  # a seat is a person's
        )  # fmt: skip
        here = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(where.bind, where.bind)
        local = host.invite.with_addresses([(here, host.port)])
        if sidecar.bots_dir and Path(sidecar.bots_dir).is_dir():
            bots_dir = Path(sidecar.bots_dir)
            procs = respawn(local, bots_dir, sidecar.bot_count, sidecar.bot_level)
            if procs:
                console.print(f"restarting our {len(procs)} bot(s)")
        host.start_if_ready()
        link = host
    else:
        text = invite_text or sidecar.invite
        if not text:
            sink.close()
            raise UsageError("no invite stored beside the log: pass --invite")
        try:
            invite = Invite.parse(text)
        except InviteError as exc:
            sink.close()
            raise UsageError(str(exc)) from None
        me = session.seats[session.seat] if session.seat is not None else None
        link = _joiner(
            invite,
            key,
            driver,
            files,
            JoinOptions(
                name=me.name if me else "player",
                team=int(me.team) if me else None,
                give_up=give_up,
                curve=invite.server_key != bytes(32),
            ),
            session,
            sink,
        )
        if sidecar.upnp:  # it joined with --upnp: ask the router again (in the background)
            mapping = lan.map_mesh_port(console, link, invite)
        link.catch_up()
    try:
        outcome = link.run()
    finally:
        reap(procs)
        if mapping is not None:
            mapping.close()
        if reach is not None:
            reach.close()
    return finish(link, outcome, log_path, console)
