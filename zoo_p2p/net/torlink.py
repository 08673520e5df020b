"""Reaching an onion service through a Tor client without libzmq's SOCKS connecter.

libzmq 4.3.5 aborts the whole process (`Bad file descriptor (src/epoll.cpp:86)`, SIGABRT) when
a socket with `ZMQ_SOCKS_PROXY` is closed, disconnected or its context terminated after even
one failed SOCKS attempt (docs/upstream/libzmq-socks-close-abort.md). A Tor client refuses
attempts all the time (not bootstrapped yet, the onion not published yet, a circuit that
failed), so zoo never sets `ZMQ_SOCKS_PROXY`. Instead a `SocksForwarder` listens on 127.0.0.1
and, for every TCP connection libzmq makes to it, does the SOCKS5 handshake itself (the
`.onion` name sent unresolved, ATYP 3: it has no DNS) and then copies bytes both ways. A
refused attempt is only a closed TCP connection for libzmq, which reconnects as usual, and a
socket can be closed at any time. ZMTP and CURVE run end to end through it: the forwarder sees
ciphertext only and is trusted for nothing but delivery, as Tor is.

Bounds: at most `MAX_LINKS` connections at once (more are closed at accept), the SOCKS
handshake within `HANDSHAKE_TIMEOUT` seconds, replies read to their exact length (at most 262
bytes), 64 KiB buffers. The forwarder's thread uses plain sockets only.

TRANSPORT.md §3.5 is the normative text.
"""

from __future__ import annotations

import contextlib
import re
import selectors
import socket
import threading
import time

MAX_LINKS = 16
HANDSHAKE_TIMEOUT = 120.0  # seconds for Tor to build a circuit and reach the onion
# A refused attempt is retried on the same accepted connection for this long (libzmq's own
# ZMTP handshake timer, 30 s by default, runs meanwhile): closing it at once would look to the
# joiner like a failed secure handshake (TRANSPORT.md §2), and Tor refuses for a while after
# an onion is published, or while a circuit is rebuilt.
RETRY_WINDOW = 20.0
RETRY_FIRST, RETRY_MAX = 0.25, 2.0  # seconds between attempts, doubling
_CHUNK = 65536

ONION_V3_RE = re.compile(r"^[a-z2-7]{56}\.onion$")

SOCKS5_REPLIES = {
    1: "general failure",
    2: "connection not allowed by ruleset",
    3: "network unreachable",
    4: "host unreachable (the onion may not be published yet)",
    5: "connection refused",
    6: "TTL expired (no circuit in time)",
    7: "command not supported",
    8: "address type not supported",
    # Tor's own extended codes for onion services (tor's socks extended errors)
    0xF0: "onion service descriptor not found (not published, or gone)",
    0xF1: "onion service descriptor is invalid",
    0xF2: "onion service introduction failed",
    0xF3: "onion service rendezvous failed",
    0xF4: "onion service requires client authorization",
    0xF5: "onion service client authorization is wrong",
    0xF6: "the onion address is invalid",
    0xF7: "onion service introduction timed out",
}


class SocksError(OSError):
    """A SOCKS5 attempt that failed, with the proxy's reason in words."""


def is_onion(host: str) -> bool:
    """A v3 onion name: 56 lowercase base32 characters and `.onion`."""
    return ONION_V3_RE.match(host) is not None


LOOPBACK = ("127.0.0.1", "[::1]", "localhost")
NOT_V3 = "not a v3 onion name"
REFUSALS_SAID = 64  # endpoints a mesh says it does not dial, at the most (each said once)


def dial_route(
    ep: str, socks: tuple[str, int] | None, hidden: bool
) -> tuple[str, SocksForwarder | None] | str:
    """Where a SUB connects for the endpoint `ep` (`tcp://host:port`) and the forwarder it goes
    through, or, as a string, why we do not dial it (TRANSPORT.md §10.9): an onion through a
    new forwarder to our Tor client at `socks`, never looked up in DNS; no onion without a Tor
    client; over Tor (`hidden`) nothing that is neither an onion nor loopback (it would learn
    our address). The caller owns the forwarder it is given and closes it."""
    host, _, port = ep[len("tcp://") :].rpartition(":")
    if is_onion(host):
        if socks is None:
            return "an onion, and we have no Tor client"
        try:
            fwd = SocksForwarder(socks, host, int(port))
        except OSError as exc:
            return f"no forwarder to Tor ({exc})"
        return fwd.endpoint, fwd
    if host.endswith(".onion"):
        return NOT_V3
    if hidden and host not in LOOPBACK:
        return "over Tor we dial onions only: that address would learn ours"
    return ep, None


def first_refusal(said: set[str], ep: str) -> bool:
    """Whether to say that we do not dial `ep`: once an endpoint, `REFUSALS_SAID` at the most
    (a card may name many); `said` keeps the endpoints said so far."""
    if ep in said or len(said) >= REFUSALS_SAID:
        return False
    said.add(ep)
    return True


def _recv_exact(s: socket.socket, n: int, deadline: float) -> bytes:
    buf = b""
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SocksError("the Tor client did not answer in time")
        s.settimeout(left)
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise SocksError("the Tor client closed the connection")
        buf += chunk
    return buf


def socks5_open(
    proxy: tuple[str, int], host: str, port: int, timeout: float = HANDSHAKE_TIMEOUT
) -> socket.socket:
    """A TCP stream to HOST:PORT through the SOCKS5 proxy; the name goes unresolved (ATYP 3).

    Raises SocksError naming the reason the proxy gave."""
    name = host.encode("ascii")
    if not 1 <= len(name) <= 255 or not 1 <= port <= 65535:
        raise SocksError(f"cannot ask a SOCKS proxy for {host!r}:{port}")
    deadline = time.monotonic() + timeout
    s = socket.create_connection(proxy, timeout=timeout)
    try:
        s.sendall(b"\x05\x01\x00")  # version 5, one method: no authentication
        if _recv_exact(s, 2, deadline) != b"\x05\x00":
            raise SocksError("the Tor client refused the SOCKS greeting")
        s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
        head = _recv_exact(s, 4, deadline)
        if head[0] != 5:
            raise SocksError("the Tor client's answer is not SOCKS5")
        if head[1] != 0:
            why = SOCKS5_REPLIES.get(head[1], f"reply code {head[1]}")
            raise SocksError(f"Tor could not reach {host}:{port}: {why}")
        atyp = head[3]
        if atyp == 1:
            n = 4
        elif atyp == 4:
            n = 16
        elif atyp == 3:
            n = _recv_exact(s, 1, deadline)[0]
        else:
            raise SocksError("the Tor client's answer has an unknown address type")
        _recv_exact(s, n + 2, deadline)
        s.settimeout(None)
        return s
    except BaseException:
        s.close()
        raise


class SocksForwarder:
    """A loopback port that forwards every connection to HOST:PORT through a SOCKS5 proxy.

    Give libzmq `endpoint` instead of the onion (with the onion's CURVE key as usual)."""

    def __init__(self, proxy: tuple[str, int], host: str, port: int) -> None:
        self.proxy = proxy
        self.host = host
        self.port = port
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(MAX_LINKS)
        self.local_port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._links: set[socket.socket] = set()
        self._closed = False
        self._stop = threading.Event()
        self.failures = 0  # SOCKS attempts that failed
        self.successes = 0
        self.last_error = ""
        self._asking = 0  # SOCKS attempts under way now
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name="zoo-socks")
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"tcp://127.0.0.1:{self.local_port}"

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self._closed or len(self._links) >= MAX_LINKS:
                    conn.close()
                    continue
                self._links.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            upstream = self._open_upstream()
            if upstream is None:
                return
            with self._lock:
                if self._closed:
                    return
                self._links.add(upstream)
                self.successes += 1
            _pump(conn, upstream)
        finally:
            with self._lock:
                self._links.discard(conn)
                if upstream is not None:
                    self._links.discard(upstream)
            conn.close()
            if upstream is not None:
                upstream.close()

    def _open_upstream(self) -> socket.socket | None:
        """The SOCKS stream, retried for RETRY_WINDOW seconds; None if Tor kept refusing."""
        start = time.monotonic()
        pause = RETRY_FIRST
        while not self._stop.is_set():
            with self._lock:
                self._asking += 1
            try:
                return socks5_open(self.proxy, self.host, self.port)
            except OSError as e:
                with self._lock:
                    self.failures += 1
                    self.last_error = str(e)
            finally:
                with self._lock:
                    self._asking -= 1
            if time.monotonic() - start + pause > RETRY_WINDOW:
                return None
            self._stop.wait(pause)  # a retry back-off; close() ends it at once
            pause = min(pause * 2, RETRY_MAX)
        return None

    def reached(self) -> int:
        """How many connections Tor has taken to the onion so far (SOCKS replies `00`)."""
        with self._lock:
            return self.successes

    def phase(self) -> str:
        """Where the connection stands, in words for a status line."""
        with self._lock:
            asking, ok, failed, why = self._asking, self.successes, self.failures, self.last_error
        if ok:
            return "connected through Tor"
        if asking:
            return "building a circuit" + (
                f" (Tor said: {_reason(why)}; asking again)" * bool(failed)
            )
        if failed:
            return f"Tor said: {_reason(why)}; asking again"
        return "asking Tor for a circuit"

    def close(self) -> None:
        """Stop listening and cut every forwarded connection (libzmq sees them end)."""
        self._stop.set()
        with self._lock:
            self._closed = True
            links = list(self._links)
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for s in links:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=2)


def _reason(error: str) -> str:
    """The proxy's reason alone (the onion is named already)."""
    return error.rsplit(": ", 1)[-1]


def _pump(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side ends."""
    sel = selectors.DefaultSelector()
    try:
        a.setblocking(True)
        b.setblocking(True)
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while True:
            for key, _ in sel.select():
                src: socket.socket = key.fileobj  # type: ignore[assignment]
                dst: socket.socket = key.data
                try:
                    data = src.recv(_CHUNK)
                    if not data:
                        return
                    dst.sendall(data)
                except OSError:
                    return
    finally:
        sel.close()
