"""The keys line names what keys do where the focus is: on the board, in the move box (where
Enter plays and Escape goes back), and back on the board again."""

from __future__ import annotations

import asyncio

from tests.tui.conftest import local_table
from tests.tui.test_play import settle
from zoo_p2p.tui.app import TableApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8


def _keys_lines() -> tuple[str, str, str]:
    async def run() -> tuple[str, str, str]:
        app = TableApp(local_table(seed=3), glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            board = screen_text(app).splitlines()[-1]
            await pilot.press("tab")
            await pilot.pause()
            typing = screen_text(app).splitlines()[-1]
            await pilot.press("5", "@")  # a move started from the board moves the focus too
            await pilot.press("escape")
            await pilot.pause()
            back = screen_text(app).splitlines()[-1]
            await pilot.press("q", "q")
        return board, typing, back

    return asyncio.run(run())


def test_the_keys_line_follows_the_focus() -> None:
    board, typing, back = _keys_lines()
    assert "q leave" in board and "arrows" in board
    assert "arrows" not in typing and "Enter: play it" in typing
    assert "Esc: back to the board" in typing and "q leave" in typing  # q is no letter there
    assert back == board
