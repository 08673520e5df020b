"""The guard of a ROUTER's accepted connections, without I/O, in one place for the host's game
port (`zoo_p2p.net.core.lobby.Seating`) and a seat's watch port (`zoo_p2p.net.seatwatch`):
TRANSPORT.md §11, §12.5.

Every accepted TCP connection is counted (`fds`, by libzmq's file descriptor): at most
`MAX_LINKS` (the newest beyond it is shut), at most `MAX_PENDING` not yet bound to a link (the
oldest beyond it is shut), each bound within `HELLO_TIMEOUT` seconds of being accepted (by a
hello on the host, a watch on a watch port) after at most `MAX_KNOCKS` knocks. A message is one
frame: a multipart message shuts its connection. The bytes of the messages read from a
connection are counted, and one whose kernel received `FLOOD_SLACK` bytes more (an endless
multipart message sits inside libzmq) is shut.

`ConnGuard` is a base of both cores: they say what binds a connection (`BOUND_BY`), what
shutting one forgets of theirs (`_unlink`) and how they log it (`_said_kicked`); the transport
shuts connections (`_shut`) and reads the kernel's count (`_tcp_received`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FLOOD_SLACK",
    "HELLO_TIMEOUT",
    "MAX_KNOCKS",
    "MAX_LINKS",
    "MAX_PENDING",
    "WATCH_EVERY",
    "ConnGuard",
    "_Fd",
]

HELLO_TIMEOUT = 5.0  # a connection says a valid hello (a watch) within this many seconds
MAX_KNOCKS = 4  # knocks a link may send before its hello
MAX_PENDING = 64  # accepted connections without a valid hello yet (the oldest is dropped)
MAX_LINKS = 256  # accepted connections in all (beyond it the newest is dropped)
FLOOD_SLACK = 4 << 20  # TCP bytes a link may have sent beyond the messages we received from it
WATCH_EVERY = 0.05  # seconds between checks of the connections (hello timeout, flood)


@dataclass
class _Fd:
    """One accepted TCP connection (libzmq's file descriptor for it)."""

    accepted: float
    peer: str = "?"
    rid: bytes | None = None
    bound: bool = False  # a valid hello (a watch) arrived on it
    seen: int = 0  # bytes of messages we received from it (to spot an endless multipart)
    knocks: int = 0


class ConnGuard:
    """The accepted connections of a ROUTER and their bounds (the module's text)."""

    BOUND_BY = "hello"  # what binds a connection to a link, in the log's words
    PENDING_WORDS = "too many connections without a hello"  # why the oldest unbound is shut

    dropped: int

    def _open_guard(self, now: float) -> None:
        """No connection yet; the first check of them at `now` + WATCH_EVERY."""
        self.fds: dict[int, _Fd] = {}
        self.shut_fds: list[int] = []  # connections we asked to shut (no transport does it)
        self.kicked = 0  # connections we shut down (tests read it)
        self._last_watch = now

    # ----- what the transport tells us ----------------------------------------------------
    def fd_accepted(self, fd: int, peer: str, now: float) -> None:
        """The transport accepted the TCP connection `fd` from `peer`."""
        known = self.fds.get(fd)
        if known is None or known.rid is None:  # (its frames may have come first)
            self.fds[fd] = _Fd(now, peer)
        self._limit_fds(fd)

    def fd_closed(self, fd: int) -> None:
        """The connection `fd` went away."""
        self.fds.pop(fd, None)

    def bind_fd(self, fd: int) -> None:
        """The connection `fd` is bound to an admitted link: no hello timeout for it."""
        info = self.fds.get(fd)
        if info is not None:
            info.bound = True

    def shut(self, fd: int, why: str) -> None:
        """Shut one connection (a spectator dropped)."""
        self._kick(fd, why)

    # ----- what the core checks -------------------------------------------------------------
    def _frames_in(self, rid: bytes, parts: list[bytes], fd: int) -> tuple[_Fd | None, bool]:
        """A message's frames counted on their connection `fd` (-1: unknown), which learns its
        routing id: the connection, and whether the message is one frame (a multipart message
        is dropped and its connection shut)."""
        info = self.fds.get(fd) if fd >= 0 else None
        if info is not None:
            info.seen += sum(len(p) + 64 for p in parts)
            if info.rid is None:
                info.rid = rid
        if len(parts) != 1:
            self.dropped += 1
            self._said_multipart(len(parts))
            if fd >= 0:
                self._kick(fd, "multipart message")
            return info, False
        return info, True

    def _knocked(self, info: _Fd | None, fd: int) -> bool:
        """A knock on the connection `fd`: False if it was one too many (the connection is
        shut), True if it is answered with a welcome."""
        if info is not None:
            info.knocks += 1
            if info.knocks > MAX_KNOCKS:
                self._kick(fd, f"knocks without a {self.BOUND_BY}")
                return False
        return True

    def _limit_fds(self, newest: int) -> None:
        """Keep the accepted connections bounded: all of them, and those not bound yet."""
        if len(self.fds) > MAX_LINKS:
            self._kick(newest, "too many connections")
            return
        pending = [fd for fd, info in self.fds.items() if not info.bound]
        if len(pending) > MAX_PENDING:
            oldest = min(pending, key=lambda fd: self.fds[fd].accepted)
            self._kick(oldest, self.PENDING_WORDS)

    def _watch_fds(self, now: float) -> None:
        """Every WATCH_EVERY: drop connections not bound in time, or that flood us with bytes
        we never see as messages (an endless multipart message sits inside libzmq)."""
        if now - self._last_watch < WATCH_EVERY:
            return
        self._last_watch = now
        for fd, info in list(self.fds.items()):
            if not info.bound and now - info.accepted > HELLO_TIMEOUT:
                self._kick(fd, f"no {self.BOUND_BY} within {HELLO_TIMEOUT:g} s")
                continue
            got = self._tcp_received(fd)
            if got is not None and got - info.seen > FLOOD_SLACK:
                self._kick(fd, f"{got - info.seen} bytes sent that are no message")

    def _kick(self, fd: int, why: str) -> None:
        """Shut one TCP connection down (libzmq then closes it and forgets its pipe)."""
        info = self.fds.pop(fd, None)
        if info is not None and info.rid is not None:
            self._unlink(info.rid, fd)
        if self._shut(fd):
            self.kicked += 1
            self._said_kicked(fd, info, why)

    # ----- what the core using it says ---------------------------------------------------
    def _unlink(self, rid: bytes, fd: int) -> None:
        """The connection `fd`, which carried the routing id `rid`, is being shut."""

    def _said_kicked(self, fd: int, info: _Fd | None, why: str) -> None:
        """Log that the connection `fd` was shut, and why."""

    def _said_multipart(self, parts: int) -> None:
        """A message of `parts` frames was dropped (before its connection is shut)."""

    # ----- what the transport does --------------------------------------------------------
    def _shut(self, fd: int) -> bool:
        """Shut the connection `fd` down (here: noted in `shut_fds`); True if it was."""
        self.shut_fds.append(fd)
        return True

    def _tcp_received(self, fd: int) -> int | None:
        """How many bytes the kernel received on `fd` (None: unknown; the transport knows)."""
        return None
