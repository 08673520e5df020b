"""The auditor: re-check a whole log from its bytes alone and give a verdict (PROTOCOL.md §7).

It replays the log through an observer `Session` (no key, no seed), which checks every signature,
prev hash, floor, move, reveal and commitment, rebuilds every seat's permutations from the opened
seeds and checks them against every commitment, and checks the signed final scores. Each entry is
decoded once and verified once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zoo_p2p.errors import LogError, RemoteProtocolError
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.events import Floor, Gap, MoveApplied, SeatInfo
from zoo_p2p.protocol.evidence import (
    Conviction,
    ProofError,
    bare_reason,
    check,
    convicted_by,
)
from zoo_p2p.protocol.liveness import ABANDONED, LEFT, Ending
from zoo_p2p.protocol.session import Session
from zoo_p2p.text import seat_word

OK = "ok"
INCOMPLETE = "incomplete"
CHEAT = "cheat"
REJECTED = "rejected"
FAULT = REJECTED  # the former name of a verdict that names no seat
VERDICTS = (OK, INCOMPLETE, CHEAT, REJECTED)

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
    hints: bool = False  # the genesis allows hints: every seat agreed (§3.2)
    on_leave: str = "end"  # the table rule (§10.7.1): play-on or end
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
        if e is None or e.kind in (ABANDONED, LEFT):
            return self
        return replace(self, scores=e.scores, winners=e.winners, provisional=False)

    fault_entries: tuple[int, ...] = ()
    torn_bytes: int = 0
    convictions: tuple[Conviction, ...] = ()
    provisional: bool = False

    @property
    def ok(self) -> bool:
        """True only when the log is complete and every check held."""
        return self.verdict == OK

    @property
    def cheater(self) -> int | None:
        """The seat proven to cheat (by the log itself, else by a stored proof), or None."""
        if self.fault_seat is not None:
            return self.fault_seat
        return self.convictions[0].seat if self.convictions else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (bytes as hex); fields and types in PROTOCOL.md §8.2."""
        return {
            "verdict": self.verdict,
            "entries": self.entries,
            "checked": self.checked,
            "fault": None
            if self.fault_index is None
            else {
                "index": self.fault_index,
                "reason": self.fault_reason,
                "seat": self.fault_seat,
                "entries": list(self.fault_entries),
            },
            "proofs": [
                {"seat": c.seat, "reason": c.reason, "entries": list(c.seqs)}
                for c in self.convictions
            ],
            "game_id": None if self.game_id is None else self.game_id.hex(),
            "variant": self.variant,
            "hints": self.hints,
            "on_leave": self.on_leave,
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
            "provisional": self.provisional,
            "notes": list(self.notes),
            "torn": self.torn_bytes,
            "ending": _ending_json(self.ending, self.ending_text),
        }


def audit(
    entries: Iterable[bytes],
    *,
    torn: Callable[[], int] | None = None,
    proofs: Sequence[bytes] = (),
) -> AuditReport:
    """Audit a log (its entries, genesis first); never raises for bad input, reports it.

    `entries` may be a lazy reader: it is consumed only up to the first fault, and a LogError it
    raises (unreadable bytes) is the fault at that index. `torn()` gives the size of a torn tail
    once the entries are exhausted. `proofs` are stored evidence (`<log>.proofs`), each re-checked
    against this log's genesis; a proof that checks makes the verdict *cheat*.
    """
    it = iter(entries)
    try:
        genesis = next(it)
    except StopIteration:
        return _early(0, "the log is empty: no genesis", torn)
    except LogError as exc:
        return _early(0, exc.reason, None)
    try:
        session = Session(genesis)
    except RemoteProtocolError as exc:
        return _early(0, f"genesis: {exc.reason}", None, entries=1)
    moves: list[str] = []
    fault: _Fault | None = None
    count = 1
    while True:
        try:
            raw = next(it)
        except StopIteration:
            break
        except LogError as exc:
            fault = _Fault(count if exc.index is None else exc.index, exc.reason)
            break
        i = count
        count += 1
        try:
            events = session.receive(raw)
        except RemoteProtocolError as exc:
            seat = convicted_by(session, raw, exc)
            cited: tuple[int, ...] = (i,)
            if seat is not None:
                evidence = getattr(exc, "evidence", ())
                cited += tuple(decode_entry(x).seq for x in evidence if x != raw)
            reason = exc.reason if seat is None else bare_reason(session, exc)
            fault = _Fault(i, reason, seat, cited)
            break
        if len(session) != i + 1:
            if events and isinstance(events[0], Gap):
                why = f"entries are missing before this one (expected seq {i})"
            else:
                why = f"exact duplicate of entry {decode_entry(raw).seq}"
            fault = _Fault(i, why, None, (i,))
            break
        for ev in events:
            if isinstance(ev, MoveApplied):
                moves.append(str(ev.move))
    torn_bytes = torn() if torn is not None and fault is None else 0
    if fault is None and torn_bytes and session.finished:
        why = f"{torn_bytes} bytes follow the complete game (nothing may follow it)"
        fault = _Fault(count, why)
    convictions, notes = _check_proofs(genesis, proofs)
    return _report(session, count, moves, fault, torn_bytes, convictions, notes)


@dataclass(frozen=True)
class _Fault:
    index: int
    reason: str
    seat: int | None = None
    cited: tuple[int, ...] = ()


def _early(
    index: int, reason: str, torn: Callable[[], int] | None, *, entries: int = 0
) -> AuditReport:
    torn_bytes = torn() if torn is not None else 0
    if torn_bytes:
        reason = f"the log holds only a torn entry ({torn_bytes} bytes): no genesis"
    return AuditReport(
        REJECTED, entries, 0, index, reason, None, fault_entries=(index,), torn_bytes=torn_bytes
    )


def _check_proofs(
    genesis: bytes, proofs: Sequence[bytes]
) -> tuple[tuple[Conviction, ...], list[str]]:
    convictions: list[Conviction] = []
    notes: list[str] = []
    for k, proof in enumerate(proofs):
        try:
            c = check(proof, genesis)
        except ProofError as exc:
            notes.append(f"stored proof {k + 1} proves nothing: {exc.reason}")
            continue
        if all(c.seat != x.seat or c.seqs != x.seqs for x in convictions):
            convictions.append(c)
    return tuple(convictions), notes


def report_for(session: Session) -> AuditReport:
    """The report of a session that has already read a log without fault (nothing re-checked)."""
    moves = [] if session.state is None else [str(m) for m in session.state.history]
    return _report(session, len(session), moves, None, 0, (), [])


def _report(
    session: Session,
    count: int,
    moves: list[str],
    fault: _Fault | None,
    torn_bytes: int,
    convictions: tuple[Conviction, ...],
    proof_notes: list[str],
) -> AuditReport:
    notes: list[str] = []
    waiting = session.floor
    if fault is not None:
        verdict = CHEAT if fault.seat is not None else REJECTED
        waiting = None
    elif convictions:
        verdict = CHEAT
    elif session.finished:
        verdict = OK
    else:
        verdict = INCOMPLETE
    ending = None if fault is not None else session.outcome()
    if fault is None and not session.finished:
        if ending is not None and ending.kind == LEFT and ending.seat is not None:
            team = session.seats[ending.seat].team.label
            notes.append(
                f"the log stops at entry {count}, right after {seat_word(ending.seat, team)} "
                f"resigned (entry {ending.at}); a stand-in takes its seat"
            )
        elif waiting is not None:
            team = session.seats[waiting.seat].team.label
            notes.append(
                f"the log stops at entry {count}: {seat_word(waiting.seat, team)} "
                f"{_WAITING.get(waiting.kind, 'has not spoken')}"
            )
        if session.opened_deal is None:
            notes.append("seeds not all opened: unrevealed cards and permutations not checked")
        if torn_bytes:
            notes.append(f"a torn last entry ({torn_bytes} bytes) was dropped")
    notes.extend(proof_notes)
    deal = session.opened_deal
    st = session.state
    provisional = session.final_scores is None and st is not None
    return AuditReport(
        verdict=verdict,
        entries=count,
        checked=len(session),
        fault_index=None if fault is None else fault.index,
        fault_reason=None if fault is None else fault.reason,
        fault_seat=None if fault is None else fault.seat,
        game_id=session.game_id,
        variant=session.variant.value,
        hints=session.genesis.hints,
        on_leave=session.genesis.on_leave,
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
        fault_entries=() if fault is None else fault.cited,
        torn_bytes=torn_bytes,
        convictions=convictions,
        provisional=provisional,
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
        "played_on": [
            {
                "seat": p.seat,
                "at": p.at,
                "claim": p.claim,
                "by": list(p.by),
                "dealers": list(p.dealers),
                "cards": p.cards,
                "mutants": p.mutants,
            }
            for p in ending.played_on
        ],
    }
