"""The transport: the host (a ZeroMQ ROUTER) and joiners (a DEALER) as sockets around their cores.

`Host` is `HostCore` (zoo_p2p.net.core.host) and `Joiner` is `JoinerCore`
(zoo_p2p.net.core.joiner) with their zmq sockets, the monitor sockets that say which TCP
connection came and went, the CURVE authenticator, and the direct links' sockets. Single-threaded:
`run()` is one `zmq.Poller` loop (zoo_p2p.net.loop) that reads the clock once per turn and feeds
the core. This module only moves bytes: every decision about them is the core's, and only here
(and in zoo_p2p.net.loop, mesh, tcp) are zmq, sockets and the clock touched.
See protocol/TRANSPORT.md for the messages.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, Unpack

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from zoo_p2p.driver import Driver, NullDriver, Outcome, SeatPresence
from zoo_p2p.net import loop, router, tcp, wire
from zoo_p2p.net.core.conns import FLOOD_SLACK, WATCH_EVERY, _Fd
from zoo_p2p.net.core.host import HINTS_DECLINED, HINTS_REFUSED, HOST_DECLINED, HostCore
from zoo_p2p.net.core.joiner import JoinerCore, JoinOptions
from zoo_p2p.net.core.lobby import OTHER_GAME, HostOptions, LobbySeat, _Conn
from zoo_p2p.net.core.parts import Trace
from zoo_p2p.net.core.peer import (
    AHEAD,
    CHECKS_BURST,
    CHECKS_PER_S,
    DROP_COST,
    EntrySink,
    LinkParts,
    PeerCore,
    raw_private,
    raw_public,
)
from zoo_p2p.net.early import EarlyLinks, lobby_links, lobby_wanted
from zoo_p2p.net.invite import MAX_ADDRESSES, Invite, close_monitored, first_reachable
from zoo_p2p.net.links import MeshSetup
from zoo_p2p.net.loop import LoopPeer
from zoo_p2p.net.mesh import Mesh, SocketOwner, advertise_for
from zoo_p2p.net.seatwatch import WatchPort
from zoo_p2p.net.wire import NetError

__all__ = [
    "AHEAD",
    "CHECKS_BURST",
    "CHECKS_PER_S",
    "DROP_COST",
    "HINTS_DECLINED",
    "HINTS_REFUSED",
    "HOST_DECLINED",
    "LEAVE_ACK_WAIT",
    "OTHER_GAME",
    "Driver",
    "EntrySink",
    "Host",
    "HostOptions",
    "JoinOptions",
    "Joiner",
    "Link",
    "LobbySeat",
    "NetError",
    "NullDriver",
    "Outcome",
    "PeerCore",
    "SeatPresence",
    "_Conn",
    "raw_private",
    "raw_public",
]

log = logging.getLogger("zoo_p2p.net")

HEARTBEAT_IVL_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000
HEARTBEAT_TTL_MS = 6000
SNDHWM = 10_000
RCVHWM = 1_000  # messages queued per link before libzmq stops reading its socket (≤ 1 GiB)
NO_CURVE = bytes(32)  # the invite's key when the host runs without CURVE (debugging only)
# Bounds on what any one client can make the host hold (protocol/TRANSPORT.md §9).
HANDSHAKE_IVL_MS = 5000  # a TCP connection must finish the ZMTP/CURVE handshake within this
LEAVE_ACK_WAIT = 1.5  # seconds a leaving joiner waits for the host's farewell (TRANSPORT.md §6)


def _bracket(addr: str) -> str:
    return f"[{addr}]" if ":" in addr and not addr.startswith("[") else addr


def _set_common(sock: zmq.Socket[bytes]) -> None:
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_FRAME)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TTL, HEARTBEAT_TTL_MS)
    sock.setsockopt(zmq.SNDHWM, SNDHWM)
    sock.setsockopt(zmq.RCVHWM, RCVHWM)


class _TransportPeer(SocketOwner, Protocol):
    """What `_Transport`'s methods use of the peer they run in (a core with its transport)."""

    driver: Driver
    now: float
    mesh: Mesh | None
    trace: Trace
    _mesh_on: bool
    _fresh: bool
    ctx: zmq.Context[zmq.Socket[bytes]]
    mesh_setup: MeshSetup
    _mapping_told: bool
    _idle_wake: float


class _Transport:
    """What both transports hold beside their core, set up in one place (`_open_transport`):
    the ZeroMQ context and the poller of the loop, how our direct-link publisher is reached
    (`mesh_setup`: its port, the endpoints a router maps or our onion, Tor), the trace of
    bench/bench_net.py and the loop's idle wake-up; and what both do alike: run the loop, say
    what the router answered, make and close the direct links."""

    ctx: zmq.Context[zmq.Socket[bytes]]
    poller: zmq.Poller
    mesh: Mesh | None  # the direct links over ZeroMQ (the loop polls their sockets)
    mesh_setup: MeshSetup
    _mapping_told: bool  # what `mesh_setup.more` found out was told (`tell_mapping`)
    _idle_wake: float

    def _open_transport(self: _TransportPeer, mesh_setup: MeshSetup | None) -> None:
        self.ctx = zmq.Context()
        self.poller = zmq.Poller()
        self.mesh_setup = mesh_setup or MeshSetup()
        self._mapping_told = False
        self.trace = loop.trace_from_env() or self.trace
        self._mesh_on = loop.mesh_wanted()
        self._idle_wake = WATCH_EVERY

    def run(self: LoopPeer, deadline: float | None = None) -> Outcome:
        """Run the loop until the game is over, we give up, or `deadline` (monotonic) passes."""
        return loop.run(self, deadline)

    def tell_mapping(self: _TransportPeer) -> None:
        """Once the router has answered (`mesh_setup.more` ready), say once why there is no
        mapping, if there is none: as soon as it is known, in the lobby too (the mesh, made
        when the game starts, only takes the endpoints). A game over before the router
        answers says nothing."""
        more = self.mesh_setup.more
        if self._mapping_told or more is None or not more.ready():
            return
        self._mapping_told = True
        for line in more.note():
            self.mesh_notice(line)

    def _open_mesh(
        self: _TransportPeer,
        bind: str | list[str],
        advertise: str | list[str],
        curve: bool,
        early: EarlyLinks | None = None,
    ) -> None:
        """Make our direct links (a publisher and subscribers: sockets); `early`: the
        publisher and hinted subscriptions we started in the lobby (TRANSPORT.md §10.10)."""
        setup = self.mesh_setup
        if setup.hidden:  # over Tor: nothing but our onion (in `more`) on our card
            bind, advertise = "127.0.0.1", []
        try:
            self.mesh = Mesh(
                self,
                bind=bind,
                advertise=advertise,
                curve=curve,
                port=setup.port,
                more=setup.more,
                fresh=self._fresh,
                ctx=self.ctx,
                clock=lambda: self.now,  # the loop turn's time: the loop reads the clock
                hidden=setup.hidden,
                socks=setup.socks,
                early=early,
            )
        except zmq.ZMQError as exc:
            self._mesh_on = False
            self.driver.on_notice(f"no direct links (cannot listen on {bind}: {exc})")

    def _close_transport(self: _TransportPeer) -> None:
        """What is left once the monitored socket is closed: the mesh, then the context."""
        if self.mesh is not None:
            self.mesh.close()
        self.ctx.destroy(linger=0)


class Host(HostCore, _Transport):
    """The host: binds a ROUTER and feeds what comes on it to the host's core."""

    mesh: Mesh | None

    def __init__(
        self,
        *,
        make_genesis: Callable[[list[LobbySeat]], bytes],
        fingerprint: Callable[[bytes], str],
        options: HostOptions,
        address: str | Sequence[str] = "127.0.0.1",
        mesh_setup: MeshSetup | None = None,
        **parts: Unpack[LinkParts],
    ) -> None:
        server_pub_z85, server_secret = router.server_curve_keys(parts["key"])
        # with CURVE off the invite carries an all-zero key, which also tells joiners so
        server_pub = z85.decode(server_pub_z85) if options.curve else NO_CURVE
        parts["now"] = time.monotonic()
        super().__init__(
            make_genesis=make_genesis,
            fingerprint=fingerprint,
            options=options,
            server_pub=server_pub,
            **parts,
        )
        self._open_transport(mesh_setup)
        self.server_pub_z85 = server_pub_z85
        self.auth: ThreadAuthenticator | None = None
        self.sock, self.monitor = self._router(options, server_secret)
        self.port = self._bind(options)
        self.invite = self._invite(address, server_pub, fingerprint(self.pub))
        self.poller.register(self.sock, zmq.POLLIN)
        self.poller.register(self.monitor, zmq.POLLIN)

    def _invite(self, address: str | Sequence[str], server_pub: bytes, fp: str) -> Invite:
        """Our invite: every address of `address` on our port, but those we failed to listen
        on (`not_listening`), at most MAX_ADDRESSES (none left: 127.0.0.1)."""
        failed = dict(self.not_listening)
        wanted = [address] if isinstance(address, str) else list(address)
        addrs = [(h, self.port) for h in wanted if h not in failed] or [("127.0.0.1", self.port)]
        first = Invite(host=addrs[0][0], port=self.port, server_key=server_pub, fingerprint=fp)
        return first.with_addresses(addrs[:MAX_ADDRESSES])

    def _router(
        self, options: HostOptions, server_secret: bytes
    ) -> tuple[zmq.Socket[bytes], zmq.Socket[bytes]]:
        """Our ROUTER (not bound yet; with CURVE on, its authenticator started) and the
        socket that monitors it."""
        sock = self.ctx.socket(zmq.ROUTER)
        _set_common(sock)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        # No ROUTER_HANDOVER: a client-chosen routing id must never take over another link
        # (and repeated handovers made libzmq abort). Links are bound to their CURVE key and fd.
        sock.setsockopt(zmq.ROUTER_HANDOVER, 0)
        sock.setsockopt(zmq.HANDSHAKE_IVL, HANDSHAKE_IVL_MS)
        self.nofile = tcp.raise_nofile()
        if options.curve:
            self.auth = ThreadAuthenticator(self.ctx)
            self.auth.start()
            self.auth.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
            sock.curve_secretkey = server_secret
            sock.curve_publickey = self.server_pub_z85
            sock.curve_server = True
        # monitored before the bind, so a failed bind closes it as close() always does
        monitor = sock.get_monitor_socket(
            zmq.EVENT_ACCEPTED
            | zmq.EVENT_DISCONNECTED
            | zmq.EVENT_CLOSED
            | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
            | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_AUTH
        )
        return sock, monitor

    def _bind(self, options: HostOptions) -> int:
        """Listen on `options.bind` (and, same port, on `also_bind`); the port."""
        if any(":" in b for b in (options.bind, *options.also_bind)):
            self.sock.setsockopt(zmq.IPV6, 1)
        addr = options.bind
        try:
            if options.port:
                self.sock.bind(f"tcp://{_bracket(addr)}:{options.port}")
                port = options.port
            else:
                port = self.sock.bind_to_random_port(f"tcp://{_bracket(addr)}")
        except zmq.ZMQError as exc:
            self.close()
            raise NetError(f"cannot listen on {addr} port {options.port}: {exc}") from None
        self.listening = [(options.bind, port)]  # what `zoo host` says it listens on
        self.not_listening: list[tuple[str, str]] = []  # (address, why) of extra binds that failed
        for extra in options.also_bind:  # an address that went away is skipped, not fatal
            try:
                self.sock.bind(f"tcp://{_bracket(extra)}:{port}")
                self.listening.append((extra, port))
            except zmq.ZMQError as exc:
                self.not_listening.append((extra, str(exc)))
        return port

    # ----- the core's I/O ---------------------------------------------------------------
    def _send(self, rid: bytes, data: bytes) -> bool:
        try:
            self.sock.send_multipart([rid, data], flags=zmq.NOBLOCK)
        except zmq.ZMQError as exc:  # EHOSTUNREACH (gone) or EAGAIN (queue full)
            log.info("cannot send to %s: %s", rid.hex()[:8], exc)
            self._unreachable(rid)
            return False
        return True

    def _shut(self, fd: int) -> bool:
        return tcp.shutdown_tcp(fd, self.port)

    def _tcp_received(self, fd: int) -> int | None:
        return tcp.tcp_bytes_received(fd, self.port)

    def _start_mesh(self) -> None:
        # every address we listen on, advertising those of the invite that are ours
        binds = [_bracket(h) for h, _ in self.listening]
        ours = [h for h, p in self.invite.addresses if p == self.port and h in dict(self.listening)]
        self._open_mesh(binds, ours or self.invite.host, self.options.curve)

    # ----- receiving --------------------------------------------------------------------
    def on_socket(self, sock: Any) -> None:
        """Drain the ROUTER (or its monitor)."""
        if sock is self.monitor:
            self._on_monitor()
            return
        for _ in range(1000):
            try:
                frames = self.sock.recv_multipart(flags=zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            try:
                self._on_frames(frames)
            except Exception:  # a bug must not let one peer's message stop the game
                self.dropped += 1
                log.exception("dropped a message that made us fail")

    def _on_frames(self, frames: list[Any]) -> None:
        rid, parts, curve, fd = router.origin(frames, self.options.curve)  # (None: no hello)
        if fd >= 0 and fd not in self.fds:  # accepted before the monitor told us (or no monitor)
            self.fds[fd] = _Fd(self.now, tcp.peer_of(fd))
        self.receive(rid, parts, self.now, curve=curve, fd=fd)

    def _on_monitor(self) -> None:
        for ev, value in router.monitor_events(self.monitor):
            if ev == zmq.EVENT_ACCEPTED:
                known = self.fds.get(value)
                peer = tcp.peer_of(value) if known is None or known.rid is None else known.peer
                self.fd_accepted(value, peer, self.now)
            elif ev in (zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED):
                self.fd_closed(value)
            elif ev in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_AUTH):
                # (NO_DETAIL is a connection that went away mid-handshake, e.g. an address probe)
                self._once(
                    "handshake",
                    "a joiner failed the secure handshake: the key in its invite is not this "
                    "host's (or it is not a zoo peer)",
                )

    def close(self) -> None:
        """Stop the authenticator, then close the socket (short linger so the last bye leaves)."""
        try:
            self.goodbye()
            close_monitored(self.sock, self.monitor, linger=200)
        finally:
            if self.auth is not None:
                self.auth.stop()
                self.auth = None
            self._close_transport()
            super().close()


class Joiner(JoinerCore, _Transport):
    """A joiner: connects a DEALER and feeds what the host sends to the joiner's core; libzmq
    reconnects by itself."""

    mesh: Mesh | None

    def __init__(
        self,
        invite: Invite,
        *,
        fingerprint: Callable[[bytes], str],
        options: JoinOptions,
        mesh_setup: MeshSetup | None = None,
        **parts: Unpack[LinkParts],
    ) -> None:
        pub_z85, sec_z85 = zmq.curve_keypair()
        parts["now"] = time.monotonic()
        super().__init__(
            invite, fingerprint=fingerprint, options=options, curve_pub=z85.decode(pub_z85), **parts
        )
        self._open_transport(mesh_setup)
        self._early: EarlyLinks | None = None  # our links started in the lobby (§10.10)
        self._fd = -1  # libzmq's file descriptor of our connection to the host (flood guard)
        self._fd_seen = 0
        self._last_watch = 0.0
        self.sock = self.ctx.socket(zmq.DEALER)
        _set_common(self.sock)
        # A fresh random routing id per socket: the host never trusts it (links are bound to
        # CURVE keys), and nobody else can learn it (CURVE encrypts the handshake metadata).
        self.sock.setsockopt(zmq.ROUTING_ID, b"z" + os.urandom(15))
        self.sock.setsockopt(zmq.RECONNECT_IVL, 100)
        self.sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        if options.curve:
            self.sock.curve_secretkey = sec_z85
            self.sock.curve_publickey = pub_z85
            self.sock.curve_serverkey = z85.encode(invite.server_key)
        self.monitor = self.sock.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED
            | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
            | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_AUTH
            | zmq.EVENT_DISCONNECTED
            | zmq.EVENT_CONNECTED
        )
        self.poller.register(self.sock, zmq.POLLIN)
        self.poller.register(self.monitor, zmq.POLLIN)
        if invite.also:  # several addresses: connect to the first that answers (issue 11)
            self.invite = invite = first_reachable(invite, self.driver.on_notice)
        if ":" in invite.host:
            self.sock.setsockopt(zmq.IPV6, 1)
        self.sock.connect(invite.endpoint)
        self.now = time.monotonic()
        self.began(self.now)
        if not options.curve:  # no handshake event to wait for with NULL security
            self._greet()

    def open_watch_port(self, most: int, fingerprint: str) -> WatchPort:
        """Let up to `most` spectators in through a watch port of our own (TRANSPORT.md §12.6)."""
        port = WatchPort.open(self, self.poller, most, fingerprint)
        self.watchport = port
        return port

    # ----- the core's I/O ---------------------------------------------------------------
    def _send(self, data: bytes) -> None:
        try:
            self.sock.send(data, flags=zmq.NOBLOCK)
            self._last_tx = self.now
        except zmq.ZMQError as exc:
            log.info("cannot send to the host now: %s", exc)

    def _start_mesh(self) -> None:
        early, self._early = self._early, None
        if early is not None:  # our publisher is bound already (its hint went out)
            self._open_mesh(early.bind, early.advertise, self.options.curve, early)
            if self.mesh is None:
                early.close()
            return
        bind, advertise = advertise_for(self.invite.host)
        if self.mesh_setup.more is not None:  # a router forwards our port: every address
            bind = "[::]" if bind.startswith("[") else "0.0.0.0"
        self._open_mesh(bind, advertise, self.options.curve)

    def _lobby_hint(self) -> tuple[str, bytes] | None:
        """Bind our publisher now, in the lobby, and hint where it is (TRANSPORT.md §10.10):
        not over Tor (a dial would tell our address), not with a port mapped beforehand (its
        card comes later), not with the mesh off or `ZOO_LOBBY_HINTS=0` (for measurements)."""
        if self._early is not None or not lobby_wanted(self.mesh_setup, self._mesh_on):
            return None
        bind, advertise = advertise_for(self.invite.host)
        self._early = lobby_links(self.ctx, bind, advertise, self.options.curve)
        return None if self._early is None else self._early.hint()

    def _on_link_hints(self, pairs: list[tuple[str, bytes]]) -> None:
        if self._early is not None:
            self._early.connect(pairs)

    def tick(self, now: float) -> None:
        """Watch the connection for bytes that are no message, then the core's periodic work."""
        if now - self._last_watch >= WATCH_EVERY:
            self._watch_host(now)
        super().tick(now)
        if isinstance(self.watchport, WatchPort):
            self.watchport.tick(now)

    def _watch_host(self, now: float) -> None:
        """Cut the connection if the host sends bytes that never become a message (an endless
        multipart message sits inside libzmq); the DEALER then reconnects by itself."""
        self._last_watch = now
        if self._fd < 0:
            return
        got = tcp.tcp_bytes_received(self._fd, self.invite.port, remote=True)
        flooded = got is not None and got - self._fd_seen > FLOOD_SLACK
        if flooded and tcp.shutdown_tcp(self._fd, self.invite.port, remote=True):
            self._fd = -1
            self.dropped += 1
            msg = f"the host sent {(got or 0) >> 20} MiB that are no message; reconnecting"
            log.warning("%s", msg)
            self.driver.on_notice(msg)

    # ----- receiving --------------------------------------------------------------------
    def on_socket(self, sock: Any) -> None:
        """Drain the DEALER or the monitor."""
        if isinstance(self.watchport, WatchPort) and self.watchport.owns(sock):
            self.watchport.on_socket(sock, self.now)
            return
        if sock is self.monitor:
            self._on_monitor()
            return
        self._drain()
        if isinstance(self.watchport, WatchPort):
            self.watchport.flush()

    def _drain(self) -> None:
        """Read what the host sent, up to 1000 messages (the rest at the next turn)."""
        for _ in range(1000):
            try:
                parts = self.sock.recv_multipart(flags=zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            frames = [p.bytes for p in parts]
            if router.srcfd(parts[-1]) == self._fd:
                self._fd_seen += sum(len(f) + 64 for f in frames)
            self.receive(frames, self.now)
            if self.stopped is not None:
                return

    def _on_monitor(self) -> None:
        for ev, value in router.monitor_events(self.monitor):
            if ev == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self.linked()
            elif ev in (
                zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL,
                zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL,
                zmq.EVENT_HANDSHAKE_FAILED_AUTH,
            ):
                self.handshake_failed()
                if self.stopped is not None:
                    return
            elif ev == zmq.EVENT_DISCONNECTED:
                # what the host sent before it closed comes first: its `leave` (or `bye`)
                # explains the disconnect, and the closing line says "the host left"
                if self.stopped is None:
                    self._drain()
                self.unlinked()
            elif ev == zmq.EVENT_CONNECTED:
                self._fd, self._fd_seen = value, 0
                if not self.options.curve:
                    self.linked(secure=False)

    # ----- closing ----------------------------------------------------------------------
    def close(self) -> None:
        """Say `leave` if we stop before the end and wait (at most LEAVE_ACK_WAIT) for the
        host's `farewell`, so the others show our seat as left, not lost, even when our link
        was reconnecting; `leave_heard` says whether it came. Then close."""
        try:
            leave = self.closing_leave()
            if leave is not None:
                self._send(leave)
                log.info(
                    "said leave; waiting up to %.1f s for the host's farewell%s",
                    LEAVE_ACK_WAIT,
                    "" if self._linked else " (the link is reconnecting)",
                )
                self.leave_heard = self._await_farewell(time.monotonic() + LEAVE_ACK_WAIT)
                if self.leave_heard:
                    log.info("the host heard our leave")
                else:
                    log.warning("the host did not confirm our leave within %.1f s", LEAVE_ACK_WAIT)
            close_monitored(self.sock, self.monitor, linger=200)
        finally:
            if isinstance(self.watchport, WatchPort):
                self.watchport.close()
            if self._early is not None:  # a game that never started: our lobby links
                self._early.close()
            self._close_transport()
            super().close()

    def _await_farewell(self, deadline: float) -> bool:
        """Read the host link until its `farewell` or the deadline (everything else is moot
        now: we are leaving). A reconnecting link sends our queued leave once it is back."""
        while (left := deadline - time.monotonic()) > 0:
            try:
                if not self.sock.poll(max(1, int(left * 1000))):
                    return False
                frames = self.sock.recv_multipart(flags=zmq.NOBLOCK)
            except (zmq.ZMQError, KeyboardInterrupt):  # a second Ctrl-C: stop waiting
                return False
            try:
                kind = wire.unpack(frames[0])["t"] if len(frames) == 1 else None
            except wire.WireError:
                kind = None
                self.dropped += 1
            if kind == "farewell":
                return True
            if kind in ("leave", "bye", "reject"):  # the host is going too: nobody will answer
                return False
        return False


Link = Host | Joiner
"""A peer with its transport, whichever it is (what the CLI runs)."""
