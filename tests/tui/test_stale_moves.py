"""`?` lists the moves of one position in an overlay to pick from: the move picked is played,
and the list is gone with it (a walkthrough once typed `3@C1` from an answer left on screen
after the 3 had been sent: "your 3 is not in your hand")."""

from __future__ import annotations

import asyncio
import re

from tests.tui.conftest import local_table
from tests.tui.test_play import settle
from zoo_p2p.tui.app import TableApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.movelist import MovesOverlay


def _lines_before_and_after_a_move() -> tuple[str, str, int]:
    async def run() -> tuple[str, str, int]:
        table = local_table(seed=3)  # you move first; animals (4s) lie face up
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, GameScreen)
            await pilot.press("question_mark")
            await pilot.pause()
            before = screen_text(app)
            assert isinstance(app.screen, MovesOverlay)
            await pilot.press("enter")  # the first move listed: the safest Zoo capture
            await settle(app, pilot)
            after = screen_text(app)
            played = len(table.state.history)
            await pilot.press("q", "q")
            return before, after, played

    return asyncio.run(run())


def test_the_list_of_moves_goes_once_a_move_is_played() -> None:
    before, after, played = _lines_before_and_after_a_move()
    assert "legal moves" in before and "no mutant risk" in before
    assert played >= 1  # the listed move was played
    assert "legal moves" not in after and "no mutant risk" not in after, after


def _answer_to_question_mark(seed: int) -> str:
    async def run() -> str:
        app = TableApp(local_table(seed=seed), glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            answer = screen_text(app)
            await pilot.press("q", "q")
            return answer

    return asyncio.run(run())


def test_question_mark_names_moves_when_no_animal_and_no_capture_is_left() -> None:
    # seed 7: the bot moves first and takes the only face-up 4; nothing can be captured
    answer = _answer_to_question_mark(7)
    assert "legal moves" in answer and "captures of characters" not in answer
    named = re.findall(r"\b(?:[3-6]@[A-E][1-5]|[A-E][1-5]-[A-E][1-5])\b", answer)
    assert len(named) >= 3, answer  # it said only "96 legal moves."
    assert "1 in" in answer  # with the odds that each hides a mutant
