"""The game screen's move box: the typing line a move is written in (5@C3, C3-C4), and the keys
that open it from the board or stay the screen's commands there."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widgets import Input

COMMAND_KEYS = frozenset("q?xhl")
"""Keys that are commands wherever the focus is in the game (no move is written with them)."""

MOVE_STARTS = frozenset("3456abcdeABCDE")
"""Keys that start a move on the board (a hand card, or the column of a character to move)."""


class MoveLine(Input):
    """The move box. While the claim question is open and nothing is typed, c and w are its
    answers (the screen's bindings), not letters: the question comes first. ``q``, ``?``, ``x``
    ``h`` and ``l`` are never part of a move: they are the screen's keys here too."""

    claim_open: Callable[[], bool] = staticmethod(lambda: False)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character in ("c", "w") and not self.value and self.claim_open():
            return False
        if character is not None and character in COMMAND_KEYS:
            return False
        return super().check_consume_key(key, character)

    def open_with(self, prefix: str) -> None:
        """Open the box with ``prefix`` in it, the cursor after it."""
        self.value = prefix
        self.cursor_position = len(self.value)
        self.focus()

    def take_key(self, event: events.Key) -> bool:
        """A key of a burst that reached the board before the focus reached the box ("6@C3⏎"):
        every one is part of the move, digits included, and the Enter ends it (True: the move
        is submitted); other keys (Escape, Tab) go on to the bindings of where the focus is."""
        ch = event.character or ""
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(Input.Submitted(self, self.value))
            return True
        if event.key == "backspace":
            event.stop()
            event.prevent_default()
            self.value = self.value[:-1]
            self.cursor_position = len(self.value)
        elif ch and ch.isprintable():
            event.stop()
            event.prevent_default()
            self.value += ch
            self.cursor_position = len(self.value)
        return False
