"""The 5×5 zoo as a widget: cursor, selection, legal targets, last move, and the hidden deal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from zoo_p2p.rules import Move, State, Step
from zoo_p2p.rules.board import COLUMNS, SIZE
from zoo_p2p.tui.facts import UTF8, Glyphs, card_code, is_character_capture

CELL = 7  # inner width of a cell: a marker, five characters of content, a marker
LABEL = 2  # "1 " before each row
WIDTH = LABEL + 1 + SIZE * (CELL + 1)
HEIGHT = 2 + 2 * SIZE


@dataclass(frozen=True)
class HiddenSquare:
    """The hidden deal under one square at some moment: what nobody could see then."""

    top_mutant: bool  # the Zoo card on top hides the mutant
    under_value: int | None  # the card below, when it was still face down
    under_mutant: bool


@dataclass(frozen=True)
class Position:
    """A public position, as a view holds it: two are equal when they are the same position
    (move number and `State.digest`), so a panel whose view did not change is not drawn again
    (`State` itself compares by identity, and a table hands out a fresh copy each time)."""

    state: State = field(compare=False)
    key: tuple[int, bytes] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (len(self.state.history), self.state.digest()))


@dataclass(frozen=True)
class BoardState:
    """What the board shows: a position (None: nothing yet) and its marks (``hint``: the
    expert's move, in ``( )``; ``hidden``: the hidden deal, in the replay)."""

    position: Position | None = None
    last: Move | None = None
    selected: int | None = None
    targets: Mapping[int, Move] = field(default_factory=dict)
    hidden: Mapping[int, HiddenSquare] | None = None
    hint: Move | None = None


def squares_of(move: Move | None) -> tuple[int, ...]:
    """The squares a move touches: where a step starts and ends, where a card is sent."""
    if move is None:
        return ()
    if isinstance(move, Step):
        return (move.frm, move.to)
    return (move.to,)


class BoardView(Widget, can_focus=True):
    """The zoo. Arrows move the cursor, Enter or a click acts on the square under it. The
    screen sets `view` (a `BoardState`); the board draws itself from it (`render`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "board--cursor",
        "board--selected",
        "board--target",
        "board--capture",
        "board--last",
        "board--hint",
        "board--hidden",
        "board--mutant",
        "board--grid",
        "board--zoo0",
        "board--zoo1",
        "board--zoo2",
        "board--zoo3",
        "board--zoo4",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(0,-1)", "up", show=False),
        Binding("down", "cursor(0,1)", "down", show=False),
        Binding("left", "cursor(-1,0)", "left", show=False),
        Binding("right", "cursor(1,0)", "right", show=False),
        Binding("enter,space", "act", "act on square", show=False),
    ]

    cursor: reactive[int] = reactive(12)
    view: reactive[BoardState] = reactive(BoardState, init=False)

    class CursorMoved(Message):
        """The cursor is on another square."""

    class Activated(Message):
        """A square was chosen (Enter on the cursor, or a click)."""

        def __init__(self, square: int) -> None:
            self.square = square
            super().__init__()

    def __init__(self, glyphs: Glyphs = UTF8, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.glyphs = glyphs
        # what the screen does with a key that reached the board (see `on_key`)
        self.key_sink: Callable[[events.Key], None] | None = None

    @property
    def state(self) -> State | None:
        """The position drawn (None: none yet)."""
        pos = self.view.position
        return None if pos is None else pos.state

    @property
    def selected(self) -> int | None:
        return self.view.selected

    @property
    def targets(self) -> Mapping[int, Move]:
        return self.view.targets

    @property
    def hidden(self) -> Mapping[int, HiddenSquare] | None:
        return self.view.hidden

    @property
    def last(self) -> tuple[int, ...]:
        """The squares of the last move (underlined)."""
        return squares_of(self.view.last)

    @property
    def hinted(self) -> tuple[int, ...]:
        """The squares of the expert's move (in ``( )``)."""
        return squares_of(self.view.hint)

    def on_key(self, event: events.Key) -> None:
        """A key that Textual forwarded to the board: the screen decides what it means here,
        in the board's own turn and in the order the keys came. Textual forwards each key to
        the widget that has the focus when the app takes it from its queue, so the keys of a
        burst ("6@A2" pasted) can reach the board after a key of the same burst has moved the
        focus: they are the board's, whatever has the focus by the time they bubble."""
        if self.key_sink is not None:
            self.key_sink(event)

    def watch_cursor(self) -> None:
        self.refresh()
        self.post_message(self.CursorMoved())

    def action_cursor(self, dx: int, dy: int) -> None:
        """Move the cursor one square."""
        r, c = divmod(self.cursor, SIZE)
        self.cursor = min(SIZE - 1, max(0, r + dy)) * SIZE + min(SIZE - 1, max(0, c + dx))

    def action_act(self) -> None:
        """Act on the square under the cursor."""
        self.post_message(self.Activated(self.cursor))

    def square_at(self, x: int, y: int) -> int | None:
        """The square drawn at content offset (x, y), or None."""
        if y < 2 or (y - 2) % 2 != 0:
            return None
        r = (y - 2) // 2
        cx = x - LABEL - 1
        if r >= SIZE or cx < 0 or cx % (CELL + 1) == CELL:
            return None
        c = cx // (CELL + 1)
        return r * SIZE + c if c < SIZE else None

    def on_click(self, event: events.Click) -> None:
        off = event.get_content_offset(self)
        if off is None:
            return
        sq = self.square_at(off.x, off.y)
        if sq is not None:
            self.cursor = sq
            self.post_message(self.Activated(sq))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """The cursor follows the mouse, so the hints describe the square under it."""
        off = event.get_content_offset(self)
        sq = None if off is None else self.square_at(off.x, off.y)
        if sq is not None:
            self.cursor = sq

    def get_content_width(self, container: object, viewport: object) -> int:
        return WIDTH

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return HEIGHT

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def _content(self, state: State, sq: int) -> Text:
        top, under = state.top(sq), state.under(sq)
        hid = self.hidden.get(sq) if self.hidden is not None else None
        out = Text()
        code = card_code(state, top)
        if top.kind == "zoo":
            out.append(code, self._style(f"board--zoo{top.value}"))
        elif top.kind == "character":
            assert top.seat is not None
            out.append(code, Style(bold=True, reverse=True, color=state.teams[top.seat].colour))
        elif top.kind == "mutant":
            out.append(code, self._style("board--mutant"))
        else:
            out.append(self.glyphs.empty, "dim")
        if hid is not None and hid.top_mutant:
            out.append("*", self._style("board--mutant"))
        if under.kind != "empty":
            out.append(" ")
            if under.kind == "unknown" and hid is not None and hid.under_value is not None:
                out.append(str(hid.under_value), self._style("board--hidden"))
                if hid.under_mutant:
                    out.append("*", self._style("board--mutant"))
            elif under.kind == "unknown":
                out.append("?", "dim")
            else:
                out.append(card_code(state, under), self._style(f"board--zoo{under.value}"))
        return out

    def render(self) -> Text:
        g = self.glyphs
        last, hinted = self.last, self.hinted
        grid = self._style("board--grid")
        out = Text(no_wrap=True, overflow="crop")
        head = " " * (LABEL + 1) + "".join(c.center(CELL) + " " for c in COLUMNS)
        out.append(head.rstrip() + "\n", "bold")
        out.append(" " * LABEL + g.tl + g.tm.join([g.h * CELL] * SIZE) + g.tr + "\n", grid)
        state = self.state
        for r in range(SIZE):
            out.append(f"{r + 1} ", "bold")
            out.append(g.v, grid)
            for c in range(SIZE):
                sq = r * SIZE + c
                cell = Text()
                move = self.targets.get(sq)
                left, right = " ", " "
                if sq == self.selected:
                    left, right = "{", "}"
                elif move is not None and state is not None and is_character_capture(state, move):
                    left, right = "<", ">"
                elif move is not None:
                    left, right = "[", "]"
                elif sq in hinted:
                    left, right = "(", ")"
                if state is not None:
                    content = self._content(state, sq)
                    content.truncate(CELL - 2, pad=False)
                    pad = CELL - 2 - content.cell_len
                    cell.append(left)
                    cell.append(" " * (pad // 2))
                    cell.append_text(content)
                    cell.append(" " * (pad - pad // 2))
                    cell.append(right)
                else:
                    cell.append(" " * CELL)
                if sq in last:
                    cell.stylize(self._style("board--last"))
                if sq in hinted:
                    cell.stylize(self._style("board--hint"))
                if move is not None and state is not None:
                    cap = is_character_capture(state, move)
                    cell.stylize(self._style("board--capture" if cap else "board--target"))
                if sq == self.selected:
                    cell.stylize(self._style("board--selected"))
                if sq == self.cursor and self.has_focus:
                    cell.stylize(self._style("board--cursor"))
                out.append_text(cell)
                out.append(g.v, grid)
            out.append("\n")
            if r < SIZE - 1:
                out.append(" " * LABEL + g.ml + g.mm.join([g.h * CELL] * SIZE) + g.mr + "\n", grid)
        out.append(" " * LABEL + g.bl + g.bm.join([g.h * CELL] * SIZE) + g.br, grid)
        return out

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


@dataclass(frozen=True)
class HandView:
    """What the hand bar shows: ``label``, then the cards ``values``, ``chosen`` picked."""

    label: Text = field(default_factory=Text)
    values: tuple[int, ...] = ()
    chosen: int | None = None


class HandBar(Widget):
    """The hand of the seat to play: click a card to pick it; digits 3–6 do the same. The
    screen sets `view` (a `HandView`); the bar draws itself from it."""

    view: reactive[HandView] = reactive(HandView, init=False)

    class Picked(Message):
        """A hand card was clicked."""

        def __init__(self, value: int) -> None:
            self.value = value
            super().__init__()

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self._spans: list[tuple[int, int, int]] = []

    def render(self) -> Text:
        view = self.view
        out = Text(no_wrap=True, overflow="crop")
        out.append_text(view.label)
        self._spans = []
        if view.label.plain:
            out.append(" ")
        for v in view.values:
            start = out.cell_len
            picked = v == view.chosen
            out.append(
                f"{'{' if picked else '['}{v}{'}' if picked else ']'}",
                "reverse bold" if picked else "bold",
            )
            self._spans.append((start, out.cell_len, v))
            out.append(" ")
        return out

    def on_click(self, event: events.Click) -> None:
        off = event.get_content_offset(self)
        if off is None:
            return
        for a, b, v in self._spans:
            if a <= off.x < b:
                self.post_message(self.Picked(v))
