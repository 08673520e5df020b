"""The auditor: re-check a whole log from its bytes alone and give a verdict (PROTOCOL.md §7).

It replays the log through an observer `Session` (no key, no seed), which checks every signature,
chain link, floor, move, reveal and commitment, rebuilds every seat's permutations from the opened
seeds and checks them against every commitment, and checks the signed final scores. Each entry is
decoded once and verified once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.events import Floor, Gap, MoveApplied, SeatInfo
from zoo_p2p.protocol.liveness import ABANDONED, Ending
from zoo_p2p.protocol.session import Session

OK = "ok"
FAULT = "fault"
INCOMPLETE = "incomplete"

_WAITING = {
    Kind.COMMIT: "has not sent its commitments",
    Kind.OPEN: "has not sent its opening reveals",
    Kind.MOVE: "has not moved",
    Kind.REVEAL: "has not sent its reveal",
    Kind.SEED: "has not opened its seed",
    Kind.RESULT: "has not signed the result",
}


@dataclass(frozen=True)
class AuditReport:
    """What the auditor found: verdict, first fault, the deal that was hidden, the scores."""

    verdict: str
    entries: int
    checked: int
    fault_index: int | None = None
    fault_reason: str | None = None
    fault_seat: int | None = None
    game_id: bytes | None = None
    variant: str | None = None
    seats: tuple[SeatInfo, ...] = ()
    first_seat: int | None = None
    moves: tuple[str, ...] = ()
    known_tokens: dict[int, int] = field(default_factory=dict)
    mutant_reveals: dict[tuple[int, int], bool] = field(default_factory=dict)
    slot_tokens: tuple[int, ...] | None = None
    mutant_copies: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    waiting_for: Floor | None = None
    notes: tuple[str, ...] = ()
    ending: Ending | None = None  # how the game ended (§10): finished, claimed, resigned, abandoned
    ending_text: str | None = None

    def with_ending(self) -> AuditReport:
        """Scores and winners as the ending settles them (§10.5), when a claim or a resignation
        ended the game or a resigned seat was played on."""
        e = self.ending
        if e is None or e.kind == ABANDONED:
            return self
        return replace(self, scores=e.scores, winners=e.winners)

    @property
    def ok(self) -> bool:
        """True only when the log is complete and every check held."""
        return self.verdict == OK

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (bytes as hex)."""
        return {
            "verdict": self.verdict,
            "entries": self.entries,
            "checked": self.checked,
            "fault": None
            if self.fault_index is None
            else {"index": self.fault_index, "reason": self.fault_reason, "seat": self.fault_seat},
            "game_id": None if self.game_id is None else self.game_id.hex(),
            "variant": self.variant,
            "seats": [
                {"name": s.name, "public_key": s.public_key.hex(), "team": s.team.name.lower()}
                for s in self.seats
            ],
            "first_seat": self.first_seat,
            "moves": list(self.moves),
            "revealed_slots": {str(k): v for k, v in sorted(self.known_tokens.items())},
            "deal": None if self.slot_tokens is None else list(self.slot_tokens),
            "mutant_copies": None if self.mutant_copies is None else list(self.mutant_copies),
            "scores": None if self.scores is None else list(self.scores),
            "winners": list(self.winners),
            "waiting_for": None
            if self.waiting_for is None
            else {"seat": self.waiting_for.seat, "kind": self.waiting_for.kind},
            "notes": list(self.notes),
            "ending": _ending_json(self.ending, self.ending_text),
        }


def audit(entries: Sequence[bytes]) -> AuditReport:
    """Audit a log (its entries, genesis first); never raises for bad input, reports it."""
    if not entries:
        return AuditReport(FAULT, 0, 0, 0, "the log is empty")
    try:
        session = Session(entries[0])
    except RemoteProtocolError as exc:
        return AuditReport(FAULT, len(entries), 0, 0, f"genesis: {exc.reason}", 0)
    moves: list[str] = []
    fault: tuple[int, str, int | None] | None = None
    for i in range(1, len(entries)):
        raw = entries[i]
        try:
            events = session.receive(raw)
        except RemoteProtocolError as exc:
            fault = (i, exc.reason, exc.seat)
            break
        if len(session) != i + 1:
            if events and isinstance(events[0], Gap):
                why = f"entries are missing before this one (expected seq {i})"
            else:
                why = "duplicate of an earlier entry"
            fault = (i, why, None)
            break
        for ev in events:
            if isinstance(ev, MoveApplied):
                moves.append(str(ev.move))
    return _report(session, entries, moves, fault)


def report_for(session: Session) -> AuditReport:
    """The report of a session that has already read a log without fault (nothing re-checked)."""
    moves = [] if session.state is None else [str(m) for m in session.state.history]
    return _report(session, session.entries, moves, None)


def _report(
    session: Session,
    entries: Sequence[bytes],
    moves: list[str],
    fault: tuple[int, str, int | None] | None,
) -> AuditReport:
    notes: list[str] = []
    waiting = session.floor
    if fault is not None:
        verdict = FAULT
        waiting = None
    elif session.finished:
        verdict = OK
    else:
        verdict = INCOMPLETE
        if waiting is not None:
            name = session.seats[waiting.seat].name
            notes.append(
                f"the log stops at entry {len(entries)}: seat {waiting.seat} ({name}) "
                f"{_WAITING.get(waiting.kind, 'has not spoken')}"
            )
        if session.opened_deal is None:
            notes.append("seeds not all opened: unrevealed cards and permutations not checked")
    deal = session.opened_deal
    st = session.state
    ending = None if fault is not None else session.outcome()
    return AuditReport(
        verdict=verdict,
        entries=len(entries),
        checked=len(session),
        fault_index=None if fault is None else fault[0],
        fault_reason=None if fault is None else fault[1],
        fault_seat=None if fault is None else fault[2],
        game_id=session.game_id,
        variant=session.variant.value,
        seats=session.seats,
        first_seat=session.first_seat,
        moves=tuple(moves),
        known_tokens=dict(session.known_tokens),
        mutant_reveals=dict(session.mutant_reveals),
        slot_tokens=None if deal is None else deal.slot_tokens,
        mutant_copies=None if deal is None else deal.mutant_copies,
        scores=session.final_scores
        if session.final_scores is not None
        else (None if st is None else tuple(s.total for s in st.scores())),
        winners=tuple(st.winners()) if st is not None and session.final_scores else (),
        waiting_for=waiting,
        notes=tuple(notes),
        ending=ending,
        ending_text=None if ending is None else ending.describe(session.seats),
    ).with_ending()


def _ending_json(ending: Ending | None, text: str | None) -> dict[str, Any] | None:
    """The `ending` object of `zoo verify --json` (§10.6)."""
    if ending is None:
        return None
    return {
        "kind": ending.kind,
        "text": text,
        "seat": ending.seat,
        "at": ending.at,
        "floor_kind": ending.floor_kind,
        "claimed_by": list(ending.by),
        "late_entries": list(ending.late),
        "seconds": ending.seconds,
        "resigned": list(ending.resigned),
    }
