"""One input model (docs/KEYS.md), driven through the keys a person presses, at every size
the app is laid out for: the board has the focus; a hand card or a column opens the move box
with that key in it; Escape closes the innermost thing and never leaves; `q` asks once and a
second `q` leaves wherever the focus is (in `zoo play --local --hotseat 2` the second `q` used
to land in the move box); `?` lists every move to pick from; the legend and the help are
overlays; the message lines say the last move, drop the messages of an old position, and an
error goes at the next key; below 80×24 the app says how large to make the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from tests.tui.conftest import local_table
from zoo_p2p.bots import make_bot
from zoo_p2p.rules import Team
from zoo_p2p.tui.app import NetworkApp, TableApp, ZooApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.movelist import MovesOverlay
from zoo_p2p.tui.overlays import Question, TextOverlay, TooSmall
from zoo_p2p.tui.table import LocalTable

SIZES = [(80, 24), (100, 30), (120, 40)]
WAIT = 30

Steps = Callable[[Pilot[Any], ZooApp], Awaitable[None]]


def hot_seat(seed: int = 3) -> LocalTable:
    return LocalTable(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Bo"], human={0, 1}, bots={}, seed=seed
    )


def drive(table: LocalTable, size: tuple[int, int], steps: Steps) -> int | None:
    """Open the app on ``table`` at ``size``, run ``steps``; the app's exit code (None: it is
    still open when the steps are done)."""

    async def run() -> int | None:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=size) as pilot:
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            await pilot.pause()
            await steps(pilot, app)
            await pilot.pause()
            if app.is_running:
                app.exit(None)
                return None
        return app.return_value

    return asyncio.run(run())


def game(app: ZooApp) -> GameScreen:
    screens = [s for s in app.screen_stack if isinstance(s, GameScreen)]
    assert screens
    return screens[-1]


@pytest.mark.parametrize("size", SIZES)
def test_q_then_q_leaves_from_the_move_box_in_a_hot_seat_game(size: tuple[int, int]) -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("5")  # opens the move box with the 5 in it
        seen["box"] = app.screen.query_one("#command", Input).value
        seen["focus"] = app.focused
        await pilot.press("q")
        seen["asked"] = isinstance(app.screen, Question)
        seen["words"] = screen_text(app)
        await pilot.press("q")

    code = drive(hot_seat(), size, steps)
    assert seen["box"] == "5" and isinstance(seen["focus"], Input)
    assert seen["asked"], "q in the move box must ask, not type a q"
    assert "local game is not saved" in seen["words"] and "q or y: leave" in seen["words"]
    assert code == 0  # the second q left


@pytest.mark.parametrize("size", SIZES)
def test_escape_closes_the_innermost_thing_and_never_leaves(size: tuple[int, int]) -> None:
    seen: list[tuple[str, object]] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        scr = game(app)
        await pilot.press("5")
        await pilot.press("escape")  # the box closes; the 5 stays picked
        seen.append(("after box", (type(app.focused).__name__, scr.pick_hand)))
        await pilot.press("escape")  # the pick goes
        seen.append(("after pick", scr.pick_hand))
        await pilot.press("escape")  # nothing left to close: still in the game
        seen.append(("nothing", type(app.screen).__name__))
        for key, kind in (("question_mark", MovesOverlay), ("f1", TextOverlay), ("q", Question)):
            await pilot.press(key)
            seen.append((f"{key} opens", isinstance(app.screen, kind)))
            await pilot.press("escape")
            seen.append((f"{key} closed", type(app.screen).__name__))

    assert drive(hot_seat(), size, steps) is None  # never left
    assert dict(seen) == {
        "after box": ("BoardView", 5),
        "after pick": None,
        "nothing": "GameScreen",
        "question_mark opens": True,
        "question_mark closed": "GameScreen",
        "f1 opens": True,
        "f1 closed": "GameScreen",
        "q opens": True,
        "q closed": "GameScreen",
    }


def test_any_other_key_stays_and_is_not_typed() -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("q", "5")  # 5: stay; the key answered the question, nothing else
        seen["screen"] = type(app.screen).__name__
        seen["box"] = app.screen.query_one("#command", Input).value
        seen["focus"] = type(app.focused).__name__

    assert drive(hot_seat(), (80, 24), steps) is None
    assert seen == {"screen": "GameScreen", "box": "", "focus": "BoardView"}


@pytest.mark.parametrize("size", SIZES)
def test_a_move_typed_from_the_board_is_played(size: tuple[int, int]) -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        scr = game(app)
        st = scr.table.state
        seen["before"] = len(st.history)
        send = next(m for m in st.legal_moves() if hasattr(m, "value"))
        square = "abcde"[send.to % 5] + str(send.to // 5 + 1)
        await pilot.press(str(send.value), "@", *square, "enter")
        await pilot.pause()
        seen["after"] = len(scr.table.state.history)
        seen["focus"] = type(app.focused).__name__
        seen["text"] = screen_text(app)

    drive(hot_seat(), size, steps)
    assert seen["after"] == seen["before"] + 1
    assert seen["focus"] == "BoardView"  # the box closed with the move
    assert "last move: Ada (Yellow) sends" in seen["text"]


def test_a_column_letter_opens_the_box_and_a_stray_key_says_so_until_the_next_key() -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("c")
        seen["box"] = app.screen.query_one("#command", Input).value
        await pilot.press("escape", "k")
        seen["error"] = screen_text(app)
        await pilot.press("right")
        seen["next"] = screen_text(app)

    drive(hot_seat(), (80, 24), steps)
    assert seen["box"] == "c"
    assert "'k' does nothing here: F1 lists the keys" in seen["error"]
    assert "does nothing here" not in seen["next"]


@pytest.mark.parametrize("size", SIZES)
def test_question_mark_lists_every_move_grouped_and_plays_the_one_picked(
    size: tuple[int, int],
) -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        scr = game(app)
        st = scr.table.state
        await pilot.press("question_mark")
        overlay = app.screen
        assert isinstance(overlay, MovesOverlay)
        options = overlay.query_one(OptionList)
        seen["legal"] = len(st.legal_moves())
        seen["rows"] = [
            str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
        ]
        seen["text"] = screen_text(app)
        await pilot.press("down", "enter")  # the second move of the list
        await pilot.pause()
        seen["played"] = scr.table.state.history[-1:]
        seen["wanted"] = overlay.moves[1]

    drive(hot_seat(), size, steps)
    moves = [r for r in seen["rows"] if r.startswith("  ")]
    heads = [r for r in seen["rows"] if not r.startswith("  ")]
    assert len(moves) == seen["legal"]  # every move, not the first six
    assert any(h.startswith("Zoo captures") for h in heads)
    assert all("mutant odds 1 in 10 (10%)" in r or "no mutant risk" in r for r in moves)
    assert f"your {seen['legal']} legal moves" in seen["text"]
    assert seen["played"] == [seen["wanted"]]


@pytest.mark.parametrize("size", SIZES)
def test_the_legend_is_an_overlay_at_every_size(size: tuple[int, int]) -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("l")
        seen.append(screen_text(app))
        await pilot.press("escape", "b", "enter")  # as `b` in the line mode
        seen.append(screen_text(app))

    drive(hot_seat(), size, steps)
    for text in seen:
        assert "the board's legend" in text
        assert "M4" in text and "it was a 4" in text and "2*" in text


def test_help_lists_the_keys() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("f1")
        seen.append(screen_text(app))

    drive(local_table(), (120, 40), steps)
    text = seen[0]
    for words in ("3 4 5 6", "A-E", "ask to leave", "Ctrl-C", "zoo resume", "expert's hint"):
        assert words in text, words


def test_messages_go_when_the_position_changes_and_the_last_move_is_said() -> None:
    seen: dict[str, str] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        scr = game(app)
        scr.notice("about this position only")
        await pilot.pause()
        seen["before"] = screen_text(app)
        await pilot.press("question_mark", "enter")  # a move: the bot answers
        await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
        await pilot.pause()
        seen["after"] = screen_text(app)

    drive(local_table(), (80, 24), steps)
    assert "about this position only" in seen["before"]
    assert "about this position only" not in seen["after"]
    assert "last move: greedy bot (Blue)" in seen["after"]


def four_seats() -> LocalTable:
    return LocalTable(
        teams=[Team.YELLOW, Team.BLUE, Team.GREEN, Team.RED],
        names=["you", "greedy bot 1", "greedy bot 2", "greedy bot 3"],
        human={0},
        bots={s: make_bot("greedy", seed=s) for s in (1, 2, 3)},
        seed=11,
        bot_delay=0,
    )


def test_your_own_last_move_stays_in_the_moves_panel_with_three_bots_at_80x24() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        scr = game(app)
        for _ in range(6):
            if scr.table.state.is_terminal() or not scr.table.my_turn():
                break
            await pilot.press("question_mark", "enter")
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            await pilot.pause()
            seen.append(screen_text(app))

    drive(four_seats(), (80, 24), steps)
    assert len(seen) == 6
    for text in seen:
        mine = re.findall(
            r"^\s*\d+ you \S+: takes", "\n".join(r[44:] for r in text.splitlines()), re.M
        )
        assert mine, text


@pytest.mark.parametrize("size", SIZES)
def test_no_panel_runs_into_another(size: tuple[int, int]) -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("5")
        await pilot.press("escape")
        seen.append(screen_text(app))

    drive(four_seats(), size, steps)
    rows = seen[0].splitlines()
    left = 47 if size[0] >= 110 else 44
    for row in rows[1 : size[1] - 6]:  # the main area: the left column ends in a blank
        if len(row) > left:
            assert row[left - 1] in " │┐┘┤╮╯", (left, row)
    pts = [r for r in rows if "pts" in r and "hand" not in r]
    assert len(pts) == 4 and all(r.rstrip(" │").endswith("pts") for r in pts), pts


def test_below_80x24_the_app_says_how_large_and_recovers_on_resize() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        seen.append(type(app.screen).__name__)
        seen.append(screen_text(app))
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        seen.append(type(app.screen).__name__)
        seen.append(screen_text(app))

    drive(hot_seat(), (80, 24), steps)
    assert seen[0] == TooSmall.__name__
    assert "make the terminal at least 80×24" in seen[1] and "60×20" in seen[1]
    assert seen[2] == "GameScreen" and "A       B" in seen[3]


def test_a_board_opened_small_shows_the_notice_at_once() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        seen.append(screen_text(app))

    drive(hot_seat(), (70, 22), steps)
    assert "make the terminal at least 80×24" in seen[0]


def test_a_joiners_question_says_q_resigns_and_ctrl_c_keeps_the_seat() -> None:
    from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot

    async def run() -> str:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            driver = AppDriver(app)
            st = local_table().state
            snap = Snapshot(st, ["host", "me"], 1, False, None, None, "/x/game.zoolog")
            table = NetTable(driver, snap)
            app.table = table
            await app.push_screen(GameScreen(table, UTF8))
            await pilot.pause()
            await pilot.press("q")
            text = screen_text(app)
            await pilot.press("escape")
            driver.close()
            app.exit(0)
        return " ".join(text.replace("┃", " ").split())  # the question's box, left out

    text = asyncio.run(run())
    assert "q RESIGNS your seat: a stand-in plays it on" in text
    assert "Ctrl-C instead leaves without resigning" in text and "zoo resume" in text


def test_leaving_a_local_game_says_it_was_not_saved() -> None:
    from zoo_p2p.tui.run import local_left

    table = hot_seat()
    assert "you left the local game at move 1. It was not saved" in local_left(table)
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    said = local_left(table)
    assert said.startswith("the local game is over: ") and "wins" in said
    assert "It was not saved: a local game keeps no log" in said


@pytest.mark.parametrize("size", SIZES)
def test_the_end_screen_leads_with_the_result_and_says_why(size: tuple[int, int]) -> None:
    table = hot_seat(seed=7)
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    seen: dict[str, str] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.pause()
        seen["over"] = screen_text(app)
        await pilot.press("b")  # the final position
        seen["board"] = type(app.screen).__name__
        await pilot.press("e")  # and back
        seen["again"] = screen_text(app)
        await pilot.press("q")
        seen["asked"] = screen_text(app)
        await pilot.press("q")

    code = drive(table, size, steps)
    st = table.state
    best = max(s.total for s in st.scores())
    low = min(s.total for s in st.scores())
    first = seen["over"].splitlines()[0]
    assert re.search(rf"\b(Yellow|Blue) wins\s+{best}–{low}\b", first), first
    flat = " ".join(seen["over"].split())
    assert "The game ended because" in flat and "cannot act, the game ends at once" in flat
    for words in ("Zoo cards: the points", "characters: the points", "survivors: their own"):
        assert words in flat, words
    assert "r rematch" in seen["over"] and "q leave" in seen["over"]
    assert seen["board"] == "GameScreen" and seen["again"].splitlines()[0] == first
    assert "local game is not saved anywhere" in " ".join(seen["asked"].replace("┃", " ").split())
    assert code == 0


def test_the_reported_hot_seat_leave_q_in_the_box_then_q_leaves() -> None:
    """The walkthrough: focus in the move box (Tab), q asked "press q again to leave", and the
    next q landed in the box; the way out was Ctrl-C."""
    seen: dict[str, Any] = {}

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.press("tab", "q")
        seen["box"] = (
            app.screen.query_one("#command", Input).value
            if not isinstance(app.screen, Question)
            else ""
        )
        await pilot.press("q")

    assert drive(hot_seat(), (80, 24), steps) == 0
    assert seen["box"] == ""


def test_the_end_screen_replays_a_game_with_a_log_and_comes_back() -> None:
    from pathlib import Path

    from zoo_p2p.tui.over import GameOverScreen
    from zoo_p2p.tui.replay import ReplayScreen
    from zoo_p2p.tui.table import Ending

    log = Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog"

    class Logged(LocalTable):
        def ending(self) -> Ending:
            return Ending(deal=None, verdict=super().ending().verdict, log_path=str(log))

    table = Logged(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Bo"], human={0, 1}, bots={}, seed=7
    )
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.pause()
        seen.append(screen_text(app))
        await pilot.press("v")
        seen.append(type(app.screen).__name__)
        await pilot.press("q", "q")  # leaves the replay, back to the end screen
        await pilot.pause()
        seen.append(type(app.screen).__name__)

    assert drive(table, (100, 30), steps) is None
    assert "v replay" in seen[0] and "replay it: zoo replay" in " ".join(seen[0].split())
    assert seen[1:] == [ReplayScreen.__name__, GameOverScreen.__name__]


def test_x_on_the_end_screen_exports_beside_the_log_and_says_where(tmp_path: Path) -> None:
    """The end screen offers export: x writes the HTML page and the text record beside the
    game's log (the usual mode of a shared file) and the keys line says where they went."""
    import os
    import shutil

    from zoo_p2p.export import from_text
    from zoo_p2p.tui.table import Ending

    log = tmp_path / "game.zoolog"
    shutil.copy(Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog", log)

    class Logged(LocalTable):
        def ending(self) -> Ending:
            return Ending(deal=None, verdict=super().ending().verdict, log_path=str(log))

    table = Logged(
        teams=[Team.YELLOW, Team.BLUE], names=["Ada", "Bo"], human={0, 1}, bots={}, seed=7
    )
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.pause()
        seen.append(screen_text(app))
        await pilot.press("x")
        await pilot.pause()
        seen.append(" ".join(screen_text(app).split()))
        await pilot.press("q", "q")

    old = os.umask(0o022)
    try:
        assert drive(table, (120, 40), steps) == 0
    finally:
        os.umask(old)
    assert "x export" in seen[0]
    html, text = tmp_path / "game.html", tmp_path / "game.txt"
    record = from_text(text.read_bytes())
    moves = len(record.moves)
    assert f"exported {moves} moves: {html} and {text}" in seen[1] and moves > 10
    page = html.read_text()
    assert page.startswith("<!doctype html>") and "Brice" in page  # the log's own players
    assert html.stat().st_mode & 0o777 == 0o644 and text.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.txt", "game.zoolog"]


def test_x_on_the_end_screen_of_a_local_game_says_there_is_no_log() -> None:
    seen: list[str] = []
    table = hot_seat()
    while not table.state.is_terminal():
        assert table.submit(table.state.legal_moves()[0]) is None

    async def steps(pilot: Pilot[Any], app: ZooApp) -> None:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        seen.append(" ".join(screen_text(app).split()))
        await pilot.press("q", "q")

    drive(table, (100, 30), steps)
    assert "a local game keeps no log: there is nothing to export" in seen[0]
