"""How `zoo verify` and every mode of `zoo replay` name a faulty or foreign file: a proven cheat's
line, a rejected log's line and its exit code (PROTOCOL.md §8.1), and whether a file is a text
record rather than a signed log. A leaf of `zoo_p2p.cli`: verify, replay and the exports import
it, it imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zoo_p2p.cli import exits
from zoo_p2p.errors import LogError
from zoo_p2p.export.text import FORMAT
from zoo_p2p.files import open_read
from zoo_p2p.protocol.audit import CHEAT, REJECTED, AuditReport
from zoo_p2p.storage import audit_file, read_proofs
from zoo_p2p.text import seat_word, shown


def is_text_record(path: Path) -> bool:
    """True when ``path`` is a regular file that starts like a text record rather than a signed
    log. A FIFO, a device or a directory is no text record, and is checked before a byte is read
    (`files.open_read`: O_NONBLOCK, then fstat), so sniffing never waits on a FIFO's writer."""
    try:
        with open_read(path, follow=True) as f:
            head = f.read(64)
    except (OSError, LogError):  # FileError is a LogError: the log reader says it in words
        return False
    return head.lstrip().startswith(f'[Format "{FORMAT}'.encode())


def _entries_words(seqs: Sequence[int]) -> str:
    words = [str(s) for s in seqs]
    if len(words) <= 1:
        return f"entry {''.join(words)}"
    return "entries " + ", ".join(words[:-1]) + " and " + words[-1]


def seat_name(report: AuditReport, seat: int) -> str:
    """The seat's words, 'seat N (Team)', for a seat of the audited log."""
    team = report.seats[seat].team.label if seat < len(report.seats) else None
    return seat_word(seat, team)


def cheat_lines(report: AuditReport) -> list[str]:
    """One line per proven cheat: `cheat: seat N (Team), proven by entries …: reason`."""
    lines = []
    if report.fault_seat is not None:
        lines.append(
            f"cheat: {seat_name(report, report.fault_seat)}, proven by "
            f"{_entries_words(report.fault_entries)} of this log: {shown(report.fault_reason)}"
        )
    for c in report.convictions:
        lines.append(
            f"cheat: {seat_name(report, c.seat)}, proven by {_entries_words(c.seqs)} "
            f"(stored proof): {shown(c.reason)}"
        )
    return lines


@dataclass(frozen=True)
class Fault:
    """`zoo verify`'s verdict on a faulty log: its exit code (4 cheat, 5 rejected) and its line."""

    code: int
    line: str


def fault_of(report: AuditReport) -> Fault | None:
    """The fault of an audited log as `zoo verify` says it (PROTOCOL.md §8.1), or None when the
    log is sound or only stops early (``incomplete``: `zoo replay` then exits 0). The one place
    every mode of `zoo replay` (the screen, --plain, --dump, --at, the exports) takes its exit
    code and its last line from, so that they all end a faulty log alike."""
    if report.verdict == CHEAT:
        return Fault(exits.CHEAT, cheat_lines(report)[0])
    if report.verdict == REJECTED:
        return Fault(
            exits.REJECTED,
            f"rejected: entry {report.fault_index}: {shown(report.fault_reason)} "
            "(no seat is proven at fault)",
        )
    return None


def log_fault(path: Path) -> Fault | None:
    """`fault_of` the log at ``path``, audited with its stored proofs as `zoo verify` audits it;
    None too when the file cannot be read at all (the caller has said why: exit 1)."""
    try:
        report = audit_file(path, proofs=read_proofs(path))
    except LogError:
        return None
    return fault_of(report)


def end_faulty(console: Console, fault: Fault | None) -> None:
    """After a mode has shown what it can: a faulty log's line, then its exit code."""
    if fault is not None:
        console.print(Text(fault.line, style="bold red"), soft_wrap=True)
        exits.end(fault.code)
