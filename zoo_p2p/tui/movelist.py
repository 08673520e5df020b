"""`?`: the list of every legal move, grouped (captures of characters, then the Zoo captures with
their mutant odds, the safest first), to scroll and pick one to play from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zoo_p2p.rules import Move, Send, State, move_name
from zoo_p2p.tui.facts import chance_words, is_character_capture, mutant_chance, target_hint
from zoo_p2p.tui.overlays import LeaveAsked


@dataclass(frozen=True)
class MoveGroup:
    """One heading of the list of moves and its moves, each with what it does."""

    title: str
    moves: tuple[tuple[Move, str], ...]


def move_groups(st: State) -> list[MoveGroup]:
    """Every legal move, grouped: captures of characters; Zoo captures with what they take and
    the exact mutant odds (the safest first); then the rest (sends and steps onto Zoo cards of
    value 4, which never hide a mutant, are among the Zoo captures: every move takes a card)."""
    moves = st.legal_moves()
    chars = [(m, target_hint(st, m)) for m in moves if is_character_capture(st, m)]

    def risk(m: Move) -> tuple[float, int, str]:
        top = st.top(m.to)
        p = float(mutant_chance(st, top.value)) if top.value is not None else 0.0
        return (p, -(top.value or 0), move_name(m))

    zoo = sorted((m for m in moves if not is_character_capture(st, m)), key=risk)
    sends = [(m, _zoo_words(st, m)) for m in zoo if isinstance(m, Send)]
    steps = [(m, _zoo_words(st, m)) for m in zoo if not isinstance(m, Send)]
    out = []
    if chars:
        out.append(MoveGroup("captures of characters", tuple(chars)))
    if sends:
        out.append(MoveGroup("Zoo captures, sending a card from your hand", tuple(sends)))
    if steps:
        out.append(MoveGroup("Zoo captures, moving a character on the board", tuple(steps)))
    return out


def _zoo_words(st: State, m: Move) -> str:
    top = st.top(m.to)
    value = top.value or 0
    p = mutant_chance(st, value)
    words = f"takes a {value}"
    if p:
        words += f", mutant odds {chance_words(p)}"
    else:
        words += ", no mutant risk"
    under = st.under(m.to)
    if under.kind == "unknown":
        words += "; uncovers a hidden card"
    return words


class MovesOverlay(ModalScreen[Move | None]):
    """`?`: every legal move, grouped, scrollable; Enter (or a click) plays the one highlighted,
    Escape closes the list and plays nothing."""

    DEFAULT_CSS = """
    MovesOverlay { align: center middle; background: $background 50%; }
    MovesOverlay > Vertical { width: 100%; max-width: 100; height: 100%; max-height: 40;
        border: round $accent; background: $panel; padding: 0 1; }
    MovesOverlay OptionList, MovesOverlay OptionList:focus { height: 1fr; border: none; }
    MovesOverlay #moves-keys { height: 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close_and_ask", "leave", show=False),
    ]

    def __init__(self, st: State) -> None:
        super().__init__()
        self.groups = move_groups(st)
        self.moves: list[Move] = []
        self.count = len(st.legal_moves())

    def compose(self) -> ComposeResult:
        options: list[Option] = []
        for g in self.groups:
            options.append(Option(Text(f"{g.title} ({len(g.moves)})", style="bold"), disabled=True))
            for m, words in g.moves:
                options.append(
                    Option(Text(f"  {move_name(m):<7} {words}"), id=str(len(self.moves)))
                )
                self.moves.append(m)
        with Vertical() as box:
            box.border_title = f"your {self.count} legal moves"
            yield OptionList(*options, id="moves-list")
            yield Static(
                Text("up/down: choose · Enter: play it · Esc: close, play nothing · q: leave"),
                id="moves-keys",
            )

    def on_mount(self) -> None:
        lst = self.query_one(OptionList)
        lst.focus()
        first = next((i for i, o in enumerate(lst.options) if not o.disabled), None)
        lst.highlighted = first

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(self.moves[int(event.option.id)])

    def action_close(self) -> None:
        self.dismiss(None)

    def action_close_and_ask(self) -> None:
        self.dismiss(None)
        self.app.post_message(LeaveAsked())
