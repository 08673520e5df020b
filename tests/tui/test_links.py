"""The seats panel of a network game says how we hear every seat: "direct" when its direct link
(the mesh, TRANSPORT.md §10) is up, else through the host, from the same facts as the end
line's "direct links"."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from textual.widgets import Static

from tests.tui.conftest import local_table
from zoo_p2p.net.gossip import HEAD_EVERY
from zoo_p2p.net.memmesh import MemoryMesh
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.rules import Team
from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import AppDriver, NetTable, Snapshot, seat_links


@dataclass
class _Mesh:
    heard: dict[int, str | None]
    deaf: frozenset[int] = frozenset()  # seats whose heads say they do not hear us directly

    def links(self) -> dict[int, str | None]:
        return self.heard

    def hears(self, seat: int, author: int) -> bool:
        return seat not in self.deaf


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
    # we hear the host directly but it does not hear us: not "direct" (its end could not say so)
    oneway = _Link(_Session(SEATS, 1), _Mesh({0: "tcp://10.0.0.1:5000"}, frozenset({0})))
    assert seat_links(oneway) == ("host link", "", "")  # type: ignore[arg-type]
    assert seat_links(_Link(_Session(SEATS, 1), None)) is None  # type: ignore[arg-type]
    assert seat_links(_Link(None, _Mesh({}))) is None  # type: ignore[arg-type]


def test_the_seats_panel_shows_each_seats_link_and_follows_it() -> None:
    async def run() -> tuple[str, str]:
        app = NetworkApp(glyphs=UTF8)
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
    them = _seat(before, "them (Blue)")
    assert "host link" in them and "direct" not in them
    me = _seat(after, "me (Yellow)")
    assert "direct" not in me and "host link" not in me  # our own seat
    them = _seat(after, "them (Blue)")
    assert "direct" in them and "host link" not in them


def _seat(panel: str, name: str) -> str:
    """A seat's lines in the seats panel: its name line, then the indented lines under it."""
    lines = panel.splitlines()
    i = next(n for n, line in enumerate(lines) if name in line)
    out = [lines[i]]
    for line in lines[i + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line)
    return "\n".join(out)


def test_over_tor_the_panel_and_title_say_so() -> None:
    """Issue 22: a direct link at an onion reads "direct, Tor" (TRANSPORT.md §10.9), and the
    game's title says the route in words."""
    onion = "zoo" * 18 + "qd.onion"
    joiner = _Link(_Session(SEATS, 1), _Mesh({0: f"tcp://{onion}:5000", 2: None}))
    assert seat_links(joiner) == ("direct, Tor", "", "via host")  # type: ignore[arg-type]

    async def run() -> tuple[str, str]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(120, 40)):
            st = local_table().state
            snap = Snapshot(st, ["me", "them"], 0, False, None, None, "/tmp/x.zoolog")
            hidden = NetTable(AppDriver(app), replace(snap, over_tor=True))
            plain = NetTable(AppDriver(app), snap)
            for t in (hidden, plain):
                t.driver.close()
            return hidden.title, plain.title

    hidden, plain = asyncio.run(run())
    assert hidden == "network game over Tor (your address is hidden)"
    assert plain == "network game"


class _Heard:
    """A `MemoryMesh` read as the app reads a real one (at the fake clock's `now`)."""

    def __init__(self, mesh: MemoryMesh, now: float) -> None:
        self.mesh, self.now = mesh, now

    def links(self) -> dict[int, str | None]:
        return self.mesh.links()

    def hears(self, seat: int, author: int) -> bool:
        return self.mesh.hears(seat, author, self.now)


def test_both_ends_of_a_link_name_it_the_same() -> None:
    """Issue 20 item 9: a joiner saw the other as "direct" while the other saw it as "via
    host". Two joiners' meshes (seats 2 and 3, on a fake clock): seat 2 hears seat 3 directly,
    seat 3 cannot reach seat 2. Both must name that link alike ("via host": one way goes
    through the host), and "direct" at both ends once it is direct both ways."""
    from tests.net.test_mesh_core import T0, _card, _game, _mesh

    game = _game(2)
    _, two = _mesh(game, 1)
    _, three = _mesh(game, 2)
    for m, other in ((two, 2), (three, 1)):
        m.tunnel(0, _card(game, other, 7, f"tcp://10.0.0.{other + 1}:5000"), T0)

    def names(now: float) -> tuple[str, str]:
        at_two = seat_links(_Link(game.sessions[1], _Heard(two, now)))  # type: ignore[arg-type]
        at_three = seat_links(_Link(game.sessions[2], _Heard(three, now)))  # type: ignore[arg-type]
        assert at_two is not None and at_three is not None
        return at_two[2], at_three[1]

    now = T0
    for _ in range(4):  # a few head rounds: only three -> two gets through
        now += HEAD_EVERY
        for frame in three.turn(now):
            two.receive(2, frame, now)
        two.turn(now)
    assert two.links()[2] is not None and three.links()[1] is None  # one way only
    assert names(now) == ("via host", "via host")

    for _ in range(4):  # now both ways
        now += HEAD_EVERY
        for frame in three.turn(now):
            two.receive(2, frame, now)
        for frame in two.turn(now):
            three.receive(1, frame, now)
    assert names(now) == ("direct", "direct")
