"""`zoo verify LOG...`: audit game logs from their bytes alone and show the verdict and the deal.

Exit status (PROTOCOL.md §8, `zoo_p2p.cli.exits`): 0 ok, 3 incomplete, 4 cheat proven, 5
rejected, 6 unreadable; with several logs, the highest of their codes. A path that names no file
is a usage error (2), said before any log is read. Every string read from a file (names,
reasons, the path) is shown literally: through `shown()` and only inside `rich.text.Text`.
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo_p2p.cli import exits
from zoo_p2p.cli.exits import VERDICT_CODES
from zoo_p2p.cli.faults import cheat_lines, is_text_record, seat_name
from zoo_p2p.errors import LogError
from zoo_p2p.protocol.audit import CHEAT, INCOMPLETE, OK, REJECTED, AuditReport
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.evidence import Conviction, check, find_fork
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules.board import COLUMNS, SIZE
from zoo_p2p.storage import LogReader, audit_file, read_proofs
from zoo_p2p.text import HINTS_ALLOWED_LINE, on_leave_line, seat_word, shown

UNREADABLE = "unreadable"
EXIT_CODES = VERDICT_CODES  # the one table: zoo_p2p.cli.exits
assert set(EXIT_CODES) == {OK, INCOMPLETE, CHEAT, REJECTED, UNREADABLE}
_VERDICT_STYLE = {OK: "bold green", INCOMPLETE: "bold yellow", CHEAT: "bold red"}


def deal_table(report: AuditReport) -> Table:
    """A 5×5 grid: each square's top card / bottom card, `*` marks the mutant, `?` unknown."""
    tokens: dict[int, int] = (
        dict(enumerate(report.slot_tokens))
        if report.slot_tokens is not None
        else dict(report.known_tokens)
    )
    mutant_tokens: set[int] = set()
    if report.mutant_copies:
        mutant_tokens = {10 * v + c for v, c in enumerate(report.mutant_copies)}
    else:
        mutant_tokens = {10 * v + c for (v, c), m in report.mutant_reveals.items() if m}

    def card(slot: int) -> str:
        tok = tokens.get(slot)
        if tok is None:
            return "?"
        return f"{tok // 10}{'*' if tok in mutant_tokens else ''}"

    grid = Table(box=box.SIMPLE, show_header=True, title="the deal (top / bottom, * = mutant)")
    grid.add_column("")
    for c in COLUMNS:
        grid.add_column(c, justify="center")
    for row in range(SIZE):
        cells = [f"{card(sq)} / {card(25 + sq)}" for sq in range(row * SIZE, row * SIZE + SIZE)]
        grid.add_row(str(row + 1), *cells)
    return grid


def _path(path: Path) -> str:
    return shown(str(path), limit=1000)


def render_report(console: Console, path: Path, report: AuditReport) -> None:
    """Print one report with rich (file-supplied text only through `shown` inside `Text`)."""
    style = _VERDICT_STYLE.get(report.verdict, "bold red")
    console.print(
        Text.assemble(
            ("verdict: ", "bold"),
            (report.verdict.upper(), style),
            "  ",
            shown(str(path), limit=1000),
        )
    )
    if report.game_id is not None:
        console.print(Text(f"game {report.game_id.hex()[:16]}…  variant {shown(report.variant)}"))
    if report.hints:  # PROTOCOL.md §3.2: every seat joined a genesis that allows them
        console.print(Text(HINTS_ALLOWED_LINE))
    if len(report.seats) > 2:  # PROTOCOL.md §10.7.1: the table rule every seat joined
        console.print(Text(on_leave_line(report.on_leave)))
    for i, s in enumerate(report.seats):
        console.print(
            Text.assemble(
                f"  {seat_word(i, s.team.label)}: ",
                (shown(s.name), f"bold {s.team.colour}"),
                " ",
                (fingerprint(s.public_key), "dim"),
            )
        )
    console.print(Text(f"entries: {report.checked} of {report.entries} checked"))
    for line in cheat_lines(report):
        console.print(Text(line, style="bold red"))
    if report.fault_index is not None and report.fault_seat is None:
        console.print(
            Text(
                f"rejected: entry {report.fault_index}: {shown(report.fault_reason)} "
                "(no seat is proven at fault)",
                style="red",
            )
        )
    for note in report.notes:
        console.print(Text(shown(note, limit=400), style="yellow"))
    if report.ending_text:  # how the game ended (PROTOCOL.md §10)
        console.print(Text(report.ending_text, style="bold"))
    if report.first_seat is not None:
        console.print(
            Text(
                f"first player: {seat_name(report, report.first_seat)}; {len(report.moves)} "
                + ("move" if len(report.moves) == 1 else "moves")
            )
        )
        console.print(deal_table(report))
    if report.scores is not None:
        label = "final scores" if report.ok else "scores so far (provisional)"
        parts = [  # as the game's own closing line says them: "host (Yellow) 44"
            f"{shown(s.name, 40)} ({s.team.label}) {t}"
            for s, t in zip(report.seats, report.scores, strict=False)
        ]
        line = f"{label}: " + ", ".join(parts)
        if report.winners:
            line += "; won by " + ", ".join(seat_name(report, w) for w in report.winners)
        console.print(Text(line))
    console.print()


@dataclass(frozen=True)
class Pair:
    """What two readable logs say of each other: a fork one seat signed (`fork`), or else how far
    they agree. Separate from each log's verdict: it only compares the two chains."""

    a: Path
    b: Path
    same_game: bool
    agreed: int
    """Index of the last entry the two logs share (-1: not even the genesis)."""
    lengths: tuple[int, int]
    fork: Conviction | None = None
    seats: tuple[SeatInfo, ...] = ()


def _read_entries(path: Path) -> list[bytes]:
    entries: list[bytes] = []
    try:
        with LogReader(path) as reader:
            for raw in reader:  # every entry up to unreadable bytes, if any
                entries.append(raw)
    except LogError:
        pass
    return entries


def compare(pa: Path, a: Sequence[bytes], pb: Path, b: Sequence[bytes]) -> Pair:
    """Compare two logs entry by entry: the fork between them, or how far they agree."""
    lengths = (len(a), len(b))
    if a[0] != b[0]:
        return Pair(pa, pb, False, -1, lengths)
    agreed = 0
    while agreed + 1 < min(lengths) and a[agreed + 1] == b[agreed + 1]:
        agreed += 1
    proof = find_fork(a, b)
    seats = Session(a[0]).seats
    fork = check(proof, a[0]) if proof is not None else None
    return Pair(pa, pb, True, agreed, lengths, fork, seats)


def _pairs(paths: Sequence[Path]) -> list[Pair]:
    """Every two readable logs, compared."""
    logs = [(p, e) for p in paths if (e := _read_entries(p))]
    return [compare(*logs[i], *logs[j]) for i in range(len(logs)) for j in range(i + 1, len(logs))]


def agreement_line(pair: Pair, *, only: bool = True) -> Text:
    """The last word on two logs: they agree (no fork), fork (the signer named), differ without
    a proof, or are logs of different games (a warning: there is nothing to compare). `only`:
    these are the only two logs given ("the two logs"), else the line names them."""
    a, b = _path(pair.a), _path(pair.b)
    both = "the two logs" if only else f"{a} and {b}"
    if not pair.same_game:
        return Text(
            f"warning: {a} and {b} are logs of different games (their first entries differ): "
            "nothing to compare",
            style="bold yellow",
        )
    if pair.fork is not None:
        c = pair.fork
        seq = c.seqs[0]
        return Text(
            f"cheat: {seat_word(c.seat, pair.seats[c.seat].team.label)} signed two "
            f"different entries for seq {seq} "
            f"(a fork): entry {seq} of {a} and entry {seq} of {b}",
            style="bold red",
        )
    n = pair.agreed
    la, lb = (x - 1 for x in pair.lengths)
    if n < min(la, lb):
        return Text(
            f"{both} agree up to entry {n}; from entry {n + 1} they differ, but no seat "
            "signed two entries for one place: no fork",
            style="yellow",
        )
    line = f"{both} agree up to entry {n}: no fork"
    if la != lb:
        longer = a if la > lb else b
        line += f" ({longer} goes on to entry {max(la, lb)})"
    else:
        line += " (the same entries)"
    return Text(line, style="green")


def verify_command(paths: Sequence[Path], json: bool = False) -> None:
    """Audit each log, print verdicts (or a JSON list); exit with the highest verdict code."""
    console = Console(highlight=False)
    results: list[dict[str, Any]] = []
    code = 0
    for path in paths:
        path = Path(path)
        try:
            proofs = read_proofs(path)
        except LogError:
            proofs = []
        try:
            report = audit_file(path, proofs=proofs)
        except LogError as exc:
            code = max(code, EXIT_CODES[UNREADABLE])
            if json:
                results.append({"path": str(path), "verdict": UNREADABLE, "error": exc.reason})
            else:
                console.print(
                    Text.assemble(
                        ("verdict: ", "bold"),
                        ("UNREADABLE", "bold red"),
                        "  ",
                        _path(path),
                        ": ",
                        shown(exc.reason, limit=400),
                    )
                )
            continue
        code = max(code, EXIT_CODES[report.verdict])
        if json:
            results.append({"path": str(path), **report.to_json()})
        else:
            render_report(console, path, report)
            if report.verdict == REJECTED and is_text_record(path):
                console.print(
                    "this is a text record (zoo replay --text): it carries no signatures and "
                    "cannot be verified; verify the .zoolog it was exported from"
                )
            elif (
                report.verdict == REJECTED
                and report.fault_index == 0
                and "bytes at offset 0 are not an entry" in (report.fault_reason or "")
            ):  # its very first bytes are no entry: a wrong file rather than a damaged log
                console.print("this is not a zoo game log at all: is it the right file?")
    if len(paths) > 1:
        for pair in _pairs([Path(p) for p in paths]):
            if pair.fork is not None:
                code = max(code, EXIT_CODES[CHEAT])
                if json:
                    results.append(
                        {
                            "verdict": CHEAT,
                            "fork": {
                                "paths": [str(pair.a), str(pair.b)],
                                "seat": pair.fork.seat,
                                "seq": pair.fork.seqs[0],
                            },
                        }
                    )
            if not json:
                console.print(agreement_line(pair, only=len(paths) == 2))
    if json:
        print(jsonlib.dumps(results, indent=2))
    if code:
        exits.end(code)
