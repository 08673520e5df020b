"""The game screen: board, seats, history, hints and messages, all on screen at once."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import events, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from zoo_p2p.bots.analysis import Hint, HintRefused, hint
from zoo_p2p.errors import IllegalMoveError, NotationError
from zoo_p2p.rules import Move, Send, State, Step, move_name, parse_move, square_name
from zoo_p2p.text import out_note, resigned_note, shown
from zoo_p2p.tui.board import BoardState, BoardView, HandBar, HandView, Position
from zoo_p2p.tui.facts import (
    Glyphs,
    narrate,
    seat_text,
    short_narrate,
)
from zoo_p2p.tui.lobby import same_wait
from zoo_p2p.tui.moveline import MOVE_STARTS, MoveLine
from zoo_p2p.tui.movelist import MovesOverlay
from zoo_p2p.tui.overlays import LEAVE_KEYS, Question, TextOverlay, help_text, legend_text
from zoo_p2p.tui.table import Table, leave_words
from zoo_p2p.tui.widgets import (
    CapturesPanel,
    CapturesView,
    InfoPanel,
    InfoView,
    KeysLine,
    KeysView,
    MessageLines,
    MovesPanel,
    SeatsPanel,
    SeatsView,
    StatusLine,
    StatusView,
)

T = TypeVar("T")


class GameScreen(Screen[None]):
    """One game. Type a move (5@C3, C3-C4), or pick with keys or the mouse, then a target."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "close", show=False),
        Binding("tab", "switch_focus", "board/typing", show=False, priority=True),
        Binding("q", "leave_ask", "leave", show=False, priority=True),
        Binding("question_mark", "moves", "moves", show=False, priority=True),
        Binding("x", "hint", "hint", show=False, priority=True),
        Binding("f1,h", "help", "help", show=False, priority=True),
        Binding("l", "legend", "legend", show=False, priority=True),
        # a hand card picked (the box holds only its digit): the arrows go on to the board
        Binding("up", "arrow(0,-1)", show=False, priority=True),
        Binding("down", "arrow(0,1)", show=False, priority=True),
        Binding("left", "arrow(-1,0)", show=False, priority=True),
        Binding("right", "arrow(1,0)", show=False, priority=True),
        # the claim question's answers, before the typing line takes them as letters
        Binding("c", "claim_answer(True)", "claim", show=False, priority=True),
        Binding("w", "claim_answer(False)", "wait", show=False, priority=True),
    ]

    def __init__(self, table: Table, glyphs: Glyphs) -> None:
        super().__init__()
        self.table = table
        self.g = glyphs
        self.pick_hand: int | None = None
        self.pick_sq: int | None = None
        self.history: list[Text] = []
        # the message lines: the last move's sentence, then notes (they go when the position
        # changes) and errors (they go at the next key)
        self.last_line: Text | None = None
        self.messages: list[Text] = []
        self.errors: list[Text] = []
        self.last: Move | None = None
        self.typing_pending = False  # keys typed on the board before the focus reached the box
        self.over_shown = False
        # the expert's hint (x): for which position, the search's stop flag, what it found
        self.hint_key: tuple[int, bytes] | None = None
        self.hint_stop = threading.Event()
        self.hint: Hint | None = None
        self.hints_dropped = 0  # hints that arrived after their position had changed
        # the panels exist (set in on_mount: Textual's `is_mounted` turns true only after
        # on_mount has returned, so a draw guarded by it would skip the first one)
        self.panels = False

    class Leave(Message):
        """The person confirmed leaving the game: the app closes the table and leaves."""

    class TableChanged(Message):
        """The table changed besides a move (presence, clocks, reveals, the ending): the app
        tells the screen above this one, the end screen, if it is open."""

    class Over(Message):
        """The game has ended: the app opens the end screen for ``table``."""

        def __init__(self, table: Table) -> None:
            super().__init__()
            self.table = table

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield StatusLine(self.g, id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.g, id="board")
                yield HandBar(id="hand")
                yield InfoPanel(self.g, id="info", classes="panel")
            with Vertical(id="right"):
                yield SeatsPanel(self.g, id="seats", classes="panel")
                with Horizontal(id="lower"):
                    yield MovesPanel(self.g, id="history", classes="panel")
                    yield CapturesPanel(id="captures", classes="panel")
        yield MessageLines(id="messages")
        line = MoveLine(
            placeholder="the move box: press a hand card (3-6) or a column (A-E) to type a move",
            id="command",
            select_on_focus=False,  # the key that opened the box stays, the next one follows
        )
        line.claim_open = lambda: self.table.question is not None
        yield line
        yield KeysLine(self.g, id="keys")

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        board = self.query_one("#board", BoardView)
        board.key_sink = self.board_key
        board.focus()
        self.panels = True
        self.table.ui = self
        self.show()
        if self.messages:  # notices that came before the screen was mounted
            self.show_messages()
        self.table.start()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.table.tick():
            self.show_seats()

    # ------------------------------------------------------------------ TableUI
    def moved(self, before: State, after: State, move: Move) -> None:
        """A move was played (by anyone): its sentence on the status line, its short line in
        the moves panel; the messages about the old position go."""
        you = self.table.you()
        n = len(after.history)
        entry = Text(f"{n:>2} ", style="dim")
        entry.append_text(short_narrate(before, after, move, self.table.names, you))
        self.history.append(entry)
        self.last_line = narrate(before, after, move, self.table.names, you)
        self.last = move
        self.pick_hand = self.pick_sq = None
        self.forget_hint()
        self.forget_position_notices()
        self.show()

    def forget_position_notices(self) -> None:
        """The position changed: every message about the old one goes (an answer to `x`, an
        error, "your time is up"); the last move's sentence says what happened."""
        self.messages = []
        self.errors = []
        if self.panels:
            self.show_messages()

    def forget_errors(self) -> None:
        """A key was pressed: the error it answers has been read."""
        if self.errors:
            self.errors = []
            if self.panels:
                self.show_messages()

    def refresh_table(self) -> None:
        """Something besides a move changed (presence, clocks, reveals, the ending)."""
        self.show()
        self.post_message(self.TableChanged())  # the end screen above, if open, follows it

    def log_line(self, text: Text) -> None:
        """A line in the move history that no single move narrates."""
        entry = Text(f"{len(self.history) + 1:>2} ", style="dim")
        entry.append_text(text)
        self.history.append(entry)
        self.show()

    def notice(self, text: Text | str, *, position: bool = True) -> None:
        """Show a message (peer-supplied strings arrive as Text or are shown as plain data)
        until the position changes."""
        msg = text if isinstance(text, Text) else Text(text)
        if not msg.plain.strip():
            return
        if self.messages and same_wait(self.messages[-1].plain, msg.plain):
            self.messages.pop()  # the same wait with new figures: it updates its line
        self.messages.append(msg)
        self.messages = self.messages[-3:]
        if self.panels:
            self.show_messages()

    def error(self, words: str) -> None:
        """An error (a move refused, a key that does nothing): shown until the next key."""
        self.errors = [Text(words, style="bold red")]
        if self.panels:
            self.show_messages()

    def show_messages(self) -> None:
        """The message lines (`MessageLines`) follow the last move and the messages."""
        lines = self.query_one("#messages", MessageLines)
        lines.state = (self.last_line, (*self.messages, *self.errors))

    def background(self, work_fn: Callable[[], T], done: Callable[[T], None]) -> None:
        """Run ``work_fn`` in a worker thread and hand its result to ``done`` on this thread."""
        self._run_background(work_fn, done)

    @work(thread=True, exit_on_error=True)
    def _run_background(self, work_fn: Callable[[], Any], done: Callable[[Any], None]) -> None:
        result = work_fn()
        self.app.call_from_thread(done, result)

    # ------------------------------------------------------------------ the expert's hint
    def position_key(self) -> tuple[int, bytes]:
        """What identifies the position on screen: a hint is for this position only."""
        st = self.table.state
        return len(st.history), st.digest()

    def action_hint(self) -> None:
        """x: what the expert would play here, searched in a worker thread (local games of one
        person against bots only; elsewhere it says why hints are off)."""
        why = self.table.hints_off()
        if why is not None:
            self.notice(Text(why, style="yellow"))
            return
        if not self.table.my_turn():
            self.notice(Text("a hint is for your own turn", style="yellow"))
            return
        key = self.position_key()
        if self.hint_key == key:
            if self.hint is not None:
                self.notice(Text(self.hint.describe(self.g.dash)), position=True)
            return  # the expert is still thinking about this very position
        self.forget_hint()
        self.hint_key = key
        self.hint_stop = threading.Event()
        self._think_hint(self.table.state, key, self.hint_stop, len(self.table.human))
        self.show()

    @work(thread=True, group="hint", exit_on_error=False)
    def _think_hint(
        self, state: State, key: tuple[int, bytes], stop: threading.Event, people: int
    ) -> None:
        """The search, off the UI thread: bounded work, stopped when the position changes."""
        result: Hint | str | None
        try:
            result = hint(
                state,
                networked=self.table.networked,
                people=people,
                agreed=self.table.agreed,
                stop=stop.is_set,
            )
        except HintRefused as exc:
            result = str(exc)
        with contextlib.suppress(RuntimeError):  # the app has closed meanwhile
            self.app.call_from_thread(self.hint_done, key, result)

    def hint_done(self, key: tuple[int, bytes], result: Hint | str | None) -> None:
        """A hint arrived: shown if its position is still the one on screen, else dropped."""
        if key != self.hint_key or result is None or key != self.position_key():
            self.hints_dropped += 1
            return
        if isinstance(result, str):
            self.hint_key = None
            self.notice(Text(result, style="yellow"))
            return
        self.hint = result
        self.notice(Text(result.describe(self.g.dash), style="bold"), position=True)
        self.show()

    def on_unmount(self) -> None:
        """The screen is gone (quit, rematch): a search still running stops."""
        self.hint_stop.set()

    def forget_hint(self) -> None:
        """The position changed: stop the search and take the hint off the board."""
        self.hint_stop.set()
        self.hint_key = None
        self.hint = None

    def hint_text(self) -> Text | None:
        """The hint line of the info panel: thinking, or the expert's move."""
        if self.hint_key is None:
            return None
        if self.hint is None:
            dots = "..." if self.g.ascii else "\u2026"
            return Text(f"the expert is thinking{dots}", style="italic")
        h = self.hint
        win = f"win chance {100 * h.win:.0f} %"
        return Text(f"( ) expert: {move_name(h.move)}, {win}", style="bold")

    # ------------------------------------------------------------------ drawing
    def targets(self) -> dict[int, Move]:
        """Legal destinations of what is picked (empty when it is not this terminal's turn)."""
        if not self.table.my_turn():
            return {}
        st = self.table.state
        out: dict[int, Move] = {}
        for m in st.legal_moves():
            if (isinstance(m, Send) and m.value == self.pick_hand) or (
                isinstance(m, Step) and m.frm == self.pick_sq
            ):
                out[m.to] = m
        return out

    def show(self) -> None:
        """Calls down: hand every panel its view of the table as it is now (a reactive each
        widget draws itself from); a panel whose view did not change is not drawn again. The
        tick, the cursor and the focus each set only the view they change."""
        if not self.panels:
            return
        st = self.table.state
        pos = Position(st)
        targets = self.targets()
        self.query_one(BoardView).view = BoardState(
            pos,
            last=self.last,
            selected=self.pick_sq,
            targets=targets,
            hint=self.hint.move if self.hint is not None else None,
        )
        self.query_one(StatusLine).view = self.status_view(pos)
        self.show_seats(pos)
        self.query_one(HandBar).view = self.hand_view(st)
        self.show_info(pos, targets)
        self.query_one(MovesPanel).lines = tuple(self.history)
        self.query_one(CapturesPanel).view = CapturesView(pos, tuple(self.table.names))
        self.show_keys()
        if st.is_terminal() and not self.over_shown:
            self.over_shown = True
            self.call_after_refresh(self.post_message, self.Over(self.table))

    def status_view(self, pos: Position) -> StatusView:
        t = self.table
        return StatusView(
            pos,
            t.title,
            tuple(t.names),
            ended=t.ended(),
            run_over=t.run_over,
            leaving=t.leaving,
            replaced_at=t.replaced_at(),
            my_turn=t.my_turn(),
            you=t.you(),
            out=tuple(sorted(t.out_seats().items())),
            resigned=tuple(sorted(t.resigned_seats().items())),
        )

    def link_closed(self) -> bool:
        """A network game whose peer has stopped, or is stopping since the person left: nobody
        is awaited, no clock runs."""
        return self.table.run_over or self.table.leaving

    def show_seats(self, pos: Position | None = None) -> None:
        """The seats panel's view: what the table knows of every seat now."""
        t = self.table
        closed = self.link_closed()

        def kept(seq: list[T] | None) -> tuple[T, ...] | None:
            return None if closed or seq is None else tuple(seq)

        notes = self.seat_notes()
        self.query_one(SeatsPanel).view = SeatsView(
            pos or Position(t.state),
            tuple(t.names),
            kept(t.presence),  # the presence last heard is stale once the link has closed
            kept(t.clocks),
            notes=None if notes is None else tuple(notes),
            awaiting=None if closed else t.awaiting,
            # a game against your own bots runs on this machine: how each is heard says nothing
            links=None if not t.networked else kept(t.seat_links),
            you=t.you(),
            question=t.question,
        )

    def stand_in_notes(self) -> dict[int, str]:
        """Seat -> its note, for each seat a stand-in plays: put out by a claim that played on
        (PROTOCOL.md §10.7), or resigned at 3–4 seats (§10.4)."""
        notes = {seat: resigned_note(at) for seat, at in self.table.resigned_seats().items()}
        notes.update((seat, out_note(at)) for seat, at in self.table.out_seats().items())
        return notes

    def seat_notes(self) -> list[str] | None:
        """The seats' notes: a seat a stand-in plays (out, §10.7, or resigned, §10.4) has its
        note in place of its presence, which says nothing any more ("left")."""
        stood = self.stand_in_notes()
        if not stood:
            return self.table.seat_notes
        notes = list(self.table.seat_notes or [""] * len(self.table.names))
        notes += [""] * (len(self.table.names) - len(notes))
        for seat, note in stood.items():
            if 0 <= seat < len(notes):
                notes[seat] = note
        return notes

    def hand_view(self, st: State) -> HandView:
        """The hand bar's view: the hand of the seat to play from here, or why there is none."""
        if self.table.my_turn():
            seat = st.to_move
            label = Text.assemble(seat_text(st, seat, self.table.names), " hand:")
            return HandView(label, tuple(st.hand(seat)), self.pick_hand)
        over = st.is_terminal() or self.table.ended() is not None
        return HandView(Text("game over" if over else "hand: (not your turn)", style="dim"))

    def show_info(self, pos: Position, targets: dict[int, Move]) -> None:
        """The hints panel's view: the square under the cursor, the pick and its targets."""
        self.query_one(InfoPanel).view = InfoView(
            pos,
            tuple(self.table.names),
            self.query_one(BoardView).cursor,
            targets,
            pick_hand=self.pick_hand,
            pick_sq=self.pick_sq,
            my_turn=self.table.my_turn(),
            expert=self.hint_text(),
        )

    def show_keys(self) -> None:
        """The keys line's view: what the keys do now, where the focus is."""
        t = self.table
        self.query_one(KeysLine).view = KeysView(
            question=t.question is not None,
            over=t.state.is_terminal() or t.ended() is not None,
            terminal=t.state.is_terminal(),
            run_over=t.run_over,
            hints=t.hints_off() is None,
            typing=self.panels and isinstance(self.focused, Input),
            picking=self.pick_hand is not None or self.pick_sq is not None,
        )

    # ------------------------------------------------------------------ input
    def act_on_square(self, sq: int) -> None:
        """Enter or a click on ``sq``: play it if it is a target, else pick what stands there."""
        if not self.table.my_turn():
            self.error("it is not your turn")
            return
        st = self.table.state
        targets = self.targets()
        if sq in targets:
            self.play(targets[sq])
            return
        top = st.top(sq)
        if top.kind == "character" and top.seat == st.to_move:
            if any(isinstance(m, Step) and m.frm == sq for m in st.legal_moves()):
                self.pick_sq, self.pick_hand = sq, None
            else:
                self.error(f"your {top.value} on {square_name(sq)} cannot move")
        elif self.pick_hand is not None or self.pick_sq is not None:
            move: Move = (
                Send(self.pick_hand, sq)
                if self.pick_hand is not None
                else Step(self.pick_sq or 0, sq)
            )
            try:
                st.check(move)
            except IllegalMoveError as exc:
                self.error(str(exc))
        else:
            self.error("pick a hand card (3-6, or click it) or one of your characters first")
        self.show()

    def pick_card(self, value: int) -> bool:
        """Pick a hand card of the seat to move; False (and why) when it cannot be picked."""
        st = self.table.state
        ok = False
        if not self.table.my_turn():
            self.error("it is not your turn")
        elif value not in st.hand(st.to_move):
            self.error(f"your {value} is not in your hand")
        else:
            self.pick_hand, self.pick_sq = value, None
            ok = True
        self.show()
        return ok

    def play(self, move: Move) -> None:
        """Submit a move; say why when it cannot be played."""
        why = self.table.submit(move)
        if why is not None:
            self.error(f"{move_name(move)}: {why}")
        self.pick_hand = self.pick_sq = None
        self.show()

    def on_board_view_activated(self, event: BoardView.Activated) -> None:
        self.act_on_square(event.square)

    def on_hand_bar_picked(self, event: HandBar.Picked) -> None:
        self.pick_card(event.value)

    def on_board_view_cursor_moved(self, event: BoardView.CursorMoved) -> None:
        if self.panels:  # the hints describe the square under the cursor
            self.show_info(Position(self.table.state), self.targets())

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.value:
            self.forget_errors()  # a key was typed: the error it answers has been read

    def action_arrow(self, dx: int, dy: int) -> None:
        """An arrow while the move box holds only the hand card just picked: the box closes
        and the cursor moves on the board, to pick the target with the arrows and Enter."""
        box = self.query_one("#command", Input)
        if self.focused is not box or box.value not in ("3", "4", "5", "6"):
            raise SkipAction()
        box.value = ""
        board = self.query_one("#board", BoardView)
        board.focus()
        board.action_cursor(dx, dy)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        board = self.query_one("#board", BoardView)
        board.focus()  # the box closes: the board has the focus again
        if not text:
            return
        low = text.lower()
        if low in ("?", "help", "h"):
            self.action_help() if low != "?" else self.action_moves()
            return
        if low in ("b", "l", "legend", "board"):  # as in the line mode: the board's legend
            self.action_legend()
            return
        if low in ("x", "hint", "expert"):
            self.action_hint()
            return
        if low in ("q", "quit"):
            self.action_leave_ask()
            return
        if text in "3456" and len(text) == 1:  # a hand card alone: picked, its targets shown
            self.pick_card(int(text))
            return
        try:
            move = parse_move(text)
        except NotationError as exc:
            self.error(str(exc))
            return
        if not self.table.my_turn():
            self.error("it is not your turn")
            return
        self.play(move)

    def on_key(self, event: events.Key) -> None:
        """Any key, wherever the focus is: the error on screen has been read."""
        self.forget_errors()

    def board_key(self, event: events.Key) -> None:
        """A key that reached the board (BoardView.on_key, the board's `key_sink`): a character
        that starts a move opens the move box with it.

        It is decided by where the key was sent, not by where the focus is now: the keys of a
        burst (a paste, a fast typist, tmux send-keys "6@A2") are forwarded to the board before
        the focus has moved to the move box, and reach it after; they belong to the box."""
        self.forget_errors()  # the next key: the error on screen has been read
        board = self.query_one("#board", BoardView)
        box = self.query_one("#command", MoveLine)
        ch = event.character or ""
        if self.typing_pending or self.focused is box:
            # keys of a burst typed faster than the focus moves to the typing line: the box's
            if box.take_key(event):  # the Enter that submits the move
                self.typing_pending = False
            return
        if self.focused is not board:
            return
        if ch in ("e", "E") and self.table.state.is_terminal():
            event.stop()
            self.action_end_screen()
        elif ch and ch in MOVE_STARTS:
            event.stop()
            if ch in "3456" and self.table.my_turn():
                self.pick_card(int(ch))  # its targets show on the board while it is typed
            self._type(ch)
        elif ch == "@" and self.pick_hand is not None:
            event.stop()
            self._type(f"{self.pick_hand}@")
        elif ch and ch.isprintable() and ch != " ":
            event.stop()
            self.error(f"'{shown(ch, 4)}' does nothing here: F1 lists the keys")

    def _type(self, prefix: str) -> None:
        """Open the move box with ``prefix`` in it (a key pressed on the board).

        The keys of the same burst (a paste, a fast typist, a terminal that sends "6@C3" at
        once) still reach the board, before and after the focus has moved: `board_key` appends
        them to the typing line, digits included, so none is lost or taken for a hand card.
        """
        self.typing_pending = True  # until the focus has really moved (on_descendant_focus)
        self.query_one("#command", MoveLine).open_with(prefix)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focus has moved: keys now reach the widget they are meant for."""
        self.typing_pending = False
        if self.panels:  # the keys line names what the keys do where the focus now is
            self.show_keys()

    def action_escape(self) -> None:
        """Escape closes the innermost thing: the move box (back to the board, a hand card
        picked stays picked), else the pick. It never leaves the game."""
        box = self.query_one("#command", Input)
        board = self.query_one("#board", BoardView)
        if self.focused is box:
            box.value = ""
            board.focus()
        elif self.pick_hand is not None or self.pick_sq is not None:
            self.pick_hand = self.pick_sq = None
        else:
            self.notice(Text("nothing to close (q leaves the game, F1 lists the keys)"))
        self.show()

    def action_claim_answer(self, claim: bool) -> None:
        """c or w while the claim question is open, wherever the focus is (an empty typing line
        included: the question is about another seat's turn); otherwise the key goes on."""
        box = self.query_one("#command", Input)
        if self.table.question is None or (self.focused is box and box.value):
            raise SkipAction()
        self.table.answer_claim(claim)
        self.show()

    def action_switch_focus(self) -> None:
        """Tab: between the board and the typing line."""
        board = self.query_one("#board", BoardView)
        if self.focused is board:
            self.query_one("#command", Input).focus()
        else:
            board.focus()
        self.show()

    def action_moves(self) -> None:
        """`?`: every legal move in a list to scroll and pick from."""
        self.forget_errors()
        if not self.table.my_turn():
            self.error("it is not your turn: the list of moves is for your own turn")
            return
        st = self.table.state
        key = self.position_key()

        def picked(move: Move | None) -> None:
            if move is not None and key == self.position_key():
                self.play(move)

        self.app.push_screen(MovesOverlay(st), picked)

    def action_help(self) -> None:
        """F1: the keys, and the board's legend."""
        self.forget_errors()
        hints = self.table.hints_off() is None
        self.app.push_screen(TextOverlay("help: the keys", help_text(hints)))

    def action_legend(self) -> None:
        """The board's legend: what each code on a square means."""
        self.forget_errors()
        self.app.push_screen(TextOverlay("the board's legend", legend_text()))

    def action_end_screen(self) -> None:
        """e: the end screen again, after looking at the final position."""
        if self.table.state.is_terminal():
            self.post_message(self.Over(self.table))

    def action_leave_ask(self) -> None:
        """q: ask once; q or y confirms, anything else stays."""
        self.forget_errors()

        def answered(yes: bool | None) -> None:
            if yes:
                self.post_message(self.Leave())
            else:
                self.show()

        self.app.push_screen(Question(leave_words(self.table), LEAVE_KEYS), answered)
