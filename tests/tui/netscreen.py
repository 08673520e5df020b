"""Shared set-up for tests of a network game's screen: a session read from a sample log, and
the app showing a `NetTable` built from a snapshot of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot


def session_of(log: Path, upto: int | None = None) -> Session:
    """The session after the log's first `upto` entries (all of them with None)."""
    entries = read_log(log).entries
    session = Session(entries[0])
    for raw in entries[1:upto]:
        session.receive(raw)
    return session


@asynccontextmanager
async def net_game(
    snap: Snapshot, size: tuple[int, int] = (120, 40)
) -> AsyncIterator[tuple[NetworkApp, Pilot[int], NetTable]]:
    """The app on the game screen of `snap`'s table; closed (driver, app) on the way out."""
    app = NetworkApp(glyphs=UTF8)
    async with app.run_test(size=size) as pilot:
        driver = AppDriver(app)
        app.net_driver = driver
        table = NetTable(driver, snap)
        app.table = table
        await app.push_screen(GameScreen(table, UTF8))
        await pilot.pause()
        yield app, pilot, table
        driver.close()
        app.exit(0)
