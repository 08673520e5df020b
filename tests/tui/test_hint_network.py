"""`zoo host --hints` seen from the app (PROTOCOL.md §3.2): a headless bot host on 127.0.0.1
whose genesis allows hints, this process joining through the app; the app is told hints are
allowed before the game, its table takes the flag from the genesis, and `x` gives the expert's
move at our turn."""

from __future__ import annotations

import asyncio
import re
import time

from rich.console import Console

from tests.net.harness import Procs, procs  # noqa: F401 - the fixture
from zoo_p2p.driver import Driver
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import NetTable

HINT_LINE = re.compile(r"the expert would play (\S+) — win chance (\d+) %")
DEADLINE = 120.0  # generous: the suite may share 2 cores with much else


def test_the_app_offers_x_at_a_networked_table_whose_host_used_hints(
    procs: Procs,  # noqa: F811
) -> None:
    from zoo_p2p.cli.joining import run_join
    from zoo_p2p.text import HINTS_ALLOWED

    _, invite = procs.host("--players", "2", "--bot", "greedy", "--hints", "--give-up", "30")

    def start(driver: Driver, console: Console) -> int:
        return run_join(
            invite,
            name="app",
            team=None,
            log_path=procs.tmp / "app.zoolog",
            identity=None,
            give_up=30,
            driver=driver,
            console=console,
            ephemeral=True,
        )

    async def play() -> tuple[str, list[str], bool]:
        app = NetworkApp(start, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.monotonic() + DEADLINE
            while time.monotonic() < deadline:
                await pilot.pause(0.05)  # the peer loop runs in its thread: poll, bounded
                table = app.table
                if isinstance(table, NetTable) and table.ui is not None and table.my_turn():
                    break
            else:
                raise AssertionError("never our turn")
            assert isinstance(app.screen, GameScreen) and isinstance(table, NetTable)
            agreed = table.agreed and table.networked
            await pilot.press("x")
            text = ""
            while time.monotonic() < deadline and not HINT_LINE.search(text):
                await pilot.pause(0.05)
                text = screen_text(app)
            notes = [t.plain for t in app.pending_notes]
            app.leave_network()
        return text, notes, agreed

    text, notes, agreed = asyncio.run(play())
    assert agreed  # a networked table, offering hints because its genesis says so
    found = HINT_LINE.search(text)
    assert found is not None, text
    assert "hints are off" not in text
    assert HINTS_ALLOWED in notes  # told before the game, from the lobby or the genesis
