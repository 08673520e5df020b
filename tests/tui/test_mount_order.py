"""A network game's peer loop reports from its own thread whenever it likes, also between the
moment a screen is pushed and the moment it is mounted. What arrives then is shown, and never
raises in the loop thread (an exception there ended the game: `call_from_thread` hands it back).
Textual's `is_mounted` turns true only after `on_mount` returns, so nothing may wait for it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from rich.text import Text
from textual.widgets import Static

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot
from zoo_p2p.tui.over import GameOverScreen


def _net_table(app: NetworkApp, names: list[str]) -> NetTable:
    """A network table at the first move (no history: nothing redraws after the mount)."""
    st = local_table().state
    snap = Snapshot(st, names, 0, False, None, None, "/tmp/x.zoolog")
    return NetTable(AppDriver(app), snap)


def test_the_game_screen_draws_the_seats_when_it_is_mounted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In on_mount itself, not at a later redraw that a queued focus message happens to cause:
    the app test looks at the screen as soon as the table has its screen (set in on_mount)."""
    seen: list[str] = []
    mount = GameScreen.on_mount

    def on_mount(self: GameScreen) -> None:
        mount(self)
        seen.append(str(self.query_one("#seats", Static).content))

    monkeypatch.setattr(GameScreen, "on_mount", on_mount)

    async def run() -> None:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)):
            table = _net_table(app, ["[b]me[/b]", "them"])
            await app.push_screen(GameScreen(table, UTF8))
            table.driver.close()

    asyncio.run(run())
    assert len(seen) == 1
    assert "[b]me[/b] (Yellow)" in seen[0]
    assert "them (Blue)" in seen[0]


def test_a_notice_before_the_mount_is_shown() -> None:
    async def run() -> str:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            table = _net_table(app, ["me", "them"])
            screen = GameScreen(table, UTF8)
            app.push_screen(screen)
            screen.notice(Text("hello from the loop"))  # before compose and mount
            await pilot.pause()
            text = screen_text(app)
            table.driver.close()
            return text

    assert "hello from the loop" in asyncio.run(run())


def test_the_ending_that_arrives_before_the_game_over_screen_is_mounted_is_shown() -> None:
    async def run() -> str:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            table = _net_table(app, ["me", "them"])
            over = GameOverScreen(table, UTF8)
            app.push_screen(over)
            assert not over.is_mounted
            # the loop's last snapshot lands now (NetTable.update -> refresh_table)
            table.snap = replace(table.snap, verdict=Text("verified: all good"), finished=True)
            over.show()  # raised NoMatches ('#deal') before the fix
            await pilot.pause()
            text = screen_text(app)
            table.driver.close()
            return text

    assert "audit: verified: all good" in asyncio.run(run())
