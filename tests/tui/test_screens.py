"""The app's screens with a pilot: hostile names, ASCII, NO_COLOR, illegal input, replay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.tui.conftest import local_table
from zoo_p2p.tui.app import ReplayApp, TableApp, ZooApp
from zoo_p2p.tui.board import BoardView
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import ASCII, UTF8
from zoo_p2p.tui.replay import ReplayScreen, load

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


async def _screen(app: ZooApp, size: tuple[int, int], keys: tuple[str, ...] = ()) -> str:
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for k in keys:
            await pilot.press(k)
        await app.workers.wait_for_complete()
        await pilot.pause()
        return screen_text(app)


def test_names_are_shown_literally_never_as_markup() -> None:
    table = local_table(names=("[/]", "[link=x]a[/link]"))
    text = asyncio.run(_screen(TableApp(table, glyphs=UTF8), (120, 40)))
    assert "[/] (Yellow)" in text
    assert "[link=x]a[/link] (Blue)" in text


def test_ascii_screen_has_only_ascii() -> None:
    text = asyncio.run(_screen(TableApp(local_table(), glyphs=ASCII), (80, 24), ("5",)))
    text.encode("ascii")  # raises on any UTF-8-only glyph
    assert "+-------+" in text and "[" in text


def test_no_color_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TableApp(local_table(), glyphs=UTF8)
    assert app.no_color


def test_a_typed_illegal_move_says_why_and_a_legal_one_is_played() -> None:
    table = local_table()

    async def go() -> tuple[str, int]:
        app = TableApp(table, glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            n = len(table.state.history)
            await pilot.press("tab", *"7@A1", "enter")
            await pilot.pause()
            bad = screen_text(app)
            legal = next(str(m) for m in table.state.legal_moves())
            await pilot.press(*legal, "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            return bad, len(table.state.history) - n

    bad, played = asyncio.run(go())
    assert "7@A1" in bad and "character" in bad.lower()
    assert played >= 1


def test_quit_asks_first() -> None:
    async def go() -> tuple[bool, int | None]:
        app = TableApp(local_table(), glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.press("q", "x")
            still = app.is_running
            await pilot.press("q", "q")
        return still, app.return_code

    still, code = asyncio.run(go())
    assert still
    assert code == 0


def test_replay_steps_by_move_and_jumps() -> None:
    data = load(REPLAYS / "2p-standard.zoolog")
    assert data.report.verdict == "ok" and data.deal is not None
    moves = [f.number for f in data.frames]
    assert moves == list(range(len(moves)))
    first_mutant = next(f.number for f in data.frames if f.mutant)
    first_capture = next(f.number for f in data.frames if f.capture)

    async def go() -> list[int | str]:
        app = ReplayApp(data, glyphs=UTF8)
        seen: list[int | str] = []
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await pilot.press("right", "right")
            seen.append(screen.frame.number)
            await pilot.press("home", "m")
            seen.append(screen.frame.number)
            await pilot.press("home", "c")
            seen.append(screen.frame.number)
            await pilot.press("g", "1", "2", "enter")
            seen.append(screen.frame.number)
            before = screen_text(app)
            await pilot.press("d")
            after = screen_text(app)
            seen.append("hidden" if "hidden deal" in after and before != after else "same")
            assert screen.query_one(BoardView).hidden is not None
        return seen

    assert asyncio.run(go()) == [2, first_mutant, first_capture, 12, "hidden"]


def test_escape_in_the_go_to_box_puts_it_away_and_does_not_quit() -> None:
    data = load(REPLAYS / "2p-standard.zoolog")

    async def go() -> tuple[bool, int, bool, bool]:
        app = ReplayApp(data, glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await pilot.press("right", "g", "1", "escape")
            still = app.is_running and app.screen is screen
            await pilot.press("right")  # the keys step the replay again, nothing was typed
            number = screen.frame.number
            await pilot.press("escape")  # outside the box Escape closes nothing: no quit
            await pilot.pause()
            stays = app.is_running and app.screen is screen
            await pilot.press("q", "q")  # q asks, q leaves
            await pilot.pause()
            return still, number, stays, app.is_running

    assert asyncio.run(go()) == (True, 2, True, False)


def test_replay_shows_the_analysis_marks() -> None:
    data = load(REPLAYS / "2p-standard.zoolog")

    async def go() -> tuple[str, str]:
        app = ReplayApp(data, glyphs=UTF8, analyse=(100, 0))
        async with app.run_test(size=(120, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            assert len(screen.marks) == len(data.frames) - 1
            await pilot.press("a")
            mark = screen.marks[screen.frame.number]
            return mark.mark, screen_text(app).replace("\n", " ")

    mark, text = asyncio.run(go())
    assert mark  # 'a' stopped on a marked move
    assert "analysis: " in text and "marked moves" in text
