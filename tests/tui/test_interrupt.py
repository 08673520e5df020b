"""Ctrl-C on the full screen of a network game stops this peer as Ctrl-C in --plain does: an
unfinished, resumable leave. Only a confirmed `q` resigns (README: a joiner's confirmed `q` is a
resignation; Ctrl-C prints the `zoo resume` line)."""

from __future__ import annotations

import asyncio
import select

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


class _Link:
    """What the loop's driver calls on the peer when the app hands it a line."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.session = None

    def leave(self, reason: str) -> None:
        self.calls.append(("leave", reason))

    def resign_and_leave(self, reason: str) -> None:
        self.calls.append(("resign_and_leave", reason))


def _keys_to_loop(keys: list[str]) -> list[tuple[str, str]]:
    """Press `keys` on a network game's screen; return what the loop then did with the peer."""

    async def run() -> AppDriver:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            driver = AppDriver(app)
            app.net_driver = driver
            snap = Snapshot(local_table().state, ["me", "them"], 0, False, None, None, "/x")
            table = NetTable(driver, snap)
            app.table = table
            await app.push_screen(GameScreen(table, UTF8))
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
        return driver

    driver = asyncio.run(run())
    link = _Link()
    try:
        while select.select([driver._r], [], [], 0)[0]:  # what the app wrote, all there now
            if not driver.on_fd(driver._r, link):  # type: ignore[arg-type]
                break
    finally:
        driver.close()
    return link.calls


def test_ctrl_c_leaves_without_resigning() -> None:
    assert _keys_to_loop(["ctrl+c"]) == [("leave", "interrupted")]


def test_a_confirmed_q_resigns() -> None:
    calls = _keys_to_loop(["q", "q"])
    assert calls == [("resign_and_leave", "you left the game")]
