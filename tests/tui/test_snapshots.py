"""Snapshots (pytest-textual-snapshot) of the board: 80×24 and 120×40, colour, NO_COLOR, ASCII.

Update after a deliberate change of the look: ``pytest tests/tui --snapshot-update``, then look at
the SVG files in ``tests/tui/__snapshots__`` before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import ZooApp
from zoo_p2p.tui.facts import ASCII, UTF8

Compare = Callable[..., bool]


async def bot_moved_and_five_picked(pilot: Pilot[Any]) -> None:
    """The bot has answered; the player picked their 5: targets are highlighted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("5")
    await pilot.pause()


def test_board_80x24_colour(snap_compare: Compare) -> None:
    app = ZooApp(table=local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_colour(snap_compare: Compare) -> None:
    app = ZooApp(table=local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def test_board_80x24_no_color(snap_compare: Compare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = ZooApp(table=local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_no_color(snap_compare: Compare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = ZooApp(table=local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def test_board_80x24_ascii(snap_compare: Compare) -> None:
    app = ZooApp(table=local_table(), glyphs=ASCII)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_ascii(snap_compare: Compare) -> None:
    app = ZooApp(table=local_table(), glyphs=ASCII)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def test_game_over_120x40(snap_compare: Compare) -> None:
    from zoo_p2p.rules import Team
    from zoo_p2p.tui.table import LocalTable

    # a hot-seat game played to its end before the app starts: the app opens on game over
    table = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Brice"], human={0, 1}, bots={}, seed=7
    )
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    app = ZooApp(table=table, glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40))
