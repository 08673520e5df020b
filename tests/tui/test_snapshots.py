"""Snapshots (pytest-textual-snapshot) of the board: 80×24 and 120×40, colour, NO_COLOR, ASCII;
the game and the end screen at 80×24, 100×30 and 120×40; the notice below the minimum size.

Update after a deliberate change of the look: ``pytest tests/tui --snapshot-update``, then look at
the SVG files in ``tests/tui/__snapshots__`` before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import NetworkApp, ReplayApp, TableApp
from zoo_p2p.tui.facts import ASCII, UTF8

Compare = Callable[..., bool]


async def bot_moved_and_five_picked(pilot: Pilot[Any]) -> None:
    """The bot has answered; the player picked their 5: targets are highlighted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("5")
    await pilot.pause()


def test_board_80x24_colour(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_colour(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def test_board_80x24_no_color(snap_compare: Compare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_no_color(snap_compare: Compare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def test_board_80x24_ascii(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=ASCII)
    assert snap_compare(app, terminal_size=(80, 24), run_before=bot_moved_and_five_picked)


def test_board_120x40_ascii(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=ASCII)
    assert snap_compare(app, terminal_size=(120, 40), run_before=bot_moved_and_five_picked)


def finished_hot_seat() -> Any:
    """A hot-seat game played to its end before the app starts: the app opens on game over."""
    from zoo_p2p.rules import Team
    from zoo_p2p.tui.table import LocalTable

    table = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Brice"], human={0, 1}, bots={}, seed=7
    )
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    return table


def test_game_over_120x40(snap_compare: Compare) -> None:
    app = TableApp(finished_hot_seat(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(120, 40))


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
def test_game_over_sizes(snap_compare: Compare, size: tuple[int, int]) -> None:
    app = TableApp(finished_hot_seat(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=size)


def test_board_100x30_colour(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(100, 30), run_before=bot_moved_and_five_picked)


def test_below_the_minimum_size(snap_compare: Compare) -> None:
    app = TableApp(local_table(), glyphs=UTF8)
    assert snap_compare(app, terminal_size=(60, 20), run_before=bot_moved_and_five_picked)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
def test_replay_sizes(snap_compare: Compare, size: tuple[int, int]) -> None:
    from pathlib import Path

    from zoo_p2p.tui.replay import load

    data = load(Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog")
    app = ReplayApp(data, glyphs=UTF8)

    async def step(pilot: Pilot[Any]) -> None:
        await pilot.press("right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=step)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_lobby_sizes(snap_compare: Compare, size: tuple[int, int]) -> None:
    from rich.text import Text

    from zoo_p2p.tui.lobby import LobbyScreen

    app = NetworkApp(glyphs=UTF8)

    async def lobby(pilot: Pilot[Any]) -> None:
        screen = LobbyScreen(UTF8)
        pilot.app.lobby = screen  # type: ignore[attr-defined]
        await pilot.app.push_screen(screen)
        await pilot.pause()
        pilot.app.net_lobby([("ada", "AAAA-BBBB-CCCC-DDDD", 0)], 2)  # type: ignore[attr-defined]
        for line in (
            "you are host — fingerprint AAAA-BBBB-CCCC-DDDD",
            "invite (give this to the other players):",
            "zoo://127.0.0.1:4242/aaaqeayeaudaocajbifqydiob4ibceqtcqkrmfyydenbwha5dypq/",
            "AAAA-BBBB-CCCC-DDDD",
            "waiting for 1 player to join…",
        ):
            pilot.app.net_notice(Text(line))  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=lobby)
