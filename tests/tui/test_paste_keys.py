"""A burst of keys on the board (a paste, tmux send-keys, a fast typist): the terminal sends
"6@A2" at once. Textual's driver posts each key to the app from its own thread, one loop turn
apart, and the app forwards each to the widget that has the focus when it takes the key; the
first key moves the focus to the move box only later (Widget.focus is a call_later). So some
keys of the burst reach the board after the focus has moved. None may be lost, none may land
twice, and the Enter of the burst plays the move."""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual.widgets import Input

from tests.tui.conftest import local_table
from tests.tui.test_play import settle
from zoo_p2p.rules import Send
from zoo_p2p.tui.app import TableApp
from zoo_p2p.tui.board import BoardView
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen


def _burst(turns: int, enter: bool) -> tuple[str, str, bool]:
    """Post a move's keys to the app as the driver does, ``turns`` loop turns apart (not a
    sleep: the driver thread's run_coroutine_threadsafe lands each key in a turn of its own);
    return the move, what the move box holds, and whether the move was played."""
    table = local_table(seed=7)

    async def go() -> tuple[str, str, bool]:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, GameScreen) and table.my_turn()
            assert screen.focused is screen.query_one(BoardView)
            st = table.state
            n = len(st.history)
            # a target whose row is 3-6 (a digit that also picks a hand card)
            move = next(m for m in st.legal_moves() if isinstance(m, Send) and str(m)[-1] in "3456")
            keys = [events.Key(ch, ch) for ch in str(move)]
            if enter:
                keys.append(events.Key("enter", "\r"))
            for key in keys:
                app.post_message(key)
                for _ in range(turns):
                    await asyncio.sleep(0)
            for _ in range(4):
                await pilot.pause()
            typed = screen.query_one("#command", Input).value
            await settle(app, pilot)
            played = len(table.state.history) > n and table.state.history[n] == move
            return str(move), typed, played

    return asyncio.run(go())


@pytest.mark.parametrize("turns", range(8))
def test_a_burst_is_typed_whole(turns: int) -> None:
    """Before the fix: "3" (1 turn apart), "33" (2), "3A3" (3, 4) for the move 3@A3."""
    move, typed, played = _burst(turns, enter=False)
    assert typed == move
    assert not played


@pytest.mark.parametrize("turns", range(8))
def test_a_burst_with_its_enter_plays_the_move(turns: int) -> None:
    move, typed, played = _burst(turns, enter=True)
    assert played, f"{move} and Enter in a burst {turns} loop turns apart left {typed!r}"
