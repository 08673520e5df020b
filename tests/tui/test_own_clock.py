"""The seat whose own clock runs out is told what that means. A walkthrough's joiner at a
`--move-time 20` table saw its clock reach "0:00 left" and nothing else, while the other seats
were asked whether to claim the game from it."""

from __future__ import annotations

import asyncio
import time

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


def _after_clock(seat_is_ours: bool, away: bool = False) -> tuple[str, str, int]:
    async def run() -> tuple[str, str, int]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            st = local_table(seed=3).state  # seat 0 (Yellow) to move
            me = 0 if seat_is_ours else 1
            snap = Snapshot(st, ["me", "them"], me, False, None, None, "/x")
            snap = Snapshot(**{**snap.__dict__, "floor": (0, "move", 5), "allowed": 20})
            driver = AppDriver(app)
            app.net_driver = driver
            table = NetTable(driver, snap)
            table.presence = [True, not away]
            app.table = table
            screen = GameScreen(table, UTF8)
            await app.push_screen(screen)
            await pilot.pause()
            before = screen_text(app)
            table.floor_since = time.monotonic() - 21  # the 20 s ran out (no sleeping)
            for _ in range(3):  # the one-second tick, three times: said once
                screen._tick()
            await pilot.pause()
            after = screen_text(app)
            told = sum("your time for this move is up" in str(m) for m in screen.messages)
            driver.close()
            app.exit(0)
        return before, after, told

    return asyncio.run(run())


def test_the_late_seat_is_told_once_that_the_others_may_claim() -> None:
    before, after, told = _after_clock(True)
    assert "your time for this move is up" not in before
    assert "your time for this move is up" in after and "claim" in after, after
    assert told == 1


def test_another_seats_clock_says_nothing_of_the_kind() -> None:
    _before, after, told = _after_clock(False)
    assert told == 0 and "your time" not in after


def test_nothing_is_up_while_a_seat_is_away() -> None:
    """A resumed joiner whose host is not back yet: nobody can claim the game from it."""
    _before, _after, told = _after_clock(True, away=True)
    assert told == 0
