"""A whole local game played through the app: once with keys, once with the mouse; then rematch."""

from __future__ import annotations

import asyncio

from textual.pilot import Pilot

from tests.tui.conftest import local_table
from zoo_p2p.rules import Move, Send, Step
from zoo_p2p.rules.board import SIZE
from zoo_p2p.tui.app import TableApp
from zoo_p2p.tui.board import CELL, LABEL, BoardView
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.over import GameOverScreen

MAX_PLIES = 200


async def settle(app: TableApp, pilot: Pilot[int]) -> None:
    """Let every bot answer (bounded: the workers finish or the test fails on its timeout)."""
    for _ in range(8):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.workers:
            return


async def keys_to(pilot: Pilot[int], board: BoardView, sq: int) -> None:
    """Arrow keys from the cursor to ``sq``, then Enter."""
    r0, c0 = divmod(board.cursor, SIZE)
    r1, c1 = divmod(sq, SIZE)
    keys = ["down" if r1 > r0 else "up"] * abs(r1 - r0)
    keys += ["right" if c1 > c0 else "left"] * abs(c1 - c0)
    await pilot.press(*keys, "enter")


def square_offset(sq: int) -> tuple[int, int]:
    """Where a square is drawn inside the board widget."""
    r, c = divmod(sq, SIZE)
    return LABEL + 1 + c * (CELL + 1) + CELL // 2, 2 + 2 * r


async def play_by_keys(pilot: Pilot[int], board: BoardView, move: Move) -> None:
    if isinstance(move, Send):
        await pilot.press(str(move.value))
        await keys_to(pilot, board, move.to)
    else:
        await keys_to(pilot, board, move.frm)
        await keys_to(pilot, board, move.to)


async def play_by_mouse(pilot: Pilot[int], screen: GameScreen, move: Move) -> None:
    if isinstance(move, Send):
        hand = screen.query_one("#hand")
        span = next(a for a, _, v in hand._spans if v == move.value)  # type: ignore[attr-defined]
        await pilot.click(hand, offset=(span + 1, 0))
    else:
        await pilot.click(screen.query_one(BoardView), offset=square_offset(move.frm))
    await pilot.click(screen.query_one(BoardView), offset=square_offset(move.to))


async def play_whole_game(by_mouse: bool) -> None:
    # two short deals (17 plies, sends, steps and a capture of a character each): a seed
    # with a 39-ply game proved no more and cost the suite seconds of drawing
    table = local_table(seed=91 if by_mouse else 7)
    app = TableApp(table, glyphs=UTF8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        board = screen.query_one(BoardView)
        for _ in range(MAX_PLIES):
            st = table.state
            if st.is_terminal():
                break
            assert table.my_turn(), "the bot did not answer"
            legal = st.legal_moves()
            # prefer a capture of a character, else a step, else the first send: a real game
            move = next((m for m in legal if st.top(m.to).kind != "zoo"), None)
            move = move or next((m for m in legal if isinstance(m, Step)), legal[0])
            n = len(st.history)
            if by_mouse:
                await play_by_mouse(pilot, screen, move)
            else:
                await play_by_keys(pilot, board, move)
            await pilot.pause()
            played = table.state.history
            assert len(played) > n and played[n] == move, f"{move} was not played"
            assert played[-1].to in board.last  # the last move is highlighted
            await settle(app, pilot)
        else:
            raise AssertionError("the game did not end")
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        # every move's result is in the history the player saw
        assert len(screen.history) == len(table.state.history)
        old_deal = table.deal
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table is not table
        assert app.screen.table.deal != old_deal  # type: ignore[attr-defined]
        await pilot.press("q", "q")
    assert app.return_code == 0


def test_whole_game_with_keys() -> None:
    asyncio.run(play_whole_game(by_mouse=False))


def test_whole_game_with_mouse() -> None:
    asyncio.run(play_whole_game(by_mouse=True))


def test_hot_seat_rematch_needs_every_player() -> None:
    from zoo_p2p.rules import Team
    from zoo_p2p.tui.table import LocalTable

    table = LocalTable(
        teams=[Team.RED, Team.GREEN], names=["p1", "p2"], human={0, 1}, bots={}, seed=3
    )

    async def go() -> tuple[bool, bool]:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            while not table.state.is_terminal():
                assert table.submit(table.state.legal_moves()[-1]) is None
            await pilot.pause()
            assert isinstance(app.screen, GameOverScreen)
            await pilot.press("r")
            after_one = isinstance(app.screen, GameOverScreen)
            await pilot.press("r")
            after_two = isinstance(app.screen, GameScreen) and app.screen.table is not table
        return after_one, after_two

    assert asyncio.run(go()) == (True, True)


def test_a_move_typed_in_one_burst_is_played_whole() -> None:
    """A terminal sends "6@C4⏎" at once: every key reaches the board before the focus has
    moved to the typing line. None may be lost (the 4 is no hand pick) and the Enter must not
    act on the board."""
    from textual import events

    table = local_table(seed=7)

    async def go() -> None:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, GameScreen)
            st = table.state
            assert table.my_turn()
            n = len(st.history)
            # a target whose row is 3-6 (a digit that also picks a hand card), not the cursor's
            move = next(
                m
                for m in st.legal_moves()
                if isinstance(m, Send) and m.to != 12 and str(m)[-1] in "3456"
            )
            screen.query_one(BoardView).focus()
            await pilot.pause()
            # the whole burst, synchronously: no focus change can happen in between
            for ch in str(move):
                screen.board_key(events.Key(ch, ch))
            screen.board_key(events.Key("enter", "\r"))
            await pilot.pause()
            await pilot.pause()
            played = table.state.history
            assert len(played) > n and played[n] == move, f"{move} typed in a burst was not played"

    asyncio.run(go())
