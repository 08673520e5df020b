"""Bytes between a socket and the kernel's TCP state, for the transport (Linux): which peer a
libzmq connection is from, how much it has sent, and shutting it down. We never touch anything
but our own connections (an fd number can be reused).
"""

from __future__ import annotations

import os
import resource
import socket
import struct

WANT_NOFILE = 65536  # the soft RLIMIT_NOFILE the host asks for (up to the hard limit)
_TCP_INFO_BYTES_RECEIVED = 128  # offset of tcpi_bytes_received in struct tcp_info (Linux >= 4.1)


def raise_nofile() -> int:
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


def our_tcp(fd: int, port: int, remote: bool = False) -> socket.socket | None:
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


def peer_of(fd: int) -> str:
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


def shutdown_tcp(fd: int, port: int, remote: bool = False) -> bool:
    """Shut down the TCP connection behind libzmq's `fd` (libzmq sees the end and closes it)."""
    sock = our_tcp(fd, port, remote)
    if sock is None:
        return False
    try:
        sock.shutdown(socket.SHUT_RDWR)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def tcp_bytes_received(fd: int, port: int, remote: bool = False) -> int | None:
    """How many bytes the kernel has received on that TCP connection (Linux TCP_INFO)."""
    if not hasattr(socket, "TCP_INFO"):
        return None
    sock = our_tcp(fd, port, remote)
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
