"""The message lines under the last move's sentence always show the newest message whole: a
long reason for a refused move must not push the answer to `?` (typed next) out of sight."""

from __future__ import annotations

import asyncio

from rich.text import Text

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import TableApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen

LONG = "6@C1: C1 holds Blue's 5: " + "a character can only be sent onto a Zoo card " * 2 + "(end)"


def _messages_after(notices: list[str], width: int) -> str:
    async def run() -> str:
        app = TableApp(local_table(), glyphs=UTF8)
        async with app.run_test(size=(width, 32)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GameScreen)
            for n in notices:
                screen.notice(Text(n))
            await pilot.pause()
            lines = screen_text(app).splitlines()
            await pilot.press("q", "q")
            head = next(i for i, line in enumerate(lines) if line.startswith(" last move:"))
            return "\n".join(lines[head + 1 : -2])  # under it: the messages (box, keys below)

    return asyncio.run(run())


def test_the_newest_message_is_shown_after_a_long_one() -> None:
    shown = _messages_after([LONG, "12 legal moves. animals, no mutant risk: 3@A1"], 100)
    assert "12 legal moves" in shown


def test_a_long_newest_message_wraps_onto_both_lines() -> None:
    shown = _messages_after(["an older one", LONG], 100)
    assert "(end)" in shown and "6@C1" in shown and "an older one" not in shown


def test_two_short_messages_share_the_lines() -> None:
    shown = _messages_after(["the first", "the second"], 100)
    assert shown.splitlines() == [" the first", " the second"]
