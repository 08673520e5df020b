"""Before a network game starts: the lobby, and everything the runner and the transport say."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from zoo_p2p.text import lobby_waiting
from zoo_p2p.tui.facts import Glyphs

TEAMS = ("Yellow", "Blue", "Green", "Red")
TEAM_COLOURS = ("yellow", "blue", "green", "red")


class LobbyScreen(Screen[None]):
    """Who has joined, the invite, and the link's messages, until the game starts."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "leave", "leave")]

    def __init__(self, glyphs: Glyphs) -> None:
        super().__init__()
        self.g = glyphs
        self.lines: list[Text] = []
        self.panels = False  # set in on_mount (`is_mounted` turns true only after it)
        self.rows: list[tuple[str, str, int]] = []
        self.need = 0
        self.seats = Text(
            "waiting for the lobby…" if not glyphs.ascii else "waiting for the lobby..."
        )

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Apocalypse at the Zoo of Carson City: network game", style="bold"), id="status"
        )
        yield Static(self.seats, id="lobby-seats", classes="panel")
        with VerticalScroll(id="lobby-log", classes="panel"):
            yield Static(id="lobby-text", markup=False)
        keys = "q leave · drag over the invite with the mouse, then Ctrl-C copies it"
        yield Static(Text(keys, style="dim"), id="keys")

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.query_one("#lobby-seats", Static).border_title = "lobby"
        self.query_one("#lobby-log", VerticalScroll).border_title = "messages"
        self.panels = True
        self.query_one("#lobby-seats", Static).update(self.seats)  # what came before the mount
        if self.lines:
            self.query_one("#lobby-text", Static).update(Text("\n").join(self.lines[-200:]))

    def show_lobby(self, rows: list[tuple[str, str, int]], need: int) -> None:
        """The seats taken so far (names and fingerprints already made safe)."""
        self.rows, self.need = rows, need
        self._draw(Text(lobby_waiting(len(rows), need), style="italic"))

    def show_closed(self) -> None:
        """The peer's run ended before the game started: nothing is awaited any more."""
        self._draw(Text("the game link has closed: nobody is awaited any more", style="bold"))

    def _draw(self, footer: Text) -> None:
        t = Text()
        if self.need:
            t.append(f"{len(self.rows)} of {self.need} seats\n")
        for i, (name, fp, team) in enumerate(self.rows):
            t.append(f"seat {i + 1}: ")
            t.append(f"{name} ({TEAMS[team % 4]})", style=f"bold {TEAM_COLOURS[team % 4]}")
            t.append(f"  {fp}\n", style="dim")
        t.append_text(footer)
        self.seats = t
        if self.panels:
            self.query_one("#lobby-seats", Static).update(t)

    def add_line(self, text: Text) -> None:
        """One message (invite, notices)."""
        self.lines.append(text)
        if self.panels:
            self.query_one("#lobby-text", Static).update(Text("\n").join(self.lines[-200:]))
            self.query_one("#lobby-log", VerticalScroll).scroll_end(animate=False)

    def action_leave(self) -> None:
        """Leave before the game starts."""
        from zoo_p2p.tui.app import ZooApp

        app = self.app
        if isinstance(app, ZooApp):
            app.leave_network()
