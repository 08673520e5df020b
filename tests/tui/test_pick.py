"""``zoo join`` with no invite: the LAN games the CLI found, listed in the app (no network)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.console import Console

from zoo_p2p.driver import Driver
from zoo_p2p.tui.app import ZooApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.lobby import LobbyScreen
from zoo_p2p.tui.pick import LanGame, Pick, PickScreen

FULL = LanGame("full house", "AAAA-BBBB-CCCC-DDDD", 2, 2, "standard", "zoo://full")
HOSTILE = LanGame("[/]", "EEEE-FFFF-GGGG-HHHH", 1, 2, "general", "zoo://hostile")
PLAIN = LanGame("[b]bob[/b]", "JJJJ-KKKK-LLLL-MMMM", 1, 4, "standard", "zoo://bob")


def picking(
    games: list[LanGame], keys: list[str], check: Callable[[str], str | None] | None = None
) -> tuple[str | None, str, int | None]:
    """Open the app on `games`, press `keys`; the invite started, the screen text, exit code."""
    started: list[str] = []
    ran: list[str] = []

    def start_with(invite: str) -> Callable[[Driver, Console], int]:
        def start(driver: Driver, console: Console) -> int:
            ran.append(invite)
            return 0

        started.append(invite)
        return start

    async def run() -> tuple[str, int | None]:
        app = ZooApp(pick=Pick(games=games, start=start_with, note="", check=check), glyphs=UTF8)
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            text = screen_text(app)
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            if started:  # the pick runs the join in the lobby, like an invite given
                await app.workers.wait_for_complete()
                await pilot.pause()
                assert isinstance(app.screen, LobbyScreen)
                assert ran == started
        return text, app.return_value

    text, code = asyncio.run(run())
    return (started[0] if started else None), text, code


def test_the_games_are_listed_literally_and_enter_joins_the_first_open_one() -> None:
    picked, text, _ = picking([FULL, HOSTILE, PLAIN], ["enter"])
    assert "[/]" in text and "[b]bob[/b]" in text  # data, never markup
    assert "EEEE-FFFF-GGGG-HHHH" in text and "1/2 taken, 1 free" in text and "general" in text
    assert "full" in text
    assert picked == "zoo://hostile"  # the full game is skipped


def test_the_arrows_move_to_another_game() -> None:
    picked, _, _ = picking([FULL, HOSTILE, PLAIN], ["down", "enter"])
    assert picked == "zoo://bob"


def test_a_click_joins_the_game_clicked() -> None:
    started: list[str] = []

    def start_with(invite: str) -> Callable[[Driver, Console], int]:
        started.append(invite)
        return lambda driver, console: 0

    async def run() -> None:
        app = ZooApp(pick=Pick(games=[HOSTILE, PLAIN], start=start_with), glyphs=UTF8)
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, PickScreen)
            await pilot.click("#pick-list", offset=(4, 2))  # the second row (border, row 1, row 2)
            await pilot.pause()

    asyncio.run(run())
    assert started == ["zoo://bob"]


def test_no_game_found_says_so_and_takes_a_pasted_invite() -> None:
    def check(text: str) -> str | None:
        return None if text.startswith("zoo://") else "want zoo://"

    picked, text, _ = picking([], [*"nope", "enter", *"zoo://x/y", "enter"], check)
    assert "no game found" in text
    assert picked == "zoo://x/y"  # "nope" was refused (and cleared), not joined
    picked, _, _ = picking([], [*"nope", "enter"], check)
    assert picked is None


def test_p_pastes_instead_and_q_leaves_without_joining() -> None:
    picked, _, _ = picking([HOSTILE], ["p", *"zoo://pq", "enter"])
    assert picked == "zoo://pq"  # p and q typed into the box are part of the invite
    picked, _, code = picking([HOSTILE], ["q"])
    assert picked is None and code == 1
