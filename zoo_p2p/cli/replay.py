"""``zoo replay LOG``: step through a game log — the board at each entry, what was revealed,
and after the end the whole deal that was hidden."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console, Group, RenderableType
from rich.text import Text

from zoo_p2p.cli.render import describe_move, render_board, render_scores, seat_label
from zoo_p2p.errors import LogError, RemoteProtocolError
from zoo_p2p.protocol.encoding import decode_entry
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
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, State, square_name
from zoo_p2p.storage import read_log

KEYS = (
    "[Enter]/n next · p previous · m next move · b previous move · <N> or j N jump · e end · q quit"
)


@dataclass(frozen=True)
class Frame:
    """The game as it stood just after log entry ``index``."""

    index: int
    seat: int
    kind: str
    lines: tuple[Text, ...]
    state: State | None
    move: Move | None


@dataclass(frozen=True)
class Replay:
    """Every frame of a log, the session that read it, and the first fault if any."""

    frames: list[Frame]
    session: Session
    names: list[str]
    fault: str | None
    torn: str | None


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
        return Text.assemble(seat_label(st, ev.seat, names), f" plays {ev.move}")
    if isinstance(ev, CardRevealed) and session.first_seat is not None and st is not None:
        if st.history:
            return Text(f"{square_name(ev.square)}: the bottom card is a {ev.value}", style="cyan")
        return None
    if isinstance(ev, MutantRevealed):
        if ev.is_mutant:
            return Text(
                f"{square_name(ev.square)}: the {ev.value} was a MUTANT — the captor is lost",
                style="bold magenta",
            )
        return Text(f"{square_name(ev.square)}: the {ev.value} was not a mutant", style="dim")
    if isinstance(ev, GameOver):
        return Text(f"game over: scores {', '.join(map(str, ev.scores))}", style="bold")
    if isinstance(ev, SeedOpened):
        return Text(f"{names[ev.seat]} opened their seed; it matches every commitment")
    if isinstance(ev, SeedsOpened):
        return Text("every seed is open: the whole deal is known", style="bold green")
    if isinstance(ev, ResultSigned):
        return Text(f"{names[ev.seat]} signed the result")
    if isinstance(ev, Finished):
        return Text("every seat signed the result: the log is complete", style="bold green")
    if isinstance(ev, CheatDetected):
        return Text(f"CHEAT by seat {ev.seat}: {ev.reason}", style="bold red")
    return None


def load_replay(path: Path) -> Replay:
    """Read a log and replay it through an observer session, keeping a frame per entry."""
    read = read_log(path)
    if not read.entries:
        raise LogError("the log is empty", index=0)
    try:
        session = Session(read.entries[0])
    except RemoteProtocolError as exc:
        raise LogError(f"not a game log: {exc.reason}", index=0) from None
    names = [s.name for s in session.seats]
    frames = [
        Frame(
            0,
            0,
            "genesis",
            (Text(f"genesis: {len(names)} seats, {session.variant.value} game"),),
            None,
            None,
        )
    ]
    fault = None
    before: State | None = None
    for i, raw in enumerate(read.entries[1:], start=1):
        try:
            events = session.receive(raw)
        except RemoteProtocolError as exc:
            fault = f"entry {i}: {exc.reason}"
            break
        if len(session) != i + 1:
            fault = f"entry {i}: does not follow entry {i - 1}"
            break
        entry = decode_entry(raw)
        move = next((e.move for e in events if isinstance(e, MoveApplied)), None)
        st = session.state.clone() if session.state is not None else None
        described = [_describe(session, names, e) for e in events]
        if move is not None and before is not None and st is not None:
            # the capture itself, in words (reveal lines come from the reveal round)
            i_move = next(k for k, e in enumerate(events) if isinstance(e, MoveApplied))
            described[i_move] = describe_move(before, st, move, names)[0]
        lines = tuple(t for t in described if t is not None)
        before = st
        frames.append(Frame(i, entry.seat, entry.kind, lines, st, move))
    return Replay(frames, session, names, fault, read.warning)


def render_frame(rp: Replay, i: int) -> RenderableType:
    """The board after entry ``i`` with the lines that entry caused."""
    f = rp.frames[i]
    head = Text(f"entry {f.index} of {len(rp.frames) - 1}", style="bold")
    last_move = next((g.move for g in reversed(rp.frames[: i + 1]) if g.move is not None), None)
    parts: list[RenderableType] = [head, *f.lines]
    if f.state is not None:
        parts.insert(0, render_board(f.state, rp.names, last=last_move))
    return Group(*parts)


def render_deal(rp: Replay) -> RenderableType | None:
    """The deal that was hidden (when every seed was opened)."""
    if rp.session.opened_deal is None:
        return None
    from zoo_p2p.cli.verify import deal_table  # the auditor's view of the deal
    from zoo_p2p.protocol.audit import report_for

    return deal_table(report_for(rp.session))


def _move_frames(rp: Replay) -> list[int]:
    return [i for i, f in enumerate(rp.frames) if f.move is not None]


def replay_command(
    path: Path,
    at: int | None = None,
    dump: bool = False,
    console: Console | None = None,
    ask: Callable[[str], str] | None = None,
) -> None:
    """Show a log: interactively, at one entry (``at``), or as a full dump."""
    console = console or Console()
    try:
        rp = load_replay(path)
    except LogError as exc:
        console.print(f"[red]cannot replay {path}: {exc}[/red]")
        raise typer.Exit(1) from None
    if rp.torn:
        console.print(f"[yellow]{rp.torn}[/yellow]")
    if rp.fault:
        console.print(f"[red]the log is faulty from {rp.fault}; showing what came before[/red]")
    last = len(rp.frames) - 1
    if at is not None:
        if not 0 <= at <= last:
            console.print(f"[red]--at {at}: the log has entries 0 to {last}[/red]")
            raise typer.Exit(1)
        console.print(render_frame(rp, at))
        return
    if dump:
        for f in rp.frames:
            for line in f.lines:
                console.print(Text(f"{f.index:4d} ") + line)
        _print_end(rp, console)
        return
    ask = ask or (lambda label: console.input(label))
    i = 0
    moves = _move_frames(rp)
    while True:
        console.print(render_frame(rp, i))
        if i == last:
            _print_end(rp, console)
        try:
            cmd = ask(f"[dim]{KEYS}[/dim]\nreplay> ").strip().lower()
        except EOFError:
            return
        if cmd in ("q", "quit"):
            return
        if cmd in ("", "n"):
            i = min(i + 1, last)
        elif cmd == "p":
            i = max(i - 1, 0)
        elif cmd == "m":
            i = next((m for m in moves if m > i), last)
        elif cmd == "b":
            i = next((m for m in reversed(moves) if m < i), 0)
        elif cmd == "e":
            i = last
        else:
            target = cmd[1:].strip() if cmd.startswith("j") else cmd
            if target.isdigit() and 0 <= int(target) <= last:
                i = int(target)
            else:
                console.print(f"[red]{cmd!r}: {KEYS}; entries go from 0 to {last}[/red]")


def _print_end(rp: Replay, console: Console) -> None:
    st = rp.session.state
    if st is not None and st.is_terminal():
        console.print(render_scores(st, rp.names))
    deal = render_deal(rp)
    if deal is not None:
        console.print(deal)
    elif not rp.session.finished:
        console.print("[yellow]the game did not finish: the hidden cards stay hidden[/yellow]")
