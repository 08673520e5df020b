"""The game screen of a network game can open after moves were played (a joiner whose screen
opens after the first move, a resumed game, a catch-up of several moves at once). Its moves
panel showed those moves bare (`  1 6@D1`) while the host's panel narrated them
(`greedy bot 1 (Blue) sends 6@D1 and takes a 4…`): now they are narrated alike, from the
positions replayed from the log."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from tests.tui.netscreen import net_game, session_of
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import short_narrate
from zoo_p2p.tui.net import Snapshot, snapshot
from zoo_p2p.tui.replay import load

LOG = Path(__file__).parents[2] / "replays" / "3p-standard.zoolog"
ME = 1  # a joiner's seat


def _snap(upto: int) -> Snapshot:
    """Seat ME's view of the game after the log's first `upto` entries."""
    session = session_of(LOG, upto)
    link = SimpleNamespace(session=session, mesh=None, mesh_log_path=lambda: None)
    snap = snapshot(link)  # type: ignore[arg-type,unused-ignore]
    return Snapshot(**{**snap.__dict__, "seat": ME})


def _expected(moves: int) -> list[str]:
    """The moves panel's lines of the first `moves` moves, as a screen that saw each one
    says them (the whole sentence of the last one is the message line's)."""
    data = load(LOG)
    out = []
    for before, after in zip(data.frames[:moves], data.frames[1 : moves + 1], strict=True):
        assert after.move is not None
        out.append(short_narrate(before.state, after.state, after.move, data.names, ME).plain)
    return out


def _entries_for(moves: int, *, settled: bool) -> int:
    """How many entries hold `moves` moves: all settled, or the last one's reveals not in."""
    entries = read_log(LOG).entries
    session = Session(entries[0])
    for n, raw in enumerate(entries[1:], 2):
        session.receive(raw)
        st = session.state
        if st is not None and len(st.history) == moves and (st.needs is None) == settled:
            return n
    raise AssertionError(f"no point with {moves} moves in {LOG}")


def _panel(snap: Snapshot, later: Snapshot | None = None) -> str:
    async def run() -> str:
        async with net_game(snap, (200, 50)) as (app, pilot, table):
            if later is not None:
                table.update(later)
                await pilot.pause()
            shot = screen_text(app)
        return shot

    return asyncio.run(run())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_moves_played_before_the_screen_opened_are_narrated() -> None:
    snap = _snap(_entries_for(4, settled=True))
    assert snap.state is not None and len(snap.state.history) == 4
    shot = _flat(_panel(snap))
    want = _expected(4)
    assert len(want) == 4
    for n, line in enumerate(want, 1):
        assert _flat(f"{n:>3} {line}") in shot, (line, shot)


def test_a_move_whose_reveals_come_after_the_screen_opened_is_narrated_once_they_do() -> None:
    early = _snap(_entries_for(3, settled=False))  # move 3 is in, its reveals are not
    later = _snap(_entries_for(3, settled=True))
    assert early.state is not None and early.state.needs is not None
    shot = _flat(_panel(early, later))
    want = _expected(3)
    for n, line in enumerate(want, 1):
        assert _flat(f"{n:>3} {line}") in shot, (line, shot)
    assert shot.count(_flat(want[2])) == 1, shot  # once, not also bare before its reveals


def test_several_moves_caught_up_at_once_are_narrated() -> None:
    early = _snap(_entries_for(1, settled=True))
    later = _snap(_entries_for(4, settled=True))
    shot = _flat(_panel(early, later))
    for n, line in enumerate(_expected(4), 1):
        assert _flat(f"{n:>3} {line}") in shot, (line, shot)
