"""The Textual application: one app for the game, game over, rematch and replay."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from zoo_p2p.tui.facts import Glyphs, glyphs_for
from zoo_p2p.tui.table import Table


def terminal_glyphs() -> Glyphs:
    """UTF-8 glyphs when the terminal's encoding can show them, else ASCII."""
    return glyphs_for(getattr(sys.__stdout__, "encoding", None))


class ZooApp(App[int]):
    """``zoo`` on the full screen. The return value is the exit code (130 after Ctrl-C)."""

    CSS_PATH = "zoo.tcss"
    TITLE = "Apocalypse at the Zoo of Carson City"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 - textual's own type
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, *, table: Table | None = None, replay: Any = None, glyphs: Glyphs | None = None
    ) -> None:
        super().__init__()
        self.table = table
        self.replay_data = replay
        self.glyphs = glyphs or terminal_glyphs()

    def on_mount(self) -> None:
        if self.table is not None:
            from zoo_p2p.tui.game import GameScreen

            self.push_screen(GameScreen(self.table, self.glyphs))
        elif self.replay_data is not None:
            from zoo_p2p.tui.replay import ReplayScreen

            self.push_screen(ReplayScreen(self.replay_data, self.glyphs))

    def show_game_over(self, table: Table) -> None:
        """Open the game-over screen; act on what it is dismissed with."""
        from zoo_p2p.tui.over import GameOverScreen

        def after(choice: str | None) -> None:
            if choice == "quit":
                table.close()
                self.exit(0)
            elif choice == "rematch":
                new = table.rematch()
                if new is not None:
                    from zoo_p2p.tui.game import GameScreen

                    table.close()
                    self.table = new
                    self.switch_screen(GameScreen(new, self.glyphs))

        self.push_screen(GameOverScreen(table, self.glyphs), after)

    def action_interrupt(self) -> None:
        """Ctrl-C: leave at once with exit code 130."""
        if self.table is not None:
            self.table.close()
        self.exit(130)
