"""The zoo-p2p protocol, sans-I/O: signed hash-chained entries, the fair deal, session, audit.

Normative spec: `protocol/PROTOCOL.md`. Nothing here opens a file or a socket, reads a clock or
uses the global random generator; randomness (seeds, nonces) is passed in.
"""

from zoo_p2p.protocol.audit import AuditReport, audit
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.encoding import Entry, Kind, decode_entry
from zoo_p2p.protocol.events import (
    CardRevealed,
    CheatDetected,
    EntryAccepted,
    Event,
    Finished,
    Floor,
    GameOver,
    GameStarted,
    Gap,
    MoveApplied,
    MutantRevealed,
    ResultSigned,
    SeatInfo,
    SeedOpened,
    SeedsOpened,
)
from zoo_p2p.protocol.session import Session

__all__ = [
    "AuditReport",
    "CardRevealed",
    "CheatDetected",
    "Entry",
    "EntryAccepted",
    "Event",
    "Finished",
    "Floor",
    "GameOver",
    "GameStarted",
    "Gap",
    "Kind",
    "MoveApplied",
    "MutantRevealed",
    "ResultSigned",
    "SeatInfo",
    "SeedOpened",
    "SeedsOpened",
    "Session",
    "audit",
    "decode_entry",
    "fingerprint",
]
