"""Join a networked game: `zoo join` and `zoo bot` (and `zoo play`'s joiner), with a driver at
our seat; return the exit code. The host's running and `zoo resume` are `zoo_p2p.cli.runners`'.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console
from rich.text import Text

from zoo_p2p import storage
from zoo_p2p.cli import lan
from zoo_p2p.cli.hosting import JoinSetup, build_joiner
from zoo_p2p.cli.runners import GameFiles, finish, load_key, resume_session, tor_mesh
from zoo_p2p.cli.tor import JoinRoute, TorPlan, joining_route, route_options, tor_reason
from zoo_p2p.driver import Driver
from zoo_p2p.errors import UsageError
from zoo_p2p.net.invite import Invite, InviteError, format_address
from zoo_p2p.net.peer import Joiner, JoinOptions, raw_public
from zoo_p2p.net.torlink import SocksForwarder
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.session import Session
from zoo_p2p.text import shown


@dataclass(frozen=True)
class _JoinPlan:
    """What `run_join` was asked for beyond the invite: our seat's options and the run's end."""

    name: str
    team: int | None
    give_up: float | None
    curve: bool
    upnp: bool
    refuse_hints: bool
    ephemeral: bool
    identity: Path | None
    log_path: Path | None
    bot_level: str | None
    spectators: int

    def options(self, invite: Invite, fwd: SocksForwarder | None) -> JoinOptions:
        """The joiner's options of this plan (the one place a plan becomes them), for the host
        at `invite`, reached straight or through Tor's forwarder `fwd`."""
        return JoinOptions(
            name=self.name,
            team=self.team,
            give_up=self.give_up,
            curve=self.curve and invite.server_key != bytes(32),
            refuse_hints=self.refuse_hints,
            **route_options(fwd, invite),
        )


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
    tor: TorPlan | None = None,
    bot_level: str | None = None,
    spectators: int = 0,
) -> int:
    """Join a game with `driver` at our seat (a bot of `bot_level`: `zoo bot`); resumes if
    `log_path` already holds it.
    With no invite, look for games on the LAN and join the one picked (issue 11); with `upnp`,
    the router is asked (in the background) to forward our direct-link port; with
    `refuse_hints` (`--no-hints`) we leave a table that allows hints (PROTOCOL.md §3.2)."""
    plan = _JoinPlan(
        name=name, team=team, give_up=give_up, curve=curve, upnp=upnp, refuse_hints=refuse_hints,
        ephemeral=ephemeral, identity=identity, log_path=log_path, bot_level=bot_level,
        spectators=spectators,
    )  # fmt: skip
    invite = _join_invite(invite_text, curve, console)
    key = load_key(identity, ephemeral=ephemeral)
    session: Session | None = None
    sink: storage.LogWriter | None = None
    if log_path is not None and log_path.exists() and log_path.stat().st_size > 0:
        session, sink = resume_session(key, log_path)
        console.print(Text(f"resuming {shown(log_path)} from entry {len(session.entries)}"))
    files = GameFiles(log_path, storage.NetSidecar(role="join", invite=str(invite), upnp=upnp))
    if tor is not None and tor.wanted:
        _refuse_over_tor(plan)
    with joining_route(console, tor or TorPlan(), invite) as route:
        return _run_joiner(plan, invite, route, key, driver, files, console, session, sink)


def _join_invite(invite_text: str | None, curve: bool, console: Console) -> Invite:
    """The invite given (`allow_no_curve` with --no-curve), or with none the game picked from
    the LAN's list; a hint said if its addresses may not be reachable from here."""
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
    return invite


def _refuse_over_tor(plan: _JoinPlan) -> None:
    """What a joiner over Tor cannot do: it would put our own address on the table."""
    if plan.upnp:
        raise UsageError(
            "--upnp puts your router's address on your card for the other players; over Tor "
            "it is hidden: leave out --upnp"
        )
    if plan.spectators:
        raise UsageError(
            "--spectators opens a watch port on your own address, which over Tor is hidden: "
            "leave out --spectators (spectators can watch through the host)"
        )


def _run_joiner(
    plan: _JoinPlan,
    invite: Invite,
    via: JoinRoute,
    key: Ed25519PrivateKey,
    driver: Driver,
    files: GameFiles,
    console: Console,
    session: Session | None,
    sink: storage.LogWriter | None,
) -> int:
    """`run_join` once the route to the host is known (`via.invite` is `invite` unless it goes
    through Tor's forwarder)."""
    route, fwd = via.invite, via.fwd
    mapped = lan.map_mesh_port(console, invite) if plan.upnp else None
    joiner = build_joiner(
        JoinSetup(
            invite=route,
            key=key,
            driver=driver,
            options=plan.options(invite, fwd),
            open_log=files.open_new,
            session=session,
            sink=sink,
            mesh=mapped[0] if mapped is not None else tor_mesh(via.mesh),
        )
    )
    where = joiner.invite if route is invite else invite  # over Tor: the onion, not 127.0.0.1
    me = fingerprint(raw_public(key))
    console.print(
        Text(
            f"joining {format_address((where.host, where.port))} as {shown(plan.name, 40)} ({me})…"
        )
    )
    if plan.spectators:
        _open_watch_port(joiner, plan.spectators, me, console)
    try:
        joiner.catch_up()
        outcome = joiner.run()
    finally:
        if mapped is not None:
            mapped[1].close()
    if not outcome.finished and fwd is not None:  # an onion we never reached: Tor's reason
        outcome = dataclasses.replace(outcome, reason=tor_reason(outcome.reason, fwd))
    if joiner.other_game and plan.log_path is not None:  # not "to continue: zoo resume"
        raise NetError(
            f"{plan.log_path} is the log of another game, and the host at this invite is "
            "gathering a new one: it turned us away; pass another --log (or move that file aside)"
        )
    key_kept = not (plan.ephemeral and plan.identity is None)
    return finish(
        joiner, outcome, files.path, console,
        key_kept=key_kept, identity=plan.identity, bot_level=plan.bot_level,
    )  # fmt: skip


def _open_watch_port(joiner: Joiner, spectators: int, me: str, console: Console) -> None:
    """TRANSPORT.md §12.6: our own watch port, so the host cannot hide the game; if it cannot
    be opened, the joiner is closed and the error goes on."""
    try:
        port = joiner.open_watch_port(spectators, me)
    except NetError:
        joiner.close()
        raise
    console.print(
        Text(f"spectators may watch through you (at most {spectators}): zoo watch {port.invite}"),
        soft_wrap=True,
    )
