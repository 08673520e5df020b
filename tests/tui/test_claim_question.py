"""The full-screen app asks before it claims a game (PROTOCOL.md §10): the question comes from
the peer's loop (`AppDriver.on_claim_offer`), `c` or `w` goes back through the driver's pipe to
the loop, which calls the link's `claim_now` / `claim_wait`; the question goes when the link
says so (the late seat answered, or nobody answered within the bound and the link claimed)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from tests.tui.conftest import local_table
from zoo_p2p.driver import ClaimQuestion
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot

QUESTION = ClaimQuestion(1, "seat 2 (Blue)", "its move", 60)
ASKED = "seat 2 (Blue) has not answered for 60 s (its move): claim the game now (c), or wait (w)?"


@dataclass
class _Link:
    """The link as the loop hands it to the driver: records the person's answers."""

    answers: list[str] = field(default_factory=list)

    def claim_now(self) -> bool:
        self.answers.append("claim")
        return True

    def claim_wait(self) -> bool:
        self.answers.append("wait")
        return True


@dataclass
class FakeClock:
    """Monotonic seconds that move only when the test says (never the wall clock)."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def _game_screen(
    clock: FakeClock | None = None,
) -> AsyncIterator[tuple[Pilot[int], AppDriver, NetTable, GameScreen]]:
    """The app on a network game's screen (a local game's position, seat 0 of two), its driver
    as the peer's loop would call it; the app and the table count on `clock` if given."""
    clock = clock or FakeClock()
    app = NetworkApp(glyphs=UTF8, clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        st = local_table().state
        driver = AppDriver(app)
        snap = Snapshot(st, ["me", "them"], 0, False, None, None, None)
        table = NetTable(driver, snap, clock=clock)
        app.table = table
        screen = GameScreen(table, UTF8)
        await app.push_screen(screen)
        await pilot.pause()
        yield pilot, driver, table, screen


def _panel(screen: GameScreen, wid: str) -> str:
    return str(screen.query_one(wid, Static).content)


def test_c_and_w_answer_the_question_through_the_loop_and_it_goes_when_the_link_says() -> None:
    async def run() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with _game_screen() as (pilot, driver, _table, screen):
            os.set_blocking(driver._r, False)  # a missing answer fails, never hangs
            link = _Link()
            # the loop's thread offers the claim: the person is asked, nothing is claimed yet
            seen["claims_at_once"] = await asyncio.to_thread(driver.on_claim_offer, QUESTION, link)
            await pilot.pause()
            seen["seats"] = _panel(screen, "#seats")
            seen["keys"] = _panel(screen, "#keys")
            seen["messages"] = _panel(screen, "#messages")
            await pilot.press("w")
            await pilot.pause()
            seen["after_w"] = _panel(screen, "#seats")
            await asyncio.to_thread(driver.on_fd, driver._r, link)  # the loop reads the pipe
            seen["answers_w"] = list(link.answers)
            # one clock period later the link asks again; this time: c
            await asyncio.to_thread(driver.on_claim_offer, QUESTION, link)
            await pilot.pause()
            await pilot.press("c")
            await asyncio.to_thread(driver.on_fd, driver._r, link)
            seen["answers"] = list(link.answers)
            # asked once more, and the late seat answers: the link takes the question away
            await asyncio.to_thread(driver.on_claim_offer, QUESTION, link)
            await pilot.pause()
            seen["asked_again"] = _panel(screen, "#seats")
            await asyncio.to_thread(
                driver.on_claim_closed, "seat 2 (Blue) answered: the game goes on", link
            )
            await pilot.pause()
            seen["closed"] = _panel(screen, "#seats")
            seen["closed_keys"] = _panel(screen, "#keys")
            seen["closed_messages"] = _panel(screen, "#messages")
            await pilot.press("c")  # no question: c is the start of a typed move again
            await pilot.pause()
            try:
                seen["late_c"] = os.read(driver._r, 64)
            except BlockingIOError:
                seen["late_c"] = b""
            driver.close()
        return seen

    seen = asyncio.run(run())
    assert seen["claims_at_once"] is False
    assert ASKED in " ".join(seen["seats"].split())
    assert "c claim the game now" in seen["keys"] and "w wait" in seen["keys"]
    assert "claim the game now (c)" in seen["messages"]
    assert "has not answered" not in seen["after_w"]  # answered: the question is off screen
    assert seen["answers_w"] == ["wait"]
    assert seen["answers"] == ["wait", "claim"]
    assert "has not answered" in seen["asked_again"]
    assert "has not answered" not in seen["closed"]
    assert "c claim" not in seen["closed_keys"]
    assert "seat 2 (Blue) answered: the game goes on" in seen["closed_messages"]
    assert seen["late_c"] == b""  # nothing goes to the loop once the question is gone


def test_the_app_claims_at_once_only_when_it_has_no_screen_to_ask_on() -> None:
    @dataclass
    class _Gone:
        is_running: bool = False

    driver = AppDriver(_Gone())  # type: ignore[arg-type]
    try:
        assert driver.on_claim_offer(QUESTION, _Link()) is True
    finally:
        driver.close()


ASKED_4 = ClaimQuestion(
    2,
    "seat 3 (Green)",
    "its move",
    60,
    voted=("seat 2 (Blue)",),
    missing=("you", "seat 4 (Red)"),
    claims_in=60,
)


def test_the_question_shows_the_votes_and_counts_down_in_place() -> None:
    """A vote that comes while the person is asked changes the question where it stands (no new
    message); the seconds left before the program claims count down on the app's own tick."""

    clock = FakeClock()

    async def run() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with _game_screen(clock) as (pilot, driver, _table, screen):
            link = _Link()
            await asyncio.to_thread(driver.on_claim_offer, ASKED_4, link)
            await pilot.pause()
            seen["asked"] = _panel(screen, "#seats")
            # seat 4 votes 10 s later: the loop hands the driver the question, updated
            came = replace(
                ASKED_4,
                voted=("seat 2 (Blue)", "seat 4 (Red)"),
                missing=("you",),
                claims_in=50,
                came=("seat 4 (Red)",),
            )
            await asyncio.to_thread(driver.on_claim_votes, came, link)
            await pilot.pause()
            seen["voted"] = _panel(screen, "#seats")
            seen["messages"] = _panel(screen, "#messages")
            clock.now += 7.5  # 7.5 s after the vote (on the fake clock, whatever the load)
            screen._tick()  # the screen's one-second tick
            await pilot.pause()
            seen["later"] = _panel(screen, "#seats")
            seen["later_messages"] = _panel(screen, "#messages")
            await pilot.press("w")  # the person waits: the question goes
            await pilot.pause()
            # a vote while the person waits: no question to change, so one message says it
            waiting = replace(came, claims_in=None)  # the person chose to wait: no count-down
            await asyncio.to_thread(driver.on_claim_votes, waiting, link)
            await pilot.pause()
            seen["after_w"] = _panel(screen, "#seats")
            seen["after_w_messages"] = _panel(screen, "#messages")
            driver.close()
        return seen

    seen = asyncio.run(run())
    asked, voted, later = (" ".join(seen[k].split()) for k in ("asked", "voted", "later"))
    assert "Claim votes 1 of 3: seat 2 (Blue); still needed: you, seat 4 (Red)." in asked
    assert "Without an answer the game is claimed for you in 60 s." in asked
    assert "Claim votes 2 of 3: seat 2 (Blue), seat 4 (Red); still needed: you." in voted
    assert "1 of 3" not in voted and "in 50 s." in voted  # in place: the old state is gone
    assert voted.count("has not answered") == 1
    messages = " ".join(seen["messages"].split())
    assert messages.count("has not answered") == 1  # the question came once as a message
    assert "voted to claim" not in messages  # the vote changed the question, no new message
    # the message line keeps no copy of the votes or the count-down, which would go stale
    # beside the panel (a walkthrough saw "in 10 s" there while the panel said "in 5 s")
    later_messages = " ".join(seen["later_messages"].split())
    assert "claimed for you in" not in later_messages and "1 of 3" not in later_messages
    assert "seats panel" in later_messages
    assert "Without an answer the game is claimed for you in 43 s." in later, later  # 50 - 7
    assert "has not answered" not in seen["after_w"]
    assert (
        "seat 4 (Red) voted to claim the game from seat 3 (Green): 2 of 3 votes; still needed: you"
        in " ".join(seen["after_w_messages"].split())
    )
