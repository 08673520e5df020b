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


class FileError(LogError):
    """A file of ours (a log, its lock, sidecar or proofs, an export, a key) that cannot be
    opened, read or written: one sentence naming the path and the reason, never an OSError.
    `code` is the errno behind it (None when the file was refused for what it is)."""

    def __init__(self, verb: str, path: object, why: str, *, code: int | None = None) -> None:
        super().__init__(f"cannot {verb} {path}: {why}")
        self.path = str(path)
        self.why = why
        self.code = code


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
    """A command was asked for something it cannot do (a bad option value): exit code 2.
    `param` names the option or argument at fault as the usage line says it (``'--at'``)."""

    def __init__(self, reason: str, *, param: str | None = None) -> None:
        super().__init__(reason)
        self.param = param


class StatementCheatError(CheatError):
    """A seat's signed resignation statement is provably wrong (PROTOCOL.md §10.4): its seed
    misses its commitments, or its stand-in field is not the derived key. `seat` is the
    statement's signer, whoever appended the entry that carries it; `statement` its bytes."""

    def __init__(
        self,
        reason: str,
        *,
        statement: bytes,
        entry: bytes | None = None,
        seat: int | None = None,
        evidence: tuple[bytes, ...] = (),
    ) -> None:
        super().__init__(reason, entry=entry, seat=seat, evidence=evidence)
        self.statement = statement
