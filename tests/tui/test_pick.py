"""``zoo join`` with no invite: the LAN games listed live in the app while a browse runs.

The browse is a fake source driven by the test (no network): it records each search started
and stopped and lets the test report lists as a real browse would, from any thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console
from textual.pilot import Pilot

from zoo_p2p.driver import Driver
from zoo_p2p.tui.app import PickApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import ASCII, UTF8, Glyphs
from zoo_p2p.tui.lobby import LobbyScreen
from zoo_p2p.tui.overlays import Question
from zoo_p2p.tui.pick import Found, LanGame, Pick, PickScreen, Report

FULL = LanGame("full house", "AAAA-BBBB-CCCC-DDDD", 2, 2, "standard", "zoo://full")
HOSTILE = LanGame("[/]", "EEEE-FFFF-GGGG-HHHH", 1, 2, "general", "zoo://hostile")
PLAIN = LanGame("[b]bob[/b]", "JJJJ-KKKK-LLLL-MMMM", 1, 4, "standard", "zoo://bob")


class FakeLan:
    """A browse source: each search keeps its `report`; `stops` counts the searches stopped."""

    def __init__(self, *games: LanGame, error: str | None = None) -> None:
        self.first = Found(tuple(games), error=error) if games or error else None
        self.reports: list[Report] = []
        self.stops = 0

    def __call__(self, report: Report) -> Callable[[], None]:
        self.reports.append(report)
        if self.first is not None and len(self.reports) == 1:  # a search again finds nothing
            report(self.first)
        return self.stop

    def stop(self) -> None:
        self.stops += 1

    def tell(self, *games: LanGame, dropped: int = 0) -> None:
        """The current search reports this list."""
        self.reports[-1](Found(tuple(games), dropped))


class Clock:
    """A clock the test moves (the screen's bound is read from it)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


Step = Callable[[Pilot[Any], PickApp, FakeLan, Clock], Awaitable[None]]


def picking(
    lan: FakeLan,
    steps: Step,
    check: Callable[[str], str | None] | None = None,
    glyphs: Glyphs = UTF8,
    watch: bool = False,
) -> tuple[str | None, int | None]:
    """Open the app on `lan`, run `steps`; the invite whose join was started, the exit code.
    A pick must lead on to the lobby with that invite's join running."""
    started: list[str] = []
    ran: list[str] = []

    def start_with(invite: str) -> Callable[[Driver, Console], int]:
        def start(driver: Driver, console: Console) -> int:
            ran.append(invite)
            return 0

        started.append(invite)
        return start

    clock = Clock()

    async def run() -> int | None:
        pick = Pick(source=lan, start=start_with, check=check, clock=clock, watch=watch)
        app = PickApp(pick, glyphs=glyphs)
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, PickScreen)
            await steps(pilot, app, lan, clock)
            await pilot.pause()
            if started:  # the pick runs the join in the lobby, like an invite given
                await app.workers.wait_for_complete()
                await pilot.pause()
                assert isinstance(app.screen, LobbyScreen)
                assert ran == started
        return app.return_value

    code = asyncio.run(run())
    assert lan.stops == len(lan.reports)  # every search started was stopped, on every way out
    return (started[0] if started else None), code


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def test_the_list_grows_live_and_shows_names_as_data() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        seen.append(screen_text(app))
        clock.now += 2
        lan.tell(HOSTILE)
        await settle(pilot)
        seen.append(screen_text(app))
        lan.tell(HOSTILE, FULL, PLAIN, dropped=3)
        await settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("down", "enter")

    picked, _ = picking(FakeLan(), steps)
    assert "searching the LAN… 0 found (0 s)" in seen[0] and "[/]" not in seen[0]
    assert "searching the LAN… 1 found (2 s)" in seen[1] and "[/]" in seen[1]
    assert "[b]bob[/b]" not in seen[1]
    assert "searching the LAN… 3 found" in seen[2]
    assert "[/]" in seen[2] and "[b]bob[/b]" in seen[2]  # data, never markup
    assert "EEEE-FFFF-GGGG-HHHH" in seen[2] and "1 of 2 free" in seen[2]
    assert "full (2/2)" in seen[2] and "3 malformed or extra advert(s) ignored" in seen[2]
    assert picked == "zoo://bob"  # down skips the full game: the highlight stays on open ones


def test_a_game_that_goes_disappears_and_the_highlight_stays_on_its_game() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("down")  # from HOSTILE to PLAIN
        lan.tell(PLAIN)  # HOSTILE's host withdrew its advert
        await settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("enter")

    picked, _ = picking(FakeLan(HOSTILE, PLAIN), steps)
    assert "[/]" not in seen[0] and "[b]bob[/b]" in seen[0]
    assert picked == "zoo://bob"


def test_a_game_that_fills_up_cannot_be_picked() -> None:
    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        assert "1 of 2 free" in screen_text(app)
        lan.tell(dataclasses.replace(HOSTILE, taken=2))  # the last seat was taken
        await settle(pilot)
        assert "full (2/2)" in screen_text(app)
        await pilot.press("enter")  # nothing to join
        await pilot.press("q", "q")  # q asks, q leaves

    picked, code = picking(FakeLan(HOSTILE), steps)
    assert picked is None and code == 1


def test_zoo_watch_may_pick_a_full_game_and_says_it_watches() -> None:
    """The same list for `zoo watch`: a full game (its host keeps it listed while it is played,
    TRANSPORT.md §3.3) is highlighted first and Enter picks it; the words say "watch"."""
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        clock.now += 10  # the search's bound has passed: the head says what a pick does
        assert isinstance(app.screen, PickScreen)
        app.screen.show()  # what the screen's timer does (4 times a second)
        await settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("enter")

    picked, _ = picking(FakeLan(FULL, HOSTILE), steps, watch=True)
    assert "full (2/2)" in seen[0] and "pick one to watch" in seen[0], seen[0]
    assert "Enter watch" in seen[0] and "Enter join" not in seen[0], seen[0]
    assert picked == "zoo://full"


def test_a_full_game_listed_first_is_skipped_when_joining() -> None:
    """The same list for `zoo join`: the full game cannot be picked, the open one is."""
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        clock.now += 10
        assert isinstance(app.screen, PickScreen)
        app.screen.show()
        await settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("enter")

    picked, _ = picking(FakeLan(FULL, HOSTILE), steps)
    assert "pick one to join" in seen[0] and "Enter join" in seen[0], seen[0]
    assert picked == "zoo://hostile"


def test_r_searches_again_from_nothing_and_ignores_the_old_search() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        clock.now += 9  # long past the bound
        await pilot.press("r")
        await settle(pilot)
        assert len(lan.reports) == 2 and lan.stops == 1
        seen.append(screen_text(app))
        lan.reports[0](Found((FULL,)))  # the first browse, stopped, reports late: ignored
        await settle(pilot)
        seen.append(screen_text(app))
        lan.tell(PLAIN)
        await settle(pilot)
        await pilot.press("enter")

    picked, _ = picking(FakeLan(HOSTILE), steps)
    assert "searching the LAN… 0 found (0 s)" in seen[0] and "[/]" not in seen[0]
    assert "full house" not in seen[1]
    assert picked == "zoo://bob"


def test_nothing_after_the_bound_says_so_and_takes_a_pasted_invite() -> None:
    seen: list[str] = []

    def check(text: str) -> str | None:
        return None if text.startswith("zoo://") else "want zoo://"

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        seen.append(screen_text(app))
        clock.now += 5
        assert isinstance(app.screen, PickScreen)
        app.screen.show()  # what the screen's timer does (4 times a second)
        await settle(pilot)
        seen.append(screen_text(app))
        await pilot.press("r")  # the empty invite box has the focus: r still searches again
        await settle(pilot)
        assert len(lan.reports) == 2
        seen.append(screen_text(app))
        clock.now += 5
        app.screen.show()
        await settle(pilot)
        await pilot.press(*"nope", "enter", *"zoo://x/yrq", "enter")

    picked, _ = picking(FakeLan(), steps, check)
    assert "no game found" not in seen[0]
    assert "no game found on the local network after 5 s" in " ".join(seen[1].split())
    assert "multicast may be blocked" in " ".join(seen[1].split())
    assert "searching the LAN… 0 found (0 s)" in seen[2]
    assert picked == "zoo://x/yrq"  # "nope" was refused (and cleared), not joined

    async def leave(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        clock.now += 5
        app.screen.show()
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "pick-invite"
        await pilot.press("q", "q")  # q asks, q leaves

    assert picking(FakeLan(), leave) == (None, 1)


def test_mdns_unusable_says_why_and_offers_the_invite_box() -> None:
    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        text = " ".join(screen_text(app).split())
        assert "cannot look for games here: [red]no interface" in text
        await pilot.press(*"zoo://ok", "enter")

    picked, _ = picking(FakeLan(error="cannot look for games here: [red]no interface"), steps)
    assert picked == "zoo://ok"


def test_a_report_from_another_thread_reaches_the_list() -> None:
    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        t = threading.Thread(target=lan.tell, args=(PLAIN,))
        t.start()
        t.join(5)
        for _ in range(20):  # bounded: the message is already queued on the app's loop
            await pilot.pause()
            if "[b]bob[/b]" in screen_text(app):
                break
        await pilot.press("enter")

    picked, _ = picking(FakeLan(), steps)
    assert picked == "zoo://bob"


def test_pasting_works_at_any_moment_even_over_lines() -> None:
    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        assert app.focused is not None and app.focused.id == "pick-list"
        app.focused.post_message(_paste("zoo://pa\n ste/d"))  # as a terminal's paste comes
        await settle(pilot)
        await pilot.press("enter")

    picked, _ = picking(FakeLan(HOSTILE), steps)
    assert picked == "zoo://paste/d"


def _paste(text: str) -> Any:
    from textual import events

    return events.Paste(text)


def test_p_pastes_instead_and_q_leaves_without_joining() -> None:
    async def paste(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("p", *"zoo://pq", "enter")

    picked, _ = picking(FakeLan(HOSTILE), paste)
    assert picked == "zoo://pq"  # p and q typed into the box are part of the invite

    async def leave(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("q", "q")  # q asks, q leaves

    picked, code = picking(FakeLan(HOSTILE), leave)
    assert picked is None and code == 1


def test_escape_closes_the_invite_box_and_never_leaves_q_q_leaves_with_1_ctrl_c_130() -> None:
    async def escape(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("p", "escape")  # out of the invite box, back to the list
        assert isinstance(app.screen, PickScreen)
        assert not app.screen.query_one("#pick-invite").display
        await pilot.press("escape")  # nothing to close: the list stays
        await pilot.pause()
        assert isinstance(app.screen, PickScreen) and app.is_running
        await pilot.press("q")
        assert isinstance(app.screen, Question)
        await pilot.press("q")

    assert picking(FakeLan(HOSTILE), escape) == (None, 1)

    async def nothing_found(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        clock.now += 60  # the search found nothing: the invite box opens by itself
        screen = app.screen
        assert isinstance(screen, PickScreen)
        screen.show()  # what the screen's timer does (4 times a second)
        await settle(pilot)
        box = screen.query_one("#pick-invite")
        assert box.display and box.has_focus
        await pilot.press("escape")  # Esc: back: the box closes, the list stays
        screen.show()
        await settle(pilot)
        assert isinstance(app.screen, PickScreen) and app.is_running
        assert not box.display  # and it does not open again by itself
        await pilot.press("q", "q")

    assert picking(FakeLan(), nothing_found) == (None, 1)

    async def interrupt(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("ctrl+c")

    assert picking(FakeLan(HOSTILE), interrupt) == (None, 130)


def test_a_click_joins_the_game_clicked() -> None:
    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.click("#pick-list", offset=(4, 2))  # the second row (border, row 1, row 2)

    picked, _ = picking(FakeLan(HOSTILE, PLAIN), steps)
    assert picked == "zoo://bob"


def test_a_flood_is_cut_at_32_rows_and_control_characters_never_reach_the_screen() -> None:
    seen: list[str] = []
    evil = LanGame("\x1b]0;pwned\x07\x1b[2Jx", "EVIL-EVIL-EVIL-EVIL", 1, 2, "standard", "zoo://e")
    flood = [dataclasses.replace(PLAIN, name=f"g{i}", invite=f"zoo://g{i}") for i in range(40)]

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        lan.tell(evil, *flood)
        await settle(pilot)
        assert isinstance(app.screen, PickScreen)
        seen.append(screen_text(app))
        assert len(app.screen.games) == 32
        await pilot.press("q", "q")  # q asks, q leaves

    picking(FakeLan(), steps)
    assert "\x1b" not in seen[0] and "\x07" not in seen[0] and "pwned" in seen[0]
    assert "32 found" in seen[0]


def test_ascii_terminals_get_ascii() -> None:
    seen: list[str] = []

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        seen.append(screen_text(app))
        await pilot.press("q", "q")  # q asks, q leaves

    picking(FakeLan(), steps, glyphs=ASCII)
    assert "| searching the LAN... 0 found (0 s)" in seen[0] and "up/down Enter join" in seen[0]


def test_two_adverts_claiming_one_fingerprint_are_both_listed_and_flagged() -> None:
    seen: list[str] = []
    spoof = dataclasses.replace(PLAIN, name="[b]bob[/b]", invite="zoo://mallory")

    async def steps(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        seen.append(" ".join(screen_text(app).split()))
        await pilot.press("q", "q")  # q asks, q leaves

    picking(FakeLan(HOSTILE, PLAIN, spoof), steps)
    assert seen[0].count("JJJJ-KKKK-LLLL-MMMM") == 2
    assert seen[0].count("two adverts claim this fingerprint") == 2
    assert seen[0].count("EEEE-FFFF-GGGG-HHHH") == 1


def test_a_game_picked_from_the_list_says_which_fingerprint_the_host_must_prove() -> None:
    """As plain mode says it: the advert's name and fingerprint are anyone's to forge, so the
    lobby says what the host's signed welcome must prove; an invite pasted says no such line."""

    def lobby_after(steps: Step) -> tuple[str, list[str]]:
        async def run() -> tuple[str, list[str]]:
            def start_with(invite: str) -> Callable[[Driver, Console], int]:
                return lambda driver, console: 0

            app = PickApp(Pick(source=FakeLan(HOSTILE, PLAIN), start=start_with), glyphs=UTF8)
            async with app.run_test(size=(110, 30)) as pilot:
                await pilot.pause()
                await steps(pilot, app, FakeLan(), Clock())
                await app.workers.wait_for_complete()
                await settle(pilot)
                assert isinstance(app.screen, LobbyScreen)
                return screen_text(app), [t.plain for t in app.runner_lines]

        return asyncio.run(run())

    async def pick_bob(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("down", "enter")

    text, lines = lobby_after(pick_bob)
    said = "joining [b]bob[/b] — the host must prove fingerprint JJJJ-KKKK-LLLL-MMMM"
    assert said in text  # the name as data, never markup
    assert lines[0] == said  # and said again on the terminal if the game never starts

    async def paste(pilot: Pilot[Any], app: PickApp, lan: FakeLan, clock: Clock) -> None:
        await pilot.press("p")
        app.screen.query_one("#pick-invite").value = "zoo://pasted"  # type: ignore[attr-defined]
        await pilot.press("enter")

    text, lines = lobby_after(paste)
    assert "must prove" not in text and not any("must prove" in line for line in lines)
