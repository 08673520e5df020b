"""The one error family of zoo-p2p (see STYLE.md): split where the reader must act differently."""

from __future__ import annotations


class ZooError(Exception):
    """Base of every error zoo-p2p raises on purpose."""


class IllegalMoveError(ZooError, ValueError):
    """A move that the rules forbid in the current position; the message says why."""


class NotationError(ZooError, ValueError):
    """Text that is not a move or a square; the message shows a valid example."""


class LocalProtocolError(ZooError):
    """We (this peer) tried to break the protocol: a bug or a misuse of the API."""


class RemoteProtocolError(ZooError):
    """A peer broke the protocol. Carries the offending entry bytes as evidence, and the seat."""

    def __init__(self, reason: str, *, entry: bytes | None = None, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.entry = entry
        self.seat = seat


class LogError(ZooError):
    """A log file that cannot be read or does not chain; says at which entry."""

    def __init__(self, reason: str, *, index: int | None = None) -> None:
        super().__init__(reason if index is None else f"entry {index}: {reason}")
        self.reason = reason
        self.index = index


class CheatError(RemoteProtocolError):
    """A peer signed something provably wrong (bad reveal, fork, non-permutation): the game stops.

    `evidence` holds the signed entries that prove it (the offending one first).
    """

    def __init__(
        self,
        reason: str,
        *,
        entry: bytes | None = None,
        seat: int | None = None,
        evidence: tuple[bytes, ...] = (),
    ) -> None:
        super().__init__(reason, entry=entry, seat=seat)
        self.evidence = evidence


class IdentityError(ZooError):
    """The local identity key file is missing, unreadable, malformed or too widely readable."""


class UsageError(ZooError, ValueError):
    """A command was asked for something it cannot do (a bad option value): exit code 2."""
