"""`--tor`, `--tor-control` and `--tor-socks`: hosting on an onion service and joining one
(issue 22; TRANSPORT.md §3.5). The Tor work is in zoo_p2p/net/onion.py (stem) and
zoo_p2p/net/torlink.py (the SOCKS forwarder); this module is the commands' glue and words."""

from __future__ import annotations

import contextlib
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from rich.console import Console
from rich.text import Text

from zoo_p2p.errors import UsageError
from zoo_p2p.net.core.joiner import JoinOptions
from zoo_p2p.net.invite import Address, Invite, InviteError, format_address, parse_address
from zoo_p2p.net.mesh import FixedEndpoints, MoreEndpoints
from zoo_p2p.net.onion import OnionEndpoints, OnionService, TorControl, TorError
from zoo_p2p.net.torlink import SocksForwarder, is_onion

OVER_TOR = "over Tor: your address is hidden from the other players"
# seconds a joiner tries an onion before it gives up (--give-up wins): a first circuit to an
# onion takes a few seconds, and up to a minute on a slow day on the real network
TOR_CONNECT_GIVE_UP = 90.0


class RouteOptions(TypedDict):
    """The `JoinOptions` that depend on the route to the host: straight, or Tor's forwarder."""

    shown_as: str | None
    route_phase: Callable[[], str] | None
    route_reached: Callable[[], int] | None
    connect_give_up: float


def route_options(fwd: SocksForwarder | None, invite: Invite) -> RouteOptions:
    """How a joiner or a spectator names the host, reports the circuit, counts failed
    handshakes and how long it tries: straight (`fwd` None) or through Tor's forwarder."""
    if fwd is None:
        return RouteOptions(
            shown_as=None,
            route_phase=None,
            route_reached=None,
            connect_give_up=JoinOptions.connect_give_up,
        )
    return RouteOptions(
        shown_as=format_address((invite.host, invite.port)),
        route_phase=fwd.phase,
        route_reached=fwd.reached,
        connect_give_up=TOR_CONNECT_GIVE_UP,
    )


@dataclass(frozen=True)
class TorMesh:
    """Our direct links over Tor (TRANSPORT.md §10.9): our publisher on 127.0.0.1:PORT, our
    card naming only `more` (our onion, None: no card), onions dialled through `socks`. A peer
    is built with it by `zoo_p2p.cli.hosting` (`runners.tor_mesh`)."""

    port: int
    more: MoreEndpoints | None
    socks: tuple[str, int] | None


@dataclass(frozen=True)
class HostRoute:
    """A published onion for the game port and the direct-link port, and how we dial."""

    onion: OnionService
    mesh: TorMesh


@dataclass(frozen=True)
class JoinRoute:
    """How a joiner reaches an onion host: the invite to connect with (the forwarder's
    loopback port), the forwarder, and our direct links over Tor (None: not over Tor)."""

    invite: Invite
    fwd: SocksForwarder | None = None
    mesh: TorMesh | None = None


def _socks_of(tc: TorControl) -> tuple[str, int] | None:
    try:
        return tc.socks_port()
    except TorError:
        return None  # a Tor without SocksPort: we hear the others over our own links only


@dataclass(frozen=True)
class TorPlan:
    """How a command reaches Tor: a tor it starts itself, or one the user names."""

    launch: bool = False
    control: Address | None = None  # a running Tor's control port (host)
    socks: Address | None = None  # a running Tor's SOCKS port (joiner)

    @property
    def wanted(self) -> bool:
        return self.launch or self.control is not None or self.socks is not None


def tor_plan(launch: bool, control: str | None = None, socks: str | None = None) -> TorPlan:
    """The plan from the options, or UsageError naming the bad one."""

    def addr(text: str | None, opt: str) -> Address | None:
        if text is None:
            return None
        try:
            return parse_address(text.strip())
        except InviteError as exc:
            raise UsageError(f"{opt}: {exc}") from None

    return TorPlan(
        launch=launch, control=addr(control, "--tor-control"), socks=addr(socks, "--tor-socks")
    )


class _Line:
    """One updating status line (rich's status where there is a terminal)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.status = console.status("") if console.is_terminal and not console.quiet else None
        self.last = ""

    def __call__(self, text: str) -> None:
        self.last = text
        if self.status is not None:
            self.status.update(Text(text))

    def __enter__(self) -> _Line:
        if self.status is not None:
            self.status.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.stop()


def _controller(console: Console, plan: TorPlan, line: _Line) -> tuple[TorControl, Path | None]:
    if plan.control is not None:
        return TorControl.connect(*plan.control), None
    data_dir = Path(tempfile.mkdtemp(prefix="zoo-tor-"))
    try:
        return TorControl.launch(data_dir / "tor", line), data_dir
    except BaseException:
        shutil.rmtree(data_dir, ignore_errors=True)
        raise


def free_local_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tor_reason(outcome_reason: str, fwd: SocksForwarder | None) -> str:
    """A failed run's reason, with what Tor said when it never let us through."""
    if fwd is None or fwd.successes or not fwd.last_error:
        return outcome_reason
    why = fwd.last_error.rsplit(": ", 1)[-1]  # the reason alone: the onion is named already
    return f"{outcome_reason} (Tor says: {why})"


@contextlib.contextmanager
def hosting_onion(console: Console, plan: TorPlan, port: int) -> Iterator[HostRoute]:
    """Publish an onion for 127.0.0.1:PORT (the same port on the onion; 0: a free one, picked
    once Tor runs, since a tor we start takes free ports too) and for our direct links' port,
    for the block's time."""
    t0 = time.monotonic()
    data_dir: Path | None = None
    tc: TorControl | None = None
    try:
        with _Line(console) as line:
            try:
                tc, data_dir = _controller(console, plan, line)
                port = port or free_local_port()
                mesh_port = free_local_port()
                onion = tc.publish(port, port, line, also=(mesh_port,))
                socks = _socks_of(tc)
            except TorError as exc:
                raise UsageError(str(exc)) from None
        console.print(
            Text(
                f"onion service published in {time.monotonic() - t0:.0f} s: "
                f"{format_address((onion.host, onion.port))}\n{OVER_TOR}"
            ),
            soft_wrap=True,
        )
        more = FixedEndpoints(((onion.host, mesh_port),))
        yield HostRoute(onion, TorMesh(mesh_port, more, socks))
    finally:
        if tc is not None:
            tc.close()
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)


@contextlib.contextmanager
def joining_route(
    console: Console, plan: TorPlan, invite: Invite, *, publish: bool = True, verb: str = "joining"
) -> Iterator[JoinRoute]:
    """The invite to connect with, the forwarder and our direct links over Tor: an onion
    invite goes through a loopback SOCKS forwarder to the Tor client (never libzmq's SOCKS
    connecter, TRANSPORT.md §3.5), and with a Tor we started we publish an onion of our own
    for our direct links (§10.9; not with `publish` False: a spectator publishes nothing);
    any other invite as is."""
    onion = [a for a in invite.addresses if is_onion(a[0])]
    if not onion:
        yield JoinRoute(invite)
        return
    if not plan.wanted:
        raise UsageError(
            f"this invite is an onion address: {verb.removesuffix('ing')} with --tor (starts tor) "
            "or --tor-socks HOST:PORT (a running Tor's SOCKS port)"
        )
    tc: TorControl | None = None
    data_dir: Path | None = None
    fwd: SocksForwarder | None = None
    try:
        more: MoreEndpoints | None = None
        mesh_port = 0
        if plan.socks is not None:
            socks = plan.socks
        else:
            with _Line(console) as line:
                try:
                    tc, data_dir = _controller(console, plan, line)
                    socks = tc.socks_port()
                    if publish:
                        mesh_port = free_local_port()
                        # published while we join: our card names it once it is up (§10.9)
                        more = OnionEndpoints(tc.start_onion({mesh_port: mesh_port}), mesh_port)
                except TorError as exc:
                    raise UsageError(str(exc)) from None
        host, port = onion[0]
        fwd = SocksForwarder(socks, host, port)
        console.print(Text(f"{verb} {format_address((host, port))} {OVER_TOR}"), soft_wrap=True)
        if more is None and publish:
            console.print(
                Text(
                    "no onion of your own through --tor-socks (it needs a Tor zoo starts, "
                    "--tor): the other players hear you through the host"
                ),
                soft_wrap=True,
            )
        route = invite.with_addresses([("127.0.0.1", fwd.local_port)])
        yield JoinRoute(route, fwd, TorMesh(mesh_port, more, socks))
    finally:
        if fwd is not None:
            fwd.close()
        if tc is not None:
            tc.close()
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)
