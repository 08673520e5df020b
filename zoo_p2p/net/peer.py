"""The peers: a host (ZeroMQ ROUTER) and joiners (DEALER) moving entries between protocol sessions.

Single-threaded: each peer runs one `zmq.Poller` loop over its socket, its monitor socket and any
extra file descriptors the driver wants (stdin for a human). The protocol session validates
everything; this module only moves bytes, keeps the log file in step with the session, relays,
answers resync requests, tracks who is connected, and never lets a bad frame crash the loop.
See protocol/TRANSPORT.md for the messages.
"""

from __future__ import annotations

import hashlib
import logging
import os
import resource
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, Protocol, TypedDict, Unpack

import zmq
import zmq.auth
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from zoo_p2p.driver import Driver, NullDriver, Outcome, SeatPresence
from zoo_p2p.errors import CheatError, RemoteProtocolError, ZooError
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite, close_monitored, format_address
from zoo_p2p.net.liveness import Liveness
from zoo_p2p.net.mesh import Mesh, MoreEndpoints, Verdict, advertise_for
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.crypto import check_public_key
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.events import EntryAccepted
from zoo_p2p.text import HINTS_ALLOWED, seat_word, shown

__all__ = [
    "Driver",
    "Host",
    "HostOptions",
    "JoinOptions",
    "Joiner",
    "Link",
    "NetError",
    "NullDriver",
    "Outcome",
    "SeatPresence",
]

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

log = logging.getLogger("zoo_p2p.net")

PING_EVERY = 0.5  # seconds between application pings on an idle link
LIVE_TIMEOUT = 2.5  # a seat silent for this long is shown as missing
HEARTBEAT_IVL_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000
HEARTBEAT_TTL_MS = 6000
SNDHWM = 10_000
RCVHWM = 1_000  # messages queued per link before libzmq stops reading its socket (≤ 1 GiB)
NO_CURVE = bytes(32)  # the invite's key when the host runs without CURVE (debugging only)
# Bounds on what any one client can make the host hold (protocol/TRANSPORT.md §9).
HANDSHAKE_IVL_MS = 5000  # a TCP connection must finish the ZMTP/CURVE handshake within this
OTHER_GAME = "you are in another game"  # a host's reject of a hello naming another game id
HELLO_TIMEOUT = 5.0  # ... and then say a valid hello within this many seconds of being accepted
MAX_PENDING = 64  # accepted connections without a valid hello yet (the oldest is dropped)
MAX_LINKS = 256  # accepted connections in all (beyond it the newest is dropped)
LINKS_PER_ID = 2  # live links per identity (a newer hello drops the oldest)
MAX_KNOCKS = 4  # knocks a link may send before its hello
FLOOD_SLACK = 4 << 20  # TCP bytes a link may have sent beyond the messages we received from it
SYNC_BURST = 6  # resync answers a link may get at once ...
SYNC_RATE = 2.0  # ... and then per second (a token bucket)
WATCH_EVERY = 0.05  # seconds between the host's checks of its connections (hello, flood)
FIRST_STATUS = 2.0  # seconds before a joiner first says it has no answer yet
AHEAD = 16  # entries that came before their predecessor, kept until it comes (seqs ahead)
LEAVE_ACK_WAIT = 1.5  # seconds a leaving joiner waits for the host's farewell (TRANSPORT.md §6)
FAREWELL = wire.pack("farewell")
WANT_NOFILE = 65536  # the soft RLIMIT_NOFILE the host asks for (up to the hard limit)
_TCP_INFO_BYTES_RECEIVED = 128  # offset of tcpi_bytes_received in struct tcp_info (Linux >= 4.1)
_AWAITED = {
    "move": "a move",
    "reveal": "a reveal",
    "commit": "a commitment",
    "open": "an opening",
    "seed": "its seed",
    "result": "a signed result",
}


class EntrySink(Protocol):
    """Where a peer's own copy of the log goes (an fsync'd file in practice)."""

    def append(self, entry: bytes) -> None: ...


def raw_private(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw private bytes of an Ed25519 key."""
    return key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def raw_public(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw public bytes of an Ed25519 key."""
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def server_curve_keys(key: Ed25519PrivateKey) -> tuple[bytes, bytes]:
    """The host's CURVE (public, secret) pair in z85, derived from its identity (stable invites)."""
    secret = z85.encode(wire.derive_secret(raw_private(key), b"curve-server"))
    return zmq.curve_public(secret), secret


def _key_ok(pub: bytes) -> bool:
    try:
        check_public_key(pub)
    except ValueError:
        return False
    return True


def _verify(pub: bytes, sig: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _bracket(addr: str) -> str:
    return f"[{addr}]" if ":" in addr and not addr.startswith("[") else addr


def _first_reachable(invite: Invite, driver: Driver) -> Invite:
    """The invite reordered so that the first address where a handshake succeeds comes first."""
    from zoo_p2p.net.invite import probe

    winner, attempts = probe(invite)
    for a in attempts:
        log.info("address %s: %s", format_address(a.address), "ok" if a.ok else a.error)
    if winner is None:
        tried = "; ".join(f"{format_address(a.address)} {a.error}" for a in attempts)
        driver.on_notice(f"no address of the invite answered yet ({tried}); still trying")
        return invite
    return invite.with_addresses([winner, *(a for a in invite.addresses if a != winner)])


def _set_common(sock: zmq.Socket[bytes]) -> None:
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_FRAME)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TTL, HEARTBEAT_TTL_MS)
    sock.setsockopt(zmq.SNDHWM, SNDHWM)
    sock.setsockopt(zmq.RCVHWM, RCVHWM)


def _leave_reason(outcome: Outcome | None) -> str:
    reason = outcome.reason if outcome is not None else "closed"
    return shown(reason, wire.MAX_REASON - 1)


def _raise_nofile() -> int:
    """Raise our soft file-descriptor limit towards WANT_NOFILE (as far as the hard limit
    allows), so that a crowd of idle connections does not starve the host; return the limit."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = WANT_NOFILE if hard == resource.RLIM_INFINITY else min(WANT_NOFILE, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        return int(soft)
    except (ValueError, OSError):
        return -1


def _srcfd(frame: Any) -> int:
    """The file descriptor libzmq read a received frame from (-1 if unknown)."""
    try:
        return int(frame.get(zmq.SRCFD))
    except (zmq.ZMQError, AttributeError, TypeError, ValueError):
        return -1


def _our_tcp(fd: int, port: int, remote: bool = False) -> socket.socket | None:
    """A duplicate of `fd` if it is a TCP connection accepted on our `port` (or, `remote`, one
    we made to that port), else None (an fd number can be reused; we never touch anything but
    our own connections)."""
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return None
    try:
        if (
            sock.family in (socket.AF_INET, socket.AF_INET6)
            and sock.type == socket.SOCK_STREAM
            and (sock.getpeername() if remote else sock.getsockname())[1] == port
        ):
            return sock
    except OSError:
        pass
    sock.close()
    return None


def _peer_of(fd: int) -> str:
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return "?"
    try:
        return str(sock.getpeername()[0])
    except (OSError, IndexError):
        return "?"
    finally:
        sock.close()


def _shutdown_tcp(fd: int, port: int, remote: bool = False) -> bool:
    """Shut down the TCP connection behind libzmq's `fd` (libzmq sees the end and closes it)."""
    sock = _our_tcp(fd, port, remote)
    if sock is None:
        return False
    try:
        sock.shutdown(socket.SHUT_RDWR)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def _tcp_bytes_received(fd: int, port: int, remote: bool = False) -> int | None:
    """How many bytes the kernel has received on that TCP connection (Linux TCP_INFO)."""
    if not hasattr(socket, "TCP_INFO"):
        return None
    sock = _our_tcp(fd, port, remote)
    if sock is None:
        return None
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    except OSError:
        return None
    finally:
        sock.close()
    if len(raw) < _TCP_INFO_BYTES_RECEIVED + 8:
        return None
    return int(struct.unpack_from("=Q", raw, _TCP_INFO_BYTES_RECEIVED)[0])


def _ours(events: list[Any], seat: int) -> bool:
    """True if `events` (of one received entry) say it was signed for `seat`."""
    return any(isinstance(ev, EntryAccepted) and ev.seat == seat for ev in events)


def _is_move_floor(floor: Any, seat: int | None) -> bool:
    return floor is not None and seat is not None and floor.seat == seat and floor.kind == "move"


class LinkParts(TypedDict):
    """What every link is made with (host and joiner take these keywords, and their own)."""

    key: Ed25519PrivateKey
    driver: Driver
    make_session: Callable[[bytes], Session]  # a new session from the genesis entry
    open_log: Callable[[Session], EntrySink]  # the log file of a new game
    session: NotRequired[Session | None]  # resuming: the game read back from our log
    sink: NotRequired[EntrySink | None]  # ... and that log, open for appending


class Link(Liveness):
    """What host and joiner share: the session, the log file kept in step, timers, the loop."""

    def __init__(self, **parts: Unpack[LinkParts]) -> None:
        self.key = parts["key"]
        self.pub = raw_public(self.key)
        self.driver = parts["driver"]
        self.make_session = parts["make_session"]
        self.open_log = parts["open_log"]
        session = parts.get("session")
        self.session: Session | None = session
        self.sink: EntrySink | None = parts.get("sink")
        self.written = len(session) if session is not None else 0
        self.up: list[bool] = []
        self.seats_state: list[SeatPresence] = []
        self.ctx = zmq.Context()
        self.poller = zmq.Poller()
        self.stopped: Outcome | None = None
        self._timers: list[tuple[float, Callable[[], None]]] = []
        self._turn_at: int | None = None  # log length at which we last asked the driver to move
        self._started = False
        self._sync_asked: tuple[int, float] = (-1, 0.0)
        self.dropped = 0  # frames dropped as garbage (tests read it)
        # ZOO_NET_TRACE=DIR: append "event n monotonic_ns" lines for bench/bench_net.py
        # (buffered, written out at close: no write on the path being measured)
        trace_dir = os.environ.get("ZOO_NET_TRACE")
        self._trace_file = None
        if trace_dir:
            self._trace_file = open(  # noqa: SIM115 - kept for the run
                os.path.join(trace_dir, f"{os.getpid()}.trace"), "a", buffering=1 << 20
            )
        self._settled = -1
        self._ahead: dict[int, bytes] = {}  # seq -> an entry that came before its predecessor
        # no other process signed for our seat in this game (not resumed from a log, and no
        # entry of our seat reached us from outside): the mesh may trust reports about us
        self._fresh = session is None
        self._own_move = False
        self._idle_wake = 0.2  # longest sleep of the loop (the host watches its links faster)
        # the direct links (no trusted relay, TRANSPORT.md §10); ZOO_MESH=0 turns them off
        self.mesh: Mesh | None = None
        self._mesh_on = os.environ.get("ZOO_MESH", "1") != "0"
        self.mesh_port = 0  # our publisher's port (0: random; set when a router maps it)
        self.mesh_more: MoreEndpoints | None = None  # mapped endpoints for our card (issue 11)
        self._mapping_told = False  # what `mesh_more` found out was told (`tell_mapping`)
        self._init_liveness()  # clocks and claims (zoo_p2p.net.liveness)

    def _trace(self, event: str, n: int) -> None:
        if self._trace_file is not None:
            self._trace_file.write(f"{event} {n} {time.monotonic_ns()}\n")

    def _trace_own(self, event: str, start: int) -> None:
        """Trace every entry of ours from `start` (the first send of them has returned)."""
        if self._trace_file is not None and self.session is not None:
            for seq in range(start, len(self.session)):
                self._trace(event, seq)

    # ----- session plumbing -------------------------------------------------------------
    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        """Run `fn` from the loop after `delay` seconds (no threads, no sleeps)."""
        self._timers.append((time.monotonic() + delay, fn))

    @property
    def my_turn(self) -> bool:
        """True when we hold the floor for a move right now."""
        s = self.session
        return s is not None and not s.finished and not s.left and _is_move_floor(s.floor, s.seat)

    def play(self, move: Any) -> None:
        """Make our move (raises the rules' IllegalMoveError / LocalProtocolError if wrong)."""
        if self.session is None:
            raise NetError("no game yet")
        before = len(self.session)
        self._own_move = True
        if self._trace_file is not None and self.session.state is not None:
            self._trace("sent", len(self.session.state.history) + 1)
            self._trace("mk", before)
        self.session.move(move)
        self._advance(before)

    def _start_session(self, genesis: bytes) -> bool:
        try:
            self.session = self.make_session(genesis)
        except (ZooError, ValueError) as exc:
            log.warning("dropped a genesis that does not open: %s", shown(exc))
            self.dropped += 1
            return False
        if not self._genesis_ok(self.session):
            log.warning("dropped a genesis not written by the invite's host")
            self.dropped += 1
            self.session = None
            return False
        if self.session.genesis.hints and self._refuses_hints():
            self.session = None  # nothing signed, no log: we never took the seat
            return False
        self.sink = self.open_log(self.session)
        self.written = 0
        self._flush_log()
        return True

    def _genesis_ok(self, session: Session) -> bool:
        return True

    def _refuses_hints(self) -> bool:
        """The genesis allows hints (PROTOCOL.md §3.2): tell our seat before it signs anything
        in this game; True when we will not play at such a table (then we have left)."""
        self.driver.on_notice(HINTS_ALLOWED)
        return False

    def _flush_log(self) -> None:
        """Write every entry the session holds beyond the file, then make them durable at once."""
        s = self.session
        if s is None or self.sink is None or self.written >= len(s):
            return
        entries = s.entries
        while self.written < len(entries):
            self.sink.append(entries[self.written])
            self.written += 1
        sync = getattr(self.sink, "sync", None)
        if sync is not None:
            sync(wait=self._own_move)

    def deliver(self, start: int, entries: list[bytes], source: str) -> int | None:
        """Feed entries numbered from `start` to the session; return a seq to resync from."""
        s = self.session
        assert s is not None
        self._release_if_moved_on(start, entries)
        before = len(s)
        held = s.entries if start < before else []
        gap: int | None = None
        seen: list[Any] = []
        foreign = 0
        for i, entry in enumerate(entries):
            seq = start + i
            if self._resigned_seat in s.resigned:
                break  # we resigned and are leaving: our log ends with the entry that says so
            if seq < len(held) and held[seq] == entry:
                continue  # already have it (a relay echo or an overlapping resync)
            if 0 < seq < len(held) and not self._links_at(held, seq, entry):
                self.dropped += 1
                if not foreign:
                    log.warning(
                        "dropped entry %d from %s: it does not chain onto our log "
                        "(another game's entry)",
                        seq,
                        shown(source),
                    )
                foreign += 1
                continue
            if self._trace_file is not None and seq == len(s):
                self._trace("rx", seq)
            try:
                events = s.receive(entry)
            except RemoteProtocolError as exc:
                self.dropped += 1
                log.warning("dropped entry %d from %s: %s", seq, shown(source), shown(exc.reason))
                if self.mesh is not None and not isinstance(exc, CheatError):
                    self.mesh.on_rejected(entry, exc)  # signed by its author: a proof?
                    if self.stopped is not None:
                        return None
                if seq >= len(s):
                    # nothing after a refused new entry can chain on: one signature check per
                    # message at most, however many entries a hostile peer packs into it
                    self.dropped += len(entries) - i - 1
                    break
                continue
            gaps = [ev for ev in events if hasattr(ev, "expected_seq")]
            if gaps:
                gap = gaps[0].expected_seq
                self._hold_ahead(seq, entry)
                break
            if self._trace_file is not None and events:
                self._trace("ok", seq)
            if self._fresh and s.seat is not None and _ours(events, s.seat):
                self._fresh = False  # an earlier run of our seat (or a resigner) signed it
                if self.mesh is not None:
                    self.mesh.fresh = False
            seen.extend(events)
        self._advance(before, seen)
        nxt = self._ahead.pop(len(s), None) if self._ahead else None
        if nxt is not None and self.stopped is None:
            # the entry that came before its predecessor: its turn now (checked again)
            self._ahead = {k: v for k, v in self._ahead.items() if k > len(s)}
            return self.deliver(len(s), [nxt], source)
        return gap if gap is not None and gap >= len(s) else None

    def _hold_ahead(self, seq: int, entry: bytes) -> None:
        """Keep a signed entry that came before its predecessor (its author's direct link can
        overtake the one that brings the predecessor), to be fed again as soon as that arrives
        instead of being fetched once more. Bounded: AHEAD seqs, one entry each, first kept."""
        s = self.session
        if s is not None and seq - len(s) <= AHEAD and len(self._ahead) < AHEAD:
            self._ahead.setdefault(seq, entry)

    @staticmethod
    def _links_at(held: list[bytes], seq: int, entry: bytes) -> bool:
        """True if `entry` claims the very prev_hash our entry `seq` has: only then can it be a
        fork of our chain (evidence for the session); otherwise it belongs to another chain."""
        try:
            return decode_entry(entry).prev == hashlib.sha256(held[seq - 1]).digest()
        except RemoteProtocolError:
            return False

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        """After any change: send what we owe, keep the log in step, tell the driver, ask for
        our move. Entries we write ourselves return no events, so drivers read the state."""
        s = self.session
        assert s is not None
        if self.mesh is None and self._mesh_on and s.seat is not None and s.stopped is None:
            self._start_mesh()
        own_from = before if self._own_move else len(s)  # entries from here on are ours
        while s.take_outgoing():
            pass
        if len(s) > before:
            # Our own move is made durable before it leaves (a crash must not let us sign a
            # different move for the same seq). Everything else goes out first and is synced
            # right after: relayed entries live on in the other logs, and our commits, reveals,
            # seed and result are re-derived byte for byte from the seed after a crash.
            if self._own_move:
                self._flush_log()
                if s.state is not None:
                    self._trace("onwire", len(s.state.history))
            if self.mesh is not None and len(s) > own_from:  # ours, to every seat directly
                self.mesh.push_own(own_from, s.entries[own_from:])
                self._trace_own("tx", own_from)
            self.publish(before, s.entries[before:], own_from)
            if self.mesh is None:
                self._trace_own("tx", own_from)
        self._own_move = False
        self._flush_log()
        if not self._started and s.state is not None:
            self._started = True
            self._trace("started", 0)
            self.driver.on_started(self)
        if self._trace_file is not None and s.state is not None and s.state.needs is None:
            h = len(s.state.history)
            if h != self._settled:
                self._settled = h
                self._trace("settled", h)
        if len(s) > before or events:
            self.driver.on_events(events or [], self)
        if s.stopped is not None and self.stopped is None:
            c = s.stopped
            verdict = self.mesh.on_cheat(c.evidence[0]) if self.mesh and c.evidence else None
            self.mesh_stop(verdict or Verdict(c.seat, c.reason, None))
            return
        if self.my_turn and self._turn_at != len(s):
            self._turn_at = len(s)
            self.driver.on_turn(self)

    # ----- the mesh (zoo_p2p.net.mesh) ---------------------------------------------------
    def _mesh_address(self) -> tuple[str | list[str], str | list[str]]:
        return ("127.0.0.1", "127.0.0.1")

    def _start_mesh(self) -> None:
        bind, advertise = self._mesh_address()
        try:
            self.mesh = Mesh(
                self,
                bind=bind,
                advertise=advertise,
                curve=self._mesh_curve(),
                port=self.mesh_port,
                more=self.mesh_more,
                fresh=self._fresh,
                ctx=self.ctx,
            )
        except zmq.ZMQError as exc:
            self._mesh_on = False
            self.driver.on_notice(f"no direct links (cannot listen on {bind}: {exc})")

    def _mesh_curve(self) -> bool:
        return True

    def tell_mapping(self) -> None:
        """Once the router has answered (`mesh_more` ready), say once why there is no mapping,
        if there is none: as soon as it is known, in the lobby too (the mesh, made when the game
        starts, only takes the endpoints). A game over before the router answers says nothing."""
        more = self.mesh_more
        if self._mapping_told or more is None or not more.ready():
            return
        self._mapping_told = True
        for line in more.note():
            self.mesh_notice(line)

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Send a mesh message over the host link (host: to seat `to`, or every seat)."""

    def mesh_notice(self, text: str) -> None:
        """Tell the player something the mesh found out (and log it)."""
        log.warning("%s", text)
        self.driver.on_notice(text)

    def mesh_log_path(self) -> Any:
        """Where our log file is (proofs are kept beside it)."""
        return getattr(self.sink, "path", None)

    def mesh_stop(self, verdict: Verdict) -> None:
        """Stop the game with a proven verdict (ours or a peer's proof that we checked)."""
        if self.stopped is not None or self.session is None:
            return
        s = self.session
        who = seat_word(verdict.seat, s.seats[verdict.seat].team.label)
        why = shown(verdict.reason)
        text = f"the game is stopped: {who} cheated ({why})"
        if verdict.saved is not None:
            text += f"; the proof is kept in {verdict.saved}"
        self.driver.on_notice(text)
        self.stopped = Outcome(False, f"{who} cheated: {why}", len(s))

    def publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        """Send newly appended entries to whoever needs them (host: everyone; joiner: the host,
        ours only: those from `own_from` on)."""
        raise NotImplementedError

    # ----- loop -------------------------------------------------------------------------
    def _register_driver(self) -> None:
        for fd in self.driver.fds():
            self.poller.register(fd, zmq.POLLIN)

    def run(self, deadline: float | None = None) -> Outcome:
        """Run the loop until the game is over, we give up, or `deadline` (monotonic) passes."""
        self._register_driver()
        try:
            while self.stopped is None:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    self.stopped = Outcome(False, "deadline passed", self._have())
                    break
                due = [t for t in self._timers if t[0] <= now]
                if due:
                    self._timers = [t for t in self._timers if t[0] > now]
                    for _, fn in due:
                        fn()
                    continue
                self.tick(now)
                self.tell_mapping()
                self._liveness_tick(now)
                if self.mesh is not None:
                    self.mesh.tick(now)
                wake = min([t[0] for t in self._timers] + [now + self._idle_wake])
                if self.mesh is not None:
                    wake = min(wake, self.mesh.due())
                if deadline is not None:
                    wake = min(wake, deadline)
                for sock, _ in self.poller.poll(max(0, int((wake - now) * 1000)) + 1):
                    if isinstance(sock, int):
                        if not self.driver.on_fd(sock, self):
                            self.poller.unregister(sock)
                    elif self.mesh is not None and self.mesh.owns(sock):
                        self.mesh.on_socket(sock)
                    else:
                        self.on_socket(sock)
        except KeyboardInterrupt:
            self.stopped = Outcome(False, "interrupted", self._have())
        finally:
            if self.stopped is not None and self.stopped.finished:
                self.tell_mapping()  # the router answered after our last look
            self.close()
        return self.stopped

    def _have(self) -> int:
        return len(self.session) if self.session is not None else 0

    def leave(self, reason: str) -> None:
        """Stop the run now, unfinished, saying why (the driver's way out)."""
        if self.stopped is None:
            self.stopped = Outcome(False, reason, self._have())

    def catch_up(self) -> None:
        """After resuming from a log: tell the driver where the game stands, ask for our move."""
        if self.session is not None:
            self._advance(len(self.session))

    def tick(self, now: float) -> None:
        """Periodic work: pings, liveness, finishing."""

    def on_socket(self, sock: Any) -> None:
        """A socket is readable."""

    def close(self) -> None:
        """Close every socket and the context, and the log file.

        A subclass closes its monitored socket first, monitoring stopped before the PAIR that
        reads the events (`close_monitored`); what is left closes here with no linger."""
        if self.mesh is not None:
            self.mesh.close()
        self.ctx.destroy(linger=0)
        close = getattr(self.sink, "close", None)
        if close is not None:
            close()
        if self._trace_file is not None:
            self._trace_file.close()
            self._trace_file = None

    def _set_up(self, up: list[bool]) -> None:
        if up != self.up:
            self.up = up
            self.driver.on_presence(list(up), self)

    def _set_seats(self, states: list[SeatPresence]) -> None:
        if states != self.seats_state:
            self.seats_state = list(states)
            on_seats = getattr(self.driver, "on_seats", None)
            if on_seats is not None:
                on_seats(list(states), self)
        self._set_up([st.state == "connected" for st in states])

    def awaited(self) -> list[tuple[int, str]]:
        """What the game waits for, from whom: [(seat index, "a move" | "a reveal" | …)].

        A seat that is lost or has left is awaited for "a reconnect" (one that resigned: for
        "its stand-in", whose entries every peer computes). A pending claim against it follows in
        brackets: "a move (claim votes 1 of 2: seat 2 (Green); still needed: you)".
        """
        s = self.session
        if s is None or s.finished or s.floor is None:
            return []
        f = s.floor
        st = self.seats_state[f.seat] if f.seat < len(self.seats_state) else None
        if st is not None and st.state != "connected":
            what = "its stand-in" if f.seat in s.resigned else "a reconnect"
        else:
            what = _AWAITED.get(f.kind, "its next entry")
        votes = self.claim_votes()
        return [(f.seat, f"{what} ({votes})" if votes else what)]


@dataclass
class _Conn:
    rid: bytes
    curve: bytes
    pub: bytes
    seat: int | None
    last_seen: float
    done: bool = False
    fd: int = -1
    since: float = 0.0
    tokens: float = SYNC_BURST
    tokens_at: float = 0.0


@dataclass
class _Fd:
    """One accepted TCP connection of the host (libzmq's file descriptor for it)."""

    accepted: float
    peer: str = "?"
    rid: bytes | None = None
    bound: bool = False  # a valid hello arrived on it
    seen: int = 0  # bytes of messages we received from it (to spot an endless multipart)
    knocks: int = 0


@dataclass
class LobbySeat:
    """A seat taken in the lobby: display name, Ed25519 key, team (int 0..3)."""

    name: str
    pub: bytes
    team: int
    rid: bytes | None = None
    curve: bytes = b""  # the CURVE key of its last accepted hello (authenticates a late leave)


@dataclass
class HostOptions:
    """What the host was asked for."""

    players: int = 2
    bind: str = "127.0.0.1"
    also_bind: tuple[str, ...] = ()  # more addresses to listen on, same port (issue 11)
    port: int = 0
    curve: bool = True
    name: str = "host"
    team: int | None = None
    linger_done: float = 3.0  # seconds to wait for every joiner to say it has everything
    give_up: float | None = None  # stop when no joiner has been heard for this long (None: never)
    hints: bool = False  # the genesis will allow hints: the lobby says so (PROTOCOL.md §3.2)


class Host(Link):
    """The host: binds a ROUTER, runs the lobby, writes genesis, relays and serves resyncs."""

    def __init__(
        self,
        *,
        make_genesis: Callable[[list[LobbySeat]], bytes],
        fingerprint: Callable[[bytes], str],
        options: HostOptions,
        address: str = "127.0.0.1",
        **parts: Unpack[LinkParts],
    ) -> None:
        super().__init__(**parts)
        self.options = options
        self.make_genesis = make_genesis
        self.fingerprint = fingerprint
        self.conns: dict[bytes, _Conn] = {}
        self.seat_rid: dict[int, bytes] = {}
        self.auth: ThreadAuthenticator | None = None
        self.sock = self.ctx.socket(zmq.ROUTER)
        _set_common(self.sock)
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        # No ROUTER_HANDOVER: a client-chosen routing id must never take over another link
        # (and repeated handovers made libzmq abort). Links are bound to their CURVE key and fd.
        self.sock.setsockopt(zmq.ROUTER_HANDOVER, 0)
        self.sock.setsockopt(zmq.HANDSHAKE_IVL, HANDSHAKE_IVL_MS)
        self.nofile = _raise_nofile()
        self.server_pub_z85, server_secret = server_curve_keys(self.key)
        # with CURVE off the invite carries an all-zero key, which also tells joiners so
        self.server_pub = z85.decode(self.server_pub_z85) if options.curve else NO_CURVE
        if options.curve:
            self.auth = ThreadAuthenticator(self.ctx)
            self.auth.start()
            self.auth.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
            self.sock.curve_secretkey = server_secret
            self.sock.curve_publickey = self.server_pub_z85
            self.sock.curve_server = True
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
        self.port = port
        self.listening = [(options.bind, port)]  # what `zoo host` says it listens on
        self.not_listening: list[tuple[str, str]] = []  # (address, why) of extra binds that failed
        for extra in options.also_bind:  # an address that went away is skipped, not fatal
            try:
                self.sock.bind(f"tcp://{_bracket(extra)}:{port}")
                self.listening.append((extra, port))
            except zmq.ZMQError as exc:
                self.not_listening.append((extra, str(exc)))
        self.invite = Invite(
            host=address, port=port, server_key=self.server_pub, fingerprint=fingerprint(self.pub)
        )
        self.poller.register(self.sock, zmq.POLLIN)
        self.monitor = self.sock.get_monitor_socket(
            zmq.EVENT_ACCEPTED
            | zmq.EVENT_DISCONNECTED
            | zmq.EVENT_CLOSED
            | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
            | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_AUTH
        )
        self.poller.register(self.monitor, zmq.POLLIN)
        self.fds: dict[int, _Fd] = {}
        self.kicked = 0  # connections we shut down (tests read it)
        self._left: set[int] = set()  # seats that said bye during the game
        self._seat_seen: dict[int, float] = {}
        self._started_at = time.monotonic()
        self._last_watch = 0.0
        self._idle_wake = WATCH_EVERY
        self._quiet_until: dict[str, float] = {}  # rate limit of repeated log lines / notices
        if self.session is None:
            team = options.team if options.team is not None else 0
            self.lobby = [LobbySeat(options.name, self.pub, team)]
        else:
            self.lobby = [
                LobbySeat(si.name, si.public_key, int(si.team)) for si in self.session.seats
            ]
        self._early = -1
        self._head_cache: tuple[int, bytes] = (-1, b"")
        self._last_ping = 0.0
        self._done_since: float | None = None
        self._last_heard = time.monotonic()

    # ----- sending ----------------------------------------------------------------------
    def _send(self, rid: bytes, data: bytes) -> bool:
        try:
            self.sock.send_multipart([rid, data], flags=zmq.NOBLOCK)
        except zmq.ZMQError as exc:  # EHOSTUNREACH (gone) or EAGAIN (queue full)
            log.info("cannot send to %s: %s", rid.hex()[:8], exc)
            conn = self.conns.pop(rid, None)
            if conn is not None and conn.seat is not None and self.seat_rid.get(conn.seat) == rid:
                del self.seat_rid[conn.seat]
            return False
        return True

    def _send_entries(self, rid: bytes, start: int) -> None:
        assert self.session is not None
        entries = list(self.session.entries[start:])
        for first, batch in wire.batches(entries, start):
            if not self._send(rid, wire.pack("entries", **{"from": first, "e": batch})):
                return

    def _relay_early(self, start: int, entries: list[bytes]) -> None:
        """Relay the next entry before checking its signature, if its header fits the floor.

        Saves a signature check per hop on the critical path. Safe: every peer checks every
        entry itself, and an entry the session then refuses is only noise the peers drop too.
        """
        s = self.session
        if s is None or len(entries) != 1 or start != len(s) or s.floor is None:
            return
        try:
            e = decode_entry(entries[0])
        except RemoteProtocolError:
            return
        if (
            e.seq == start
            and e.seat == s.floor.seat
            and e.kind == s.floor.kind
            and e.prev == self._head()
        ):
            self.publish(start, entries, skip_seat=e.seat)  # its author has it already
            self._early = start

    def _head(self) -> bytes:
        s = self.session
        assert s is not None
        if self._head_cache[0] != len(s):
            self._head_cache = (len(s), hashlib.sha256(s.entries[-1]).digest())
        return self._head_cache[1]

    def publish(
        self, start: int, entries: list[bytes], own_from: int = -1, skip_seat: int | None = None
    ) -> None:
        """Relay new entries to every connected seat but `skip_seat` (minus one relayed early)."""
        if self._early == start:
            self._early = -1
            start, entries = start + 1, entries[1:]
        for first, batch in wire.batches(entries, start):
            data = wire.pack("entries", **{"from": first, "e": batch})
            for rid, conn in list(self.conns.items()):  # every live link of a seat
                if conn.seat is not None and conn.seat != skip_seat:
                    if self.mesh is not None and not self.mesh.relay_needed(conn.seat, batch):
                        continue  # that seat hears every author directly
                    self._send(rid, data)

    def _mesh_address(self) -> tuple[str | list[str], str | list[str]]:
        # every address we listen on, advertising those of the invite that are ours
        binds = [_bracket(h) for h, _ in self.listening]
        ours = [h for h, p in self.invite.addresses if p == self.port and h in dict(self.listening)]
        return (binds, ours or self.invite.host)

    def _mesh_curve(self) -> bool:
        return self.options.curve

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Pass a mesh message to one seat or to every seat over the host link."""
        msg = wire.pack("mesh", m=data)
        for rid, conn in list(self.conns.items()):
            if conn.seat is not None and conn.seat != 0 and (to is None or conn.seat == to):
                self._send(rid, msg)

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Claim votes and resignations go to every seat but the one they came from."""
        for rid, conn in list(self.conns.items()):
            if conn.seat is not None and conn.seat != skip_seat:
                self._send(rid, data)

    def _lobby_msg(self) -> bytes:
        seats = [[s.name, self.fingerprint(s.pub), s.team] for s in self.lobby]
        if self.options.hints:  # TRANSPORT.md §5: joiners learn it before the seats are full
            return wire.pack("lobby", seats=seats, need=self.options.players, hints=True)
        return wire.pack("lobby", seats=seats, need=self.options.players)

    def _broadcast(self, data: bytes) -> None:
        for rid in list(self.conns):
            self._send(rid, data)

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

    def _on_monitor(self) -> None:
        from zmq.utils.monitor import recv_monitor_message

        now = time.monotonic()
        for _ in range(10_000):
            try:
                event = recv_monitor_message(self.monitor, flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            ev, value = event["event"], int(event["value"])
            if ev == zmq.EVENT_ACCEPTED:
                known = self.fds.get(value)
                if known is None or known.rid is None:  # (its frames may have come first)
                    self.fds[value] = _Fd(now, _peer_of(value))
                self._limit_fds(value)
            elif ev in (zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED):
                self.fds.pop(value, None)
            elif ev in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_AUTH):
                # (NO_DETAIL is a connection that went away mid-handshake, e.g. an address probe)
                self._once(
                    "handshake",
                    "a joiner failed the secure handshake: the key in its invite is not this "
                    "host's (or it is not a zoo peer)",
                )

    def _once(self, what: str, text: str, every: float = 10.0) -> None:
        """A notice (and log line) at most once per `every` seconds for one kind of event."""
        now = time.monotonic()
        if self._quiet_until.get(what, 0.0) <= now:
            self._quiet_until[what] = now + every
            log.warning("%s", text)
            self.driver.on_notice(text)

    def _limit_fds(self, newest: int) -> None:
        """Keep the accepted connections bounded: all of them, and those without a hello."""
        if len(self.fds) > MAX_LINKS:
            self._kick(newest, "too many connections")
            return
        pending = [fd for fd, info in self.fds.items() if not info.bound]
        if len(pending) > MAX_PENDING:
            oldest = min(pending, key=lambda fd: self.fds[fd].accepted)
            self._kick(oldest, "too many connections without a hello")

    def _kick(self, fd: int, why: str) -> None:
        """Shut one TCP connection down (libzmq then closes it and forgets its pipe)."""
        info = self.fds.pop(fd, None)
        if info is not None and info.rid is not None:
            conn = self.conns.get(info.rid)
            if conn is not None and conn.fd == fd:
                self._drop(info.rid)
        if _shutdown_tcp(fd, self.port):
            self.kicked += 1
            log.info("dropped connection %d from %s: %s", fd, info.peer if info else "?", why)

    def _on_frames(self, frames: list[Any]) -> None:
        rid = bytes(frames[0].bytes)
        fd = _srcfd(frames[-1])
        info = self.fds.get(fd) if fd >= 0 else None
        if info is None and fd >= 0:  # accepted before the monitor told us (or no monitor)
            info = self.fds[fd] = _Fd(time.monotonic(), _peer_of(fd))
        if info is not None:
            info.seen += sum(len(f.bytes) + 64 for f in frames[1:])
            if info.rid is None:
                info.rid = rid
        if len(frames) != 2:
            self.dropped += 1
            self._once("parts", f"dropped a {len(frames) - 1}-part message", every=5.0)
            if fd >= 0:
                self._kick(fd, "multipart message")
            return
        try:
            msg = wire.unpack(frames[1].bytes)
        except wire.WireError as exc:
            self.dropped += 1
            self._once("garbage", f"dropped a frame from a peer: {shown(exc.reason)}", every=2.0)
            return
        curve = b""
        if self.options.curve:
            try:
                curve = z85.decode(frames[1].get("User-Id").encode("ascii"))
            except Exception:  # no ZAP metadata: cannot bind the hello
                self.dropped += 1
                log.warning("dropped a frame without a CURVE identity")
                return
        now = time.monotonic()
        kind = msg["t"]
        if kind == "knock":
            if info is not None:
                info.knocks += 1
                if info.knocks > MAX_KNOCKS:
                    self._kick(fd, "knocks without a hello")
                    return
            self._welcome(rid, curve, None)
            return
        if kind == "hello":
            self._on_hello(rid, curve, msg, now, fd)
            return
        conn = self.conns.get(rid)
        if conn is not None and not self._same_link(conn, curve, fd):
            # the same routing id on another connection or key: never the seated link
            self.dropped += 1
            self._once("stolen", "dropped a message whose routing id belongs to another link")
            return
        if conn is None:
            if kind == "leave" and self._late_leave(curve, msg["reason"]):
                self._send(rid, FAREWELL)
                return
            self.dropped += 1
            if kind == "leave" and msg["reason"] == HINTS_DECLINED:
                self._send(rid, FAREWELL)  # heard: it need not wait for us (§6)
                self._once("declined", HOST_DECLINED, every=2.0)
                return
            if kind == "leave":
                self._send(rid, FAREWELL)  # heard: it need not wait for us (§6)
                self._once(
                    "leave",
                    f"a joiner gave up before its hello: {shown(msg['reason'])}",
                    every=2.0,
                )
                return
            log.debug("dropped %s from %s: no hello on this link", kind, rid.hex()[:8])
            if kind in ("ping", "entries", "sync"):
                self._send(rid, wire.pack("who"))  # a peer we lost track of: ask who it is
            return
        conn.last_seen = now
        self._last_heard = now
        if conn.seat is not None:
            self._seat_seen[conn.seat] = now
        if kind == "entries":
            if conn.seat is None or self.session is None:
                self.dropped += 1
                log.warning("dropped entries from a peer without a seat")
                return
            self._relay_early(msg["from"], msg["e"])
            gap = self.deliver(msg["from"], msg["e"], self._name(conn.seat))
            self._early = -1
            if gap is not None:
                self._send(rid, wire.pack("sync", **{"from": gap}))
        elif kind == "sync":
            if self.session is not None and self._sync_allowed(conn, now):
                self._send_entries(rid, msg["from"])
        elif kind == "mesh":
            if self.mesh is not None and conn.seat is not None:
                self.mesh.on_tunnel(conn.seat, msg["m"])
        elif kind == "claim":
            if conn.seat is not None:
                self._on_vote(conn.seat, msg["vote"])
        elif kind == "resign":
            if conn.seat is not None:
                self._on_resign(conn.seat, msg["r"], msg["key"])
        elif kind == "done":
            conn.done = True
        elif kind in ("bye", "leave"):
            self._on_leave(rid, conn, kind, msg.get("reason", ""))
        elif kind in ("ping",):
            pass  # liveness only
        else:  # welcome, lobby, presence, who, … are not for the host
            self.dropped += 1
            self._once("odd", f"dropped a {kind} message sent to the host", every=5.0)

    def _same_link(self, conn: _Conn, curve: bytes, fd: int) -> bool:
        """Is a frame (CURVE key `curve`, connection `fd`) from the link `conn` is bound to?

        With CURVE, the key decides: only its owner can authenticate with it, and libzmq never
        gives one routing id to two live connections, so the same key on a new connection is
        that joiner's own reconnection (the link moves to it). Without CURVE, the connection."""
        if conn.curve != curve:
            return False
        if fd < 0 or conn.fd in (fd, -1):
            return True
        if self.options.curve:
            conn.fd = fd
            info = self.fds.get(fd)
            if info is not None:
                info.bound = True
            return True
        return False

    def _sync_allowed(self, conn: _Conn, now: float) -> bool:
        """Token bucket per link: SYNC_BURST answers at once, then SYNC_RATE a second."""
        conn.tokens = min(SYNC_BURST, conn.tokens + (now - conn.tokens_at) * SYNC_RATE)
        conn.tokens_at = now
        if conn.tokens < 1.0:
            self.dropped += 1
            self._once("sync", "dropped resync requests beyond the rate limit", every=5.0)
            return False
        conn.tokens -= 1.0
        return True

    def _late_leave(self, curve: bytes, reason: str) -> bool:
        """A leave on a link we had already forgotten (a joiner that was away long enough for
        us to drop it, interrupted just as it came back): its CURVE key, which only that joiner
        holds, still names its seat. True if it did (the seat has left)."""
        seat = next((i for i, st in enumerate(self.lobby) if curve and st.curve == curve), None)
        if seat is None or self.session is None:
            return False
        self._seat_left(seat, reason)
        return True

    def _on_leave(self, rid: bytes, conn: _Conn, kind: str, reason: str) -> None:
        """An authenticated bye: the link goes; during the game its seat is shown as left.
        A `leave` is answered with `farewell`, so the joiner knows it was heard (§6)."""
        if kind == "leave":
            self._send(rid, FAREWELL)
        self._drop(rid)
        if conn.seat is not None:
            self._seat_left(conn.seat, reason)

    def _seat_has_left(self, seat: int) -> bool:
        return seat in self._left

    def _seat_left(self, seat: int, reason: str) -> None:
        if self.session is None or self.session.finished:
            return
        if any(c.seat == seat for c in self.conns.values()):
            return  # another live link of that seat is still here
        if seat not in self._left:
            self._left.add(seat)
            why = f": {shown(reason)}" if reason else ""
            self.driver.on_notice(f"{self._who(seat)} left{why}")
            self._presence(time.monotonic(), force=True)

    def _welcome(self, rid: bytes, curve: bytes, seat: int | None) -> None:
        client = curve if self.options.curve else bytes(32)
        s = self.session
        hints = self.options.hints if s is None else s.genesis.hints
        sig = self.key.sign(wire.welcome_signed_bytes(self.server_pub, client, self.pub, hints))
        fields: dict[str, Any] = {"v": wire.WIRE_VERSION, "pub": self.pub, "sig": sig, "seat": seat}
        if hints:  # TRANSPORT.md §5: said before the joiner's hello, so it can leave unseated
            fields["hints"] = True
        self._send(rid, wire.pack("welcome", **fields))

    def _name(self, seat: int) -> str:
        return self.lobby[seat].name if seat < len(self.lobby) else f"seat {seat}"

    def _who(self, seat: int) -> str:
        """`player, seat 2 (Blue)`: the seat's name (shown) and how people read the seat."""
        s = self.session
        team = s.seats[seat].team.label if s is not None and seat < len(s.seats) else None
        return f"{shown(self._name(seat), 40)}, {seat_word(seat, team)},"

    def _drop(self, rid: bytes) -> None:
        conn = self.conns.pop(rid, None)
        if conn is not None and conn.seat is not None and self.seat_rid.get(conn.seat) == rid:
            del self.seat_rid[conn.seat]

    def _on_hello(
        self, rid: bytes, curve: bytes, msg: dict[str, Any], now: float, fd: int = -1
    ) -> None:
        hello = wire.Hello(
            name=msg["name"],
            team=msg["team"],
            pub=msg["pub"],
            curve=msg["curve"],
            game=msg["game"],
            have=msg["have"],
        )
        if self.options.curve and hello.curve != curve:
            self.dropped += 1
            log.warning("dropped a hello whose CURVE key is not the link's")
            return
        try:
            check_public_key(hello.pub)
        except ValueError as exc:
            self.dropped += 1
            self._once("weakkey", f"dropped a hello with an unusable identity key: {exc}")
            return
        if not _verify(hello.pub, msg["sig"], wire.hello_signed_bytes(self.server_pub, hello)):
            self.dropped += 1
            log.warning("dropped a hello with a bad signature")
            return
        if hello.pub == self.pub:
            own = (  # most often a second terminal on the host's machine, with its default key
                "that is the host's own identity: a second player on one machine needs a key "
                "of its own (zoo join --identity PATH, created if missing)"
            )
            self._send(rid, wire.pack("reject", reason=own))
            return
        old = self.conns.get(rid)
        if old is not None and not self._same_link(old, curve, fd):
            # this routing id is bound to another key or connection: never let it be taken over
            self.dropped += 1
            self._once("stolen", "dropped a hello whose routing id belongs to another link")
            return
        seat = next((i for i, s in enumerate(self.lobby) if s.pub == hello.pub), None)
        if self.session is not None:
            if seat is None:
                self._send(rid, wire.pack("reject", reason="the game has started without you"))
                return
            if hello.game is not None and hello.game != self.session.game_id:
                self._send(rid, wire.pack("reject", reason=OTHER_GAME))
                return
        elif hello.game is not None:  # it resumes a log of another game: no seat in this lobby
            self._send(rid, wire.pack("reject", reason=OTHER_GAME))
            self._once(
                "othergame",
                f"turned away {shown(hello.name, 40)} ({self.fingerprint(hello.pub)}): "
                "it is resuming the log of another game",
            )
            return
        elif seat is None:
            if len(self.lobby) >= self.options.players:
                self._send(rid, wire.pack("reject", reason="the game is full"))
                return
            taken = {s.team for s in self.lobby}
            team = (
                hello.team
                if hello.team is not None and hello.team not in taken
                else next(t for t in range(4) if t not in taken)
            )
            self.lobby.append(LobbySeat(hello.name, hello.pub, team))
            seat = len(self.lobby) - 1
            self.driver.on_notice(f"{shown(hello.name)} joined ({self.fingerprint(hello.pub)})")
        self.conns[rid] = _Conn(rid, curve, hello.pub, seat, now, fd=fd, since=now, tokens_at=now)
        info = self.fds.get(fd)
        if info is not None:
            info.bound = True
        # at most LINKS_PER_ID live links per identity: the oldest others go
        mine = sorted(
            (c for c in self.conns.values() if c.pub == hello.pub and c.rid != rid),
            key=lambda c: c.since,
        )
        for extra in mine[: max(0, len(mine) - (LINKS_PER_ID - 1))]:
            if extra.fd >= 0:
                self._kick(extra.fd, "a newer link of the same identity")
            self._drop(extra.rid)
        self.seat_rid[seat] = rid
        self.lobby[seat].rid = rid
        self.lobby[seat].curve = curve
        self._last_heard = now
        self._seat_seen[seat] = now
        if seat in self._left:
            self._left.discard(seat)
            if self.session is not None and seat in self.session.resigned:
                # its key signs nothing any more: the stand-in plays on, computed by every peer
                self.driver.on_notice(f"{self._who(seat)} is back, to watch: it resigned")
            else:
                self.driver.on_notice(f"{self._who(seat)} is back")
        self._welcome(rid, curve, seat)
        if self.session is None:
            self._broadcast(self._lobby_msg())
            self.driver.on_lobby(self._lobby_seats(), self.options.players)
            if len(self.lobby) == self.options.players:
                self._start_game()
        else:
            have = min(hello.have, len(self.session.entries))
            self._send_entries(rid, have)
            if self.mesh is not None:
                self.mesh.relinked(seat)  # a new link: what it said it hears is stale
                for card in self.mesh.cards_for():
                    self._send(rid, wire.pack("mesh", m=card))
            if hello.have > len(self.session.entries):
                self._send(rid, wire.pack("sync", **{"from": len(self.session.entries)}))
            self._presence(now, force=True)

    def _lobby_seats(self) -> list[tuple[str, str, int]]:
        return [(s.name, self.fingerprint(s.pub), s.team) for s in self.lobby]

    def _start_game(self) -> None:
        self._trace("genesis", 0)
        genesis = self.make_genesis(self.lobby)
        if not self._start_session(genesis):
            raise NetError("could not open our own genesis")
        self.publish(0, [genesis])
        self._advance(1)

    def start_if_ready(self) -> None:
        """Start now if the lobby is already full (a one-seat test game) or we resumed a log."""
        if self.session is None and len(self.lobby) == self.options.players:
            self._start_game()
        elif self.session is None:  # the lobby as it stands: our own seat (the app shows it)
            self.driver.on_lobby(self._lobby_seats(), self.options.players)
        elif self.session is not None:
            self._advance(len(self.session.entries))

    # ----- periodic ---------------------------------------------------------------------
    def _presence(self, now: float, force: bool = False) -> None:
        for rid, conn in list(self.conns.items()):
            if now - conn.last_seen > 4 * LIVE_TIMEOUT:  # long dead: forget the link
                if conn.fd >= 0:
                    self._kick(conn.fd, "silent for too long")
                self._drop(rid)
        live = {
            c.seat
            for c in self.conns.values()
            if c.seat is not None and now - c.last_seen < LIVE_TIMEOUT
        }
        states = [SeatPresence("connected")]
        for i in range(1, len(self.lobby)):
            if i in self._left:
                states.append(SeatPresence("left"))
            elif i in live:
                states.append(SeatPresence("connected"))
            else:
                since = self._seat_seen.get(i, self._started_at)
                states.append(SeatPresence("lost", int(now - since)))
        if states != self.seats_state or force:
            self._set_seats(states)
            if self.session is not None:
                self._broadcast(
                    wire.pack(
                        "seats",
                        state=[st.state for st in states],
                        lost=[st.lost_for for st in states],
                    )
                )

    def _watch_fds(self, now: float) -> None:
        """Drop connections that never said hello in time, or that flood us with bytes we
        never see as messages (an endless multipart message sits inside libzmq)."""
        for fd, info in list(self.fds.items()):
            if not info.bound and now - info.accepted > HELLO_TIMEOUT:
                self._kick(fd, f"no hello within {HELLO_TIMEOUT:g} s")
                continue
            got = _tcp_bytes_received(fd, self.port)
            if got is not None and got - info.seen > FLOOD_SLACK:
                self._kick(fd, f"{got - info.seen} bytes sent that are no message")

    def _prune_lobby(self, now: float) -> None:
        """Before the game starts, a joiner that left (bye, or silent) gives its seat back."""
        live = {c.seat for c in self.conns.values() if now - c.last_seen < 2 * LIVE_TIMEOUT}
        gone = [i for i in range(1, len(self.lobby)) if i not in live]
        if not gone:
            return
        for i in gone:
            self.driver.on_notice(f"{shown(self.lobby[i].name)} left the lobby")
        keep = [i for i in range(len(self.lobby)) if i not in gone]
        renumber = {old: new for new, old in enumerate(keep)}
        self.lobby = [self.lobby[i] for i in keep]
        for rid, conn in list(self.conns.items()):
            if conn.seat in renumber:
                conn.seat = renumber[conn.seat]
            else:
                del self.conns[rid]
        self.seat_rid = {renumber[s]: r for s, r in self.seat_rid.items() if s in renumber}
        self._broadcast(self._lobby_msg())
        self.driver.on_lobby(self._lobby_seats(), self.options.players)

    def tick(self, now: float) -> None:
        """Ping everyone, update presence, finish when every seat has the whole log."""
        if self.session is None:
            self._prune_lobby(now)
        if now - self._last_watch >= WATCH_EVERY:
            self._last_watch = now
            self._watch_fds(now)
        if now - self._last_ping >= PING_EVERY:
            self._last_ping = now
            ping = wire.pack("ping")
            for rid in list(self.conns):
                self._send(rid, ping)
        self._presence(now)
        s = self.session
        if s is not None and s.finished:
            if self._done_since is None:
                self._done_since = now
            done = {c.seat for c in self.conns.values() if c.done}
            if (
                all(i in done for i in range(1, len(self.lobby)))
                or now - self._done_since > self.options.linger_done
            ):
                bye = wire.pack("bye")
                for rid in list(self.conns):
                    self._send(rid, bye)
                self.stopped = Outcome(True, "game over", len(s.entries))
        elif (
            self.options.give_up is not None
            and now - self._last_heard > self.options.give_up
            and len(self.lobby) > 1
        ):
            self.stopped = Outcome(False, "every other peer is gone", self._have())

    def close(self) -> None:
        """Stop the authenticator, then close the socket (short linger so the last bye leaves)."""
        try:
            if not (self.stopped and self.stopped.finished):
                bye = wire.pack("leave", reason=_leave_reason(self.stopped))  # leaving early
                for rid in list(self.conns):
                    self._send(rid, bye)
            close_monitored(self.sock, getattr(self, "monitor", None), linger=200)
        finally:
            if self.auth is not None:
                self.auth.stop()
                self.auth = None
            super().close()


HINTS_REFUSED = (
    "this table allows hints (every seat may ask the expert) and --no-hints refuses them: "
    "left before taking a seat, nothing signed"
)
"""Why a `zoo join --no-hints` left (PROTOCOL.md §3.2)."""
HINTS_DECLINED = "declined: the table allows hints (--no-hints)"
"""The reason in the `leave` of a joiner that refused hints after the welcome, before its hello."""
HOST_DECLINED = "a joiner declined: the table allows hints (it refuses them); the seat stays open"
"""What the host says when a joiner leaves for that reason (TRANSPORT.md §5)."""


@dataclass
class JoinOptions:
    """What a joiner was asked for."""

    name: str = "player"
    team: int | None = None
    give_up: float | None = None  # stop when the host has been silent this long (None: never)
    curve: bool = True
    connect_give_up: float = 60.0  # stop when no host answered at all this long (give_up wins)
    status_every: float = 5.0  # seconds between "no answer yet" notices
    refuse_hints: bool = False  # `--no-hints`: leave a table whose genesis allows hints (§3.2)


class Joiner(Link):
    """A joiner: connects a DEALER, says hello, plays, keeps its own log; reconnects by itself."""

    def __init__(
        self,
        invite: Invite,
        *,
        fingerprint: Callable[[bytes], str],
        options: JoinOptions,
        **parts: Unpack[LinkParts],
    ) -> None:
        super().__init__(**parts)
        self.invite = invite
        self.options = options
        self.fingerprint = fingerprint
        self.host_pub: bytes | None = None
        self.seat_no: int | None = None
        self.lobby_seats: list[tuple[str, str, int]] = []
        self._hints_told = False  # we said "hints are allowed at this table" (lobby or genesis)
        self.other_game = False  # the host turned us away: our log is of another game
        self._leave_reason = ""  # what our leave says, when not the outcome's reason
        pub_z85, sec_z85 = zmq.curve_keypair()
        self.curve_pub = z85.decode(pub_z85)
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
            self.invite = invite = _first_reachable(invite, self.driver)
        if ":" in invite.host:
            self.sock.setsockopt(zmq.IPV6, 1)
        self.sock.connect(invite.endpoint)
        self._began = time.monotonic()
        self._last_rx = self._began
        self._last_tx = 0.0
        self._finished_at: float | None = None
        self.host_up = False
        self._warned_handshake = False
        self._handshakes = 0  # secure handshakes that succeeded
        self._failed_handshakes = 0
        self._status_at = self._began + FIRST_STATUS - options.status_every  # first after 2 s
        self._client_curve = self.curve_pub if options.curve else bytes(32)
        self._host_seats: list[SeatPresence] = []
        self._host_gone = False  # the host said leave, bye or reject: nobody to tell we go
        self._linked = False  # a connection to the host is up (its handshake done): monitor
        self.leave_heard: bool | None = None  # our closing leave: None not sent, else acked?
        self._fd = -1  # libzmq's file descriptor of our connection to the host (flood guard)
        self._fd_seen = 0
        self._last_watch = 0.0
        self._idle_wake = WATCH_EVERY
        if not options.curve:  # no handshake event to wait for with NULL security
            self._greet()

    def _send(self, data: bytes) -> None:
        try:
            self.sock.send(data, flags=zmq.NOBLOCK)
            self._last_tx = time.monotonic()
        except zmq.ZMQError as exc:
            log.info("cannot send to the host now: %s", exc)

    def close(self) -> None:
        """Say `leave` if we stop before the end and wait (at most LEAVE_ACK_WAIT) for the
        host's `farewell`, so the others show our seat as left, not lost, even when our link
        was reconnecting; `leave_heard` says whether it came. Then close."""
        try:
            if (
                self.host_pub is not None
                and not self._host_gone
                and not (self.stopped and self.stopped.finished)
            ):
                reason = self._leave_reason or _leave_reason(self.stopped)
                self._send(wire.pack("leave", reason=reason))
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

    def _greet(self) -> None:
        """After each handshake: knock until the host's welcome proved it is the invite's
        host, and only then say hello (a joiner that rejects the host never takes a seat)."""
        if self.host_pub is None:
            self._send(wire.pack("knock", v=wire.WIRE_VERSION))
        else:
            self._hello()

    def _hello(self) -> None:
        s = self.session
        hello = wire.Hello(
            name=self.options.name,
            team=self.options.team,
            pub=self.pub,
            curve=self.curve_pub,
            game=s.game_id if s is not None else None,
            have=self._have(),
        )
        sig = self.key.sign(wire.hello_signed_bytes(self.invite.server_key, hello))
        self._send(
            wire.pack(
                "hello",
                v=wire.WIRE_VERSION,
                name=hello.name,
                team=hello.team,
                pub=hello.pub,
                curve=hello.curve,
                game=hello.game,
                have=hello.have,
                sig=sig,
            )
        )

    def _mesh_address(self) -> tuple[str | list[str], str | list[str]]:
        bind, advertise = advertise_for(self.invite.host)
        if self.mesh_more is not None:  # a router forwards our port: listen on every address
            bind = "[::]" if bind.startswith("[") else "0.0.0.0"
        return (bind, advertise)

    def _mesh_curve(self) -> bool:
        return self.options.curve

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Send a mesh message to the host."""
        if self.host_pub is not None and to in (None, 0):
            self._send(wire.pack("mesh", m=data))

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Our claim votes and resignation go to the host, which relays them."""
        if skip_seat is None:
            self._send(data)

    def publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        """Send the entries we wrote ourselves to the host (unless it hears us directly)."""
        s = self.session
        if (
            self.mesh is not None
            and s is not None
            and s.seat is not None
            and self.mesh.hears(0, s.seat)
        ):
            return  # the host hears us directly: it has our entries already
        mine = entries[max(0, own_from - start) :]
        for f, batch in wire.batches(mine, max(start, own_from)):
            self._send(wire.pack("entries", **{"from": f, "e": batch}))

    def on_socket(self, sock: Any) -> None:
        """Drain the DEALER or the monitor."""
        if sock is self.monitor:
            self._on_monitor()
            return
        self._drain()

    def _drain(self) -> None:
        """Read what the host sent, up to 1000 messages (the rest at the next turn)."""
        for _ in range(1000):
            try:
                parts = self.sock.recv_multipart(flags=zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            frames = [p.bytes for p in parts]
            if _srcfd(parts[-1]) == self._fd:
                self._fd_seen += sum(len(f) + 64 for f in frames)
            if len(frames) != 1:
                self.dropped += 1
                continue
            try:
                msg = wire.unpack(frames[0])
            except wire.WireError as exc:
                self.dropped += 1
                log.warning("dropped a frame from the host: %s", shown(exc.reason))
                continue
            self._last_rx = time.monotonic()
            try:
                self._on_msg(msg)
            except Exception:  # a bug must not let the host's message stop our game
                self.dropped += 1
                log.exception("dropped a message that made us fail")
            if self.stopped is not None:
                return

    def _on_monitor(self) -> None:
        from zmq.utils.monitor import recv_monitor_message

        while True:
            try:
                event = recv_monitor_message(self.monitor, flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            ev = event["event"]
            if ev == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._linked = True
                self._handshakes += 1
                self._failed_handshakes = 0
                self._greet()
            elif ev in (
                zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL,
                zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL,
                zmq.EVENT_HANDSHAKE_FAILED_AUTH,
            ):
                self._failed_handshakes += 1
                if not self._warned_handshake:
                    self._warned_handshake = True
                    self.driver.on_notice(
                        "secure handshake with the host failed (is the invite right?)"
                    )
                if self._handshakes == 0 and self._failed_handshakes >= 3:
                    self.stopped = Outcome(
                        False,
                        f"the host at {self._where()} refused the secure handshake 3 times: "
                        "the key in the invite is not this host's (check the invite)",
                        self._have(),
                    )
                    return
            elif ev == zmq.EVENT_DISCONNECTED:
                # what the host sent before it closed comes first: its `leave` (or `bye`)
                # explains the disconnect, and the closing line says "the host left"
                if self.stopped is None:
                    self._drain()
                told = self._host_gone or self.stopped is not None
                if not told and (self.host_up or self.host_pub is not None):
                    self.driver.on_notice("lost the host; reconnecting…")
                self.host_up = self._linked = False
            elif ev == zmq.EVENT_CONNECTED:
                self._fd, self._fd_seen = int(event["value"]), 0
                if not self.options.curve:
                    self._linked = True
                    self._greet()

    def _where(self) -> str:
        return shown(format_address((self.invite.host, self.invite.port)), 90)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if kind == "welcome":
            data = wire.welcome_signed_bytes(
                self.invite.server_key, self._client_curve, msg["pub"], msg.get("hints") is True
            )
            if not _key_ok(msg["pub"]) or not _verify(msg["pub"], msg["sig"], data):
                self.dropped += 1
                log.warning("dropped a welcome with a bad signature")
                return
            if self.host_pub is not None and msg["pub"] != self.host_pub:
                self.dropped += 1
                log.warning("dropped a welcome from another identity than the host's")
                return
            got = self.fingerprint(msg["pub"])
            if got != self.invite.fingerprint:
                reason = (
                    f"the host at {self._where()} is not the one in the invite: its fingerprint "
                    f"is {shown(got, 40)}, the invite says {shown(self.invite.fingerprint, 40)}"
                )
                self._send(wire.pack("leave", reason="my invite names another host"))
                self.stopped = Outcome(False, reason, self._have())
                return
            first = self.host_pub is None
            self.host_pub = msg["pub"]
            self.host_up = True
            if msg["seat"] is not None:
                self.seat_no = msg["seat"]
            if first and self._declines_before_hello(msg.get("hints") is True):
                return
            if first:
                self._hello()
            return
        if kind == "who":
            self._greet()
            return
        if self.host_pub is None:
            if kind == "reject":
                self.stopped = Outcome(
                    False, f"the host said: {shown(msg['reason'])}", self._have()
                )
            return  # nothing counts before a welcome that proves the host
        if kind == "lobby":
            if self.session is not None:  # the lobby is over once the game has started
                self.dropped += 1
                return
            self.lobby_seats = [(n, f, t) for n, f, t in msg["seats"]]
            self.driver.on_lobby(self.lobby_seats, msg["need"])
            if msg.get("hints") is True:  # the genesis will allow hints: leave now if we refuse
                self._refuses_hints()
        elif kind == "entries":
            self._on_entries(msg["from"], msg["e"])
        elif kind == "sync":
            if self.session is not None:
                for f, batch in wire.batches(
                    list(self.session.entries[msg["from"] :]), msg["from"]
                ):
                    self._send(wire.pack("entries", **{"from": f, "e": batch}))
        elif kind == "presence":  # the older form: connected or not
            if self.session is not None and len(msg["up"]) == len(self.session.seats):
                self._set_seats([SeatPresence("connected" if u else "lost") for u in msg["up"]])
            else:
                self.dropped += 1
                log.warning("dropped a presence message that does not fit the seats")
        elif kind == "seats":
            if self.session is not None and len(msg["state"]) == len(self.session.seats):
                self._host_seats = [
                    SeatPresence(st, lost)
                    for st, lost in zip(msg["state"], msg["lost"], strict=True)
                ]
                self._set_seats(self._host_seats)
            else:
                self.dropped += 1
                log.warning("dropped a seats message that does not fit the seats")
        elif kind == "mesh":
            if self.mesh is not None:
                self.mesh.on_tunnel(0, msg["m"])
        elif kind == "claim":
            self._on_vote(None, msg["vote"])
        elif kind == "resign":
            self._on_resign(None, msg["r"], b"")
        elif kind == "reject":
            self._host_gone = True
            self.other_game = self.session is not None and msg["reason"] == OTHER_GAME
            self.stopped = Outcome(False, f"the host said: {shown(msg['reason'])}", self._have())
        elif kind == "leave":
            self._host_gone = True
            done = self.session is not None and self.session.finished
            self.stopped = Outcome(
                done,
                "game over" if done else f"the host left (it said: {shown(msg['reason'])})",
                self._have(),
            )
        elif kind == "bye":
            self._host_gone = True
            done = self.session is not None and self.session.finished
            self.stopped = Outcome(
                done, "game over" if done else "the host closed the game", self._have()
            )

    def _on_entries(self, start: int, entries: list[bytes]) -> None:
        if self.session is None:
            if start != 0 or not entries:
                self._ask_sync(0)
                return
            genesis = entries[0]
            if not self._start_session(genesis):
                return
            start, entries = 1, entries[1:]
            self.driver.on_notice("the game is set up: dealing…")
        gap = self.deliver(start, entries, "the host")
        if self.mesh is not None:
            self.mesh.heard(0, start, entries)
        if gap is not None:
            self._ask_sync(gap)

    def _genesis_ok(self, session: Session) -> bool:
        return session.seats[0].public_key == self.host_pub

    def _declines_before_hello(self, hints: bool) -> bool:
        """The host's welcome said this table allows hints (TRANSPORT.md §5): say so before we
        take a seat; with `--no-hints`, leave now, before our hello (the host keeps the seat
        open and is told why). A welcome without the field tells nothing: the lobby and the
        genesis still do. Not when resuming: our log's genesis already bound us."""
        if not hints or self.session is not None or not self._refuses_hints():
            return False
        self._leave_reason = HINTS_DECLINED
        return True

    def _refuses_hints(self) -> bool:
        """Told in the lobby (the host says so) or by the genesis (what binds): say it once;
        with `--no-hints`, stop before signing anything (closing sends the host our leave)."""
        if not self._hints_told:
            self._hints_told = True
            self.driver.on_notice(HINTS_ALLOWED)
        if not self.options.refuse_hints:
            return False
        if self.stopped is None:
            self.stopped = Outcome(False, HINTS_REFUSED, 0)
        return True

    def _tick_unanswered(self, now: float) -> None:
        """Before any welcome: say what we are waiting for, and give up after the bound."""
        bound = (
            self.options.give_up
            if self.options.give_up is not None
            else self.options.connect_give_up
        )
        waited = now - self._began
        if waited > bound:
            self.stopped = Outcome(
                False,
                f"no answer from {self._where()} after {bound:g} s — is the host running? "
                "(--give-up changes how long to try)",
                self._have(),
            )
            return
        if now - self._status_at >= self.options.status_every:
            self._status_at = now
            if self._handshakes == 0:
                self.driver.on_notice(  # said again every few seconds: how long, of how long
                    f"no answer from {self._where()} yet — is the host running? still trying "
                    f"({waited:.0f} of {bound:g} s), Ctrl-C to stop"
                )
            else:
                self.driver.on_notice(
                    f"connected to {self._where()}, waiting for the host's welcome… Ctrl-C to stop"
                )

    def _ask_sync(self, seq: int) -> None:
        now = time.monotonic()
        if self._sync_asked[0] == seq and now - self._sync_asked[1] < 1.0:
            return
        self._sync_asked = (seq, now)
        self._send(wire.pack("sync", **{"from": seq}))

    def _watch_host(self, now: float) -> None:
        """Cut the connection if the host sends bytes that never become a message (an endless
        multipart message sits inside libzmq); the DEALER then reconnects by itself."""
        self._last_watch = now
        if self._fd < 0:
            return
        got = _tcp_bytes_received(self._fd, self.invite.port, remote=True)
        flooded = got is not None and got - self._fd_seen > FLOOD_SLACK
        if flooded and _shutdown_tcp(self._fd, self.invite.port, remote=True):
            self._fd = -1
            self.dropped += 1
            msg = f"the host sent {(got or 0) >> 20} MiB that are no message; reconnecting"
            log.warning("%s", msg)
            self.driver.on_notice(msg)

    def tick(self, now: float) -> None:
        """Ping the host when idle, notice its silence, say we are done at the end."""
        if now - self._last_watch >= WATCH_EVERY:
            self._watch_host(now)
        if self.host_pub is None:
            self._tick_unanswered(now)
            return
        if now - self._last_tx >= PING_EVERY:
            self._send(wire.pack("ping"))
        silent = now - self._last_rx
        if self.session is not None and silent > LIVE_TIMEOUT and self._host_seats:
            # the host is our only link: show it lost, and the others as we last heard
            self._set_seats([SeatPresence("lost", int(silent)), *self._host_seats[1:]])
        if self.host_up and silent > LIVE_TIMEOUT:
            self.host_up = False
            self.driver.on_notice("the host is not answering; waiting for it…")
        elif not self.host_up and silent < LIVE_TIMEOUT and self.host_pub is not None:
            self.host_up = True
        if self.options.give_up is not None and silent > self.options.give_up:
            self.stopped = Outcome(False, "the host is gone", self._have())
            return
        s = self.session
        if s is not None and s.finished:
            if self._finished_at is None:
                self._finished_at = now
                self._send(wire.pack("done", have=len(s.entries)))
            elif now - self._finished_at > 3.0:
                self.stopped = Outcome(True, "game over (no bye from the host)", len(s.entries))
