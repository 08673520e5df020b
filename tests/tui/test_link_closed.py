"""When the peer's run ends before the game does (the host left, Ctrl-C elsewhere), the game
screen stops saying it waits for a seat: no clock ticks, no stale "connected" dot, and the
status line says the link has closed (it kept "waiting for host (Yellow)" and a clock)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

from tests.tui.conftest import local_table
from tests.tui.test_claim_question import FakeClock
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


def _screens() -> tuple[str, str]:
    async def run() -> tuple[str, str]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = AppDriver(app)
            app.net_driver = driver
            st = local_table().state
            # seat 1 (us) waits for the other seat's move, 300 s on its clock
            snap = Snapshot(st, ["host", "me"], 1 - st.to_move, False, None, None, "/x")
            snap = Snapshot(**{**snap.__dict__, "floor": (st.to_move, "move", 5), "allowed": 300})
            clock = FakeClock()
            table = NetTable(driver, replace(snap, links=("host link", "")), clock=clock)
            table.presence = [True, True]
            table.awaiting = "waiting for host (Yellow): a move"
            app.table = table
            await app.push_screen(GameScreen(table, UTF8))
            await pilot.pause()
            # one second on: the clock says 4:59 and tick() reports it, whether or not the
            # screen's own one-second tick has run by now (on a busy machine it had, and a
            # tick in the same second changed nothing)
            clock.now += 1
            assert table.tick()
            assert table.clocks is not None and table.clocks[st.to_move] == "4:59"
            app.screen.show_seats()  # type: ignore[attr-defined]
            await pilot.pause()
            before = screen_text(app)
            app.net_done(1)  # the peer's run ended, unfinished
            table.tick()
            await pilot.pause()
            after = screen_text(app)
            driver.close()
            app.exit(0)
        return before, after

    return asyncio.run(run())


def test_a_closed_link_stops_the_clock_and_the_waiting() -> None:
    before, after = _screens()
    clock = re.compile(r"\d:\d\d to play")
    assert clock.search(before) and "waiting for host (Yellow): a move" in before
    top = after.splitlines()[0]
    assert "the game link has closed" in top and "waiting for" not in top
    assert not clock.search(after) and "waiting for host" not in after
    assert "host link" in before and "host link" not in after  # no link words either
