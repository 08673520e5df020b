"""The one place a host and a joiner are built: `build_host` and `build_joiner`, each from one
complete setup, used by ``zoo host``, ``zoo join``, ``zoo bot``, ``zoo resume`` and the
networked ``zoo play`` (`zoo_p2p.cli.runners`). Nothing is set on a peer after it is built here:
its options, its sessions and log, its direct links (a router's mapping, Tor) and, for a host,
where it is reached (`lan.set_up_host`: the addresses in its invite, the router, the LAN
advert) all come from the setup.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console

from zoo_p2p.cli import lan
from zoo_p2p.driver import Driver
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import (
    EntrySink,
    Host,
    HostOptions,
    Joiner,
    JoinOptions,
    LobbySeat,
    raw_private,
)
from zoo_p2p.net.wire import derive_secret
from zoo_p2p.protocol.bodies import default_on_leave
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant


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


def genesis_factory(
    key: Ed25519PrivateKey,
    variant: Variant,
    first: int | None,
    clocks: Clocks | None = None,
    *,
    hints: bool = False,
    on_leave: str | None = None,
) -> Callable[[list[LobbySeat]], bytes]:
    """A function lobby -> signed genesis (with the clocks of PROTOCOL.md §10, `hints: true`
    when every seat may ask the expert, §3.2, and the table rule `on_leave`, §10.7: None for
    the default, play-on at 3–4 seats; a 2-seat game always ends)."""

    def make(lobby: list[LobbySeat]) -> bytes:
        seats = [SeatInfo(s.name, s.pub, Team(s.team)) for s in lobby]
        rule = default_on_leave(len(seats)) if on_leave is None or len(seats) < 3 else on_leave
        return Session.create_genesis(
            key, seats, variant, first, os.urandom(32), clocks, hints=hints, on_leave=rule
        )

    return make


@dataclass(frozen=True)
class Genesis:
    """What the genesis of a new game says besides its seats (PROTOCOL.md §3, §10)."""

    variant: Variant
    first: int | None  # None: drawn fairly
    clocks: Clocks
    hints: bool = False  # every seat may ask the expert (§3.2)
    on_leave: str | None = None  # the table rule (§10.7): None = play-on at 3–4 seats


@dataclass(frozen=True)
class Reaching:
    """Where a host listens and how it is reached: the listen plan (`lan.listen_plan`), the
    router (`upnp`), the LAN advert (`announce`, with the advert's `variant` word) and the
    invite on screen (`qr`; `show_invite` false: every other seat is one of our own bots)."""

    listen: lan.ListenPlan
    variant: str = ""
    upnp: bool = False
    announce: bool = False
    qr: bool = False
    show_invite: bool = True


@dataclass(frozen=True)
class HostSetup:
    """Everything a host is built from. `options.bind`, `also_bind` and `lobby` are taken from
    `reach` (its listen plan, and the LAN advert when it announces); `genesis` None: a resumed
    game, whose genesis is in `session`."""

    key: Ed25519PrivateKey
    driver: Driver
    options: HostOptions
    reach: Reaching
    open_log: Callable[[Session], EntrySink]
    genesis: Genesis | None = None
    session: Session | None = None
    sink: EntrySink | None = None
    mesh: lan.MeshSetup = field(default_factory=lan.MeshSetup)


@dataclass(frozen=True)
class JoinSetup:
    """Everything a joiner is built from: the invite it dials (over Tor: the forwarder's), and
    `session`/`sink` when it goes on with a game read back from its log."""

    invite: Invite
    key: Ed25519PrivateKey
    driver: Driver
    options: JoinOptions
    open_log: Callable[[Session], EntrySink]
    session: Session | None = None
    sink: EntrySink | None = None
    mesh: lan.MeshSetup = field(default_factory=lan.MeshSetup)


def _no_genesis(lobby: list[LobbySeat]) -> bytes:
    """A resumed host never writes a genesis: its game has one."""
    return b""


def build_host(setup: HostSetup, console: Console) -> tuple[Host, lan.Reach]:
    """The host `setup` describes, bound, with the addresses of its invite set, the router asked
    (``--upnp``), the invite printed and the LAN advert started; and what to undo at the end."""
    reach = setup.reach
    where = reach.listen
    advert = lan.LanAdvert(watchable=setup.options.spectators > 0) if reach.announce else None
    options = dataclasses.replace(
        setup.options, bind=where.bind, also_bind=where.also_bind, lobby=advert
    )
    g = setup.genesis
    host = Host(
        key=setup.key,
        driver=setup.driver,
        make_session=session_factory(setup.key),
        open_log=setup.open_log,
        options=options,
        make_genesis=_no_genesis
        if g is None
        else genesis_factory(
            setup.key, g.variant, g.first, g.clocks, hints=g.hints, on_leave=g.on_leave
        ),
        fingerprint=fingerprint,
        session=setup.session,
        sink=setup.sink,
        address=where.advertise,  # (those it cannot listen on are left out of the invite)
        mesh_setup=setup.mesh,  # as set up (Tor), unless the router maps a port (below)
    )
    undo = lan.set_up_host(
        console, host, where, advert=advert, name=options.name, players=options.players,
        variant=reach.variant, upnp=reach.upnp, announce=reach.announce, qr=reach.qr,
        hints=options.hints, show_invite=reach.show_invite,
    )  # fmt: skip
    if undo.mesh is not None:  # the router mapped our direct-link port (only once it mapped
        host.mesh_setup = undo.mesh  # the host's, after the bind): the card carries it
    return host, undo


def build_joiner(setup: JoinSetup) -> Joiner:
    """The joiner `setup` describes: its sessions from our key, a new log where `open_log`
    says, our direct links as `setup.mesh` says."""
    joiner = Joiner(
        setup.invite,
        key=setup.key,
        driver=setup.driver,
        make_session=session_factory(setup.key),
        open_log=setup.open_log,
        fingerprint=fingerprint,
        options=setup.options,
        session=setup.session,
        sink=setup.sink,
        mesh_setup=setup.mesh,
    )
    return joiner
