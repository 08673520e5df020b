"""Reaching each other (issue 11): where the host listens, the invite on screen, LAN adverts,
picking a game found on the LAN, and the router's port mapping. The commands call these."""

from __future__ import annotations

import ipaddress
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo_p2p.errors import ZooError
from zoo_p2p.net.discovery import (
    Announcer,
    BrowseState,
    DiscoveryError,
    LiveBrowse,
    browse,
    interface_addresses,
    local_networks,
)
from zoo_p2p.net.invite import MAX_ADDRESSES, Invite, InviteError, format_address
from zoo_p2p.net.links import MeshSetup as MeshSetup  # (where the CLI has it from)
from zoo_p2p.net.mesh import FixedEndpoints, free_port
from zoo_p2p.net.portmap import (
    JOIN_DISCOVER_MS,
    BackgroundMapping,
    MappingError,
    PortMapper,
    advice,
)
from zoo_p2p.text import HINTS_ADVERT, must_prove, shown

if TYPE_CHECKING:
    from zoo_p2p.net.discovery import Advert
    from zoo_p2p.net.peer import Host, Link
    from zoo_p2p.tui.pick import Found

WILDCARDS = ("0.0.0.0", "*", "::", "[::]")
AUTO = "auto"  # what the .net sidecar keeps for "no --bind": every reachable address
BROWSE_SECONDS = 3.0


@dataclass
class ListenPlan:
    """Where the host binds and what its invite advertises."""

    bind: str
    also_bind: tuple[str, ...] = ()
    advertise: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def listen_plan(bind: str | None, address: str | None) -> ListenPlan:
    """No --bind: every reachable address of this machine (and 127.0.0.1 for our own bots);
    --bind ADDR: that address only (a wildcard: everything, advertising each interface);
    --address A[,B]: what the invite says instead (a VPN address, an SSH tunnel's server)."""
    shown_addrs = [a.strip().strip("[]") for a in (address or "").split(",") if a.strip()]
    if bind in (None, "", AUTO):
        mine = interface_addresses()
        plan = ListenPlan(bind="127.0.0.1", also_bind=tuple(mine), advertise=list(mine))
        if not mine:
            plan.advertise = ["127.0.0.1"]
            plan.notes.append("no network address found: only this machine can join")
    elif bind in WILDCARDS:
        wild = "::" if ":" in bind else "0.0.0.0"
        plan = ListenPlan(bind=wild, advertise=interface_addresses() or ["127.0.0.1"])
    else:
        plan = ListenPlan(bind=bind.strip("[]"), advertise=[bind.strip("[]")])
    if shown_addrs:
        plan.advertise = shown_addrs
    return plan


def private_only(hosts: list[str]) -> bool:
    """True when no advertised address can be reached from the internet."""
    for h in hosts:
        try:
            if ipaddress.ip_address(h).is_global:
                return False
        except ValueError:
            return False  # a DNS name: assume the user knows it is reachable
    return True


def reach_hint(invite: Invite) -> str | None:
    """A warning when no address of the invite is public or on one of this machine's networks:
    such a host can only be reached from its own network (or through a VPN or tunnel)."""
    nets = local_networks()
    for h, _ in invite.addresses:
        try:
            ip = ipaddress.ip_address(h)
        except ValueError:
            return None  # a DNS name: it may well resolve to something reachable
        if ip.is_global or any(ip.version == n.version and ip in n for n in nets):
            return None
    return (
        "every address in this invite is private and on none of your networks: unless they "
        "are routed to you, only the host's own network can reach them. If you are elsewhere, "
        "ask the host for --upnp, a VPN address (Tailscale, WireGuard) or a forwarded port."
    )


def print_invite(console: Console, invite: Invite, *, qr: bool = False) -> None:
    """The invite in lines of at most 72 characters cut after separators, and maybe a QR code."""
    console.print(Text("invite (give this to the other players):", style="bold"))
    for line in invite.lines():
        console.print(Text(line), soft_wrap=True, overflow="ignore", crop=False)
    if qr:
        console.print(Text(invite.qr()), soft_wrap=True, overflow="ignore", crop=False)


def say_listening(console: Console, listening: list[tuple[str, int]]) -> None:
    """One line: the addresses the host listens on."""
    where = ", ".join(format_address(a) for a in listening)
    console.print(Text(f"listening on {where}"))


# ----- LAN adverts --------------------------------------------------------------------------
def start_announcer(
    console: Console,
    invite: Invite,
    *,
    name: str,
    seats: int,
    variant: str,
    hints: bool = False,
) -> Announcer | None:
    """Advertise the game on the LAN interfaces the invite names (never on loopback alone)."""
    v4 = [
        h
        for h, _ in invite.addresses
        if _is_ip(h) and ":" not in h and not ipaddress.ip_address(h).is_loopback
    ]
    if not v4:
        return None
    return Announcer(
        invite, name=name, seats=seats, taken=1, variant=variant, interfaces=v4, hints=hints
    ).start()


def _is_ip(h: str) -> bool:
    try:
        ipaddress.ip_address(h)
    except ValueError:
        return False
    return True


def pick_game(
    console: Console, seconds: float, *, interactive: bool | None = None, watch: bool = False
) -> Invite:
    """Browse the LAN for `seconds`, list the games, return the invite of the one picked
    (`watch`: to watch it, so a full game may be picked too)."""
    if interactive is None:
        interactive = sys.stdin.isatty()
    console.print(Text(f"looking for games on the local network ({seconds:g} s)…"))
    t0 = time.monotonic()
    try:
        found = browse(seconds)
    except DiscoveryError as exc:
        raise ZooError(str(exc)) from None
    games, bad = found.games, found.dropped
    if not games:
        why = (
            f"mDNS multicast is blocked here: {shown(found.trouble, 120)}"
            if found.trouble
            else "is the host on this network? mDNS multicast may be blocked here"
        )
        text = f"no game found on the local network within {time.monotonic() - t0:.0f} s ({why})."
        if interactive:
            console.print(Text(text, style="yellow"))
            return paste_invite(console)
        raise ZooError(f"{text} Ask the host for the invite and run: zoo join INVITE")
    open_games = [g for g in games if g.free > 0 or watch]
    show_games(console, games)
    if bad:
        console.print(Text(f"({bad} malformed advert(s) ignored)", style="dim"))
    if not open_games:
        raise ZooError("every game found is full")
    if not interactive:
        if len(open_games) > 1:
            raise ZooError("several games found: ask your host for the invite and pass it")
        chosen = open_games[0]
    else:
        chosen = _ask(console, games, watch)
    console.print(Text(must_prove(chosen.name, chosen.fingerprint)))
    if chosen.hints:
        console.print(Text(HINTS_ADVERT))
    return chosen.invite


def lan_source(report: Callable[[Found], None]) -> Callable[[], None]:
    """The full-screen picker's browse: `zoo_p2p.net.discovery.LiveBrowse` in its own threads,
    each change handed to `report` as plain records (`zoo_p2p.tui.pick.Found`); returns the
    bounded stop (about 1 s at worst)."""
    from zoo_p2p.tui.pick import Found, LanGame

    def tell(state: BrowseState) -> None:
        games = tuple(
            LanGame(
                name=a.name,
                fingerprint=a.fingerprint,
                taken=a.taken,
                seats=a.seats,
                variant=a.variant,
                invite=str(a.invite),
                hints=a.hints,
            )
            for a in state.games
        )
        report(Found(games, state.dropped, state.trouble, state.error))

    return LiveBrowse(tell).start().close


def invite_problem(text: str) -> str | None:
    """Why `text` is not an invite, or None when it is one."""
    try:
        Invite.parse(text)
    except InviteError as exc:
        return str(exc)
    return None


def paste_invite(console: Console) -> Invite:
    """Read an invite pasted at the terminal, over as many lines as it takes (Enter alone: quit)."""
    console.print(Text("paste the invite the host gave you (an empty line to give up):"))
    got = ""
    while True:
        try:
            line = console.input("")
        except EOFError:
            line = ""
        if not line.strip():
            if got:
                try:
                    return Invite.parse(got)
                except InviteError as exc:
                    console.print(Text(f"that is not an invite: {exc}", style="yellow"))
                    got = ""
                    continue
            raise ZooError("no invite given")
        got += line[:4096]
        if len(got) > 8192:
            console.print(Text("that is far too long to be an invite; paste it again"))
            got = ""
            continue
        try:
            return Invite.parse(got)
        except InviteError:
            continue  # maybe the rest is on the next line


def show_games(console: Console, games: list[Advert]) -> None:
    """The list of games found: number, name, host fingerprint, seats, variant, and a hints
    column ("allowed") when a table allows hints."""
    t = Table(show_edge=False)
    hints = any(g.hints for g in games)
    for col in ("#", "host", "fingerprint", "seats", "variant", *(["hints"] if hints else [])):
        t.add_column(col)
    for i, g in enumerate(games, 1):
        seats = f"{g.taken}/{g.seats}" + (" full" if g.free <= 0 else "")
        t.add_row(
            Text(str(i)),
            Text(shown(g.name, 32)),
            Text(g.fingerprint),
            Text(seats),
            Text(g.variant),
            *([Text("allowed" if g.hints else "")] if hints else []),
        )
    console.print(t)


def _ask(console: Console, games: list[Advert], watch: bool = False) -> Advert:
    verb = "watch" if watch else "join"
    while True:
        try:
            raw = console.input(f"{verb} which game? (1-{len(games)}, Enter for 1) ")
        except EOFError:
            raise ZooError("no game picked") from None
        raw = raw.strip()[:8] or "1"
        ok = raw.isdigit() and 1 <= int(raw) <= len(games)
        if ok and (watch or games[int(raw) - 1].free > 0):
            return games[int(raw) - 1]
        which = "" if watch else " of a game with a free seat"
        console.print(Text(f"type a number from 1 to {len(games)}{which}"))


# ----- port mapping -------------------------------------------------------------------------
def map_port(
    console: Console, port: int, lan_hosts: list[str]
) -> tuple[PortMapper | None, tuple[str, int] | None]:
    """Ask the router to forward `port`; returns the mapper (to close) and the external address
    for the invite, or (None, None) after printing why it failed and what to do instead."""
    console.print(Text("asking the router to forward the port (UPnP)…"))
    pm = PortMapper(port)
    t0 = time.monotonic()
    try:
        m = pm.open()
    except MappingError as exc:
        lan = pm.lan_ip or next((h for h in lan_hosts if ":" not in h), None)
        console.print(
            Text(
                f"no port mapping: could not map port {port} on the router: {shown(str(exc), 200)}",
                style="yellow",
            )
        )
        console.print(Text("players outside this network cannot reach you; instead:"))
        for line in advice(port, lan):
            # prose wraps at word boundaries to the terminal's width (or the console's own way:
            # the app's messages console soft-wraps, its panel wraps); a command to copy
            # (indented) stays one line, whatever the width
            console.print(Text(line), soft_wrap=True if line.startswith("    ") else None)
        return None, None
    console.print(
        Text(
            f"router forwards {shown(m.external_ip, 46)}:{m.external_port} to "
            f"{shown(m.lan_ip, 46)}:{m.port} "
            f"({time.monotonic() - t0:.1f} s; lease "
            f"{'permanent' if not m.lease else f'{m.lease} s, renewed'}; removed at the end)"
        )
    )
    if private_only([m.external_ip]):
        console.print(
            Text(
                f"the router's own external address {shown(m.external_ip, 46)} is private: "
                "another NAT (your provider's) sits beyond it, so the mapping may not be reachable",
                style="yellow",
            )
        )
    return pm, (m.external_ip, m.external_port)


def _map_host_mesh(console: Console, mapper: PortMapper) -> MeshSetup | None:
    """The host's direct-link publisher gets a port of its own: map it on the same router, so
    the host's card carries the external endpoint too (TRANSPORT.md §10.2). Returns how the
    host's publisher is then reached (`zoo_p2p.cli.hosting` sets it), None if it cannot be."""
    try:
        port = free_port("0.0.0.0")
        m = mapper.add(port)
    except (OSError, MappingError) as exc:
        console.print(
            Text(
                f"could not map a port for the direct links: {shown(str(exc), 200)}; the "
                "other players will hear you only over the game port",
                style="yellow",
            )
        )
        return None
    console.print(
        Text(
            f"router forwards {shown(m.external_ip, 46)}:{m.external_port} to our direct links "
            f"({port})"
        )
    )
    return MeshSetup(port=port, more=FixedEndpoints(((m.external_ip, m.external_port),)))


def map_mesh_port(console: Console, invite: Invite) -> tuple[MeshSetup, BackgroundMapping] | None:
    """`zoo join --upnp`: pick our direct-link port now and ask the router to forward it in the
    background (joining never waits for it); our card gains the mapped endpoint when the router
    answers (within the mapper's bound). Returns what the joiner is built with, and the
    mapping to close at the end."""
    v6 = all(":" in h for h, _ in invite.addresses)
    try:
        port = free_port("::" if v6 else "0.0.0.0")
    except OSError as exc:
        console.print(
            Text(
                f"no port for the direct links ({shown(str(exc), 120)}): not asking the router; "
                "the other players will reach you only through the host",
                style="yellow",
            )
        )
        return None
    console.print(
        Text(f"asking the router to forward our direct-link port {port} (UPnP, in the background)…")
    )
    mapping = BackgroundMapping(port, discover_ms=JOIN_DISCOVER_MS)
    return MeshSetup(port=port, more=mapping), mapping


def say_links(console: Console, link: Link) -> None:
    """One line: which seats we heard directly, and at which endpoint (TRANSPORT.md §10)."""
    mesh = link.mesh
    if mesh is None or link.session is None:
        return
    parts = [
        f"{mesh.name(seat)} at {shown(via, 80)}" if via else f"{mesh.name(seat)}: none (host only)"
        for seat, via in mesh.links().items()
    ]
    if parts:
        console.print(Text("direct links: " + "; ".join(parts), style="dim"), soft_wrap=True)


# ----- the host's side, in one place ----------------------------------------------------------
class LanAdvert:
    """The LAN advert of a hosted table, following its lobby: the host is given it as
    `HostOptions.lobby` (a `zoo_p2p.driver.LobbyListener`); `set_up_host` starts the advert.
    The seat count stays current; once the table is full the advert is withdrawn, unless the
    host admits spectators (`watchable`): then it stays, full, until the game ends (`close`),
    so that `zoo watch` finds the game on the LAN (TRANSPORT.md §3.3)."""

    def __init__(self, *, watchable: bool = False) -> None:
        self.announcer: Announcer | None = None
        self.unannouncing: threading.Thread | None = None  # the advert being withdrawn
        self.watchable = watchable
        self.seats = 0  # seats at the table, once the lobby said it

    def lobby_changed(self, taken: int, need: int) -> None:
        """Count the seats taken in the advert."""
        self.seats = need
        if self.announcer is not None:
            self.announcer.update(taken)

    def game_started(self) -> None:
        """The table is full: nobody else can join. Watchable: every seat is taken in the
        advert, which stays; else stop advertising (in the background)."""
        if self.watchable and self.announcer is not None and self.seats:
            self.announcer.update(self.seats)
            return
        if self.announcer is not None:
            ann, self.announcer = self.announcer, None
            self.unannouncing = threading.Thread(
                target=ann.close, name="zoo-unannounce", daemon=True
            )
            self.unannouncing.start()

    def close(self) -> None:
        """Withdraw the advert now if it is still up; let a withdrawal under way finish
        (bounded)."""
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        if self.unannouncing is not None:
            self.unannouncing.join(5)  # a short game: let the goodbye go out (bounded)
            self.unannouncing = None


@dataclass
class Reach:
    """What the host set up to be reached: the advert and the port mapping, to undo at the end."""

    advert: LanAdvert | None = None
    mapper: PortMapper | None = None
    invite: Invite | None = None
    mesh: MeshSetup | None = None  # the host's direct-link port mapped too (--upnp)

    def close(self) -> None:
        """Withdraw the advert and remove the port mapping (each bounded)."""
        if self.advert is not None:
            self.advert.close()
        if self.mapper is not None:
            self.mapper.close()
            self.mapper = None


def set_up_host(
    console: Console,
    host: Host,
    plan: ListenPlan,
    *,
    advert: LanAdvert | None,
    name: str,
    players: int,
    variant: str,
    upnp: bool,
    announce: bool,
    qr: bool,
    hints: bool = False,
    show_invite: bool = True,
) -> Reach:
    """After the host socket is bound (its invite names every address of `plan.advertise` it
    could listen on): say where it listens, map the port if asked and add the mapped address
    to the invite, print it (lines, maybe QR; not when ``show_invite`` is false: every other
    seat is one of our own bots) and announce it on the LAN."""
    reach = Reach(advert=advert)
    port = host.port
    for note in plan.notes:
        console.print(Text(note, style="yellow"))
    listening = list(host.listening)
    say_listening(console, listening)
    failed = dict(host.not_listening)
    for h, why in failed.items():
        console.print(Text(f"cannot listen on {h} ({shown(why, 80)}); left out", style="yellow"))
    addrs = list(host.invite.addresses)
    if upnp:
        reach.mapper, mapped = map_port(console, port, plan.advertise)
        if mapped is not None and mapped not in addrs and len(addrs) < MAX_ADDRESSES:
            addrs.append(mapped)  # (only known once our port is bound and mapped)
            host.invite = host.invite.with_addresses(addrs)
        if reach.mapper is not None:
            reach.mesh = _map_host_mesh(console, reach.mapper)
    elif private_only(plan.advertise) and any(
        not ipaddress.ip_address(h).is_loopback for h in plan.advertise if _is_ip(h)
    ):
        console.print(
            Text(
                "your addresses are private: players on other networks cannot reach them "
                "(see --upnp, or docs/NETWORK.md)",
                style="dim",
            )
        )
    reach.invite = host.invite
    if show_invite or qr:
        print_invite(console, host.invite, qr=qr)
    if announce and advert is not None:
        advert.announcer = start_announcer(
            console, host.invite, name=name, seats=players, variant=variant, hints=hints
        )
    return reach
