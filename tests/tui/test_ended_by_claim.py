"""A network game can end without a final position: a claim (a seat's clock ran out), a
two-seat resignation. The app said only "the game link has closed (q leaves; zoo resume goes
on)" there, so the claimed seat's player was told to resume a game that had ended, and never
saw how it ended (the runner's "ended: …" line scrolled out of the two message lines)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from tests.tui.netscreen import net_game, session_of
from zoo_p2p.protocol.session import Session
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.net import Snapshot, snapshot

CLAIMED = Path(__file__).parents[2] / "replays" / "2p-standard-claimed-move.zoolog"


def _claimed_session(upto: int | None = None) -> Session:
    return session_of(CLAIMED, upto)


def _link(session: Session) -> SimpleNamespace:
    """The part of a peer that `snapshot` reads: its session, no direct links, no log yet."""
    return SimpleNamespace(session=session, mesh=None, mesh_log_path=lambda: None)


def test_the_snapshot_of_a_claimed_game_says_how_it_ended() -> None:
    snap = snapshot(_link(_claimed_session()))  # type: ignore[arg-type]
    assert snap.finished and snap.state is not None and not snap.state.is_terminal()
    assert snap.ended is not None and "did not move within 120 s" in snap.ended
    assert "seat 1 (Green) wins" in snap.ended
    unfinished = snapshot(_link(_claimed_session(-2)))  # type: ignore[arg-type]
    assert unfinished.ended is None


def _screen(snap: Snapshot) -> tuple[str, str]:
    async def run() -> tuple[str, str]:
        async with net_game(snap) as (app, pilot, _table):
            live = screen_text(app)
            app.net_done(0)  # the peer's run ended after the claim
            await pilot.pause()
            after = screen_text(app)
        return live, after

    return asyncio.run(run())


def test_the_app_says_the_game_ended_by_a_claim_not_resume() -> None:
    session = _claimed_session()
    snap = snapshot(_link(session))  # type: ignore[arg-type]
    for seat in (0, 1):  # the claimer and the claimed seat
        live, after = _screen(Snapshot(**{**snap.__dict__, "seat": seat}))
        for shot in (live, after):
            top = shot.splitlines()[0]
            assert "game over" in top, top
            assert "zoo resume" not in shot and "waiting for" not in top
            assert "did not move within 120 s" in shot  # in the moves panel too
            assert "your turn" not in top
            hand_bar = [ln.split("│")[0].strip() for ln in shot.splitlines()[1:]]
            assert "game over" in hand_bar and "hand: (not your turn)" not in shot
            keys = shot.splitlines()[-1]  # no move to make: the keys line offers none
            assert "the game is over" in keys and "q leave" in keys, keys
            assert "hand" not in keys and "moves" not in keys, keys


def test_the_status_line_shows_a_long_ending_whole_at_80_and_120_columns() -> None:
    """The ending of a claimed game is longer than a line: the status wraps it at the terminal's
    width (it was cut at the edge; only the moves panel had it whole)."""
    snap = snapshot(_link(_claimed_session()))  # type: ignore[arg-type]
    assert snap.ended is not None and len(snap.ended) > 100

    async def status(width: int) -> str:
        async with net_game(snap, size=(width, 30)) as (app, _pilot, _table):
            lines = screen_text(app).splitlines()
        head = lines[: next(i for i, ln in enumerate(lines) if ln.split()[:5] == list("ABCDE"))]
        assert all(len(ln) <= width for ln in head)
        return " ".join(ln.strip() for ln in head)

    for width in (80, 120):
        said = asyncio.run(status(width))
        assert "game over" in said and snap.ended in said, (width, said)
