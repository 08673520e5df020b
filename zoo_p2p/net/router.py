"""What a ZeroMQ ROUTER that admits peers reads besides their messages, in one place for the
host's game port (`zoo_p2p.net.peer.Host`) and a seat's watch port (`zoo_p2p.net.seatwatch`):
the connection a message came from, the CURVE key that authenticated it, and the socket
monitor's events (TRANSPORT.md §11: connections are seen, and can be shut); and the host's own
CURVE server keys."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import zmq
from zmq.utils import z85

from zoo_p2p.net import wire
from zoo_p2p.net.core.peer import raw_private

__all__ = ["MONITOR_BATCH", "monitor_events", "origin", "server_curve_keys", "srcfd"]

MONITOR_BATCH = 10_000  # monitor events read at most a turn (the rest at the next)


def srcfd(frame: Any) -> int:
    """The file descriptor libzmq read a received frame from (-1 if unknown)."""
    try:
        return int(frame.get(zmq.SRCFD))
    except (zmq.ZMQError, AttributeError, TypeError, ValueError):
        return -1


def origin(frames: list[Any], curve: bool) -> tuple[bytes, list[bytes], bytes | None, int]:
    """A message a ROUTER received (`copy=False` frames): its routing id, its parts, the CURVE
    public key that authenticated it (b"" under NULL security; None when the ZAP metadata
    cannot be read, so nothing can be bound to it) and libzmq's connection fd (-1: unknown)."""
    rid = bytes(frames[0].bytes)
    key: bytes | None = b""
    if curve and len(frames) == 2:
        try:
            key = z85.decode(frames[1].get("User-Id").encode("ascii"))
        except Exception:  # no ZAP metadata
            key = None
    return rid, [f.bytes for f in frames[1:]], key, srcfd(frames[-1])


def monitor_events(monitor: Any, most: int = MONITOR_BATCH) -> Iterator[tuple[int, int]]:
    """The socket monitor's pending events, (event, value), at most `most` of them."""
    from zmq.utils.monitor import recv_monitor_message

    for _ in range(most):
        try:
            event = recv_monitor_message(monitor, flags=zmq.NOBLOCK)
        except zmq.Again:
            return
        yield event["event"], int(event["value"])


def server_curve_keys(key: Any) -> tuple[bytes, bytes]:
    """The host's CURVE (public, secret) pair in z85, derived from its identity (stable invites)."""
    secret = z85.encode(wire.derive_secret(raw_private(key), b"curve-server"))
    return zmq.curve_public(secret), secret
