"""``zoo replay LOG --html OUT --text OUT`` (exports) and ``zoo replay GAME.txt`` (view a text
record): thin commands over `zoo_p2p.export`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zoo_p2p.bots.analysis import analyse_entries
from zoo_p2p.cli import exits
from zoo_p2p.cli.faults import Fault, cheat_lines, end_faulty, fault_of
from zoo_p2p.cli.render import render_board, render_scores
from zoo_p2p.cli.stepper import step_through
from zoo_p2p.errors import FileError, LogError, UsageError, ZooError
from zoo_p2p.export import GameRecord, from_text, record_from_entries, to_html, to_text
from zoo_p2p.export.text import MAX_TEXT_BYTES
from zoo_p2p.files import open_read, shared_mode, write_atomic
from zoo_p2p.protocol.audit import audit
from zoo_p2p.rules import move_name
from zoo_p2p.storage import read_log, read_proofs
from zoo_p2p.text import mutant_words, shown, uncovered


def _fail(console: Console, *parts: str) -> SystemExit:
    console.print(Text("".join(parts), style="red"), soft_wrap=True)
    return SystemExit(exits.ERROR)


def load_record(log: Path, console: Console) -> tuple[GameRecord, list[bytes], Fault | None]:
    """Read and audit a signed log (with its stored proofs) into a record with its verdict, and
    its fault (`faults.fault_of`). A log with no record to show ends here with its fault's code
    (4, 5), or 1 when the file cannot be read at all."""
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
    fault = fault_of(report)
    try:
        return record_from_entries(entries, verdict="; ".join(parts)), entries, fault
    except ValueError as exc:
        why = shown(exc)
        if report.ending is not None and report.ending.never_started and report.ending_text:
            why = f"{report.ending_text} (nothing was played: no board to show)"
        failed = _fail(console, f"cannot export {shown(log)}: {why}")
    end_faulty(console, fault)
    raise failed


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
    record, entries, fault = load_record(log, console)
    moves = f"{len(record.moves)} move{'' if len(record.moves) == 1 else 's'}"
    got: dict[int, tuple[str, str]] = {}
    if analyse:
        console.print(Text(f"analysing {moves} with the expert…", style="dim"))
        for m in analyse_entries(entries, work=plies, seed=seed):
            if m.mark:
                got[m.ply + 1] = (m.mark, m.describe())
    try:
        if html is not None:
            # a page to share: the mode a plain open() gives (0644 under umask 022)
            write_atomic(html, to_html(record, marks=got).encode(), mode=shared_mode())
            console.print(  # one line to copy, however long the path (as "log saved: …")
                Text(f"wrote {shown(html)}: {moves}, one page, works offline"),
                soft_wrap=True,
            )
        if text is not None:
            kinds = {n: k for n, (k, _) in got.items()}
            notes = {n: note for n, (_, note) in got.items()}
            text_out = to_text(record, comments=notes, marks=kinds).encode()
            write_atomic(text, text_out, mode=shared_mode())
            console.print(Text(f"wrote {shown(text)}: {moves}"), soft_wrap=True)
    except FileError as exc:  # "cannot write PATH: it is a symbolic link, …"
        raise _fail(console, shown(exc)) from None
    end_faulty(console, fault)  # the exports say the verdict; the exit code says it too


def view_text_record(
    path: Path,
    at: int | None,
    dump: bool,
    console: Console | None = None,
    ask: Callable[[str], str] | None = None,
) -> None:
    """Show a text record as `zoo replay` shows a log: step through it move by move (the board
    after each move with what it revealed; Enter, b, a move number, q), or the board after move
    ``at``, or (``dump``) every move then the final board."""

    console = console or Console()
    try:
        with open_read(path, follow=True) as f:  # a regular file, checked before reading
            data = f.read(MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES:
            raise _fail(console, f"{shown(path)}: larger than any game record could be")
        record = from_text(data)
    except OSError as exc:
        raise _fail(console, f"cannot read {shown(path)}: {shown(exc)}") from None
    except FileError as exc:  # says "cannot read PATH: REASON" itself
        raise _fail(console, shown(exc)) from None
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
    total = len(record.moves)

    def move_line(n: int) -> Text:
        m = record.moves[n - 1]
        line = Text(f"{n:3d}. ")
        team = record.teams[m.seat]
        line.append(f"{names[m.seat]} ({team.label})", style=team.colour)
        line.append(f" {move_name(m.move)}")
        if m.seat in record.out_at(n):  # put out by a claim that played on (§10.7)
            line.append("  (a stand-in's move)", style="dim")
        if m.bottom is not None:
            line.append(f"  {uncovered(m.bottom)}", style="cyan")
        if m.mutant is not None:
            before = positions[n - 1].top(m.move.to)
            if before.value is not None:
                words = mutant_words(before.value, m.mutant)
                line.append(f"  {words}", style="bold magenta" if m.mutant else "dim")
        return line

    def redeal_lines(n: int) -> list[Text]:
        """What a claim that played on after move ``n`` did, in words (§10.7)."""
        return [
            Text(f"re-deal: {shown(r.words, 300)}", style="bold yellow")
            for r in record.redeals
            if r.after == n
        ]

    def board(n: int) -> None:
        last = record.moves[n - 1].move if n else None
        console.print(render_board(positions[n], names, last=last))

    def end() -> None:
        if positions[-1].is_terminal():
            console.print(render_scores(positions[-1], names))

    if at is not None:
        if not 0 <= at < len(positions):  # a wrong value: a usage error (exit 2)
            raise UsageError(
                f"{at}: the record has moves 0 to {len(positions) - 1}", param="'--at'"
            )
        board(at)
        return
    if dump:
        for line in redeal_lines(0):
            console.print(line)
        for n in range(1, total + 1):
            console.print(move_line(n))
            for line in redeal_lines(n):
                console.print(line)
        board(total)
        end()
        return

    def show(n: int) -> None:
        board(n)
        if n == 0:
            first = f"{names[record.first_seat]} ({record.teams[record.first_seat].label})"
            console.print(Text(f"the start (before move 1 of {total})", style="bold"))
            console.print(Text(f"first to play: {first}"))
        else:
            console.print(Text(f"move {n} of {total}", style="bold"))
            console.print(move_line(n))
        for line in redeal_lines(n):
            console.print(line)

    step_through(
        console,
        ask or (lambda label: console.input(label)),
        total,
        show=show,
        end=end,
        span=f"0 (the start) to {total}",
        redeals=sorted({r.after for r in record.redeals}),
    )
