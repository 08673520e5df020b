"""Widgets that own their part of the view: the screen sets their state (a reactive) and the
widget draws itself from it, at its own size (issue 20 item 11: no screen-wide redraw that
updates every panel one by one). The game screen's panels: the status line, the seats, the
hints, the moves, the captures, the message lines and the keys line (the board and the hand
bar are in board.py). Each view is a frozen dataclass that compares by value (a position by
its move number and digest, `board.Position`): a panel whose view did not change is not drawn
again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.visual import VisualType
from textual.widgets import Static

from zoo_p2p.rules import Move, State, Variant, square_name
from zoo_p2p.text import out_note, resigned_note
from zoo_p2p.tui.board import Position
from zoo_p2p.tui.facts import (
    UTF8,
    Glyphs,
    is_character_capture,
    mutant_chance,
    seat_name,
    seat_text,
    square_words,
    target_hint,
)
from zoo_p2p.tui.panels import captures_text, seats_text

V = TypeVar("V")


class ViewStatic(Static, Generic[V]):
    """A panel drawn from its view, the base of every `Static` here, of the lobby's, the end
    screen's, the list's and the replay's: set `view` and the panel shows `text(view)`; a view
    equal to the last one is not drawn again (the reactive compares), and `draw()` draws the
    same view again (after a resize, for a panel whose text follows its width). Until a view
    is set it shows `content`. `glyphs` are the screen's (`g`), for the panels that draw any."""

    view: reactive[V | None] = reactive(None, init=False)

    def __init__(
        self,
        glyphs: Glyphs = UTF8,
        *,
        id: str | None = None,
        classes: str = "",
        content: VisualType = "",
    ) -> None:
        super().__init__(content, id=id, classes=classes, markup=False)
        self.g = glyphs

    def watch_view(self) -> None:
        self.draw()

    def draw(self) -> None:
        if self.view is not None:
            self.update(self.text(self.view))

    def text(self, v: V) -> VisualType:
        """What the panel shows for the view `v`."""
        raise NotImplementedError


MessageState = tuple[Text | None, tuple[Text, ...]]
"""The last move's sentence (None: none yet), then the messages and errors, oldest first."""


class MessageLines(Static):
    """The game's message lines: the last move's sentence (what just happened), then the
    newest messages or errors that fit in the three lines (a long one wraps instead of pushing
    the newest out). Set `state`; the lines follow it, and the terminal's width."""

    state: reactive[MessageState] = reactive((None, ()), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)

    def watch_state(self) -> None:
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def draw(self) -> None:
        last, messages = self.state
        width = max(20, self.app.size.width - 2)  # the line's padding: one column each side
        head = Text("last move: ", style="dim")
        if last is not None:
            head.append_text(last)
        else:
            head.append("none yet", style="dim")
        room = 3 - min(2, len(head.wrap(self.app.console, width)))
        kept: list[Text] = []
        lines = 0
        for msg in reversed(messages):
            n = max(1, len(msg.wrap(self.app.console, width)))
            if kept and lines + n > room:
                break
            kept.insert(0, msg)
            lines += n
        self.update(Text("\n").join([head, *kept]))


# ---------------------------------------------------------------------- the status line
@dataclass(frozen=True)
class StatusView:
    """Where the game stands: the table's title, the move, and whose turn it is or why none
    is (over, a claim or resignation, the link closed, leaving, replaced, a reveal awaited)."""

    position: Position
    title: str
    names: tuple[str, ...]
    ended: str | None = None  # how a game ended without a final position (a claim, resigned)
    run_over: bool = False
    leaving: bool = False
    replaced_at: int | None = None
    my_turn: bool = False
    you: int | None = None
    out: tuple[tuple[int, int], ...] = ()  # (seat, entry): put out, a stand-in plays it on
    resigned: tuple[tuple[int, int], ...] = ()  # (seat, entry): resigned at 3–4 seats, likewise


class StatusLine(ViewStatic[StatusView]):
    """The status line at the top. Set `view`; it follows it, and the terminal's width (the
    game's name is said from 100 columns on)."""

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def text(self, v: StatusView) -> Text:
        st = v.position.state
        names = list(v.names)
        wide = self.app.size.width >= 100  # at 80 columns the game's name would wrap the line
        head = f"Zoo of Carson City {self.g.dash} " if wide else ""
        t = Text(f"{head}{v.title}, move {len(st.history) + 1}: ")
        out = dict(v.out)
        if st.is_terminal():
            t.append("game over", style="bold")
        elif v.ended is not None:  # a claim or a resignation: no final position says it
            t.append(f"game over {self.g.dash} {v.ended}", style="bold")
        elif v.run_over:
            t.append("the game link has closed (q leaves; zoo resume goes on)", style="bold")
        elif v.leaving:  # q, confirmed: the peer is stopping
            t.append("leaving: saving the log…", style="bold")
        elif v.replaced_at is not None:  # a claim that played on put us out (§10.7)
            t.append(
                f"you were replaced at entry {v.replaced_at}: a stand-in plays your "
                "seat on; you can watch, not play",
                style="bold yellow",
            )
        elif st.needs is not None:
            t.append("waiting for the hidden card to be revealed")
        elif v.my_turn:
            who = "your" if v.you is not None else seat_name(st, st.to_move, names) + "'s"
            t.append(f"{who} turn", style=f"bold reverse {st.teams[st.to_move].colour}")
        else:
            t.append("waiting for ")
            t.append_text(seat_text(st, st.to_move, names))
            resigned = dict(v.resigned)
            if st.to_move in out:  # its stand-in's move comes by itself
                t.append(f" ({out_note(out[st.to_move])})")
            elif st.to_move in resigned:  # likewise (§10.4)
                t.append(f" ({resigned_note(resigned[st.to_move])})")
        return t


# ---------------------------------------------------------------------- the seats
@dataclass(frozen=True)
class SeatsView:
    """Every seat: the position's scores, hands and captures, and what the table knows of
    each seat (presence, clocks, notes, links: None when there is nothing to say), then what
    the game awaits and the claim question, if one is open."""

    position: Position
    names: tuple[str, ...]
    presence: tuple[bool, ...] | None = None
    clocks: tuple[str, ...] | None = None
    notes: tuple[str, ...] | None = None
    awaiting: str | None = None
    links: tuple[str, ...] | None = None
    you: int | None = None
    question: Text | None = None


class SeatsPanel(ViewStatic[SeatsView]):
    """The seats panel. Set `view`; its lines are cut to the panel's own width, and drawn
    again when that changes."""

    BORDER_TITLE = "seats"

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def text(self, v: SeatsView) -> Text:
        out = seats_text(
            v.position.state,
            list(v.names),
            self.g,
            None if v.presence is None else list(v.presence),
            None if v.clocks is None else list(v.clocks),
            notes=None if v.notes is None else list(v.notes),
            awaiting=v.awaiting,
            links=None if v.links is None else list(v.links),
            you=v.you,
            width=self.content_region.width or 34,
        )
        if v.question is not None:  # the claim question, until it is answered or gone
            out.append("\n")
            out.append_text(v.question)
        return out


# ---------------------------------------------------------------------- the hints
@dataclass(frozen=True)
class InfoView:
    """The hints panel: the square under the cursor, what is picked and its targets, the
    mutant odds, and the expert's line (``expert``: thinking, or its move)."""

    position: Position
    names: tuple[str, ...]
    cursor: int
    targets: Mapping[int, Move]
    pick_hand: int | None = None
    pick_sq: int | None = None
    my_turn: bool = False
    expert: Text | None = None


def odds_text(st: State) -> Text:
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


class InfoPanel(ViewStatic[InfoView]):
    """The hints panel. Set `view`."""

    BORDER_TITLE = "hints"

    def text(self, v: InfoView) -> Text:
        st = v.position.state
        targets = v.targets
        t = Text()
        if v.expert is not None:
            t.append_text(v.expert)
            t.append("\n")
        sq = v.cursor
        t.append(square_words(st, sq, list(v.names)))
        if sq in targets:
            t.append(f"\n{self.g.arrow} {target_hint(st, targets[sq])}", style="bold")
        if targets:
            caps = sorted(square_name(q) for q, m in targets.items() if is_character_capture(st, m))
            what = (
                f"your {v.pick_hand} from hand"
                if v.pick_hand
                else f"the character on {square_name(v.pick_sq or 0)}"
            )
            t.append(f"\n{len(targets)} targets for {what}")
            if caps:
                t.append(f"; takes a character on {' '.join(caps)}", style="bold")
        elif v.my_turn:
            t.append("\npick a hand card (3-6 or click it) or one of your characters")
        t.append("\n")
        t.append_text(odds_text(st))
        if targets:  # every target with its hint: captures first, then the safest Zoo cards
            t.append("\n")

            def order(m: Move) -> tuple[int, float, int]:
                top = st.top(m.to)
                risk = 0.0 if top.kind != "zoo" else float(mutant_chance(st, top.value or 0))
                return (0 if is_character_capture(st, m) else 1, risk, -(top.value or 0))

            for m in sorted(targets.values(), key=order):
                t.append(f"\n{square_name(m.to)} {target_hint(st, m)}")
        return t


# ---------------------------------------------------------------------- the moves
class MovesPanel(VerticalScroll):
    """The moves panel: one line per move, the last one marked and in bold, scrolled to the
    end when a line comes. Set `lines`."""

    lines: reactive[tuple[Text, ...]] = reactive((), init=False)

    def __init__(self, glyphs: Glyphs, *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.g = glyphs
        self.border_title = "moves"

    def compose(self) -> ComposeResult:
        yield Static(id="history-text", markup=False)

    def on_mount(self) -> None:
        self.draw()

    def watch_lines(self) -> None:
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        self.scroll_end(animate=False)

    def draw(self) -> None:
        lines = self.lines
        text = (
            Text("\n").join([*lines[:-1], self._last_entry(lines[-1])])
            if lines
            else Text("no moves yet", style="dim")
        )
        self.query_one("#history-text", Static).update(text)
        self.scroll_end(animate=False)

    def _last_entry(self, last: Text) -> Text:
        t = Text(self.g.turn, style="bold")
        t.append_text(last[1:] if last.plain.startswith(" ") else last)  # "▶7 …", "▶12 …"
        t.stylize("bold")
        return t


# ---------------------------------------------------------------------- the captures
@dataclass(frozen=True)
class CapturesView:
    """Every seat's captures in full, and how far the mutant hunt has come."""

    position: Position
    names: tuple[str, ...]


class CapturesPanel(ViewStatic[CapturesView]):
    """The captures panel (shown from 110 columns on). Set `view`."""

    BORDER_TITLE = "captures"

    def text(self, v: CapturesView) -> Text:
        return captures_text(v.position.state, list(v.names))


# ---------------------------------------------------------------------- the keys line
@dataclass(frozen=True)
class KeysView:
    """What the keys do now: a claim question open; the game over (``terminal``: its final
    position is on the board) or its link closed; hints offered; the focus in the move box;
    something picked."""

    question: bool = False
    over: bool = False
    terminal: bool = False
    run_over: bool = False
    hints: bool = False
    typing: bool = False
    picking: bool = False


class KeysLine(ViewStatic[KeysView]):
    """The keys line at the bottom (the question and the overlays say their own keys). Set
    `view`."""

    def text(self, v: KeysView) -> Text:
        sep = self.g.sep
        if v.question:  # the question itself is in the seats panel
            return Text(f"a seat's clock ran out: c claim the game now{sep}w wait", style="bold")
        if v.over or v.run_over:  # no move to make: no move keys
            head = "the game is over" if v.over else "the game link has closed"
            ends = ["e end screen"] if v.terminal else []
            return Text(sep.join([head, *ends, "F1 help", "q leave"]), style="dim")
        hint = ["x hint"] if v.hints else []  # never offer a key that cannot work here
        if v.typing:  # keys type the move here
            keys = ["Enter: play it", "Esc: back to the board", "? moves", *hint, "q leave"]
        elif v.picking:
            keys = ["arrows+Enter or click: a target", "Esc: drop the pick", "? moves", "q leave"]
        else:
            keys = ["type a move or arrows+Enter", "? moves", *hint, "F1 help", "q leave"]
        return Text(sep.join(keys), style="dim")
