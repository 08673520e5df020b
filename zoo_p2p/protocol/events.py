"""Events a Session returns, the Floor, and the seat description (all frozen values)."""

from __future__ import annotations

from dataclasses import dataclass

from zoo_p2p.rules import Move, Team


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the genesis lists it: display name, raw Ed25519 public key, team."""

    name: str
    public_key: bytes
    team: Team


@dataclass(frozen=True, slots=True)
class Floor:
    """Who may speak next and with which entry kind."""

    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every session event."""


@dataclass(frozen=True, slots=True)
class EntryAccepted(Event):
    """An entry was validated and appended to the log."""

    seq: int
    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class Gap(Event):
    """An entry from the future arrived; resync from `expected_seq` (nothing was appended)."""

    expected_seq: int


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The opening reveal round is complete: the top cards are public and play begins."""

    first_seat: int


@dataclass(frozen=True, slots=True)
class CardRevealed(Event):
    """A Zoo card became public: the top card at the start, or a bottom card when exposed."""

    square: int
    value: int
    layer: int


@dataclass(frozen=True, slots=True)
class MoveApplied(Event):
    """A seat's move was applied to the public state."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True)
class MutantRevealed(Event):
    """A captured Zoo card (value 0..3) was turned over; `seat` is the capturer."""

    square: int
    value: int
    is_mutant: bool
    seat: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The seat to move cannot act: the game is over; totals per seat."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeedOpened(Event):
    """A seat opened its secret seed and it matched all its commitments."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeedsOpened(Event):
    """Every seed is open: the whole deal that was hidden (slot → token, mutant copy per value)."""

    slot_tokens: tuple[int, ...]
    mutant_copies: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ResultSigned(Event):
    """A seat signed the final scores."""

    seat: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Finished(Event):
    """Every seat signed the result: the log is complete."""

    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CheatDetected(Event):
    """A seat signed something provably wrong; the session stops. Evidence: the entries."""

    seat: int
    reason: str
    evidence: tuple[bytes, ...]
