"""Replay a game log in the app: step by move, jump to captures, reveals, mutants or a move
number, and switch between what the players knew then and the hidden deal; the audit beside it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from zoo_p2p.bots.analysis import MoveMark
from zoo_p2p.errors import LogError, RemoteProtocolError
from zoo_p2p.protocol.audit import FAULT, OK, AuditReport, audit, report_for
from zoo_p2p.protocol.liveness import FINISHED
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, State, move_name
from zoo_p2p.rules.board import N_SQUARES
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_ALLOWED_LINE, shown
from zoo_p2p.tui.board import BoardView, HiddenSquare
from zoo_p2p.tui.facts import Glyphs, narrate
from zoo_p2p.tui.game import seats_text
from zoo_p2p.tui.table import DealView


@dataclass(frozen=True)
class Frame:
    """The game after move ``number`` (0: the start) and everything it revealed."""

    number: int
    state: State
    move: Move | None
    line: Text
    capture: bool  # took a character (an opponent's or a mutant)
    reveal: bool  # a face-down bottom card turned up
    mutant: bool  # a mutant appeared


@dataclass(frozen=True)
class ReplayData:
    """A log read move by move, with the audit's verdict and the deal when it was opened."""

    path: str
    names: list[str]
    frames: list[Frame]
    report: AuditReport
    deal: DealView | None
    torn: str | None


def load(path: Path) -> ReplayData:
    """Read ``path`` through an observer session and keep one frame per settled move."""
    read = read_log(path)
    if not read.entries:
        raise LogError("the log is empty", index=0)
    try:
        session = Session(read.entries[0])
    except RemoteProtocolError as exc:
        raise LogError(f"not a game log: {exc.reason}", index=0) from None
    names = [shown(s.name, 40) for s in session.seats]
    frames: list[Frame] = []
    fault = False
    for raw in read.entries[1:]:
        try:
            session.receive(raw)
        except RemoteProtocolError:
            fault = True
            break
        st = session.state
        if st is None or st.needs is not None:
            continue
        if not frames:
            frames.append(Frame(0, st.clone(), None, Text("the start"), False, False, False))
        done = len(frames) - 1
        if len(st.history) > done:
            before = frames[-1].state
            move = st.history[done]
            after = st.clone()
            target = before.top(move.to)
            frames.append(
                Frame(
                    done + 1,
                    after,
                    move,
                    narrate(before, after, move, names, None),
                    target.kind in ("character", "mutant"),
                    before.under(move.to).kind == "unknown" and after.under(move.to).kind == "zoo",
                    after.top(move.to).kind == "mutant" and target.kind == "zoo",
                )
            )
    st = session.state
    if st is not None and st.needs is not None and frames and len(st.history) >= len(frames):
        # the last move's reveal never came (the log stops there, or is faulty from there): it
        # is still a move of the game, as `zoo verify` and the line mode count it
        before, move = frames[-1].state, st.history[len(frames) - 1]
        after = st.clone()
        line = narrate(before, after, move, names, None)
        took = before.top(move.to).kind in ("character", "mutant")
        frames.append(Frame(len(frames), after, move, line, took, False, False))
    report = audit(read.entries) if fault else report_for(session)
    deal = None
    if report.slot_tokens is not None and report.mutant_copies is not None:
        deal = DealView(tuple(report.slot_tokens), tuple(report.mutant_copies))
    return ReplayData(str(path), names, frames, report, deal, read.warning)


def hidden_squares(st: State, deal: DealView) -> dict[int, HiddenSquare]:
    """What lay hidden on every square of ``st``, from the opened deal."""
    out: dict[int, HiddenSquare] = {}
    for q in range(N_SQUARES):
        top, under = st.top(q), st.under(q)
        top_tok = None
        if top.kind == "zoo":
            top_tok = (
                deal.slot_tokens[q] if under.kind != "empty" else deal.slot_tokens[N_SQUARES + q]
            )
        under_tok = deal.slot_tokens[N_SQUARES + q] if under.kind != "empty" else None
        out[q] = HiddenSquare(
            top_mutant=top_tok is not None and deal.is_mutant(top_tok),
            under_value=under_tok // 10
            if under_tok is not None and under.kind == "unknown"
            else None,
            under_mutant=under_tok is not None and deal.is_mutant(under_tok),
        )
    return out


def verdict_text(report: AuditReport) -> Text:
    """The auditor's verdict in a few lines."""
    if report.verdict == OK:
        t = Text("verified", style="bold green")
        t.append(
            f": all {report.entries} entries check out (signatures, chain, moves, reveals, deal)"
        )
    elif report.verdict == FAULT:
        t = Text("FAULT", style="bold red")
        t.append(f" at entry {report.fault_index}: {shown(report.fault_reason)}")
    else:
        t = Text("incomplete", style="bold yellow")
        t.append(f": {report.checked} entries check out so far")
    if report.hints:  # PROTOCOL.md §3.2: every seat joined a genesis that allows them
        t.append("\n" + HINTS_ALLOWED_LINE)
    if report.ending is not None and report.ending.kind != FINISHED and report.ending_text:
        t.append("\n" + report.ending_text)  # claimed, resigned, never started… (§10.6)
    for note in report.notes:
        t.append("\n" + shown(note))
    return t


class ReplayScreen(Screen[None]):
    """Step through a game move by move."""

    AUTO_FOCUS = None

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", "next move"),
        Binding("left,p", "step(-1)", "previous move"),
        Binding("home", "go(0)", "start"),
        Binding("end", "go(-1)", "end"),
        Binding("c", "next('capture')", "next capture"),
        Binding("v", "next('reveal')", "next reveal"),
        Binding("m", "next('mutant')", "next mutant"),
        Binding("g", "goto", "go to move"),
        Binding("d", "deal", "players' view / hidden deal"),
        Binding("a", "next_mark", "next marked move (--analyse)"),
        Binding("q,escape", "leave", "quit"),
    ]

    def __init__(
        self, data: ReplayData, glyphs: Glyphs, analyse: tuple[int, int] | None = None
    ) -> None:
        super().__init__()
        self.data = data
        self.g = glyphs
        self.i = 0
        self.show_deal = False
        self.note = Text()
        self.analyse = analyse
        self.marks: dict[int, MoveMark] = {}
        self.analysed: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.g, id="board")
                yield Static(id="info", markup=False, classes="panel")
            with Vertical(id="right"):
                yield Static(id="seats", markup=False, classes="panel")
                with Horizontal(id="lower"):
                    with VerticalScroll(id="history", classes="panel", can_focus=False):
                        yield Static(id="history-text", markup=False)
                    yield Static(id="captures", markup=False, classes="panel")
        yield Static(id="messages", markup=False)
        yield Input(placeholder="go to move number, Enter", id="command")
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.query_one(
            "#history", VerticalScroll
        ).border_title = "moves (x take, r reveal, M mutant)"
        self.query_one("#captures", Static).border_title = "audit"
        self.query_one("#seats", Static).border_title = "seats"
        self.query_one("#info", Static).border_title = "this move"
        self.query_one("#board", BoardView).can_focus = False
        self.query_one("#command", Input).can_focus = False
        self.set_focus(None)
        self.redraw()
        if self.analyse is not None and len(self.data.frames) > 1:
            self.analysed = f"analysing 0 of {len(self.data.frames) - 1} moves…"
            self._analyse(*self.analyse)

    @work(thread=True, exit_on_error=False)
    def _analyse(self, plies: int, seed: int) -> None:
        """Score every move with the expert bot, in a worker thread (b's analysis API)."""
        from zoo_p2p.bots.analysis import analyse_positions

        frames = self.data.frames
        positions = [(frames[k - 1].state, frames[k].move) for k in range(1, len(frames))]
        total = len(positions)

        def progress(ply: int) -> None:
            self.app.call_from_thread(self._progress, ply + 1, total)

        marks = analyse_positions(
            [(st, mv) for st, mv in positions if mv is not None],
            work=plies,
            seed=seed,
            progress=progress,
        )
        self.app.call_from_thread(self._analysed, marks)

    def _progress(self, done: int, total: int) -> None:
        self.analysed = f"analysing {done} of {total} moves…"
        self.redraw()

    def _analysed(self, marks: list[MoveMark]) -> None:
        self.marks = {m.ply + 1: m for m in marks}
        bad = sum(1 for m in marks if m.mark)
        self.analysed = f"analysis: {bad} marked moves (a: next one)"
        self.redraw()

    @property
    def frame(self) -> Frame:
        return self.data.frames[self.i]

    def audit_box(self) -> Text:
        """The auditor's verdict, how the log ended, the game id, a torn tail, the deal."""
        d = self.data
        box = verdict_text(d.report)
        if d.report.game_id is not None:
            box.append(f"\ngame {d.report.game_id.hex()[:16]}")
        if d.torn:
            box.append("\n" + shown(d.torn))
        if d.deal is None:
            box.append("\nthe deal was never opened: the hidden deal view is not available")
        return box

    def redraw(self) -> None:
        """Draw the current frame in the current view."""
        d = self.data
        if not d.frames:  # the log stops before the opening (or the game never started)
            self.query_one("#status", Static).update(Text("the log holds no move yet"))
            self.query_one("#captures", Static).update(self.audit_box())
            return
        f = self.frame
        hidden = None
        if self.show_deal and d.deal is not None:
            hidden = hidden_squares(f.state, d.deal)
        self.query_one("#board", BoardView).show(f.state, last=f.move, hidden=hidden)
        last = len(d.frames) - 1
        view = (
            "the hidden deal (* hid the mutant)" if hidden is not None else "what the players knew"
        )
        status = Text(f"replay {shown(Path(d.path).name, 40)}: move {f.number} of {last} ")
        status.append(f"[{view}]", style="bold")
        self.query_one("#status", Static).update(status)
        self.query_one("#seats", Static).update(seats_text(f.state, d.names, self.g))
        info = Text()
        info.append_text(f.line)
        tags = [
            t
            for t, on in (("capture", f.capture), ("reveal", f.reveal), ("MUTANT", f.mutant))
            if on
        ]
        if tags:
            info.append("\n[" + ", ".join(tags) + "]", style="bold")
        mark = self.marks.get(f.number)
        if mark is not None:
            info.append("\n" + mark.describe(), style="bold red" if mark.mark else "")
        if f.state.is_terminal():
            scores = ", ".join(f"{d.names[s.seat]} {s.total}" for s in f.state.scores())
            info.append(f"\ngame over: {scores}", style="bold")
        self.query_one("#info", Static).update(info)
        hist = Text()
        for fr in d.frames[1:]:
            style = (
                "bold reverse" if fr.number == f.number else ("" if fr.number < f.number else "dim")
            )
            line = Text(f"{fr.number:>3} ", style=style)
            line.append("" if fr.move is None else move_name(fr.move))
            marks = (
                ("x" if fr.capture else "")
                + ("r" if fr.reveal else "")
                + ("M" if fr.mutant else "")
            )
            if marks:
                line.append(f" {marks}")
            mark = self.marks.get(fr.number)
            if mark is not None and mark.symbol:
                line.append(f" {mark.symbol}", style="bold red")
            hist.append_text(line)
            hist.append("\n")
        self.query_one("#history-text", Static).update(hist)
        box = self.query_one("#history", VerticalScroll)
        box.scroll_to(y=max(0, f.number - 1 - box.size.height // 2), animate=False)
        self.query_one("#captures", Static).update(self.audit_box())
        second = self.note if self.note.plain or self.analysed is None else Text(self.analysed)
        self.query_one("#messages", Static).update(
            Text.assemble(verdict_text(d.report).split("\n")[0], "\n", second)
        )
        self.query_one("#keys", Static).update(
            Text(
                "<-/-> step  c/v/m next capture/reveal/mutant  g go to  d deal  a mark  q quit",
                style="dim",
            )
        )

    def action_step(self, delta: int) -> None:
        """One move back or forward."""
        self.i = max(0, min(len(self.data.frames) - 1, self.i + delta))
        self.note = Text()
        self.redraw()

    def action_go(self, n: int) -> None:
        """To the start (0) or the end (-1)."""
        self.i = len(self.data.frames) - 1 if n < 0 else n
        self.note = Text()
        self.redraw()

    def action_next(self, kind: str) -> None:
        """To the next move that captured a character, revealed a card, or found a mutant."""
        for j in range(self.i + 1, len(self.data.frames)):
            if getattr(self.data.frames[j], kind):
                self.i = j
                self.note = Text()
                break
        else:
            self.note = Text(f"no {kind} after move {self.frame.number}", style="yellow")
        self.redraw()

    def action_next_mark(self) -> None:
        """To the next move the analysis marked (inaccuracy, mistake, blunder)."""
        for j in range(self.i + 1, len(self.data.frames)):
            m = self.marks.get(self.data.frames[j].number)
            if m is not None and m.mark:
                self.i = j
                self.note = Text()
                break
        else:
            why = "no analysis (zoo replay --analyse)" if not self.marks else "no marked move"
            self.note = Text(f"{why} after move {self.frame.number}", style="yellow")
        self.redraw()

    def action_goto(self) -> None:
        """Type a move number."""
        box = self.query_one("#command", Input)
        box.can_focus = True
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        event.input.can_focus = False
        self.set_focus(None)
        last = len(self.data.frames) - 1
        if text.isdigit() and 0 <= int(text) <= last:
            self.i = int(text)
            self.note = Text()
        elif text:
            self.note = Text(f"moves go from 0 to {last}", style="yellow")
        self.redraw()

    def action_deal(self) -> None:
        """Between what the players knew then and the hidden deal."""
        if self.data.deal is None:
            self.note = Text("the deal was never opened (the game did not finish)", style="yellow")
        else:
            self.show_deal = not self.show_deal
        self.redraw()

    def action_leave(self) -> None:
        """Quit the replay; Escape while a move number is being typed only puts the box away
        (it quit the whole replay: a walkthrough pressed g, then Escape to change its mind)."""
        box = self.query_one("#command", Input)
        if box.has_focus:
            box.value = ""
            box.can_focus = False
            self.set_focus(None)
            self.redraw()
            return
        self.app.exit(0)
