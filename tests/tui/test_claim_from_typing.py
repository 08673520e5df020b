"""The claim question's c and w answer it from the typing line too. After typing a move the
focus stays on the typing line; when a claim question came, the keys line said "c claim the
game now · w wait", and c only typed a "c" there while the count-down went on."""

from __future__ import annotations

import asyncio
import os

from textual.widgets import Input

from tests.tui.conftest import local_table
from tests.tui.test_claim_question import QUESTION, _Link
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


def _press_on_the_typing_line(typed: str, key: str) -> tuple[list[str], str, bool]:
    async def run() -> tuple[list[str], str, bool]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = AppDriver(app)
            os.set_blocking(driver._r, False)  # a missing answer fails, never hangs
            st = local_table().state
            table = NetTable(driver, Snapshot(st, ["me", "them"], 0, False, None, None, None))
            app.table = table
            screen = GameScreen(table, UTF8)
            await app.push_screen(screen)
            await pilot.pause()
            await pilot.press("tab", *typed)  # the typing line, maybe with a move begun
            link = _Link()
            await asyncio.to_thread(driver.on_claim_offer, QUESTION, link)
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            box = screen.query_one("#command", Input)
            assert screen.focused is box
            if table.question is None:  # answered: the loop reads the answer from the pipe
                await asyncio.to_thread(driver.on_fd, driver._r, link)
            open_ = table.question is not None
            value = box.value
            driver.close()
        return link.answers, value, open_

    return asyncio.run(run())


def test_c_and_w_answer_the_question_from_an_empty_typing_line() -> None:
    assert _press_on_the_typing_line("", "c") == (["claim"], "", False)
    assert _press_on_the_typing_line("", "w") == (["wait"], "", False)


def test_a_move_begun_on_the_typing_line_keeps_its_letters() -> None:
    answers, value, open_ = _press_on_the_typing_line("b3-", "c")
    assert answers == [] and value == "b3-c" and open_
