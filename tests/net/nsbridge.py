"""Tor relays' ports inside a network namespace that has no other way out (issue 22, item 6).

A peer of the onion tests runs in a namespace of its own with nothing but its loopback: no
veth, no route, so it cannot reach another peer's port however it tries. Its tor still has to
reach the private Tor network of tests/net/tornet.py, whose relays listen on 127.0.0.1 of the
test's own namespace and advertise 127.0.0.1 in their descriptors. `NsBridge` listens on
127.0.0.1:P *inside* the namespace for each relay port P (the listening socket is made by a
short-lived thread that has entered the namespace with setns(2); a socket keeps the namespace
it was made in) and forwards every connection to 127.0.0.1:P outside. Only those ports: a peer
reaches the relays, and through them onion services, and nothing else.

With `delay` D (seconds) every byte is held D before it is passed on, each way: the machine's
links to the Tor network get a one-way delay D (bench/bench_tor.py --delay-ms), while the relays
among themselves stay on loopback. A message from one peer to another over onion circuits
crosses two such links (the sender's to its first relay, the receiver's from its own), so its
floor is 2 D.

Bounds: at most MAX_CONNS connections per bridge at once (more are closed at accept), every
connect outside within 5 s; `close()` stops every thread's sockets.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import selectors
import socket
import threading
import time
from pathlib import Path

CLONE_NEWNET = 0x40000000
MAX_CONNS = 256


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def listen_in(ns: str, port: int) -> socket.socket:
    """A TCP listener on 127.0.0.1:PORT inside namespace NS (made in a thread of its own)."""
    out: list[socket.socket | BaseException] = []

    def make() -> None:
        try:
            with open(Path("/var/run/netns") / ns, "rb") as f:
                _setns(f.fileno())  # this thread only; it ends right after
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen(64)
            out.append(s)
        except BaseException as exc:  # handed to the caller
            out.append(exc)

    t = threading.Thread(target=make)
    t.start()
    t.join(10)
    if not out:
        raise RuntimeError(f"could not listen in {ns} in time")
    got = out[0]
    if isinstance(got, BaseException):
        raise got
    return got


class NsBridge:
    """Each port of PORTS on 127.0.0.1 inside NS, forwarded to 127.0.0.1 of our namespace."""

    def __init__(self, ns: str, ports: list[int], delay: float = 0.0) -> None:
        self.ns = ns
        self.delay = delay
        self.late: list[float] = []  # with a delay: seconds each chunk left after it was due
        self._lock = threading.Lock()
        self._socks: set[socket.socket] = set()
        self._closed = False
        self._listeners = [listen_in(ns, p) for p in ports]
        for lst in self._listeners:
            threading.Thread(target=self._accept, args=(lst,), daemon=True).start()

    def _accept(self, lst: socket.socket) -> None:
        port = int(lst.getsockname()[1])
        while True:
            try:
                conn, _ = lst.accept()
            except OSError:
                return
            with self._lock:
                if self._closed or len(self._socks) >= 2 * MAX_CONNS:
                    conn.close()
                    continue
                self._socks.add(conn)
            threading.Thread(target=self._serve, args=(conn, port), daemon=True).start()

    def _serve(self, conn: socket.socket, port: int) -> None:
        up: socket.socket | None = None
        try:
            up = socket.create_connection(("127.0.0.1", port), timeout=5)
            up.settimeout(None)
            with self._lock:
                if self._closed:
                    return
                self._socks.add(up)
            if self.delay > 0:
                _delayed_pump(conn, up, self.delay, self.late)
            else:
                _pump(conn, up)
        except OSError:
            pass
        finally:
            with self._lock:
                self._socks.discard(conn)
                if up is not None:
                    self._socks.discard(up)
            conn.close()
            if up is not None:
                up.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            live = list(self._socks)
        for lst in self._listeners:
            with contextlib.suppress(OSError):
                lst.shutdown(socket.SHUT_RDWR)
            lst.close()
        for s in live:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def _pump(a: socket.socket, b: socket.socket) -> None:
    sel = selectors.DefaultSelector()
    try:
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while True:
            for key, _ in sel.select():
                src: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = src.recv(65536)
                    if not data:
                        return
                    key.data.sendall(data)
                except OSError:
                    return
    finally:
        sel.close()


def _delayed_pump(a: socket.socket, b: socket.socket, delay: float, late: list[float]) -> None:
    """Copy both ways, every chunk passed on `delay` seconds after it was read (in order); how
    late each one left goes into `late` (the emulator's own error; at most 100000 kept)."""
    done = threading.Event()

    def reader(src: socket.socket, q: queue.Queue[tuple[float, bytes]]) -> None:
        try:
            while data := src.recv(65536):
                q.put((time.monotonic() + delay, data))
        except OSError:
            pass
        finally:
            q.put((0.0, b""))

    def writer(dst: socket.socket, q: queue.Queue[tuple[float, bytes]]) -> None:
        try:
            while True:
                due, data = q.get()
                if not data:
                    return
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)  # the emulated link's delay itself
                if len(late) < 100000:
                    late.append(time.monotonic() - due)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            done.set()

    qs: list[queue.Queue[tuple[float, bytes]]] = [queue.Queue(), queue.Queue()]
    threads = [
        threading.Thread(target=reader, args=(a, qs[0]), daemon=True),
        threading.Thread(target=writer, args=(b, qs[0]), daemon=True),
        threading.Thread(target=reader, args=(b, qs[1]), daemon=True),
        threading.Thread(target=writer, args=(a, qs[1]), daemon=True),
    ]
    for t in threads:
        t.start()
    done.wait()  # either direction ended: the connection is over
    for s in (a, b):
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
    for t in threads:
        t.join(5)
