"""``zoo join`` with no invite: the games the CLI found on the LAN, to pick one (or paste an
invite). The CLI does the browsing and hands over plain records; this screen hands back the
chosen invite's text (the join still checks the host's fingerprint)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from zoo_p2p.text import shown

if TYPE_CHECKING:
    from rich.console import Console

    from zoo_p2p.driver import Driver


@dataclass(frozen=True)
class LanGame:
    """One game found on the LAN (every field from the advert: hostile, already checked)."""

    name: str
    fingerprint: str
    taken: int
    seats: int
    variant: str
    invite: str

    @property
    def free(self) -> int:
        """Seats still free."""
        return self.seats - self.taken


def game_line(g: LanGame) -> Text:
    """One row of the list: name (as data, never markup), fingerprint, seats, variant."""
    seats = f"{g.taken}/{g.seats} taken, " + (f"{g.free} free" if g.free > 0 else "full")
    t = Text()
    t.append(f"{shown(g.name, 32):<32}", style="bold")
    t.append(f"  {shown(g.fingerprint, 24)}", style="dim")
    t.append(f"  {seats}  {shown(g.variant, 10)}")
    return t


class PickScreen(Screen[str | None]):
    """The games found on the LAN: arrows + Enter (or a click) joins one; p pastes an invite;
    q leaves. Dismissed with the invite's text, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "paste", "paste an invite"),
        Binding("q", "leave", "leave"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(
        self,
        games: list[LanGame],
        note: str = "",
        check: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.games = list(games)
        self.note = note
        self.check = check

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Apocalypse at the Zoo of Carson City: games on the local network", style="bold"),
            id="status",
        )
        if self.games:
            head = Text(f"{len(self.games)} game(s) found; pick one to join:")
        else:
            head = Text("no game found on the local network.", style="bold yellow")
        if self.note:
            head.append("\n")
            head.append(shown(self.note, 300), style="dim")
        yield Static(head, id="pick-head", markup=False)
        options = [
            Option(game_line(g), id=str(i), disabled=g.free <= 0) for i, g in enumerate(self.games)
        ]
        yield OptionList(*options, id="pick-list")
        yield Input(
            placeholder="paste the invite here, then Enter (Esc: back)",
            id="pick-invite",
            max_length=8192,
        )
        yield Static(id="pick-error", markup=False)
        yield Static(Text("↑↓ Enter join   p paste an invite   q leave", style="dim"), id="keys")

    def on_mount(self) -> None:
        paste = self.query_one("#pick-invite", Input)
        lst = self.query_one("#pick-list", OptionList)
        if any(g.free > 0 for g in self.games):
            paste.display = False
            lst.focus()
            first = next(i for i, g in enumerate(self.games) if g.free > 0)
            lst.highlighted = first
        else:
            lst.display = bool(self.games)
            paste.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on a game with a free seat: join it."""
        event.stop()
        index = int(event.option.id or "-1")
        if 0 <= index < len(self.games) and self.games[index].free > 0:
            self.dismiss(self.games[index].invite)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """An invite pasted (over one or more lines: the widget joins them)."""
        event.stop()
        text = "".join(event.value.split())
        if not text:
            return
        why = self.check(text) if self.check is not None else None
        if why:
            self.query_one("#pick-error", Static).update(
                Text(f"that is not an invite: {shown(why, 200)}; paste it again", style="yellow")
            )
            event.input.clear()
            return
        self.dismiss(text)

    def action_paste(self) -> None:
        """Show the invite box and put the cursor in it."""
        paste = self.query_one("#pick-invite", Input)
        paste.display = True
        paste.focus()

    def action_back(self) -> None:
        """Esc in the invite box: back to the list (when there is one)."""
        if any(g.free > 0 for g in self.games):
            self.query_one("#pick-invite", Input).display = False
            self.query_one("#pick-list", OptionList).focus()

    def action_leave(self) -> None:
        """Leave without joining."""
        self.dismiss(None)


@dataclass
class Pick:
    """What the app needs to let the player pick: the games, a note on how the browse went, a
    check of a pasted invite (its error, or None), and ``start(invite)`` giving the peer's run."""

    games: list[LanGame]
    start: Callable[[str], Callable[[Driver, Console], int]]
    note: str = ""
    check: Callable[[str], str | None] | None = None
