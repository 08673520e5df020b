"""Replay a game log in the app: step by move, jump to captures, reveals, mutants or a move
number, and switch between what the players knew then and the hidden deal; the audit beside it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static

from zoo_p2p.bots.analysis import MoveMark, stood_in
from zoo_p2p.errors import LogError, RemoteProtocolError
from zoo_p2p.protocol.audit import FAULT, OK, AuditReport, audit, report_for
from zoo_p2p.protocol.liveness import FINISHED
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, State, move_name
from zoo_p2p.rules.board import N_SQUARES
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_ALLOWED_LINE, shown
from zoo_p2p.tui.board import BoardState, BoardView, HiddenSquare, Position
from zoo_p2p.tui.facts import Glyphs, narrate
from zoo_p2p.tui.table import DealView
from zoo_p2p.tui.widgets import SeatsPanel, SeatsView, ViewStatic


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
    redeal: str | None = None  # a claim that played on came after this move (§10.7), in words


@dataclass(frozen=True)
class ReplayData:
    """A log read move by move, with the audit's verdict and the deal when it was opened."""

    path: str
    names: list[str]
    frames: list[Frame]
    report: AuditReport
    deal: DealView | None
    torn: str | None
    stand_ins: frozenset[int] = frozenset()  # moves (1-based) a stand-in played: not graded


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
    stand_ins: set[int] = set()
    fault = False
    for index, raw in enumerate(read.entries[1:], 1):
        try:
            got = session.receive(raw)
        except RemoteProtocolError:
            fault = True
            break
        for p in session.played_on_in(got):  # a step of its own: `r` goes to it
            if frames:
                words = shown(p.describe(session.seats), 300)
                frames[-1] = replace(frames[-1], redeal=words)
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
            if stood_in(session.resigned, session.out, before.to_move, index):
                stand_ins.add(done + 1)  # (a claim that played on, or a resignation, came first)
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
    return ReplayData(str(path), names, frames, report, deal, read.warning, frozenset(stand_ins))


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


REPLAY_KEYS = Text(
    "<-/-> step  c/v/m next capture/reveal/mutant  g go to  d deal  a mark  q leave", style="dim"
)
"""The replay's keys line."""


@dataclass(frozen=True)
class ReplayStatusView:
    """The replay's status line: the log's file name, the move on the board (None: the log
    holds none) of ``last``, and whether the hidden deal is shown."""

    name: str
    number: int | None
    last: int = 0
    deal: bool = False


class ReplayStatus(ViewStatic[ReplayStatusView]):
    """The replay's status line. Set `view`."""

    def text(self, v: ReplayStatusView) -> Text:
        if v.number is None:
            return Text("the log holds no move yet")
        view = "the hidden deal (* hid the mutant)" if v.deal else "what the players knew"
        status = Text(f"replay {shown(v.name, 40)}: move {v.number} of {v.last} ")
        status.append(f"[{view}]", style="bold")
        return status


@dataclass(frozen=True)
class MoveInfoView:
    """The "this move" panel: the frame's move in words, its tags, a re-deal after it, the
    analysis' mark, and the scores when it ends the game."""

    frame: Frame
    names: tuple[str, ...]
    mark: MoveMark | None = None


class MoveInfo(ViewStatic[MoveInfoView]):
    """The replay's "this move" panel. Set `view`."""

    BORDER_TITLE = "this move"

    def text(self, v: MoveInfoView) -> Text:
        f = v.frame
        info = Text()
        info.append_text(f.line)
        if f.redeal is not None:  # a claim that played on, after this move (§10.7)
            info.append("\nre-deal: " + f.redeal, style="bold yellow")
        tags = [
            t
            for t, on in (("capture", f.capture), ("reveal", f.reveal), ("MUTANT", f.mutant))
            if on
        ]
        if tags:
            info.append("\n[" + ", ".join(tags) + "]", style="bold")
        if v.mark is not None:
            info.append("\n" + v.mark.describe(), style="bold red" if v.mark.mark else "")
        if f.state.is_terminal():
            scores = ", ".join(f"{v.names[s.seat]} {s.total}" for s in f.state.scores())
            info.append(f"\ngame over: {scores}", style="bold")
        return info


@dataclass(frozen=True)
class FrameListView:
    """The replay's moves list: the move on the board, and the analysis' symbols by move."""

    number: int
    symbols: tuple[tuple[int, str], ...] = ()


class FrameList(VerticalScroll, can_focus=False):
    """The replay's moves list: every move with its marks, the one on the board reversed, the
    later ones dimmed, kept centred on it (at the panel's own height, after a resize too). Set
    `view`."""

    view: reactive[FrameListView | None] = reactive(None, init=False)

    def __init__(self, frames: list[Frame], *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.frames = frames
        self.border_title = "moves (x take, r reveal, M mutant)"

    def compose(self) -> ComposeResult:
        yield Static(id="history-text", markup=False)

    def watch_view(self) -> None:
        v = self.view
        if v is None:
            return
        symbols = dict(v.symbols)
        hist = Text()
        for fr in self.frames[1:]:
            style = (
                "bold reverse" if fr.number == v.number else ("" if fr.number < v.number else "dim")
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
            symbol = symbols.get(fr.number)
            if symbol:
                line.append(f" {symbol}", style="bold red")
            hist.append_text(line)
            hist.append("\n")
        self.query_one("#history-text", Static).update(hist)
        self.centre()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.centre)

    def centre(self) -> None:
        """Scroll so that the move on the board is in the middle of the panel."""
        if self.view is not None:
            y = max(0, self.view.number - 1 - self.size.height // 2)
            self.scroll_to(y=y, animate=False)


class ReplayMessages(Static):
    """The replay's message lines: the audit's verdict, then a note (``second``: what a key
    found or did not, or how far the analysis has come)."""

    second: reactive[Text | None] = reactive(None, init=False)

    def __init__(self, verdict: Text | str | None) -> None:
        super().__init__(id="messages", markup=False)
        self.verdict = verdict

    def watch_second(self) -> None:
        if self.verdict is not None and self.second is not None:
            self.update(Text.assemble(self.verdict, "\n", self.second))


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
        Binding("r", "next('redeal')", "next re-deal"),
        Binding("g", "goto", "go to move"),
        Binding("d", "deal", "players' view / hidden deal"),
        Binding("a", "next_mark", "next marked move (--analyse)"),
        Binding("q", "leave_ask", "quit", priority=True),
        Binding("escape", "escape", "close", show=False),
    ]

    def __init__(
        self,
        data: ReplayData,
        glyphs: Glyphs,
        analyse: tuple[int, int] | None = None,
        *,
        back: bool = False,
    ) -> None:
        super().__init__()
        self.back = back  # opened from the end screen: leaving goes back there
        self.data = data
        self.g = glyphs
        self.i = 0
        self.show_deal = False
        self.note = Text()
        self.analyse = analyse
        self.marks: dict[int, MoveMark] = {}
        self.analysed: str | None = None

    def compose(self) -> ComposeResult:
        d = self.data
        yield ReplayStatus(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.g, id="board")
                yield MoveInfo(id="info", classes="panel")
            with Vertical(id="right"):
                yield SeatsPanel(self.g, id="seats", classes="panel")
                with Horizontal(id="lower"):
                    yield FrameList(d.frames, id="history", classes="panel")
                    yield Static(self.audit_box(), id="captures", markup=False, classes="panel")
        yield ReplayMessages(verdict_text(d.report).split("\n")[0] if d.frames else None)
        yield Input(placeholder="go to move number, Enter", id="command")
        yield Static(REPLAY_KEYS if d.frames else "", id="keys", markup=False)

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.query_one("#captures", Static).border_title = "audit"
        self.query_one("#board", BoardView).can_focus = False
        self.query_one("#command", Input).can_focus = False
        self.set_focus(None)
        self.show()
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
            stand_ins={k - 1 for k in self.data.stand_ins},
        )
        self.app.call_from_thread(self._analysed, marks)

    def _progress(self, done: int, total: int) -> None:
        self.analysed = f"analysing {done} of {total} moves…"
        self.show()

    def _analysed(self, marks: list[MoveMark]) -> None:
        self.marks = {m.ply + 1: m for m in marks}
        bad = sum(1 for m in marks if m.mark)
        self.analysed = f"analysis: {bad} marked moves (a: next one)"
        self.show()

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

    def show(self) -> None:
        """Calls down: hand every panel its view of the current frame in the current view (a
        reactive each widget draws itself from)."""
        d = self.data
        if not d.frames:  # the log stops before the opening (or the game never started)
            self.query_one(ReplayStatus).view = ReplayStatusView(Path(d.path).name, None)
            return
        f = self.frame
        hidden = None
        if self.show_deal and d.deal is not None:
            hidden = hidden_squares(f.state, d.deal)
        pos = Position(f.state)
        self.query_one(BoardView).view = BoardState(pos, last=f.move, hidden=hidden)
        self.query_one(ReplayStatus).view = ReplayStatusView(
            Path(d.path).name, f.number, len(d.frames) - 1, hidden is not None
        )
        self.query_one(SeatsPanel).view = SeatsView(pos, tuple(d.names))
        self.query_one(MoveInfo).view = MoveInfoView(f, tuple(d.names), self.marks.get(f.number))
        symbols = tuple((n, m.symbol) for n, m in sorted(self.marks.items()) if m.symbol)
        self.query_one(FrameList).view = FrameListView(f.number, symbols)
        second = self.note if self.note.plain or self.analysed is None else Text(self.analysed)
        self.query_one(ReplayMessages).second = second

    def action_step(self, delta: int) -> None:
        """One move back or forward."""
        self.i = max(0, min(len(self.data.frames) - 1, self.i + delta))
        self.note = Text()
        self.show()

    def action_go(self, n: int) -> None:
        """To the start (0) or the end (-1)."""
        self.i = len(self.data.frames) - 1 if n < 0 else n
        self.note = Text()
        self.show()

    def action_next(self, kind: str) -> None:
        """To the next move that captured a character, revealed a card, or found a mutant."""
        for j in range(self.i + 1, len(self.data.frames)):
            if getattr(self.data.frames[j], kind):
                self.i = j
                self.note = Text()
                break
        else:
            what = "re-deal" if kind == "redeal" else kind
            self.note = Text(f"no {what} after move {self.frame.number}", style="yellow")
        self.show()

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
        self.show()

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
        self.show()

    def action_deal(self) -> None:
        """Between what the players knew then and the hidden deal."""
        if self.data.deal is None:
            self.note = Text("the deal was never opened (the game did not finish)", style="yellow")
        else:
            self.show_deal = not self.show_deal
        self.show()

    def action_escape(self) -> None:
        """Escape puts the go-to box away; it never quits the replay (q does, after asking)."""
        box = self.query_one("#command", Input)
        if box.has_focus:
            box.value = ""
            box.can_focus = False
            self.set_focus(None)
        else:
            self.note = Text("nothing to close: q leaves the replay", style="dim")
        self.show()

    def action_leave_ask(self) -> None:
        """q: ask once; q or y leaves the replay (the log is not touched)."""
        from zoo_p2p.tui.overlays import LEAVE_KEYS, Question

        box = self.query_one("#command", Input)
        if box.has_focus:
            box.value = ""
            box.can_focus = False
            self.set_focus(None)

        def answered(yes: bool | None) -> None:
            if yes:
                self.action_leave()

        words = Text("Leave the replay? The log is not changed.")
        self.app.push_screen(Question(words, LEAVE_KEYS), answered)

    def action_leave(self) -> None:
        """Quit the replay (opened from the end screen: back to it)."""
        if self.back:
            self.dismiss(None)
        else:
            self.app.exit(0)
