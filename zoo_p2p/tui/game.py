"""The game screen: board, seats, history, hints and messages, all on screen at once."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.text import Text
from textual import events, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from zoo_p2p.bots.analysis import Hint, HintRefused, hint
from zoo_p2p.errors import IllegalMoveError, NotationError
from zoo_p2p.rules import Move, Send, State, Step, Variant, move_name, parse_move, square_name
from zoo_p2p.tui.board import BoardView, HandBar
from zoo_p2p.tui.facts import (
    Glyphs,
    chance_words,
    is_character_capture,
    mutant_chance,
    narrate,
    seat_name,
    seat_text,
    square_words,
    target_hint,
    took_text,
    turned,
)
from zoo_p2p.tui.table import Table

if TYPE_CHECKING:
    from zoo_p2p.tui.app import ZooApp

T = TypeVar("T")

LEGEND = (
    "3 ? = a 3 on a hidden card; Y5 2 = Yellow's 5 on a 2; M4 = mutant (was a 4); "
    "[ ] = target; < > = takes a character; { } = picked"
)


def seats_text(
    st: State,
    names: list[str],
    g: Glyphs,
    presence: list[bool] | None = None,
    clocks: list[str] | None = None,
    notes: list[str] | None = None,
    awaiting: str | None = None,
    links: list[str] | None = None,
    you: int | None = None,
) -> Text:
    """Every seat: turn mark, name (`you`: this terminal's seat, marked unless its name says
    so), presence, how we hear it (a network game's direct links), clock, score; hand and Zoo
    pile; captures."""
    out = Text()
    scores = st.scores()
    over = st.is_terminal()
    for seat in range(st.n_seats):
        if seat:
            out.append("\n")
        mark = g.turn if (not over and seat == st.to_move) else " "
        out.append(f"{mark} ", style="bold")
        out.append_text(seat_text(st, seat, names))
        if seat == you and names[seat] != "you":
            out.append(" (you)", style="bold")
        if presence is not None and seat < len(presence):  # a rematch may not have it yet
            up = presence[seat]
            out.append(f" {g.online if up else g.offline}", style="green" if up else "red")
        if links is not None and seat < len(links) and links[seat]:
            out.append(f" {links[seat]}", style="green" if links[seat] == "direct" else "dim")
        if notes is not None and seat < len(notes) and notes[seat]:
            out.append(f" {notes[seat]}", style="bold red")
        if clocks is not None and seat < len(clocks) and clocks[seat]:
            out.append(f" {clocks[seat]} left", style="bold")
        out.append(f"  {scores[seat].total} pts", style="bold")
        zoo = st.captured_zoo(seat)
        hand = " ".join(map(str, st.hand(seat))) or "none"
        cards = f"{len(zoo)} card" + ("" if len(zoo) == 1 else "s")
        out.append(f"\n  hand {hand}{g.sep}Zoo: {cards}, {sum(zoo)} pts")
        took = took_text(st, seat)
        if took:
            out.append(f"\n  took {took}")
    if awaiting:
        out.append(f"\n{awaiting}", style="italic")
    return out


def captures_text(st: State, names: list[str]) -> Text:
    """Every seat's captures in full, and how far the mutant hunt has come."""
    out = Text()
    for seat in range(st.n_seats):
        if seat:
            out.append("\n")
        out.append_text(seat_text(st, seat, names))
        zoo = sorted(st.captured_zoo(seat))
        out.append(f"\n  Zoo cards: {' '.join(map(str, zoo)) or 'none'}")
        out.append(f"\n  characters: {took_text(st, seat) or 'none'}")
    if st.variant is Variant.STANDARD:
        tv = turned(st)
        out.append("\n\nturned over: " + ", ".join(f"{v}s {tv[v]}/10" for v in range(4)))
        found = sorted(st.mutants_found)
        out.append("\nmutants found: " + (", ".join(f"the {v}" for v in found) or "none yet"))
    return out


class MoveLine(Input):
    """The typing line. While the claim question is open and nothing is typed, c and w are its
    answers (the screen's bindings), not letters: the question comes first."""

    claim_open: Callable[[], bool] = staticmethod(lambda: False)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character in ("c", "w") and not self.value and self.claim_open():
            return False
        return super().check_consume_key(key, character)


class GameScreen(Screen[None]):
    """One game. Type a move (5@C3, C3-C4), or pick with keys or the mouse, then a target."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "clear", show=False),
        Binding("tab", "switch_focus", "board/typing", show=False, priority=True),
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
        self.messages: list[Text] = []
        self.for_position: list[Text] = []  # messages about this position only (`?`, `x`)
        self.last: Move | None = None
        self.quitting = False
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

    @property
    def zoo(self) -> ZooApp:
        from zoo_p2p.tui.app import ZooApp

        assert isinstance(self.app, ZooApp)
        return self.app

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="status", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(self.g, id="board")
                yield HandBar(id="hand")
                yield Static(id="info", markup=False, classes="panel")
            with Vertical(id="right"):
                yield Static(id="seats", markup=False, classes="panel")
                with Horizontal(id="lower"):
                    with VerticalScroll(id="history", classes="panel"):
                        yield Static(id="history-text", markup=False)
                    yield Static(id="captures", markup=False, classes="panel")
        yield Static(id="messages", markup=False)
        line = MoveLine(placeholder="type a move: 5@C3 or C3-C4 (Tab: board)", id="command")
        line.claim_open = lambda: self.table.question is not None
        yield line
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.query_one("#history", VerticalScroll).border_title = "moves"
        self.query_one("#captures", Static).border_title = "captures"
        self.query_one("#seats", Static).border_title = "seats"
        self.query_one("#info", Static).border_title = "hints"
        self.query_one("#board", BoardView).focus()
        self.panels = True
        self.table.ui = self
        self.redraw()
        if self.messages:  # notices that came before the screen was mounted
            self.show_messages()
        self.table.start()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.table.tick():
            self.query_one("#seats", Static).update(self.seats_text(self.table.state))

    # ------------------------------------------------------------------ TableUI
    def moved(self, before: State, after: State, move: Move) -> None:
        """A move was played (by anyone): narrate it, keep it in the history."""
        line = narrate(before, after, move, self.table.names, self.table.you())
        n = len(after.history)
        entry = Text(f"{n:>3} ", style="dim")
        entry.append_text(line)
        self.history.append(entry)
        self.last = move
        self.pick_hand = self.pick_sq = None
        self.forget_hint()
        self.forget_position_notices()
        self.redraw()

    def forget_position_notices(self) -> None:
        """A move was played: the answers to `?` and `x` listed moves of the old position, which
        may no longer be legal (a listed send of a card already sent): take them away."""
        if not self.for_position:
            return
        gone = {id(m) for m in self.for_position}
        self.for_position = []
        self.messages = [m for m in self.messages if id(m) not in gone]
        if self.panels:
            self.show_messages()

    def refresh_table(self) -> None:
        """Something besides a move changed (presence, clocks, reveals, the ending)."""
        self.redraw()
        from zoo_p2p.tui.over import GameOverScreen

        if isinstance(self.app.screen, GameOverScreen):
            self.app.screen.update_ending()

    def log_line(self, text: Text) -> None:
        """A line in the move history that no single move narrates."""
        entry = Text(f"{len(self.history) + 1:>3} ", style="dim")
        entry.append_text(text)
        self.history.append(entry)
        self.redraw()

    def notice(self, text: Text | str, *, position: bool = False) -> None:
        """Show a message (peer-supplied strings arrive as Text or are shown as plain data);
        ``position``: it is about this position only, and goes once a move is played."""
        msg = text if isinstance(text, Text) else Text(text)
        self.messages.append(msg)
        self.messages = self.messages[-2:]
        if position:
            self.for_position.append(msg)
        if self.panels:
            self.show_messages()

    def show_messages(self) -> None:
        """The newest messages that fit the two message lines, the newest always: a long one
        (an illegal move's reason) wraps onto both lines instead of pushing the newest (the
        answer to `?`) out of sight."""
        width = max(20, self.app.size.width - 2)  # the line's padding: one column each side
        kept: list[Text] = []
        lines = 0
        for msg in reversed(self.messages):
            n = max(1, len(msg.wrap(self.app.console, width)))
            if kept and lines + n > 2:
                break
            kept.insert(0, msg)
            lines += n
        self.query_one("#messages", Static).update(Text("\n").join(kept))

    def on_resize(self, event: events.Resize) -> None:
        if self.panels:
            self.show_messages()

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
        self.redraw()

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
        self.redraw()

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

    def redraw(self) -> None:
        """Redraw every panel from the table's public state."""
        if not self.panels:
            return
        st = self.table.state
        targets = self.targets()
        board = self.query_one("#board", BoardView)
        board.show(
            st,
            last=self.last,
            selected=self.pick_sq,
            targets=targets,
            hint=self.hint.move if self.hint is not None else None,
        )
        self.query_one("#status", Static).update(self.status_text(st))
        self.query_one("#seats", Static).update(self.seats_text(st))
        hand = self.query_one("#hand", HandBar)
        if self.table.my_turn():
            seat = st.to_move
            label = Text.assemble(seat_text(st, seat, self.table.names), " hand:")
            hand.show(label, st.hand(seat), self.pick_hand)
        else:
            over = self.table.state.is_terminal() or self.table.ended() is not None
            hand.show(Text("game over" if over else "hand: (not your turn)", style="dim"), [], None)
        self.query_one("#info", Static).update(self.info_text(st, targets))
        hist = (
            Text("\n").join([*self.history[:-1], self._last_entry()])
            if self.history
            else Text("no moves yet", style="dim")
        )
        self.query_one("#history-text", Static).update(hist)
        self.query_one("#history", VerticalScroll).scroll_end(animate=False)
        self.query_one("#captures", Static).update(self.captures_text(st))
        self.query_one("#keys", Static).update(self.keys_text())
        if st.is_terminal() and not self.over_shown:
            self.over_shown = True
            self.call_after_refresh(self.zoo.show_game_over, self.table)

    def _last_entry(self) -> Text:
        t = Text(self.g.turn, style="bold")
        t.append_text(self.history[-1][1:])
        t.stylize("bold")
        return t

    def status_text(self, st: State) -> Text:
        t = Text(
            f"Zoo of Carson City {self.g.dash} {self.table.title}, move {len(st.history) + 1}: "
        )
        ended = self.table.ended()
        if st.is_terminal():
            t.append("game over", style="bold")
        elif ended is not None:  # a claim or a resignation: no final position says it
            t.append(f"game over {self.g.dash} {ended}", style="bold")
        elif getattr(self.table, "run_over", False):
            t.append("the game link has closed (q leaves; zoo resume goes on)", style="bold")
        elif getattr(self.table, "leaving", False):  # q, confirmed: the peer is stopping
            t.append("leaving: saving the log…", style="bold")
        elif st.needs is not None:
            t.append("waiting for the hidden card to be revealed")
        elif self.table.my_turn():
            who = (
                "your"
                if self.table.you() is not None
                else seat_name(st, st.to_move, self.table.names) + "'s"
            )
            t.append(f"{who} turn", style=f"bold reverse {st.teams[st.to_move].colour}")
        else:
            t.append("waiting for ")
            t.append_text(seat_text(st, st.to_move, self.table.names))
        return t

    def link_closed(self) -> bool:
        """A network game whose peer has stopped, or is stopping since the person left: nobody
        is awaited, no clock runs."""
        return bool(getattr(self.table, "run_over", False) or getattr(self.table, "leaving", False))

    def seats_text(self, st: State) -> Text:
        t = self.table
        closed = self.link_closed()
        out = seats_text(
            st,
            t.names,
            self.g,
            None if closed else t.presence,  # the presence last heard is stale
            None if closed else t.clocks,
            notes=t.seat_notes,
            awaiting=None if closed else t.awaiting,
            links=None if closed else t.seat_links,
            you=t.you(),
        )
        if t.question is not None:  # the claim question, until it is answered or gone
            out.append("\n")
            out.append_text(t.question)
        return out

    def info_text(self, st: State, targets: dict[int, Move]) -> Text:
        t = Text()
        expert = self.hint_text()
        if expert is not None:
            t.append_text(expert)
            t.append("\n")
        board = self.query_one("#board", BoardView)
        sq = board.cursor
        t.append(square_words(st, sq, self.table.names))
        if sq in targets:
            t.append(f"\n{self.g.arrow} {target_hint(st, targets[sq])}", style="bold")
        if targets:
            caps = sorted(square_name(q) for q, m in targets.items() if is_character_capture(st, m))
            what = (
                f"your {self.pick_hand} from hand"
                if self.pick_hand
                else f"the character on {square_name(self.pick_sq or 0)}"
            )
            t.append(f"\n{len(targets)} targets for {what}")
            if caps:
                t.append(f"; takes a character on {' '.join(caps)}", style="bold")
        elif self.table.my_turn():
            t.append("\npick a hand card (3-6 or click it) or one of your characters")
        t.append("\n")
        t.append_text(self.odds_text(st))
        if targets:  # every target with its hint: captures first, then the safest Zoo cards
            t.append("\n")

            def order(m: Move) -> tuple[int, float, int]:
                top = st.top(m.to)
                risk = 0.0 if top.kind != "zoo" else float(mutant_chance(st, top.value or 0))
                return (0 if is_character_capture(st, m) else 1, risk, -(top.value or 0))

            for m in sorted(targets.values(), key=order):
                t.append(f"\n{square_name(m.to)} {target_hint(st, m)}")
        t.append("\n\n" + LEGEND, style="dim")
        return t

    def odds_text(self, st: State) -> Text:
        """The chance that the next capture of each value reveals a mutant."""
        if st.variant is Variant.GENERAL:
            return Text("General variant: no mutants")
        t = Text("mutant odds per card: ")
        for v in range(4):
            if v in st.mutants_found:
                t.append(f"{v}:found", style="magenta")
            else:
                p = mutant_chance(st, v)
                t.append(f"{v}:{p.numerator}/{p.denominator}")
            t.append("" if v == 3 else " ")
        return t

    def captures_text(self, st: State) -> Text:
        return captures_text(st, self.table.names)

    def keys_text(self) -> Text:
        if self.quitting:
            return Text(
                "Leave the game? press q again to leave, any other key to stay", style="bold"
            )
        if self.table.question is not None:  # the question itself is in the seats panel
            return Text(
                f"a seat's clock ran out: c claim the game now{self.g.sep}w wait", style="bold"
            )
        over = self.table.state.is_terminal() or self.table.ended() is not None
        if over or getattr(self.table, "run_over", False):  # no move to make: no move keys
            typing = self.panels and isinstance(self.focused, Input)
            head = "the game is over" if over else "the game link has closed"
            return Text(
                self.g.sep.join([head, "q then Enter: leave" if typing else "q leave"]),
                style="dim",
            )
        hints = self.table.hints_off() is None  # never offer a key that cannot work here
        if self.panels and isinstance(self.focused, Input):  # keys type letters here
            return Text(
                self.g.sep.join(
                    [
                        "Enter: play the move typed",
                        "? x q then Enter: moves, hint, quit"
                        if hints
                        else "? q then Enter: moves, quit",
                        "Tab: board",
                    ]
                ),
                style="dim",
            )
        return Text(
            self.g.sep.join(
                [
                    "arrows/click: pick, target",
                    "3-6 hand",
                    "Tab: type",
                    "? moves",
                    *(["x hint"] if hints else []),
                    "q quit",
                ]
            ),
            style="dim",
        )

    # ------------------------------------------------------------------ input
    def act_on_square(self, sq: int) -> None:
        """Enter or a click on ``sq``: play it if it is a target, else pick what stands there."""
        if not self.table.my_turn():
            self.notice(Text("it is not your turn", style="yellow"))
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
                self.notice(
                    Text(f"your {top.value} on {square_name(sq)} cannot move", style="yellow")
                )
        elif self.pick_hand is not None or self.pick_sq is not None:
            move: Move = (
                Send(self.pick_hand, sq)
                if self.pick_hand is not None
                else Step(self.pick_sq or 0, sq)
            )
            try:
                st.check(move)
            except IllegalMoveError as exc:
                self.notice(Text(str(exc), style="red"))
        else:
            self.notice(
                Text(
                    "pick a hand card (3-6, or click it) or one of your characters first",
                    style="yellow",
                )
            )
        self.redraw()

    def pick_card(self, value: int) -> None:
        """Pick a hand card of the seat to move."""
        st = self.table.state
        if not self.table.my_turn():
            self.notice(Text("it is not your turn", style="yellow"))
        elif value not in st.hand(st.to_move):
            self.notice(Text(f"your {value} is not in your hand", style="yellow"))
        else:
            self.pick_hand, self.pick_sq = value, None
        self.redraw()

    def play(self, move: Move) -> None:
        """Submit a move; say why when it cannot be played."""
        why = self.table.submit(move)
        if why is not None:
            self.notice(Text(f"{move_name(move)}: {why}", style="red"))
        self.pick_hand = self.pick_sq = None
        self.redraw()

    def on_board_view_activated(self, event: BoardView.Activated) -> None:
        self.act_on_square(event.square)

    def on_hand_bar_picked(self, event: HandBar.Picked) -> None:
        self.pick_card(event.value)

    def on_board_view_cursor_moved(self, event: BoardView.CursorMoved) -> None:
        self.redraw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            self.query_one("#board", BoardView).focus()
            return
        if text in ("?", "h", "help"):
            self.action_moves()
            return
        if text.lower() in ("x", "hint", "expert"):
            self.action_hint()
            return
        if text.lower() in ("q", "quit"):
            self.action_quit_game()
            return
        try:
            move = parse_move(text)
        except NotationError as exc:
            self.notice(Text(str(exc), style="red"))
            return
        if not self.table.my_turn():
            self.notice(Text("it is not your turn", style="yellow"))
            return
        self.play(move)

    def on_key(self, event: events.Key) -> None:
        board = self.query_one("#board", BoardView)
        if self.quitting:
            event.stop()
            event.prevent_default()
            self.quitting = False
            if event.key == "q":
                self.zoo.quit_game()
            else:
                self.redraw()
            return
        if self.table.question is not None and event.character in ("c", "w"):
            event.stop()  # the claim question comes first, wherever the focus is
            event.prevent_default()
            self.table.answer_claim(event.character == "c")
            self.redraw()
            return
        if self.focused is not board:
            return
        box = self.query_one("#command", Input)
        ch = event.character or ""
        if self.typing_pending:
            # keys of a burst typed faster than the focus moves to the typing line ("6@C3⏎"):
            # every one is part of the move, digits included, and the Enter ends it
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                self.typing_pending = False
                box.post_message(Input.Submitted(box, box.value))
            elif ch and ch.isprintable():
                box.value += ch
                box.cursor_position = len(box.value)
            return
        if self.table.state.is_terminal() and ch in ("r", "o"):
            event.stop()
            self.over_shown = False
            self.redraw()
            return
        if ch in "3456" and ch:
            event.stop()
            self.pick_card(int(ch))
        elif ch == "?":
            event.stop()
            self.action_moves()
        elif ch == "q":
            event.stop()
            self.action_quit_game()
        elif ch == "x":
            event.stop()
            self.action_hint()
        elif ch == "@" and self.pick_hand is not None:
            event.stop()
            self._type(f"{self.pick_hand}@")
        elif ch and ch.isprintable() and ch not in " " and event.key not in ("enter", "space"):
            event.stop()
            self._type(ch)

    def _type(self, prefix: str) -> None:
        """Start typing a move from a key pressed on the board.

        The keys of the same burst (a paste, a fast typist, a terminal that sends "6@C3" at
        once) still reach the board until the focus has moved: `on_key` appends them to the
        typing line, digits included, so none is lost or taken for a hand card.
        """
        box = self.query_one("#command", Input)
        box.value = prefix
        box.cursor_position = len(box.value)
        self.typing_pending = True  # until the focus has really moved (on_descendant_focus)
        box.focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focus has moved: keys now reach the widget they are meant for."""
        self.typing_pending = False
        if self.panels:  # the keys line names what the keys do where the focus now is
            self.query_one("#keys", Static).update(self.keys_text())

    def action_clear(self) -> None:
        """Drop the pick; from the typing line, go back to the board."""
        self.pick_hand = self.pick_sq = None
        self.query_one("#board", BoardView).focus()
        self.redraw()

    def action_claim_answer(self, claim: bool) -> None:
        """c or w while the claim question is open, wherever the focus is (an empty typing line
        included: the question is about another seat's turn); otherwise the key goes on."""
        box = self.query_one("#command", Input)
        if self.table.question is None or self.quitting or (self.focused is box and box.value):
            raise SkipAction()
        self.table.answer_claim(claim)
        self.redraw()

    def action_switch_focus(self) -> None:
        """Tab: between the board and the typing line."""
        board = self.query_one("#board", BoardView)
        if self.focused is board:
            self.query_one("#command", Input).focus()
        else:
            board.focus()
        self.redraw()

    def action_moves(self) -> None:
        """List the legal moves, captures of characters first, with mutant risk."""
        st = self.table.state
        if not self.table.my_turn():
            self.notice(Text("it is not your turn", style="yellow"))
            return
        moves = st.legal_moves()
        caps = [m for m in moves if is_character_capture(st, m)]
        t = Text(f"{len(moves)} legal moves. ")
        if caps:
            t.append(
                "captures: "
                + ", ".join(f"{move_name(m)} ({target_hint(st, m)})" for m in caps[:4])
                + ". ",
                style="bold",
            )
        safe = [
            m for m in moves if not is_character_capture(st, m) and (st.top(m.to).value or 0) >= 4
        ]
        if safe:
            t.append("animals, no mutant risk: " + " ".join(move_name(m) for m in safe[:6]))
        elif not caps:  # neither: still name moves to type, the least risky first

            def risk(m: Move) -> Fraction:
                value = st.top(m.to).value
                return Fraction(0) if value is None else mutant_chance(st, value)

            least = sorted(moves, key=lambda m: (risk(m), isinstance(m, Send)))[:6]
            t.append(
                "least mutant risk: "
                + ", ".join(f"{move_name(m)} ({chance_words(risk(m))})" for m in least)
            )
        self.notice(t, position=True)

    def action_quit_game(self) -> None:
        """Ask before leaving."""
        self.quitting = True
        self.redraw()
