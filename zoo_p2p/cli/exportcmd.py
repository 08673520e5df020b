"""``zoo replay LOG --html OUT --text OUT`` (exports) and ``zoo replay GAME.txt`` (view a text
record): thin commands over `zoo_p2p.export`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from zoo_p2p.errors import LogError, ZooError
from zoo_p2p.export import GameRecord, from_text, record_from_entries, to_html, to_text
from zoo_p2p.export.text import FORMAT, MAX_TEXT_BYTES
from zoo_p2p.rules import move_name
from zoo_p2p.text import mutant_words, shown, uncovered


def is_text_record(path: Path) -> bool:
    """True when ``path`` starts like a text record rather than a signed log."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.lstrip().startswith(f'[Format "{FORMAT}'.encode())


def _fail(console: Console, *parts: str) -> typer.Exit:
    console.print(Text("".join(parts), style="red"), soft_wrap=True)
    return typer.Exit(1)


def _write_atomic(path: Path, content: str) -> None:
    """Write a whole file or nothing (a crash never leaves half a page behind)."""
    fd, tmp = tempfile.mkstemp(prefix=".zoo-export-", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_record(log: Path, console: Console) -> tuple[GameRecord, list[bytes]]:
    """Read and audit a signed log (with its stored proofs) into a record with its verdict."""
    from zoo_p2p.cli.verify import cheat_lines
    from zoo_p2p.protocol.audit import audit
    from zoo_p2p.storage import read_log, read_proofs

    try:
        read = read_log(log)
        entries = read.entries
        report = audit(entries, torn=lambda: read.torn_bytes, proofs=read_proofs(log))
    except LogError as exc:
        raise _fail(console, f"cannot read {shown(log)}: {shown(exc)}") from None
    parts = [report.verdict, *cheat_lines(report)]
    if report.fault_index is not None and report.fault_seat is None:
        parts.append(f"rejected: entry {report.fault_index}: {report.fault_reason}")
    if report.ending_text:
        parts.append(report.ending_text)
    try:
        return record_from_entries(entries, verdict="; ".join(parts)), entries
    except ValueError as exc:
        why = shown(exc)
        if report.ending is not None and report.ending.never_started and report.ending_text:
            why = f"{report.ending_text} (nothing was played: no board to show)"
        raise _fail(console, f"cannot export {shown(log)}: {why}") from None


def export_command(
    log: Path,
    html: Path | None,
    text: Path | None,
    console: Console | None = None,
    *,
    analyse: bool = False,
    plies: int = 20000,
    seed: int = 0,
) -> None:
    """Write the HTML page and/or the text record of a signed log (with --analyse, the marks)."""
    console = console or Console()
    for out in (html, text):
        if out is not None and out.resolve() == log.resolve():
            raise _fail(console, f"refusing to overwrite the log {shown(log)} with an export")
    record, entries = load_record(log, console)
    moves = f"{len(record.moves)} move{'' if len(record.moves) == 1 else 's'}"
    got: dict[int, tuple[str, str]] = {}
    if analyse:
        from zoo_p2p.bots.analysis import analyse_entries

        console.print(Text(f"analysing {moves} with the expert…", style="dim"))
        for m in analyse_entries(entries, work=plies, seed=seed):
            if m.mark:
                got[m.ply + 1] = (m.mark, m.describe())
    try:
        if html is not None:
            _write_atomic(html, to_html(record, marks=got))
            console.print(  # one line to copy, however long the path (as "log saved: …")
                Text(f"wrote {shown(html)}: {moves}, one page, works offline"),
                soft_wrap=True,
            )
        if text is not None:
            kinds = {n: k for n, (k, _) in got.items()}
            notes = {n: note for n, (_, note) in got.items()}
            _write_atomic(text, to_text(record, comments=notes, marks=kinds))
            console.print(Text(f"wrote {shown(text)}: {moves}"), soft_wrap=True)
    except OSError as exc:
        raise _fail(console, f"cannot write the export: {shown(exc)}") from None


def view_text_record(
    path: Path, at: int | None, dump: bool, console: Console | None = None
) -> None:
    """Show a text record: every move, then the final board (or the board after move ``at``)."""
    from zoo_p2p.cli.render import render_board, render_scores

    console = console or Console()
    try:
        if path.stat().st_size > MAX_TEXT_BYTES:
            raise _fail(console, f"{shown(path)}: larger than any game record could be")
        record = from_text(path.read_bytes())
    except OSError as exc:
        raise _fail(console, f"cannot read {shown(path)}: {shown(exc)}") from None
    except ZooError as exc:
        raise _fail(console, f"{shown(path)}: {shown(exc)}") from None
    positions = record.positions()
    names = [shown(n, 64) for n in record.names]
    console.print(
        Text(
            "a text record: for viewing only; it carries no signatures "
            f"(verdict it was exported with: {shown(record.verdict or 'none')})",
            style="dim",
        )
    )
    if at is not None:
        if not 0 <= at < len(positions):
            raise _fail(console, f"--at {at}: the record has moves 0 to {len(positions) - 1}")
        last = record.moves[at - 1].move if at else None
        console.print(render_board(positions[at], names, last=last))
        return
    for n, m in enumerate(record.moves, start=1):
        line = Text(f"{n:3d}. ")
        team = record.teams[m.seat]
        line.append(f"{names[m.seat]} ({team.label})", style=team.colour)
        line.append(f" {move_name(m.move)}")
        if m.bottom is not None:
            line.append(f"  {uncovered(m.bottom)}", style="cyan")
        if m.mutant is not None:
            before = positions[n - 1].top(m.move.to)
            if before.value is not None:
                words = mutant_words(before.value, m.mutant)
                line.append(f"  {words}", style="bold magenta" if m.mutant else "dim")
        console.print(line)
    final = positions[-1]
    last_move = record.moves[-1].move if record.moves else None
    console.print(render_board(final, names, last=last_move))
    if final.is_terminal():
        console.print(render_scores(final, names))
