"""The claim question closes with the right words when the claim plays on (PROTOCOL.md §10.7):
the computed claim is authored by the claimed seat itself, so "it answered" would be wrong.

No network: the liveness part of a peer over real sessions of a 3-seat play-on game (we are
seat 1; seat 3 owes its move), as in test_claim_question.py."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest
from rich.console import Console

from tests.net.test_claim_question import MOVE_TIME, _Link
from zoo_p2p.cli.plain import PlainDriver
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.playon_samples import claim, play_on_game, run_until


@pytest.fixture
def stdin() -> Iterator[int]:
    r, w = os.pipe()
    yield r
    os.close(r)
    os.close(w)


def test_the_question_says_the_seat_is_out_when_the_claim_plays_on(stdin: int) -> None:
    out = io.StringIO()
    driver = PlainDriver(
        Console(file=out, width=200, color_system=None), stdin_fd=stdin, ask_claims=True
    )
    game, rng = play_on_game(3, "question")
    run_until(game, rng, range(3), lambda f: f.kind == Kind.MOVE and f.seat == 2)
    link = _Link(game, driver)
    link._liveness_tick(1000.0)
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert "has not answered for" in out.getvalue()  # the person is asked
    claim(game, [0, 1])  # the seats vote (seat 1 elsewhere) and the computed claim goes in
    link._liveness_tick(1000.0 + MOVE_TIME + 1)
    said = out.getvalue()
    assert "answered: the game goes on" not in said
    assert "is out: a stand-in plays its seat on and the others re-deal" in said
