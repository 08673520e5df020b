"""A game that never started (PROTOCOL.md §10.5): a claim against a seat that signed nothing, or
a log that stops at such a seat's first commit. `zoo verify`, `zoo replay`, the export and the
host's closing lines say "never started … no result", never a win, and offer no `zoo resume`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.cli.runners import finish
from zoo_p2p.driver import NullDriver, Outcome
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.liveness_samples import _game, never_started_game
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import broadcast
from zoo_p2p.storage import write_log
from zoo_p2p.text import seat_word
from zoo_p2p.tui.replay import verdict_text


def _who(s: Session, seat: int) -> str:
    return seat_word(seat, s.seats[seat].team.name.capitalize())


@pytest.fixture
def claimed(tmp_path: Path) -> tuple[Path, Session]:
    """A complete 2-seat log: seat 2 never committed, seat 1 claimed."""
    game, _ = never_started_game(2)
    path = tmp_path / "claimed.zoolog"
    write_log(path, game.sessions[0].entries)
    return path, game.sessions[0]


@pytest.fixture
def stopped(tmp_path: Path) -> tuple[Path, Session]:
    """A 3-seat log that stops while seat 2 (which signed nothing) owes its commit."""
    game, _ = _game(3, "stops")
    (c,) = game.sessions[0].take_outgoing()
    broadcast(game, 0, c)
    path = tmp_path / "stopped.zoolog"
    write_log(path, game.sessions[0].entries)
    return path, game.sessions[0]


def _no_win(text: str) -> None:
    assert "win" not in text and "won by" not in text and "scores" not in text, text


def test_verify_says_never_started_and_no_result(
    claimed: tuple[Path, Session], stopped: tuple[Path, Session]
) -> None:
    runner = CliRunner()
    path, s = claimed
    out = runner.invoke(app, ["verify", str(path)])
    assert out.exit_code == 0, out.output  # the claim ends the log: verdict ok
    flat = " ".join(out.output.split())
    assert f"never started: {_who(s, 1)} signed nothing in this game" in flat, out.output
    assert "no result" in flat
    _no_win(flat)
    got = json.loads(runner.invoke(app, ["verify", "--json", str(path)]).output)[0]
    assert got["verdict"] == "ok" and got["winners"] == [] and got["scores"] is None
    assert got["ending"]["kind"] == "never_started" and got["ending"]["seat"] == 1
    path, s = stopped
    out = runner.invoke(app, ["verify", str(path)])
    assert out.exit_code == 3, out.output  # incomplete
    flat = " ".join(out.output.split())
    assert f"from {_who(s, 1)}, which signed nothing in this game: never started, no result" in flat
    _no_win(flat)


@pytest.mark.parametrize("dump", [True, False])
def test_replay_ends_with_never_started(claimed: tuple[Path, Session], dump: bool) -> None:
    path, s = claimed
    out = CliRunner().invoke(app, ["replay", str(path), "--plain", *(["--dump"] if dump else [])])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert f"never started: {_who(s, 1)} signed nothing in this game" in flat, out.output
    assert "; no result" in flat
    _no_win(flat)
    shown = verdict_text(audit(s.entries)).plain  # the full-screen replay's audit box
    assert shown.startswith("verified") and "never started" in shown and "no result" in shown


def test_export_says_the_game_never_started(claimed: tuple[Path, Session], tmp_path: Path) -> None:
    path, _ = claimed
    out = CliRunner().invoke(app, ["replay", str(path), "--text", str(tmp_path / "x.txt")])
    assert out.exit_code == 1
    flat = " ".join(out.output.split())
    assert "never started" in flat and "nothing was played" in flat, out.output
    _no_win(flat)
    assert not (tmp_path / "x.txt").exists()


def _finish(s: Session, outcome: Outcome, path: Path) -> str:
    buf = io.StringIO()
    link: Any = SimpleNamespace(
        session=s, sink=None, mesh=None, driver=NullDriver(), resigned_self=False
    )
    finish(link, outcome, path, Console(file=buf, width=300, highlight=False))
    return buf.getvalue()


def test_the_host_offers_no_resume_for_a_game_that_never_started(
    stopped: tuple[Path, Session],
) -> None:
    path, s = stopped
    never = Outcome(False, "the game never started: …; no result", len(s), never_started=True)
    out = _finish(s, never, path)
    assert "zoo resume" not in out and "never started" in out and "audit: INCOMPLETE" in out
    _no_win(out)
    cut = _finish(s, Outcome(False, "every other peer is gone", len(s)), path)
    assert f"to continue this game: zoo resume {path}" in cut  # any other stop offers it


def test_the_closing_lines_of_a_claimed_never_started_game(claimed: tuple[Path, Session]) -> None:
    path, s = claimed
    out = _finish(s, Outcome(True, "game over", len(s)), path)
    assert out.startswith(f"the game never started; {len(s)} entries") and "game over" not in out
    assert f"never started: {_who(s, 1)} signed nothing in this game" in out and "audit: OK" in out
    assert "zoo resume" not in out
    _no_win(out)


def test_the_full_screen_replay_of_a_game_that_never_started(
    claimed: tuple[Path, Session],
) -> None:
    """No move, no board: the status says so and how the log ended (it used to say only
    'the log holds no move yet')."""
    import asyncio

    from zoo_p2p.tui.app import ReplayApp
    from zoo_p2p.tui.capture import screen_text
    from zoo_p2p.tui.facts import UTF8
    from zoo_p2p.tui.replay import ReplayScreen, load

    path, s = claimed
    data = load(path)
    assert data.frames == []

    async def go() -> tuple[str, str]:
        app = ReplayApp(data, glyphs=UTF8)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ReplayScreen)
            box = str(app.screen.query_one("#captures").render())
            return " ".join(screen_text(app).split()), " ".join(box.split())

    text, box = asyncio.run(go())
    assert "the log holds no move yet" in text and "never started" in text, text
    assert f"never started: {_who(s, 1)} signed nothing in this game" in box, box
    assert box.startswith("verified") and "; no result" in box
    _no_win(box)
