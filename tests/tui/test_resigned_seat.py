"""A seat that resigned at 3–4 seats (PROTOCOL.md §10.4) is marked as a seat put out by a claim
is (tests/tui/test_out_seat.py): the app's seats panel says "resigned at entry N, a stand-in
plays on" in place of its presence ("left"), the status line says its stand-in is awaited on its
turn, and the plain mode marks its turns. Before, the panel showed it as a player who had merely
left, and the status line waited for it as if it would answer."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from tests.tui.netscreen import net_game, session_of
from zoo_p2p.cli.plain import PlainDriver
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import Snapshot, snapshot

REPLAYS = Path(__file__).parents[2] / "replays"
RESIGNED = REPLAYS / "3p-standard-resigned.zoolog"
RESIGN = 27  # seat 2 (Blue, index 1) resigned at this entry; a stand-in plays it on
STAND_IN_MOVE = 32  # after these entries the floor is the resigned seat's move (its stand-in's)
NOTE = "resigned at entry 27, a stand-in plays on"


def _link(session: Session) -> SimpleNamespace:
    return SimpleNamespace(session=session, mesh=None, mesh_log_path=lambda: None)


def _screen(snap: Snapshot, notes: list[str] | None = None) -> str:
    async def run() -> str:
        async with net_game(snap) as (app, pilot, table):
            if notes is not None:
                table.seat_notes = notes
                screen = app.screen
                assert isinstance(screen, GameScreen)
                screen.show()
                await pilot.pause()
            return screen_text(app)  # type: ignore[arg-type]

    return asyncio.run(run())


def test_the_snapshot_carries_who_resigned() -> None:
    assert snapshot(_link(session_of(RESIGNED, STAND_IN_MOVE))).resigned == ((1, RESIGN),)
    assert snapshot(_link(session_of(RESIGNED, RESIGN))).resigned == ()  # not yet in the log
    # at 2 seats a resignation ends the game: no stand-in plays on, nothing to mark
    assert snapshot(_link(session_of(REPLAYS / "2p-standard-resigned.zoolog"))).resigned == ()


def test_the_seats_panel_and_status_line_mark_the_resigned_seat() -> None:
    snap = snapshot(_link(session_of(RESIGNED, STAND_IN_MOVE)))
    shot = _screen(Snapshot(**{**snap.__dict__, "seat": 0}), ["", "left", ""])
    assert NOTE in shot, shot
    assert "left" not in shot.split(NOTE)[0].splitlines()[-1]  # in place of "left"
    top = shot.splitlines()[0]
    assert "waiting for" in top and f"({NOTE})" in top, top


def test_before_the_resignation_the_seat_is_not_marked() -> None:
    snap = snapshot(_link(session_of(RESIGNED, RESIGN)))
    shot = _screen(Snapshot(**{**snap.__dict__, "seat": 0}), ["", "left", ""])
    assert "resigned at entry" not in shot and "left" in shot


def test_the_plain_mode_marks_the_resigned_seats_turns() -> None:
    entries = read_log(RESIGNED).entries
    session = session_of(RESIGNED, RESIGN)
    out = io.StringIO()
    d = PlainDriver(Console(file=out, width=400, no_color=True), stdin_fd=0)
    link = SimpleNamespace(session=session, my_turn=False, awaited=lambda: [])
    d.on_started(link)  # type: ignore[arg-type]
    for raw in entries[RESIGN:]:
        d.on_events(session.receive(raw), link)  # type: ignore[arg-type]
    text = out.getvalue()
    assert f"Brice (Blue) to move ({NOTE})" in text.replace("seat 2 ", ""), text
    assert "(Blue) to move…" not in text
