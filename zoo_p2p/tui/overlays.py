"""What opens over a screen: a yes/no question, the help and the legend, and the "terminal too
small" notice (the list of moves, `?`, is `movelist.py`'s). Every one of them closes with Escape
and hands its answer back to the screen that opened it (``push_screen(..., callback)``): none of
them quits the app.

The input model (docs/KEYS.md, and the help overlay, say it to the player):

- Escape closes the innermost thing open (an overlay, a question, the move box) and never
  leaves the app from inside one.
- ``q`` asks once; a second ``q`` (or ``y``) confirms, wherever the focus is; any other key
  (Escape, ``n``) stays.
- Ctrl-C leaves at once (exit code 130); in a network game the seat is kept for ``zoo resume``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol, TypeVar, runtime_checkable

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from zoo_p2p.rules import Move, square_name
from zoo_p2p.text import LEGEND_LINES

LEAVE_KEYS = "q or y: leave · Esc, n or any other key: stay"
"""The keys of every "leave?" question."""

MIN_WIDTH = 80
MIN_HEIGHT = 24

T = TypeVar("T")


class Question(ModalScreen[bool]):
    """A yes/no question that takes every key: ``q`` or ``y`` (or Enter) says yes, anything
    else (Escape, ``n``) says no. The question's words say what yes does."""

    DEFAULT_CSS = """
    Question { align: center bottom; background: $background 40%; }
    Question > #question { width: 100%; height: auto; max-height: 12; border: heavy $warning;
        background: $panel; padding: 0 1; }
    """

    def __init__(self, words: Text, keys: str) -> None:
        super().__init__()
        self.words = words
        self.keys = keys

    def compose(self) -> ComposeResult:
        body = self.words.copy()
        body.append("\n")
        body.append(self.keys, style="bold")
        yield Static(body, id="question", markup=False)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(event.key in ("q", "y"))


class TextOverlay(ModalScreen[None]):
    """A page of text over the screen (help, legend): arrows and Page Up/Down scroll it,
    Escape closes it; ``q`` closes it and asks whether to leave (the screen below asks)."""

    DEFAULT_CSS = """
    TextOverlay { align: center middle; background: $background 50%; }
    TextOverlay > Vertical { width: 100%; max-width: 100; height: auto; max-height: 100%;
        border: round $accent; background: $panel; padding: 0 1; }
    TextOverlay VerticalScroll { height: auto; max-height: 1fr; }
    TextOverlay #overlay-keys { height: 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close_and_ask", "leave", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown,space", "scroll(10)", show=False),
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            with VerticalScroll(id="overlay-scroll"):
                yield Static(self.body, id="overlay-body", markup=False)
            yield Static(
                Text("Esc: close · up/down, PgUp/PgDn: scroll · q: leave the game"),
                id="overlay-keys",
            )

    def action_close(self) -> None:
        self.dismiss(None)

    def action_close_and_ask(self) -> None:
        self.dismiss(None)
        self.app.post_message(LeaveAsked())

    def action_scroll(self, lines: int) -> None:
        self.query_one("#overlay-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)


class LeaveAsked(Message):
    """``q`` was pressed in an overlay: the screen below asks whether to leave."""


@runtime_checkable
class Leaves(Protocol):
    """A screen that asks before leaving (its ``q``)."""

    def action_leave_ask(self) -> None: ...


class QrOverlay(ModalScreen[None]):
    """The invite's QR code alone on the screen (it needs 45×24 at its smallest); any key
    closes it."""

    DEFAULT_CSS = """
    QrOverlay { align: center middle; background: $background; }
    QrOverlay > Static { width: auto; height: auto; background: $background; }
    """

    def __init__(self, rows: Sequence[str]) -> None:
        super().__init__()
        self.rows = list(rows)

    def compose(self) -> ComposeResult:
        body = Text("\n".join(self.rows), no_wrap=True)
        body.append("\nEsc (or any key): close", style="dim")
        yield Static(body, markup=False)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)


class TooSmall(Screen[None]):
    """Shown while the terminal is below the minimum; the app takes it away on a resize that
    makes room again (Ctrl-C still leaves)."""

    DEFAULT_CSS = """
    TooSmall { align: center middle; }
    TooSmall > Static { width: auto; height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small", markup=False)

    def on_mount(self) -> None:
        self.show(self.app.size.width, self.app.size.height)

    def show(self, width: int, height: int) -> None:
        t = Text(f"make the terminal at least {MIN_WIDTH}×{MIN_HEIGHT}", style="bold")
        t.append(f"\n(it is {width}×{height} now; the game waits)\nCtrl-C leaves")
        self.query_one("#too-small", Static).update(t)


def too_small(width: int, height: int) -> bool:
    """Is a terminal of this size below the app's minimum?"""
    return width < MIN_WIDTH or height < MIN_HEIGHT


def lines_of(items: Sequence[tuple[str, str]], width: int = 14) -> Group:
    """Key / meaning pairs as two columns, the meanings wrapped in theirs (headings: a pair
    with an empty meaning)."""
    parts: list[RenderableType] = []
    grid: RichTable | None = None
    for key, meaning in items:
        if not meaning:
            if parts:
                parts.append(Text(""))
            parts.append(Text(key, style="bold underline"))
            grid = None
            continue
        if grid is None:
            grid = RichTable.grid(padding=(0, 1))
            grid.add_column(width=width, no_wrap=True)
            grid.add_column(ratio=1)
            parts.append(grid)
        grid.add_row(Text(f"  {key}", style="bold"), Text(meaning))
    return Group(*parts)


def squares(moves: Sequence[Move]) -> str:
    """The destination squares of ``moves``, for a sentence."""
    return " ".join(square_name(m.to) for m in moves)


def legend_text() -> Text:
    """The board's legend, as the overlay shows it (the notation of text.LEGEND_LINES)."""
    out = Text("Each square shows its top card, then what lies under it.\n\n")
    for code, words in LEGEND_LINES:
        out.append(f"  {code:<6}", style="bold")
        out.append(words + "\n")
    out.append("\nMarks: ", style="bold")
    out.append(
        "[ ] a target of what you picked; < > a target that takes a character; { } picked; "
        "( ) the expert's move; underlined: the last move.\n"
    )
    out.append("Seats: ", style="bold")
    out.append(
        "▶ to move; hand: characters left to send; Zoo: the Zoo cards taken and their points; "
        "took: characters taken (M: a mutant)."
    )
    return out


def help_text(hints: bool) -> Group:
    """The keys of the game screen (docs/KEYS.md says the same), then the legend."""
    rows: list[tuple[str, str]] = [
        ("On the board (it has the focus)", ""),
        ("3 4 5 6", "pick that hand card and open the move box with it (then @C3, Enter)"),
        ("A-E", "open the move box with the column (C3-C4, Enter)"),
        ("arrows, Enter", "move the cursor; pick what is under it, or play onto a target"),
        ("click", "the same with the mouse (a hand card, your character, a target)"),
        ("?", "every legal move, grouped, with what it takes and its mutant odds"),
        *([("x", "the expert's hint for this position")] if hints else []),
        ("F1 / h", "this help"),
        ("l", "the board's legend (b then Enter too, as `b` in the line mode)"),
        ("Esc", "drop what is picked"),
        ("", ""),
        ("In the move box", ""),
        ("Enter", "play the move typed (5@C3 sends your 5 onto C3; C3-C4 moves a character)"),
        ("Esc", "close the box, back to the board"),
        ("? x h l q", "as on the board (they are never part of a move)"),
        ("", ""),
        ("Everywhere", ""),
        ("q", "ask to leave; q or y again leaves, any other key stays"),
        ("Esc", "close the innermost overlay, question or box; it never leaves the game"),
        ("Ctrl-C", "leave at once; in a network game the seat is kept for `zoo resume`"),
        ("c / w", "when a seat's clock ran out: claim the game, or wait"),
    ]
    keys = lines_of([r for r in rows if r != ("", "")], width=16)
    return Group(keys, Text(""), Text("The board's legend", style="bold underline"), legend_text())
