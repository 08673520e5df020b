"""A network game in the app: a headless host with a bot seat on 127.0.0.1, and this process
joining through the app's driver (the peer loop in a worker thread, moves through the pipe)."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from tests.net.harness import Procs, audit_file, procs  # noqa: F401 - the fixture
from zoo_p2p.driver import Driver
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import NetTable
from zoo_p2p.tui.over import GameOverScreen

DEADLINE = 240.0  # generous: the suite may share 2 cores with much else
# The played game is bounded by its step, not its length: it must move on (a new move, or the
# verdict after the last) within STALL s, or it is stuck. The game itself is finite (this
# pairing ends within about 55 plies), but each of our moves is six keys through the pilot,
# each waited on until the app is idle, and a shared CI machine made a long game outlast a
# fixed 240 s for the whole of it although nothing was stuck; a stuck step still fails, sooner.
STALL = 120.0
# The game's own clocks (PROTOCOL.md §10), long enough that a starved test process is never
# claimed against: with the default 15 s per reveal, a loaded machine let the host claim the
# game from the app's seat before it signed the result, and the app never saw "verified".
REVEAL_TIME = 600
LINK_WORDS = (" direct", " host link")  # how the seats panel says we hear a seat


def test_a_network_game_played_in_the_app(procs: Procs) -> None:  # noqa: F811
    from zoo_p2p.cli.joining import run_join

    host, invite = procs.host(
        "--players", "2", "--bot", "greedy", "--give-up", "30", "--reveal-time", str(REVEAL_TIME)
    )
    mine = procs.tmp / "app.zoolog"

    def start(driver: Driver, console: Console) -> int:
        return run_join(
            invite,
            name="[b]app[/b]",
            team=None,
            log_path=mine,
            identity=None,
            give_up=30,
            driver=driver,
            console=console,
            ephemeral=True,
        )

    shown_log: list[str | None] = []
    seen_name: list[bool] = []
    seen_links: list[str] = []  # the seats panel's word for the host's seat, at each of our turns

    async def play() -> tuple[int, str, int]:
        app = NetworkApp(start, glyphs=UTF8)
        moves = 0

        def stuck(what: str) -> AssertionError:
            said = "\n".join(t.plain for t in app.runner_lines)
            return AssertionError(
                f"{what}\n--- the app's peer said\n{said}\n--- its screen\n"
                f"{screen_text(app)}\n{procs.text('host')}"
            )

        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.monotonic() + STALL  # moved on below at each step of the game
            plies = -1
            verdict = ""
            while True:
                await pilot.pause(0.05)  # the peer loop runs in its thread: poll, bounded
                table = app.table
                if not isinstance(table, NetTable) or table.ui is None:
                    if time.monotonic() > deadline:
                        raise stuck(f"the game did not start in {STALL:.0f} s")
                    continue
                st = table.state
                if len(st.history) != plies:  # a move: the game moves on
                    plies = len(st.history)
                    deadline = time.monotonic() + STALL
                if app.net_code is not None and not st.is_terminal():
                    # the peer's run ended (its last update came before): nothing more comes
                    raise stuck(f"the peer's run ended ({app.net_code}) with the game unfinished")
                if st.is_terminal():
                    if isinstance(app.screen, GameOverScreen):
                        verdict = table.ending().verdict.plain
                        shown_log[:] = [table.ending().log_path]
                        if app.net_code is not None and verdict.startswith("verified"):
                            break
                    if time.monotonic() > deadline:
                        raise stuck(f"no verdict {STALL:.0f} s after the last move (ply {plies})")
                    continue
                if time.monotonic() > deadline:
                    raise stuck(f"the game did not move on for {STALL:.0f} s after ply {plies}")
                if table.my_turn() and isinstance(app.screen, GameScreen):
                    if not moves:  # a peer-supplied name with markup shows literally
                        # once the game screen is drawn: our turn comes as the screen mounts,
                        # and a loaded machine may not have drawn it yet (the check then read a
                        # blank screen: CI-like runs under load failed so)
                        drawn = time.monotonic() + 20
                        while "your turn" not in screen_text(app) and time.monotonic() < drawn:
                            await pilot.pause(0.05)
                        seen_name.append("[b]app[/b] (" in screen_text(app))
                    rows = str(app.screen.query_one("#seats", Static).content).splitlines()
                    block = [rows[0], *itertools.takewhile(lambda r: r.startswith("  "), rows[1:])]
                    first = "\n".join(block)  # the first seat: its name line, the lines under
                    seen_links.append(next((w for w in LINK_WORDS if w in first), first))
                    n = len(st.history)
                    move = str(st.legal_moves()[0])
                    await pilot.press("tab", *move, "enter")
                    while len(table.state.history) == n:
                        if time.monotonic() > deadline:
                            raise stuck(f"our move {move}, typed, was not played")
                        await pilot.pause(0.05)
                    moves += 1
                    if isinstance(app.screen, GameScreen):
                        app.screen.query_one("#board").focus()
            await pilot.press("q", "q")  # q asks, q leaves
        return app.return_code or 0, verdict, moves

    code, verdict, moves = asyncio.run(play())
    assert moves >= 3
    assert verdict.startswith("verified"), verdict
    assert code == 0
    assert procs.wait(host, "host") == 0
    assert audit_file(mine).verdict == "ok"  # type: ignore[attr-defined]
    assert shown_log == [str(mine)]
    assert seen_name == [True]
    # on 127.0.0.1 our direct link to the host comes up at once: the panel says so (issue 11)
    assert " direct" in seen_links, seen_links
    assert set(seen_links) <= set(LINK_WORDS), seen_links


def test_hosting_in_the_app_then_a_rematch(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`zoo play` in the app: we host, a bot peer joins over loopback, the game ends verified;
    one key starts the same command again: a new game with the same seats."""
    from zoo_p2p.cli.runners import HostPlan, run_host
    from zoo_p2p.rules import Variant

    monkeypatch.setenv("ZOO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ZOO_BOT_DELAY", "0")

    def start(driver: Driver, console: Console) -> int:
        plan = HostPlan(
            players=2,
            variant=Variant.STANDARD,
            first=None,
            port=0,
            bind="127.0.0.1",
            address=None,
            log_path=None,
            name="me",
            team=None,
            bots=1,
            level="greedy",
            think=None,
            invite_file=None,
            curve=True,
            identity=None,
            give_up=30,
            announce=False,
            reveal_time=REVEAL_TIME,
        )
        return run_host(plan, driver, console)

    async def play() -> tuple[str, bool]:
        app = NetworkApp(start, glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            deadline = time.monotonic() + DEADLINE
            first: NetTable | None = None
            while time.monotonic() < deadline:
                await pilot.pause(0.05)  # the peer loop runs in its thread: poll, bounded
                table = app.table
                if not isinstance(table, NetTable) or table.ui is None:
                    continue
                if first is not None and table is not first:
                    break  # the rematch is on
                st = table.state
                if st.is_terminal():
                    if isinstance(app.screen, GameOverScreen) and table.can_rematch:
                        first = table
                        verdict = table.ending().verdict.plain
                        await pilot.press("r")
                    continue
                if table.my_turn() and isinstance(app.screen, GameScreen):
                    n = len(st.history)
                    assert table.submit(st.legal_moves()[0]) is None
                    while time.monotonic() < deadline and len(table.state.history) == n:
                        await pilot.pause(0.05)
            else:
                raise AssertionError("no rematch in time")
            fresh = isinstance(app.table, NetTable) and len(app.table.state.history) <= 1
            await pilot.press("q", "q")
            while time.monotonic() < deadline and app.is_running:
                await pilot.pause(0.05)  # leaving lets the peer save its log first
        return verdict, fresh

    verdict, fresh = asyncio.run(play())
    assert verdict.startswith("verified"), verdict
    assert fresh
