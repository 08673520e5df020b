"""A confirmed `q` in a network game: the app hands the loop its resignation and waits (up to
2 s for a 3-4-seat resigner, README) for the peer to stop. Meanwhile the screen must not
invite a move nor say it waits for the seat just resigned: it kept "your turn", the hand
prompt and the clock, and once the entry with the resignation came (the session forgets its
seat) "waiting for me (Yellow): a move" about itself (seen on the real screen under tmux)."""

from __future__ import annotations

import asyncio
import os
import re
import select

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


def _screens() -> tuple[str, str, bytes]:
    async def run() -> tuple[str, str, bytes]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = AppDriver(app)
            app.net_driver = driver
            st = local_table().state
            me = st.to_move  # our move, 300 s on our clock
            names = ["me", "host"] if me == 0 else ["host", "me"]
            snap = Snapshot(st, names, me, False, None, None, "/x")
            snap = Snapshot(**{**snap.__dict__, "floor": (me, "move", 5), "allowed": 300})
            table = NetTable(driver, snap)
            table.presence = [True, True]
            app.table = table
            await app.push_screen(GameScreen(table, UTF8))
            await pilot.pause()
            table.tick()
            app.net_seats(["", ""], None)
            await pilot.pause()
            before = screen_text(app)
            await pilot.press("q", "q")  # leave, confirmed: a resignation
            await pilot.pause()
            # the loop, before it stops: the entry with our resignation is in, the stand-in owes
            # the move, and our session no longer names our seat
            app.net_seats(["", ""], "waiting for me: a move")
            app.net_update(snap)
            table.tick()
            await pilot.pause()
            after = screen_text(app)
            await pilot.press("6")  # a hand card: no move may go to the loop now
            await pilot.pause()
            app.exit(0)
        sent = b""
        while select.select([driver._r], [], [], 0)[0]:  # what the app wrote, all there now
            chunk = os.read(driver._r, 4096)
            if not chunk:
                break
            sent += chunk
        driver.close()
        return before, after, sent

    return asyncio.run(run())


def test_a_resigner_is_not_invited_to_move_while_it_leaves() -> None:
    before, after, sent = _screens()
    clock = re.compile(r"\d:\d\d to play")
    assert "your turn" in before.splitlines()[0] and clock.search(before)
    assert "pick a hand card" in before
    top = after.splitlines()[0]
    assert "your turn" not in top and "leaving" in top, top
    assert "pick a hand card" not in after
    assert not clock.search(after)
    assert "waiting for me" not in after
    assert sent == b"q\n"  # the resignation, and nothing after it
