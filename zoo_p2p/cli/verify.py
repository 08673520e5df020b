"""`zoo verify LOG...`: audit game logs from their bytes alone and show the verdict and the deal."""

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

from zoo_p2p.errors import LogError
from zoo_p2p.protocol.audit import FAULT, OK, AuditReport, audit
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.rules.board import COLUMNS, SIZE
from zoo_p2p.storage import read_log

_VERDICT_STYLE = {OK: "bold green", FAULT: "bold red"}


def audit_file(path: Path) -> tuple[AuditReport | None, str | None, str | None]:
    """Audit one log file: (report, torn-tail warning, read error)."""
    try:
        read = read_log(path)
    except LogError as exc:
        return None, None, str(exc)
    report = audit(read.entries)
    return report, read.warning, None


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


def render_report(console: Console, path: Path, report: AuditReport, torn: str | None) -> None:
    """Print one report with rich."""
    style = _VERDICT_STYLE.get(report.verdict, "bold yellow")
    console.print(
        Text.assemble(("verdict: ", "bold"), (report.verdict.upper(), style), f"  {path}")
    )
    if torn:
        console.print(Text(f"warning: {torn}", style="yellow"))
    if report.game_id is not None:
        console.print(f"game {report.game_id.hex()[:16]}…  variant {report.variant}")
    for i, s in enumerate(report.seats):
        console.print(
            Text.assemble(
                f"  seat {i}: ",
                (s.name, f"bold {s.team.colour}"),
                f" ({s.team.label}) ",
                (fingerprint(s.public_key), "dim"),
            )
        )
    console.print(f"entries: {report.checked} of {report.entries} checked")
    if report.fault_index is not None:
        who = "" if report.fault_seat is None else f" (seat {report.fault_seat})"
        console.print(
            Text(
                f"first fault: entry {report.fault_index}{who}: {report.fault_reason}", style="red"
            )
        )
    for note in report.notes:
        console.print(Text(note, style="yellow"))
    if report.ending_text:  # how the game ended (PROTOCOL.md §10)
        console.print(Text(report.ending_text, style="bold"))
    if report.first_seat is not None:
        console.print(f"first player: seat {report.first_seat}; {len(report.moves)} moves")
        console.print(deal_table(report))
    if report.scores is not None:
        label = "final scores" if report.ok else "scores so far"
        parts = [f"{s.name} {t}" for s, t in zip(report.seats, report.scores, strict=False)]
        line = f"{label}: " + ", ".join(parts)
        if report.winners:
            line += "  — won by " + ", ".join(report.seats[w].name for w in report.winners)
        console.print(line)
    console.print()


def verify_command(paths: Sequence[Path], json: bool = False) -> None:
    """Audit each log, print verdicts (or a JSON list); exit 1 unless every log fully holds."""
    console = Console()
    results: list[dict[str, Any]] = []
    all_ok = True
    for path in paths:
        report, torn, error = audit_file(Path(path))
        if report is None:
            all_ok = False
            if json:
                results.append({"path": str(path), "verdict": FAULT, "error": error})
            else:
                console.print(Text(f"verdict: FAULT  {path}: {error}", style="bold red"))
            continue
        all_ok = all_ok and report.ok and torn is None
        if json:
            results.append({"path": str(path), "torn": torn, **report.to_json()})
        else:
            render_report(console, Path(path), report, torn)
    if json:
        typer.echo(jsonlib.dumps(results, indent=2))
    if not all_ok:
        raise typer.Exit(1)
