"""`zoo verify LOG...`: audit game logs from their bytes alone and show the verdict and the deal.

Exit status (PROTOCOL.md §8): 0 ok, 3 incomplete, 4 cheat proven, 5 rejected, 6 unreadable; with
several logs, the highest of their codes. Every string read from a file (names, reasons, the
path) is shown literally: through `shown()` and only inside `rich.text.Text`.
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo_p2p.cli.exportcmd import is_text_record
from zoo_p2p.errors import LogError
from zoo_p2p.protocol.audit import CHEAT, INCOMPLETE, OK, REJECTED, AuditReport
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.evidence import Conviction, check, find_fork
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules.board import COLUMNS, SIZE
from zoo_p2p.storage import LogReader, audit_file, read_proofs
from zoo_p2p.text import HINTS_ALLOWED_LINE, seat_word, shown

UNREADABLE = "unreadable"
EXIT_CODES = {OK: 0, INCOMPLETE: 3, CHEAT: 4, REJECTED: 5, UNREADABLE: 6}
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


def _entries_words(seqs: Sequence[int]) -> str:
    words = [str(s) for s in seqs]
    if len(words) <= 1:
        return f"entry {''.join(words)}"
    return "entries " + ", ".join(words[:-1]) + " and " + words[-1]


def _seat(report: AuditReport, seat: int) -> str:
    team = report.seats[seat].team.label if seat < len(report.seats) else None
    return seat_word(seat, team)


def cheat_lines(report: AuditReport) -> list[str]:
    """One line per proven cheat: `cheat: seat N (Team), proven by entries …: reason`."""
    lines = []
    if report.fault_seat is not None:
        lines.append(
            f"cheat: {_seat(report, report.fault_seat)}, proven by "
            f"{_entries_words(report.fault_entries)} of this log: {shown(report.fault_reason)}"
        )
    for c in report.convictions:
        lines.append(
            f"cheat: {_seat(report, c.seat)}, proven by {_entries_words(c.seqs)} "
            f"(stored proof): {shown(c.reason)}"
        )
    return lines


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
                f"first player: {_seat(report, report.first_seat)}; {len(report.moves)} "
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
            line += "; won by " + ", ".join(_seat(report, w) for w in report.winners)
        console.print(Text(line))
    console.print()


def _forks(
    paths: Sequence[Path],
) -> list[tuple[Path, Path, Conviction, tuple[SeatInfo, ...]]]:
    """Forks between every two readable logs of the same game."""
    logs: list[tuple[Path, list[bytes]]] = []
    for p in paths:
        entries: list[bytes] = []
        try:
            with LogReader(p) as reader:
                for raw in reader:  # every entry up to unreadable bytes, if any
                    entries.append(raw)
        except LogError:
            pass
        if entries:
            logs.append((p, entries))
    found = []
    for i in range(len(logs)):
        for j in range(i + 1, len(logs)):
            (pa, a), (pb, b) = logs[i], logs[j]
            proof = find_fork(a, b)
            if proof is not None:
                found.append((pa, pb, check(proof, a[0]), Session(a[0]).seats))
    return found


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
        for pa, pb, c, seats in _forks([Path(p) for p in paths]):
            code = max(code, EXIT_CODES[CHEAT])
            seq = c.seqs[0]
            if json:
                results.append(
                    {
                        "verdict": CHEAT,
                        "fork": {"paths": [str(pa), str(pb)], "seat": c.seat, "seq": seq},
                    }
                )
            else:
                console.print(
                    Text(
                        f"cheat: {seat_word(c.seat, seats[c.seat].team.label)} signed two "
                        f"different entries for seq {seq} "
                        f"(a fork): entry {seq} of {_path(pa)} and entry {seq} of {_path(pb)}",
                        style="bold red",
                    )
                )
    if json:
        typer.echo(jsonlib.dumps(results, indent=2))
    if code:
        raise typer.Exit(code)
