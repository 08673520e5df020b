"""A move as an entry body (PROTOCOL.md §3): ``[0, value, to]`` for a Send, ``[1, from, to]``
for a Step. Pure; shared by the session and the stand-in's reference policy, whose tie-break
compares these bodies."""

from __future__ import annotations

from typing import Any

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.rules import N_SQUARES, Move, Send, Step

MOVE_SEND = 0
MOVE_STEP = 1


def encode_move(move: Move) -> list[int]:
    """A move's body: [0, value, to] for a Send, [1, from, to] for a Step."""
    if isinstance(move, Send):
        return [MOVE_SEND, move.value, move.to]
    return [MOVE_STEP, move.frm, move.to]


def decode_move(body: Any) -> Move:
    """Parse a move body; RemoteProtocolError if it is not [0|1, int, int] in range."""
    if not (isinstance(body, list) and len(body) == 3 and all(type(x) is int for x in body)):
        raise RemoteProtocolError("move body is not [kind, a, b]")
    k, a, b = body
    if not 0 <= b < N_SQUARES:
        raise RemoteProtocolError(f"move target square {b} out of range")
    if k == MOVE_SEND:
        if a not in (3, 4, 5, 6):
            raise RemoteProtocolError(f"no character worth {a}")
        return Send(a, b)
    if k == MOVE_STEP:
        if not 0 <= a < N_SQUARES:
            raise RemoteProtocolError(f"move source square {a} out of range")
        return Step(a, b)
    raise RemoteProtocolError(f"unknown move kind {k}")


__all__ = ["MOVE_SEND", "MOVE_STEP", "decode_move", "encode_move"]
