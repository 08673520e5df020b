"""The transport's loop: one `zmq.Poller` over the peer's sockets, its direct links' sockets and
the driver's file descriptors. Each turn reads the clock once and hands that `now` to the core
(timers, `tick`, liveness, the mesh), then to whatever the poll found readable.

Also what both transport peers (`zoo_p2p.net.peer.Host`, `Joiner`) set up alike: the trace
file of bench/bench_net.py and the direct links (`zoo_p2p.net.mesh.Mesh`, which are sockets).
"""

from __future__ import annotations

import os
import time
from typing import IO, TYPE_CHECKING, Any, Protocol

import zmq

from zoo_p2p.driver import Driver, GameLink, Outcome
from zoo_p2p.files import open_fd

if TYPE_CHECKING:
    from zoo_p2p.net.mesh import Mesh


class FileTrace:
    """ZOO_NET_TRACE=DIR: "event n monotonic_ns" lines for bench/bench_net.py, buffered and
    written out at close (no write on the path being measured)."""

    on = True

    def __init__(self, trace_dir: str) -> None:
        trace = os.path.join(trace_dir, f"{os.getpid()}.trace")  # opened as all we write
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        self._file: IO[str] | None = os.fdopen(open_fd(trace, flags, verb="write"), "a", 1 << 20)

    def mark(self, event: str, n: int) -> None:
        """Note `event` for entry `n`, stamped with the monotonic clock now."""
        if self._file is not None:
            self._file.write(f"{event} {n} {time.monotonic_ns()}\n")

    def close(self) -> None:
        """Write the lines out."""
        if self._file is not None:
            self._file.close()
            self._file = None


def trace_from_env() -> FileTrace | None:
    """The trace `ZOO_NET_TRACE` asks for, if any."""
    trace_dir = os.environ.get("ZOO_NET_TRACE")
    return FileTrace(trace_dir) if trace_dir else None


def mesh_wanted() -> bool:
    """Direct links on (TRANSPORT.md §10), unless ZOO_MESH=0 turns them off."""
    return os.environ.get("ZOO_MESH", "1") != "0"


class LoopPeer(GameLink, Protocol):
    """What the loop drives: a core with its transport (a `Host` or a `Joiner`)."""

    poller: zmq.Poller
    driver: Driver
    now: float
    mesh: Mesh | None
    _idle_wake: float

    def run_timers(self, now: float) -> bool: ...
    def next_timer(self) -> float | None: ...
    def tick(self, now: float) -> None: ...
    def tell_mapping(self) -> None: ...
    def _liveness_tick(self, now: float) -> None: ...
    def on_socket(self, sock: Any) -> None: ...
    def close(self) -> None: ...


def run(peer: LoopPeer, deadline: float | None = None) -> Outcome:
    """Run `peer` until the game is over, it gives up, or `deadline` (monotonic) passes."""
    for fd in peer.driver.fds():
        peer.poller.register(fd, zmq.POLLIN)
    ready: list[tuple[Any, int]] = []
    try:
        while peer.stopped is None:
            now = peer.now = time.monotonic()  # the one clock read of this turn
            _readable(peer, ready)
            if peer.stopped is not None:
                break
            if deadline is not None and now >= deadline:
                peer.leave("deadline passed")
                break
            ready = []
            if peer.run_timers(now):
                continue
            wake = _turn(peer, now)
            if peer.stopped is not None:
                break
            if deadline is not None:
                wake = min(wake, deadline)
            ready = peer.poller.poll(max(0, int((wake - now) * 1000)) + 1)
    except KeyboardInterrupt:
        peer.leave("interrupted")
    finally:
        if peer.stopped is not None and peer.stopped.finished:
            peer.tell_mapping()  # the router answered after our last look
        peer.close()
    assert peer.stopped is not None
    return peer.stopped


def _turn(peer: LoopPeer, now: float) -> float:
    """The periodic work of one turn; when the next is due."""
    peer.tick(now)
    peer.tell_mapping()
    peer._liveness_tick(now)
    if peer.mesh is not None:
        peer.mesh.tick(now)
    timer = peer.next_timer()
    wake = now + peer._idle_wake if timer is None else min(timer, now + peer._idle_wake)
    if peer.mesh is not None:
        wake = min(wake, peer.mesh.due())
    return wake


def _readable(peer: LoopPeer, ready: list[tuple[Any, int]]) -> None:
    """Hand what the last poll found readable to its reader, stamped with this turn's `now`."""
    for sock, _ in ready:
        if isinstance(sock, int):
            if not peer.driver.on_fd(sock, peer):
                peer.poller.unregister(sock)
        elif peer.mesh is not None and peer.mesh.owns(sock):
            peer.mesh.on_readable(sock, peer.now)
        else:
            peer.on_socket(sock)
