"""``zoo replay LOG``: step through a game move by move — the board after each move with what it
revealed, and after the end the whole deal that was hidden; ``--analyse`` scores every move.

Every string the log supplies (seat names, reasons, the path) is data: it reaches the screen only
through ``zoo_p2p.text.shown`` inside a ``rich.text.Text``, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from rich.console import Console, Group, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from zoo_p2p import defaults
from zoo_p2p.bots.analysis import (
    BLUNDER,
    DEFAULT_WORK,
    INACCURACY,
    MISTAKE,
    MoveMark,
    analyse_positions,
    stood_in,
    summary,
)
from zoo_p2p.cli import exits, screen
from zoo_p2p.cli.exportcmd import export_command, view_text_record
from zoo_p2p.cli.faults import end_faulty, is_text_record, log_fault
from zoo_p2p.cli.render import describe_move, render_board, render_scores, seat_label
from zoo_p2p.cli.stepper import step_through
from zoo_p2p.cli.verify import deal_table
from zoo_p2p.errors import LogError, RemoteProtocolError, UsageError
from zoo_p2p.protocol.audit import report_for
from zoo_p2p.protocol.events import (
    CardRevealed,
    CheatDetected,
    Event,
    Finished,
    GameOver,
    GameStarted,
    MoveApplied,
    MutantRevealed,
    ResultSigned,
    SeedOpened,
    SeedsOpened,
)
from zoo_p2p.protocol.liveness import Claimed
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.walk import Step, walk
from zoo_p2p.rules import Move, State, move_name
from zoo_p2p.storage import LogReader
from zoo_p2p.text import (
    HINTS_ALLOWED_LINE,
    mutant_words,
    on_leave_line,
    seat_word,
    shown,
    uncovered,
)

if TYPE_CHECKING:
    pass

MARK_STYLE = {"inaccuracy": "yellow", "mistake": "bold yellow", "blunder": "bold red"}


@dataclass
class Scene:
    """One step of the replay: the start, the game after one move (and its reveals), the end."""

    number: int
    """0: the start; 1..M: after move ``number``; M + 1: the end (when the log goes on)."""
    kind: str
    """``"start"``, ``"move"`` or ``"end"``."""
    lines: list[Text] = field(default_factory=list)
    state: State | None = None
    move: Move | None = None
    seat: int | None = None
    entries: tuple[int, int] = (0, 0)
    """First and last log entry shown by this step."""
    mark: MoveMark | None = None
    redeal: bool = False
    """A claim that played on came during this step (§10.7): `r` in the stepper goes to it."""


@dataclass
class Replay:
    """Every step of a log, the session that read it, and the first fault if any."""

    scenes: list[Scene]
    session: Session
    names: list[str]
    fault: str | None
    torn: str | None
    positions: list[tuple[State, Move]]
    """The public state before each move, with the move (for the analysis)."""
    marks: list[MoveMark] | None = None
    stand_ins: set[int] = field(default_factory=set)
    """The plies a stand-in played (its seat resigned or was claimed out): not graded."""

    @property
    def moves(self) -> int:
        """How many moves the log holds."""
        return len(self.positions)

    def title(self, scene: Scene) -> str:
        """``the start``, ``move 3 of 41`` or ``the end``."""
        if scene.kind == "start":
            if not self.moves:
                return "the start (no move was played)"
            return f"the start (before move 1 of {self.moves})"
        if scene.kind == "move":
            return f"move {scene.number} of {self.moves}"
        return "the end"


def _describe(session: Session, names: list[str], ev: Event) -> Text | None:
    """One line for one event, or None when the event says nothing worth a line."""
    st = session.state
    if isinstance(ev, GameStarted):
        assert st is not None
        return Text.assemble(
            "the top cards are dealt face up; first to play: ", seat_label(st, ev.first_seat, names)
        )
    if isinstance(ev, MoveApplied):
        assert st is not None
        return Text.assemble(seat_label(st, ev.seat, names), f" plays {move_name(ev.move)}")
    if isinstance(ev, CardRevealed) and session.first_seat is not None and st is not None:
        if st.history:
            return Text(uncovered(ev.value), style="cyan")
        return None
    if isinstance(ev, MutantRevealed):
        return Text(
            mutant_words(ev.value, ev.is_mutant), style="bold magenta" if ev.is_mutant else "dim"
        )
    if isinstance(ev, GameOver):
        return Text(f"game over: scores {', '.join(map(str, ev.scores))}", style="bold")
    if isinstance(ev, SeedOpened):
        return Text(
            f"{_who(session, names, ev.seat)} opened their seed; it matches every commitment"
        )
    if isinstance(ev, SeedsOpened):
        return Text("every seed is open: the whole deal is known", style="bold green")
    if isinstance(ev, ResultSigned):
        return Text(f"{_who(session, names, ev.seat)} signed the result")
    if isinstance(ev, Finished):
        return Text("every seat signed the result: the log is complete", style="bold green")
    if isinstance(ev, CheatDetected):
        return Text(
            f"CHEAT by {_who(session, names, ev.seat)}: {shown(ev.reason)}", style="bold red"
        )
    if isinstance(ev, Claimed):  # a claim that plays on (PROTOCOL.md §10.7): the re-deal
        played = [p for p in session.played_on if (p.seat, p.at) == (ev.seat, ev.at)]
        if played:
            return Text(played[-1].describe(session.seats), style="bold yellow")
    return None


def _who(session: Session, names: list[str], seat: int) -> str:
    if 0 <= seat < len(names):
        return f"{names[seat]}, {seat_word(seat, session.seats[seat].team.label)}"
    return seat_word(seat)


def load_replay(path: Path) -> Replay:
    """Read a log (streamed, bounded memory) through an observer session, one step per move.

    ``LogError`` when the file cannot be read or its first entry is not a genesis; a later
    entry that is garbage or does not follow is a ``fault``: the steps before it are kept.
    """
    with LogReader(path) as reader:
        stream = iter(reader)
        first = next(stream, None)
        if first is None:
            raise LogError("the log is empty", index=0)
        try:
            session = Session(first)
        except RemoteProtocolError as exc:
            raise LogError(f"not a game log: {exc.reason}", index=0) from None
        rp = Replay([], session, [shown(s.name, limit=40) for s in session.seats], None, None, [])
        start = Scene(0, "start")
        start.lines.append(Text(f"{len(rp.names)} seats, {session.variant.value} game"))
        if session.genesis.hints:  # PROTOCOL.md §3.2
            start.lines.append(Text(HINTS_ALLOWED_LINE))
        if session.n > 2:  # PROTOCOL.md §10.7.1
            start.lines.append(Text(on_leave_line(session.genesis.on_leave)))
        rp.scenes.append(start)
        read = 0  # entries after the genesis
        try:
            for step in walk(session, stream, states=True):
                read = step.index
                fault = _step(rp, step)
                if fault is not None:
                    rp.fault = fault
                    break
        except LogError as exc:
            rp.fault = shown(str(exc))
        torn = reader.torn_bytes
    if torn:
        whole = read + 1  # the genesis is entry 0: `zoo verify` says "entries: N of N checked"
        entries = "entry" if whole == 1 else "entries"
        rp.torn = f"dropped a torn last entry ({torn} bytes) after {whole} complete {entries}"
    return rp


def _step(rp: Replay, step: Step) -> str | None:
    """Add what entry ``step.index`` caused to the steps; a fault or None."""
    session = rp.session
    names = rp.names
    i, before, events = step.index, step.before, step.events
    if step.refused is not None:
        return f"entry {i}: {shown(step.refused.reason)}"
    if not step.appended:
        return f"entry {i}: does not follow entry {i - 1}"
    st = session.state.clone() if session.state is not None else None
    scenes = rp.scenes
    for ev in events:
        scene = scenes[-1]
        if isinstance(ev, MoveApplied) and before is not None and st is not None:
            if stood_in(session.resigned, session.out, ev.seat, i):
                rp.stand_ins.add(len(rp.positions))
            rp.positions.append((before, ev.move))
            scene = Scene(len(rp.positions), "move", move=ev.move, seat=ev.seat)
            scene.entries = (i, i)
            scenes.append(scene)
            scene.lines.extend(describe_move(before, st, ev.move, names)[:1])
            continue
        if isinstance(ev, GameOver | SeedOpened | CheatDetected) and scene.kind != "end":
            scene = Scene(len(rp.positions) + 1, "end")
            scene.entries = (i, i)
            scenes.append(scene)
        line = _describe(session, names, ev)
        if line is not None:
            scene.lines.append(line)
        if isinstance(ev, Claimed) and (ev.seat, ev.at) in {
            (p.seat, p.at) for p in session.played_on
        }:
            scene.redeal = True
    last = scenes[-1]
    last.state = st
    last.entries = (last.entries[0] if last.kind != "start" else 0, i)
    return None


def mark_line(mark: MoveMark) -> Text:
    """The analysis of one move as a line (marked moves in colour)."""
    style = MARK_STYLE.get(mark.mark, "dim")
    label = f"{mark.mark}: " if mark.mark else "analysis: "
    return Text(f"  {label}{mark.describe()}", style=style)


def render_scene(rp: Replay, i: int) -> RenderableType:
    """The board after step ``i`` with the lines that step caused."""
    sc = rp.scenes[i]
    parts: list[RenderableType] = []
    last_move = next((s.move for s in reversed(rp.scenes[: i + 1]) if s.move is not None), None)
    if sc.state is not None:
        parts.append(render_board(sc.state, rp.names, last=last_move))
    parts.append(Text(rp.title(sc), style="bold"))
    parts.extend(sc.lines)
    if sc.mark is not None:
        parts.append(mark_line(sc.mark))
    return Group(*parts)


def render_deal(rp: Replay) -> RenderableType | None:
    """The deal that was hidden (when every seed was opened)."""
    if rp.session.opened_deal is None:
        return None

    return deal_table(report_for(rp.session))


def render_summary(rp: Replay) -> Table:
    """Per seat: inaccuracies, mistakes, blunders and the mean points lost per move."""
    table = Table(
        title="Analysis: expected final margin lost against the expert's move",
        caption=(
            f"?! inaccuracy (≥ {INACCURACY:g} points)  ? mistake (≥ {MISTAKE:g})  "
            f"?? blunder (≥ {BLUNDER:g})"
        ),
    )
    for col in ("seat", "moves", "?!", "?", "??", "lost/move"):
        table.add_column(col, justify="left" if col == "seat" else "right")
    st = rp.session.state
    for row in summary(rp.marks or [], rp.session.n):
        label = seat_label(st, row.seat, rp.names) if st is not None else Text(rp.names[row.seat])
        table.add_row(
            label,
            str(row.moves),
            str(row.inaccuracies),
            str(row.mistakes),
            str(row.blunders),
            f"{row.average_loss:.1f}",
        )
    return table


def analyse(rp: Replay, *, plies: int, seed: int, console: Console) -> None:
    """Score every move with the expert (a progress bar on stderr) and attach the marks."""

    with Progress(
        "analysing",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not rp.positions,
    ) as progress:
        task = progress.add_task("moves", total=len(rp.positions))
        rp.marks = analyse_positions(
            rp.positions,
            work=plies,
            seed=seed,
            progress=lambda _k: progress.advance(task),
            stand_ins=rp.stand_ins,
        )
    for sc in rp.scenes:
        if sc.kind == "move" and 1 <= sc.number <= len(rp.marks):
            sc.mark = rp.marks[sc.number - 1]


def refusal(path: Path, exc: LogError) -> str:
    """Why a file cannot be replayed, in one line that names it once; a file whose very first
    bytes are no entry is said to be no game log at all (a wrong path, a text file)."""
    why = shown(str(exc))
    where = shown(str(path))  # said once: most reasons already name the file
    if exc.index == 0 and "bytes at offset 0 are not an entry" in exc.reason:
        return f"cannot replay {where}: it is not a zoo game log ({why})"
    return why if where in why else f"cannot replay {where}: {why}"


def refuse(path: Path, exc: LogError, console: Console) -> NoReturn:
    """A log that cannot be replayed at all (its first entry is no genesis, or the file cannot be
    read): why in one line, then the fault as `zoo verify` says it, and its code (1 when the
    file cannot be read as a log at all)."""
    _red(console, refusal(path, exc))
    end_faulty(console, log_fault(path))
    exits.end(exits.ERROR)


def _red(console: Console, text: str) -> None:
    console.print(Text(text, style="red"))


def replay_command(
    path: Path,
    at: int | None = None,
    dump: bool = False,
    console: Console | None = None,
    ask: Callable[[str], str] | None = None,
    *,
    analysis: bool = False,
    plies: int = DEFAULT_WORK,
    seed: int = 0,
) -> None:
    """Show a log: interactively, after one move (``at``), or as a full dump."""
    console = console or Console()
    try:
        rp = load_replay(path)
    except LogError as exc:
        refuse(path, exc, console)
    if rp.torn:
        console.print(Text(shown(rp.torn), style="yellow"))
    if rp.fault:
        _red(console, f"the log is faulty from {rp.fault}; showing what came before")
    if analysis:
        analyse(rp, plies=plies, seed=seed, console=console)
    last = len(rp.scenes) - 1
    span = f"0 (the start) to {rp.moves}" + (f", and {last}: the end" if last > rp.moves else "")
    if at is not None:
        if not 0 <= at <= last:  # a wrong value: a usage error (exit 2)
            raise UsageError(f"{at}: the log has moves {span}", param="'--at'")
        console.print(render_scene(rp, at))
        end_faulty(console, log_fault(path))
        return
    if dump:
        for sc in rp.scenes:
            console.print(Text(rp.title(sc), style="bold"))
            for line in sc.lines:
                console.print(Text("  ") + line)
            if sc.mark is not None:
                console.print(mark_line(sc.mark))
        _print_end(rp, console)
        end_faulty(console, log_fault(path))
        return
    step_through(
        console,
        ask or (lambda label: console.input(label)),
        last,
        show=lambda i: console.print(render_scene(rp, i)),
        end=lambda: _print_end(rp, console),
        span=span,
        redeals=[k for k, sc in enumerate(rp.scenes) if sc.redeal],
    )
    end_faulty(console, log_fault(path))


def _print_end(rp: Replay, console: Console) -> None:
    st = rp.session.state
    if st is not None and st.is_terminal():
        console.print(render_scores(st, rp.names))
    ending = rp.session.outcome()
    if rp.fault is None and (rp.session.ending is not None or ending.never_started):
        # claimed, resigned or never started (PROTOCOL.md §10.6), as `zoo verify` says it
        console.print(Text(ending.describe(rp.session.seats), style="bold"))
    deal = render_deal(rp)
    if deal is not None:
        console.print(deal)
    elif not rp.session.finished:
        console.print(Text("the game did not finish: the hidden cards stay hidden", style="yellow"))
    if rp.marks is not None:
        console.print(render_summary(rp))


def replay_main(
    *,
    log: Path,
    at: int | None,
    dump: bool,
    analyse: bool,
    plies: int | None,
    seed: int,
    html: Path | None,
    text: Path | None,
    plain: bool,
) -> None:
    """`zoo replay`: the exports (--html/--text, with --analyse the move marks too), a text
    record, or a log stepped through, full screen on a terminal, else in the line mode. Every
    mode ends a faulty log as `zoo verify` does (4, 5). `plies`: None for the default work."""
    if plies is None:
        plies = defaults.ANALYSIS_WORK
    if html is not None or text is not None:
        export_command(log, html=html, text=text, analyse=analyse, plies=plies, seed=seed)
        return
    if is_text_record(log):
        view_text_record(log, at=at, dump=dump)
        return
    if at is None and not dump and not screen.use_plain(plain):
        run_replay = screen.tui_entry("run_replay")  # the full-screen replay (zoo_p2p.tui)
        if run_replay is not None:
            try:  # a file that is no log is refused before the screen opens, as in --plain
                code = run_replay(log, analyse=analyse, plies=plies, seed=seed)
            except LogError as exc:
                refuse(log, exc, Console(stderr=True))
            if code:
                exits.end(code)
            end_faulty(Console(stderr=True), log_fault(log))  # as every mode ends a faulty log
            return
    replay_command(log, at=at, dump=dump, analysis=analyse, plies=plies, seed=seed)
