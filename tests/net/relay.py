"""A TCP relay on 127.0.0.1 that a test can cut: a joiner reaches the host through it.

`cut()` closes every connection passed on so far (both sides see it end) and holds new ones:
accepted, but not passed on, so the joiner's reconnection stalls in its handshake. `mend()`
passes the held connections on to the host. Threads are daemons; `close()` ends them (each
waits at most 0.1 s at a time)."""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class Relay:
    """Pass TCP connections on 127.0.0.1:`port` to `upstream`, until cut."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.lsock = socket.create_server(("127.0.0.1", 0))
        self.lsock.settimeout(0.1)
        self.port: int = self.lsock.getsockname()[1]
        self.lock = threading.Lock()
        self.passing = True
        self.held: list[socket.socket] = []
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                c, _ = self.lsock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self.lock:
                if self.passing:
                    self._pass_on(c)
                else:
                    self.held.append(c)

    def _pass_on(self, c: socket.socket) -> None:
        try:
            u = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            c.close()
            return
        self.pairs.append((c, u))
        threading.Thread(target=self._pump, args=(c, u), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while not self.stop.is_set():
                ready, _, _ = select.select([a, b], [], [], 0.1)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()

    def cut(self) -> None:
        """End every connection now; hold the new ones."""
        with self.lock:
            self.passing = False
            for pair in self.pairs:
                for s in pair:
                    with contextlib.suppress(OSError):
                        s.shutdown(socket.SHUT_RDWR)
            self.pairs.clear()

    def holding(self) -> int:
        """How many new connections wait to be passed on."""
        with self.lock:
            return len(self.held)

    def mend(self) -> None:
        """Pass the held connections on, and every new one."""
        with self.lock:
            self.passing = True
            for c in self.held:
                self._pass_on(c)
            self.held.clear()

    def close(self) -> None:
        self.stop.set()
        self.lsock.close()
        with self.lock:
            for s in [*self.held, *(s for pair in self.pairs for s in pair)]:
                with contextlib.suppress(OSError):
                    s.close()
