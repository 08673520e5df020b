"""`zoo watch` with no invite: the LAN list in the app, and the game picked there watched (a
headless host on 127.0.0.1; the LAN's browse is a fake source that advertises it, as mDNS
would while its table has a free seat, or once it is full and played, since it admits
spectators, TRANSPORT.md §3.3: no multicast in the tests)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.net.harness import Procs, audit_file, log_len, procs, wait_for  # noqa: F401 - the fixture
from tests.tui.test_pick import FakeLan
from zoo_p2p.net.invite import Invite
from zoo_p2p.tui.app import PickApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.lobby import LobbyScreen
from zoo_p2p.tui.net import NetTable
from zoo_p2p.tui.pick import LanGame, Pick, PickScreen

DEADLINE = 240.0  # generous: the suite may share 2 cores with much else


class Done(Exception):
    """`zoo watch`'s body ran to its exit code (the test's stand-in for its exit)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _zoo_watch_pick(monkeypatch: pytest.MonkeyPatch, log: Path) -> dict[str, object]:
    """Run `zoo watch --log LOG` (no invite, the full screen) up to the app: what it hands the
    LAN list (the browse, the start of a pick, the paste check), instead of opening it."""
    from zoo_p2p.cli import netcmds, screen, watch

    handed: dict[str, object] = {}

    def run_join_picked(
        source: object, start: object, *, check: object = None, watch: bool = False
    ) -> int:  # zoo_p2p.tui.run's
        handed.update(source=source, start=start, check=check, watch=watch)
        return 0

    def exit_with(run: Callable[[], int]) -> None:
        raise Done(run())

    monkeypatch.setattr(screen, "use_plain", lambda plain: False)
    monkeypatch.setattr(
        screen, "tui_entry", lambda name: run_join_picked if name == "run_join_picked" else None
    )
    monkeypatch.setattr(netcmds, "exit_with", exit_with)
    with pytest.raises(Done) as done:
        watch.watch_main(invite=None, log=log, give_up=30, quiet=True, verbose=False, plain=False)
    assert done.value.code == 0
    return handed


def test_a_game_on_the_lan_list_picked_is_watched_to_its_end(
    procs: Procs,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zoo_p2p.cli import lan

    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.05")
    mine = procs.tmp / "watcher.zoolog"
    handed = _zoo_watch_pick(monkeypatch, mine)
    assert handed["source"] is lan.lan_source  # the real browse (mDNS), faked below
    assert handed["watch"] is True  # the list lets a full game be picked
    start = handed["start"]
    check = handed["check"]
    assert callable(start) and callable(check)
    fp = Invite.parse(invite).fingerprint
    advertised = LanGame("host", fp, 1, 2, "standard", invite)
    lan_list = FakeLan(advertised)
    seen: dict[str, str] = {}

    async def watch() -> int | None:
        app = PickApp(Pick(source=lan_list, start=start, check=check), glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.monotonic() + DEADLINE
            await pilot.pause()
            assert isinstance(app.screen, PickScreen)
            seen["list"] = screen_text(app)
            await pilot.press("enter")  # the first game with a free seat is highlighted
            bot = None
            while time.monotonic() < deadline:
                await pilot.pause(0.05)  # the watch runs in its worker thread: poll, bounded
                lobby = app.lobby
                admitted = isinstance(app.screen, LobbyScreen) and lobby is not None and lobby.seen
                if bot is None and admitted:  # the host's lobby has come (1 of 2 seats)
                    seen["lobby"] = screen_text(app)
                    bot = procs.bot(invite, "bot", "--delay", "0.05")
                table = app.table
                ended = isinstance(table, NetTable) and table.state.is_terminal()
                if app.net_code is not None and ended:
                    break
            else:
                raise AssertionError("the watched game did not end in time")
            assert bot is not None
            assert procs.wait(bot, "bot") == 0, procs.text("bot")
            seen["end"] = screen_text(app)
            await pilot.press("q", "q")
        return app.net_code

    code = asyncio.run(watch())
    assert code == 0
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert "host" in seen["list"] and fp in seen["list"] and "1 of 2 free" in seen["list"]
    assert "1 of 2 seats" in seen["lobby"], seen["lobby"]
    assert lan_list.stops == len(lan_list.reports) == 1  # the browse stopped once picked
    assert procs.log("watcher") == procs.log("host") == procs.log("bot")
    assert audit_file(mine).verdict == "ok"  # type: ignore[attr-defined]


def test_a_full_game_on_the_lan_list_is_picked_and_watched_from_the_middle(
    procs: Procs,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both seats taken and the game under way: the advert says 2 of 2 taken (its host admits
    spectators, so the advert stays, §3.3); `zoo watch`'s list offers it all the same, Enter
    picks it, and the spectator catches up from the genesis and watches it to its end, its
    log the seats' very bytes."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.2")
    bot = procs.bot(invite, "bot", "--delay", "0.2")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 12, 60, "the game under way")
    mine = procs.tmp / "watcher.zoolog"
    handed = _zoo_watch_pick(monkeypatch, mine)
    start, check = handed["start"], handed["check"]
    assert callable(start) and callable(check) and handed["watch"] is True
    fp = Invite.parse(invite).fingerprint
    lan_list = FakeLan(LanGame("host", fp, 2, 2, "standard", invite))
    seen: dict[str, str] = {}

    async def watch() -> int | None:
        app = PickApp(Pick(source=lan_list, start=start, check=check, watch=True), glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.monotonic() + DEADLINE
            await pilot.pause()
            assert isinstance(app.screen, PickScreen)
            app.screen.show()  # what its timer does: the list drawn with the advert
            await pilot.pause()
            seen["list"] = screen_text(app)
            await pilot.press("enter")  # the full game is highlighted: it can be watched
            while time.monotonic() < deadline:
                await pilot.pause(0.05)  # the watch runs in its worker thread: poll, bounded
                table = app.table
                ended = isinstance(table, NetTable) and table.state.is_terminal()
                if app.net_code is not None and ended:
                    break
            else:
                raise AssertionError("the watched game did not end in time")
            await pilot.press("q", "q")
        return app.net_code

    code = asyncio.run(watch())
    assert code == 0
    assert procs.wait(bot, "bot") == 0, procs.text("bot")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert "full (2/2)" in seen["list"] and fp in seen["list"], seen["list"]
    assert lan_list.stops == len(lan_list.reports) == 1  # the browse stopped once picked
    assert procs.log("watcher") == procs.log("host") == procs.log("bot")
    assert audit_file(mine).verdict == "ok"  # type: ignore[attr-defined]
