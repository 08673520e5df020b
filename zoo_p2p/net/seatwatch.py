"""A seat's own admission of spectators (protocol/TRANSPORT.md §12.6): any seat may let
spectators in, so the host cannot hide the game from them.

A seat that admits spectators (`zoo join --spectators N`, `zoo bot --spectators N`) listens on a
ROUTER of its own, its *watch port*, and prints a watch invite for it: its address, the port's
CURVE key and the seat's own fingerprint. A spectator links to it exactly as to a host (§12.1:
knock, the seat's welcome checked against the invite's fingerprint, `watch`), and the seat
serves it as the host does (§12.2): the log from `have`, every entry its session accepts, the
cards it holds, the seats' presence, pings, `bye` at the end. The admission rules, the bounds
and what a spectator may send are the host's very code (`zoo_p2p.net.spectators.Spectators`);
the connection bounds (knocks, the hello timeout, pending connections, the flood guard) are the
host's figures (§11, §12.5).

`SeatWatchCore` is the part without I/O (tests/net/test_seatwatch.py drives it with a fake
clock); `WatchPort` adds the ROUTER, its monitor and its CURVE authenticator. Nothing here
touches the players' wire: the watch port is a socket only spectators talk to.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from zoo_p2p.errors import ZooError
from zoo_p2p.net import evidence, messages, router, tcp, wire
from zoo_p2p.net.core.conns import ConnGuard, _Fd
from zoo_p2p.net.core.peer import raw_private
from zoo_p2p.net.invite import Invite, close_monitored
from zoo_p2p.net.mesh import Verdict, advertise_for
from zoo_p2p.net.mesh import pack as mesh_pack
from zoo_p2p.net.spectators import Spectators
from zoo_p2p.net.wire import NetError
from zoo_p2p.text import shown

if TYPE_CHECKING:
    from zoo_p2p.driver import SeatPresence
    from zoo_p2p.net.core.joiner import JoinerCore
    from zoo_p2p.protocol.session import Session

__all__ = ["SEAT_ONLY", "SeatWatchCore", "WatchPort", "watch_curve_keys"]

log = logging.getLogger("zoo_p2p.net.seatwatch")

PING_EVERY = 0.5  # seconds between pings to our spectators (as the host's, §12.2)
SEAT_ONLY = "this is a seat's watch port: it admits spectators only (join with the host's invite)"


def watch_curve_keys(private_raw: bytes) -> tuple[bytes, bytes]:
    """The watch port's CURVE (public, secret) pair in z85, derived from the seat's identity (so
    its watch invite stays the same from run to run, as the host's invite does)."""
    secret = z85.encode(wire.derive_secret(private_raw, b"curve-watch"))
    return zmq.curve_public(secret), secret


class SeatWatchCore(ConnGuard):
    """A seat's spectators, without I/O: what comes on the watch port (`receive`), what the
    seat's session accepted (`relay_entries`), its presence (`relay_seats`), the end; its
    connections bounded as the host's are (`ConnGuard`)."""

    BOUND_BY = "watch"
    PENDING_WORDS = "too many connections"

    def __init__(
        self, peer: JoinerCore, most: int, *, server_pub: bytes, curve: bool, now: float
    ) -> None:
        self.peer = peer
        self.server_pub = server_pub  # the watch port's CURVE key (the watch invite names it)
        self.curve = curve
        self.spectators = Spectators(self, most, curve=curve)
        self._open_guard(now)
        self.outbox: list[tuple[bytes, bytes]] = []
        self.dropped = 0
        self.now = now
        self._last_ping = now
        self._quiet: dict[str, float] = {}
        self._cards_sent: set[bytes] = set()
        self._closed = False

    # ----- what Spectators needs of us (SpectatorHost) --------------------------------------
    @property
    def session(self) -> Session | None:
        return self.peer.session

    def send_to(self, rid: bytes, data: bytes) -> bool:
        """Send `data` to one spectator (here: queued; the transport sends it)."""
        self.outbox.append((rid, data))
        return True

    def send_log(self, rid: bytes, start: int) -> None:
        s = self.peer.session
        if s is None:
            return
        for first, batch in wire.batches(list(s.entries[start:]), start):
            if not self.send_to(rid, wire.pack("entries", **{"from": first, "e": batch})):
                return

    def notice_once(self, what: str, text: str) -> None:
        if self._quiet.get(what, -1e9) <= self.now:
            self._quiet[what] = self.now + 10.0
            log.warning("%s", text)
            self.peer.driver.on_notice(text)

    def greeting(self) -> Sequence[bytes]:
        """After the log: every card we hold and the seats' presence (nothing in the lobby: the
        genesis comes as soon as we hold it)."""
        out = [wire.pack("mesh", m=c) for c in self._cards()]
        self._cards_sent.update(self._cards())
        states = self.peer.seats_state
        s = self.peer.session
        if s is not None and len(states) == len(s.seats):
            out.append(_seats_msg(states))
        return out

    def proven(self, proof: bytes, seat: int, reason: str) -> None:
        """A spectator's proof that held: keep it, pass it to the host and every seat, stop."""
        peer = self.peer
        if peer.stopped is not None:
            return
        saved = None
        path = peer.mesh_log_path()
        if path is not None:
            try:
                evidence.keep(path, proof)
                saved = evidence.proofs_path(path)
            except (OSError, ZooError) as exc:
                peer.mesh_notice(f"could not save the proof next to the log: {exc}")
        verdict = Verdict(seat, reason, saved)
        try:
            data = mesh_pack("proof", p=proof)
        except wire.WireError:
            data = b""
        if data and peer.mesh is not None and peer.mesh.verdict is None:
            peer.mesh.verdict = verdict
            peer.mesh.publish(data)
        if data:
            peer.mesh_tunnel(data, None)
            self.spectators.relay(wire.pack("mesh", m=data))
        peer.mesh_stop(verdict)

    # ----- what the seat tells its spectators ------------------------------------------------
    def relay_entries(self, start: int, entries: list[bytes]) -> None:
        """Entries our session accepted (ours and everyone's), after the seats got theirs."""
        if not self.spectators.watchers or not entries:
            return
        for first, batch in wire.batches(entries, start):
            self.spectators.relay(wire.pack("entries", **{"from": first, "e": batch}))

    def relay_seats(self, states: list[SeatPresence]) -> None:
        s = self.peer.session
        if self.spectators.watchers and s is not None and len(states) == len(s.seats):
            self.spectators.relay(_seats_msg(states))

    def goodbye(self) -> None:
        """We stop: `bye` after a finished game, else `leave` with our reason (once)."""
        if self._closed:
            return
        self._closed = True
        out = self.peer.stopped
        if out is not None and out.finished:
            self.spectators.relay(wire.pack("bye"))
        else:
            reason = shown(out.reason if out is not None else "closed", wire.MAX_REASON - 1)
            self.spectators.relay(wire.pack("leave", reason=reason))

    def _cards(self) -> list[bytes]:
        m = self.peer.mesh
        return list(m.cards_for()) if m is not None else []

    # ----- receiving -----------------------------------------------------------------------
    def receive(
        self, rid: bytes, parts: list[bytes], now: float, *, curve: bytes | None, fd: int = -1
    ) -> None:
        """One message from the watch port: its routing id, frames, CURVE key (None: unread)
        and connection. Only knocks and spectators' messages count; a bug drops the message."""
        self.now = now
        try:
            self._receive(rid, parts, now, curve, fd)
        except Exception:
            self.dropped += 1
            log.exception("dropped a message on the watch port that made us fail")

    def _receive(
        self, rid: bytes, parts: list[bytes], now: float, curve: bytes | None, fd: int
    ) -> None:
        info, one = self._frames_in(rid, parts, fd)
        if not one:
            return
        if not self.spectators.allowed(rid, now):
            self.dropped += 1  # beyond its rate: it is dropped (§12.5)
            return
        try:
            msg = messages.decode(parts[0])
        except wire.WireError as exc:
            self.dropped += 1
            log.info("dropped a frame on the watch port: %s", shown(exc.reason))
            return
        if not self.curve:
            curve = b""
        elif curve is None:
            self.dropped += 1
            return
        if isinstance(msg, messages.Knock):
            if self._knocked(info, fd):
                self._welcome(rid, curve)
            return
        if self.spectators.on_msg(rid, curve, msg, now, fd):
            return
        self.dropped += 1  # a hello, entries, …: a seat's watch port seats nobody
        if isinstance(msg, messages.Hello):
            self.send_to(rid, wire.pack("reject", reason=SEAT_ONLY))

    def _welcome(self, rid: bytes, curve: bytes) -> None:
        """The seat's signed welcome, as a host's (§2): it proves the invite's fingerprint."""
        peer = self.peer
        client = curve if self.curve else bytes(32)
        s = peer.session
        hints = s.genesis.hints if s is not None else False
        sig = peer.key.sign(wire.welcome_signed_bytes(self.server_pub, client, peer.pub, hints))
        seat = s.seat if s is not None and s.seat is not None else peer.seat_no
        fields: dict[str, Any] = {"v": wire.WIRE_VERSION, "pub": peer.pub, "sig": sig, "seat": seat}
        if hints:
            fields["hints"] = True
        self.send_to(rid, wire.pack("welcome", **fields))

    # ----- connections (`ConnGuard`) -------------------------------------------------------
    def _unlink(self, rid: bytes, fd: int) -> None:
        if self.spectators.owns(rid):
            self.spectators.watchers.pop(rid, None)

    def _said_kicked(self, fd: int, info: _Fd | None, why: str) -> None:
        log.info("watch port: dropped connection %d: %s", fd, why)

    # ----- periodic ------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Pings, new cards, the silent forgotten; connections without a watch in time (or that
        flood us) shut."""
        self.now = now
        if now - self._last_ping >= PING_EVERY:
            self._last_ping = now
            self.spectators.relay(wire.pack("ping"))
            if self.spectators.watchers:
                for card in self._cards():
                    if card not in self._cards_sent:
                        self._cards_sent.add(card)
                        self.spectators.relay(wire.pack("mesh", m=card))
        self.spectators.tick(now)
        self._watch_fds(now)


def _seats_msg(states: list[SeatPresence]) -> bytes:
    return wire.pack("seats", state=[x.state for x in states], lost=[x.lost_for for x in states])


class WatchPort(SeatWatchCore):
    """The watch port's sockets: a CURVE ROUTER (its own context and authenticator, so that the
    seat's other sockets are untouched) with a monitor for its connections."""

    def __init__(
        self,
        peer: JoinerCore,
        most: int,
        *,
        private_raw: bytes,
        bind: str,
        advertise: str,
        fingerprint: str,
        curve: bool,
        now: float,
    ) -> None:
        pub_z85, secret = watch_curve_keys(private_raw)
        super().__init__(
            peer, most, server_pub=z85.decode(pub_z85) if curve else bytes(32), curve=curve, now=now
        )
        self.ctx = zmq.Context()
        self.auth: ThreadAuthenticator | None = None
        self.sock = self.ctx.socket(zmq.ROUTER)
        for opt, val in (
            (zmq.LINGER, 0),
            (zmq.MAXMSGSIZE, wire.MAX_FRAME),
            (zmq.HEARTBEAT_IVL, 1000),
            (zmq.HEARTBEAT_TIMEOUT, 3000),
            (zmq.HEARTBEAT_TTL, 6000),
            (zmq.SNDHWM, 10_000),
            (zmq.RCVHWM, 1_000),
            (zmq.ROUTER_MANDATORY, 1),
            (zmq.ROUTER_HANDOVER, 0),
            (zmq.HANDSHAKE_IVL, 5000),
        ):
            self.sock.setsockopt(opt, val)
        if ":" in bind:
            self.sock.setsockopt(zmq.IPV6, 1)
        if curve:
            self.auth = ThreadAuthenticator(self.ctx)
            self.auth.start()
            self.auth.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
            self.sock.curve_secretkey = secret
            self.sock.curve_publickey = pub_z85
            self.sock.curve_server = True
        self.monitor = self.sock.get_monitor_socket(
            zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED
        )
        try:
            self.port = self.sock.bind_to_random_port(f"tcp://{bind}")
        except zmq.ZMQError:
            self.close()
            raise
        self.invite = Invite(
            host=advertise.strip("[]"),
            port=self.port,
            server_key=self.server_pub,
            fingerprint=fingerprint,
        )

    @classmethod
    def open(cls, joiner: JoinerCore, poller: zmq.Poller, most: int, fingerprint: str) -> WatchPort:
        """The watch port of `joiner`, on the address its direct links use (§10.1), its sockets
        in the joiner's `poller`; its watch invite is `.invite`."""
        bind, advertise = advertise_for(joiner.invite.host)
        try:
            port = cls(
                joiner,
                most,
                private_raw=raw_private(joiner.key),
                bind=bind,
                advertise=advertise,
                fingerprint=fingerprint,
                curve=joiner.options.curve,
                now=joiner.now,
            )
        except zmq.ZMQError as exc:
            raise NetError(f"cannot open a watch port for spectators on {bind}: {exc}") from None
        for sock in (port.sock, port.monitor):
            poller.register(sock, zmq.POLLIN)
        return port

    def owns(self, sock: Any) -> bool:
        return sock is self.sock or sock is self.monitor

    def flush(self) -> None:
        """Send what the core queued (a spectator we cannot send to is forgotten)."""
        out, self.outbox = self.outbox, []
        for rid, data in out:
            try:
                self.sock.send_multipart([rid, data], flags=zmq.NOBLOCK)
            except zmq.ZMQError:
                self.spectators.watchers.pop(rid, None)
        shut, self.shut_fds = self.shut_fds, []
        for fd in shut:
            tcp.shutdown_tcp(fd, self.port)

    def _tcp_received(self, fd: int) -> int | None:
        return tcp.tcp_bytes_received(fd, self.port)

    def on_socket(self, sock: Any, now: float) -> None:
        """Drain the ROUTER (at most 1000 messages) or the monitor."""
        if sock is self.monitor:
            self._on_monitor(now)
        else:
            for _ in range(1000):
                try:
                    frames = self.sock.recv_multipart(flags=zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    break
                self._on_frames(frames, now)
        self.flush()

    def _on_frames(self, frames: list[Any], now: float) -> None:
        rid, parts, curve, fd = router.origin(frames, self.curve)  # (None: the watch unbound)
        if fd >= 0 and fd not in self.fds:
            self.fds[fd] = _Fd(now, tcp.peer_of(fd))
        self.receive(rid, parts, now, curve=curve, fd=fd)

    def _on_monitor(self, now: float) -> None:
        for ev, value in router.monitor_events(self.monitor):
            if ev == zmq.EVENT_ACCEPTED:
                self.fd_accepted(value, tcp.peer_of(value), now)
            elif ev in (zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED):
                self.fd_closed(value)

    def tick(self, now: float) -> None:
        super().tick(now)
        self.flush()

    def close(self) -> None:
        """Say `bye` (or `leave`) to our spectators, then close (a short linger for it)."""
        try:
            self.goodbye()
            self.flush()
            close_monitored(self.sock, self.monitor, linger=200)
        finally:
            if self.auth is not None:
                self.auth.stop()
                self.auth = None
            self.ctx.destroy(linger=0)
