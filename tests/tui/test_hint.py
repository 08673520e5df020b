"""The expert's hint in the game screen (x): shown with its squares marked in a local game against
a bot, dropped when the position changed meanwhile, refused in networked and hot-seat games."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any, cast

import pytest
from textual.pilot import Pilot

from tests.held_hint import HeldHint
from tests.tui.conftest import local_table
from zoo_p2p.bots import analysis
from zoo_p2p.rules import Team, parse_move
from zoo_p2p.tui.app import NetworkApp, TableApp, ZooApp
from zoo_p2p.tui.board import BoardView, squares_of
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import NetTable, Snapshot
from zoo_p2p.tui.table import LocalTable, Table

HINT_LINE = re.compile(r"the expert would play (\S+) — win chance (\d+) %")
WAIT = 20.0  # seconds any wait below may take, at most


async def my_turn(app: ZooApp, table: Table) -> GameScreen:
    """Let the bot answer until it is this terminal's turn (bounded)."""
    for _ in range(8):
        await app.workers.wait_for_complete()
        if table.my_turn():
            break
        await asyncio.sleep(0.01)
    assert table.my_turn(), "the bot did not answer"
    screen = app.screen
    assert isinstance(screen, GameScreen)
    return screen


async def searched(app: ZooApp, pilot: Pilot[int]) -> None:
    """Wait (bounded) until no hint search is running: its answer is then on the screen (the
    worker hands it to the screen before it ends)."""
    deadline = time.monotonic() + WAIT
    while any(w.group == "hint" and not w.is_finished for w in app.workers):
        assert time.monotonic() < deadline, "the expert's hint did not come"
        await pilot.pause(0.05)


def info(screen: GameScreen) -> str:
    return str(screen.query_one("#info").render())


def test_x_shows_the_experts_move_and_marks_its_squares() -> None:
    async def run() -> None:
        table = local_table()
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await my_turn(app, table)
            assert "x hint" in screen_text(app)  # the keys line lists it
            shown = table.state
            await pilot.press("x")
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            await pilot.pause()
            found = HINT_LINE.search(screen_text(app))
            assert found is not None, screen_text(app)
            move = parse_move(found.group(1))
            assert move in shown.legal_moves()
            assert 0 <= int(found.group(2)) <= 100
            assert table.state.digest() == shown.digest()  # asking for it played nothing
            # the same move, searched from the same seed, as the analysis module finds it
            again = analysis.hint(shown, networked=False)
            assert again is not None and again.move == move
            board = screen.query_one(BoardView)
            assert board.hinted == squares_of(move) and board.hinted
            rows = board.render().plain.splitlines()
            for sq in board.hinted:
                r, c = divmod(sq, 5)
                cell = rows[2 + 2 * r][3 + 8 * c : 3 + 8 * c + 7]
                assert cell.startswith("(") and cell.endswith(")"), (sq, cell)
            # the move played, the hint is gone from the board
            screen.play(move)
            await pilot.pause()
            assert board.hinted == () and screen.hint is None
            await pilot.press("q", "q")

    asyncio.run(run())


def test_a_hint_for_a_position_that_changed_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    slow_hint = HeldHint(WAIT)  # the player moves before it answers
    monkeypatch.setattr("zoo_p2p.tui.game.hint", slow_hint)

    async def run() -> None:
        table = local_table()
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await my_turn(app, table)
            await pilot.press("x")
            await pilot.pause()
            assert "the expert is thinking…" in info(screen)
            n = len(table.state.history)
            screen.play(table.state.legal_moves()[-1])  # the player did not wait
            assert len(table.state.history) > n
            slow_hint.release.set()
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            await pilot.pause()
            assert slow_hint.stop_seen == [True]  # the search was told to stop
            assert screen.hints_dropped == 1 and screen.hint is None
            assert screen.query_one(BoardView).hinted == ()
            assert "expert" not in info(screen)
            await pilot.press("q", "q")

    asyncio.run(run())


def refused(table: Table) -> str:
    async def run() -> str:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GameScreen)
            assert screen.hint_key is None and not list(app.workers)  # no search started
            text = str(screen.query_one("#messages").render())
            await pilot.press("q", "q")
            return text

    return asyncio.run(run())


class _Lines:
    """A network table's driver: what the screen sends to the peer loop."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, line: str) -> None:
        self.sent.append(line)


def test_a_network_game_says_why_hints_are_off() -> None:
    st = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["a", "b"], human={0}, bots={}, seed=5
    ).state
    me = st.to_move  # our turn: still no hint
    snap = Snapshot(st, ["Ada", "Bo"], me, False, None, None, None)
    driver = _Lines()
    text = refused(NetTable(cast(Any, driver), snap))
    assert driver.sent == ["q"]  # no move went to the peer, only the leave
    assert "hints are off at this table: its host did not allow them (zoo host --hints)" in text


def test_a_hot_seat_of_two_people_says_why_hints_are_off() -> None:
    table = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Bo"], human={0, 1}, bots={}, seed=5
    )
    text = refused(table)
    assert "hints are off when two or more people play at this table" in text


def test_zoo_play_in_the_app_offers_hints_against_its_own_bots() -> None:
    """`zoo play` runs over loopback, but every other seat is a bot it started: the app is told
    so (``networked=False``), its network table offers hints; `zoo host`'s table does not."""
    st = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["a", "b"], human={0}, bots={}, seed=5
    ).state

    async def run(networked: bool, hints: bool = False) -> str:
        snap = Snapshot(
            st, ["you", "greedy bot 1"], st.to_move, False, None, None, None, hints=hints
        )
        # The game is started by hand with the snapshot above. The peer's run stays up until
        # the screen has been read, as a real peer's does for the whole game: a run that ended
        # at once was a game that never started, whose lobby closes the app by itself after
        # `close_after` (5 s), and under load the expert's search outlasted that (the app was
        # gone before the hint came: "Worker was cancelled").
        read = threading.Event()

        def peer(driver: object, console: object) -> int:
            read.wait(4 * WAIT)
            return 0

        app = NetworkApp(peer, networked=networked, glyphs=UTF8)
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                app.net_started(snap)
                await pilot.pause()
                assert isinstance(app.table, NetTable) and isinstance(app.screen, GameScreen)
                await pilot.press("x")
                await searched(app, pilot)
                await pilot.pause()
                text = screen_text(app)
                read.set()
                await pilot.press("q", "q")
        finally:
            read.set()  # (a failed check above ends the peer's run too)
        return text

    against_bots = asyncio.run(run(networked=False))
    found = HINT_LINE.search(against_bots)
    assert found is not None
    assert parse_move(found.group(1)) in st.legal_moves()
    # its title says what it is to the person: their own bots, not a "network game"
    assert "game against your bots" in against_bots.splitlines()[0], against_bots
    networked = asyncio.run(run(networked=True))
    assert "its host did not allow them" in networked
    assert "network game" in networked.splitlines()[0], networked
    # `zoo host --hints`: the genesis says every seat agreed (PROTOCOL.md §3.2)
    agreed = HINT_LINE.search(asyncio.run(run(networked=True, hints=True)))
    assert agreed is not None and parse_move(agreed.group(1)) in st.legal_moves()


def test_a_hot_seat_keys_line_offers_no_hint_key() -> None:
    """Hints are refused at a hot-seat table of two people: its keys line never offers `x`,
    on the board nor in the typing box (one person against a bot is offered it, above)."""
    table = LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Bo"], human={0, 1}, bots={}, seed=5
    )

    async def run() -> tuple[str, str]:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            await pilot.pause()
            board = screen_text(app)
            await pilot.press("tab")
            await pilot.pause()
            typing = screen_text(app)
            await pilot.press("escape", "tab")
            return board, typing

    board, typing = asyncio.run(run())
    keys = [line for line in board.splitlines() if "q leave" in line]
    typed = [line for line in typing.splitlines() if "Enter: play it" in line]
    assert len(keys) == 1 and len(typed) == 1, (board, typing)
    assert "? moves" in keys[0] and "x hint" not in keys[0], keys[0]
    assert "hint" not in typed[0], typed[0]
