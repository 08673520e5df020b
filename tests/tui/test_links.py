"""The seats panel of a network game says how we hear every seat: "direct" when its direct link
(the mesh, TRANSPORT.md §10) is up, else through the host, from the same facts as the end
line's "direct links"."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from textual.widgets import Static

from tests.tui.conftest import local_table
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.rules import Team
from zoo_p2p.tui.app import ZooApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot, seat_links


@dataclass
class _Mesh:
    heard: dict[int, str | None]

    def links(self) -> dict[int, str | None]:
        return self.heard


@dataclass
class _Session:
    seats: list[SeatInfo]
    seat: int | None


@dataclass
class _Link:
    session: _Session | None
    mesh: _Mesh | None


SEATS = [
    SeatInfo("a", bytes(32), Team.YELLOW),
    SeatInfo("b", bytes(32), Team.BLUE),
    SeatInfo("c", bytes(32), Team.GREEN),
]


def test_seat_links_reads_the_mesh_as_the_end_line_does() -> None:
    # a joiner in seat 2: hears the host directly, seat 3 only through the host
    joiner = _Link(_Session(SEATS, 1), _Mesh({0: "tcp://10.0.0.1:5000", 2: None}))
    assert seat_links(joiner) == ("direct", "", "via host")  # type: ignore[arg-type]
    # the host: seat 2 has no direct link (its own host link), seat 3's card not come yet
    host = _Link(_Session(SEATS, 0), _Mesh({1: None}))
    assert seat_links(host) == ("", "host link", "")  # type: ignore[arg-type]
    # a joiner without a direct link to the host: the host link, never "via host"
    alone = seat_links(_Link(_Session(SEATS, 2), _Mesh({0: None})))  # type: ignore[arg-type]
    assert alone is not None and alone[0] == "host link"
    assert seat_links(_Link(_Session(SEATS, 1), None)) is None  # type: ignore[arg-type]
    assert seat_links(_Link(None, _Mesh({}))) is None  # type: ignore[arg-type]


def test_the_seats_panel_shows_each_seats_link_and_follows_it() -> None:
    async def run() -> tuple[str, str]:
        app = ZooApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)) as pilot:
            st = local_table().state
            snap = Snapshot(st, ["me", "them"], 0, False, None, None, "/tmp/x.zoolog")
            table = NetTable(AppDriver(app), replace(snap, links=("", "host link")))
            screen = GameScreen(table, UTF8)
            await app.push_screen(screen)
            await pilot.pause()
            before = str(screen.query_one("#seats", Static).content)
            table.update(replace(snap, links=("", "direct")))  # its direct link came up
            await pilot.pause()
            after = str(screen.query_one("#seats", Static).content)
            table.driver.close()
            return before, after

    before, after = asyncio.run(run())
    them = next(line for line in before.splitlines() if "them (Blue)" in line)
    assert "host link" in them and "direct" not in them
    me = next(line for line in after.splitlines() if "me (Yellow)" in line)
    assert "direct" not in me and "host link" not in me  # our own seat
    them = next(line for line in after.splitlines() if "them (Blue)" in line)
    assert "direct" in them and "host link" not in them
