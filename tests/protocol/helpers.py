"""Helpers for the protocol tests: forging entries as a (cheating) seat would."""

from __future__ import annotations

from typing import Any

from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import make_entry
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame


def forge(game: LocalGame, seat: int, kind: str, body: Any, *, on: Session | None = None) -> bytes:
    """An entry signed by `seat` with the right seq and prev for the head of `on` (or seat 0)."""
    s = on or game.sessions[0]
    entries = s.entries
    return make_entry(game.keys[seat], len(entries), sha256(entries[-1]), seat, kind, body)


def deliver(game: LocalGame, sender: int, raw: bytes) -> None:
    """Deliver an entry to every other seat."""
    for i, s in enumerate(game.sessions):
        if i != sender:
            s.receive(raw)
