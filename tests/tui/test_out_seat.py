"""A seat put out by a claim that played on (PROTOCOL.md §10.7) is marked wherever seats are
shown: the app's seats panel says "out at entry N, a stand-in plays on" in place of its presence
("left"), the status line says whose stand-in is awaited, and the seat that was replaced is told
so on the status line; the plain mode says the re-deal in words and marks the out seat's turn.
Before, every front end showed the out seat as a player who had merely left."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from tests.tui.netscreen import net_game, session_of
from zoo_p2p.cli.plain import PlainDriver
from zoo_p2p.protocol.events import Event
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.game import GameScreen
from zoo_p2p.tui.net import Snapshot, play_on_words, snapshot

HOST_OUT = Path(__file__).parents[2] / "replays" / "4p-standard-play-on-host.zoolog"
CLAIM = 64  # the host (seat 1, index 0) is claimed out at this entry
HOST_MOVE = 68  # after these entries the floor is the out host's move (its stand-in's)


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


def test_the_snapshot_carries_who_is_out_and_whether_we_were_replaced() -> None:
    snap = snapshot(_link(session_of(HOST_OUT, HOST_MOVE)))
    assert snap.out == ((0, CLAIM),)
    assert snap.replaced_at is None
    before = snapshot(_link(session_of(HOST_OUT, CLAIM)))
    assert before.out == ()


def test_the_seats_panel_and_status_line_mark_the_out_seat() -> None:
    snap = snapshot(_link(session_of(HOST_OUT, HOST_MOVE)))
    shot = _screen(Snapshot(**{**snap.__dict__, "seat": 1}), ["left", "", "", ""])
    assert "out at entry 64, a stand-in plays on" in shot
    top = shot.splitlines()[0]
    assert "waiting for" in top and "(out at entry 64, a stand-in plays on)" in top, top
    assert "left" not in shot.split("out at entry 64")[0].splitlines()[-1]  # not "left"


def test_the_replaced_seat_is_told_on_the_status_line() -> None:
    snap = snapshot(_link(session_of(HOST_OUT, HOST_MOVE)))
    shot = _screen(Snapshot(**{**snap.__dict__, "seat": None, "replaced_at": CLAIM}))
    top = shot.splitlines()[0]
    assert "you were replaced at entry 64" in top, top
    assert "your turn" not in top


def test_the_app_and_the_plain_mode_say_the_re_deal_in_words() -> None:
    entries = read_log(HOST_OUT).entries
    session = session_of(HOST_OUT, CLAIM)
    out = io.StringIO()
    d = PlainDriver(Console(file=out, width=400, no_color=True), stdin_fd=0)
    link = SimpleNamespace(session=session, my_turn=False, awaited=lambda: [])
    d.on_started(link)
    events: list[Event] = []
    for raw in entries[CLAIM:HOST_MOVE]:
        events += session.receive(raw)
    said = play_on_words(link, events)
    assert len(said) == 1 and "stopped answering at entry 64; a stand-in plays on" in said[0]
    assert "re-dealt by seats 2, 3 and 4" in said[0]
    d.on_events(events, link)
    text = out.getvalue()
    assert said[0] in text.replace("\n", "")
    for raw in entries[HOST_MOVE:]:  # on to the end: the stand-in's turns come round
        d.on_events(session.receive(raw), link)  # type: ignore[arg-type]
    text = out.getvalue()
    assert "to move (out at entry 64, a stand-in plays on)" in text  # its stand-in's turn
    assert "Yellow) to move…" not in text.split("stopped answering at entry 64")[1]
