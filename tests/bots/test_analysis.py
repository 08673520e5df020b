"""Post-game analysis: a move's expected margin against the best, marks, summary, hints."""

from __future__ import annotations

import random

import pytest

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.analysis import (
    HINTS_OFF_NETWORKED,
    HINTS_OFF_PEOPLE,
    HintRefused,
    analyse_entries,
    analyse_move,
    classify,
    hint,
    hint_refusal,
    position_seed,
    positions_from_entries,
    summary,
)
from zoo_p2p.bots.base import greedy_score, mutant_odds
from zoo_p2p.protocol.simulate import play_game
from zoo_p2p.rules import Move, State, Variant, parse_move

from .conftest import low_board, position


def test_classify_thresholds() -> None:
    assert classify(0.0) == ("", "")
    assert classify(3.5) == ("inaccuracy", "?!")
    assert classify(7.0) == ("mistake", "?")
    assert classify(25.0) == ("blunder", "??")


def test_ignoring_a_free_six_is_a_blunder_and_taking_it_is_not() -> None:
    state = position(low_board(), ["6@C3", "6@C4"])
    bad = analyse_move(state, parse_move("3@A1"), work=2500, min_visits=6)
    assert bad.mark == "blunder" and bad.symbol == "??"
    assert bad.best == parse_move("C3-C4")
    assert bad.loss >= 10 and bad.value < bad.best_value
    assert "the expert would play C3-C4" in bad.describe()
    good = analyse_move(state, parse_move("C3-C4"), work=2500, min_visits=6)
    assert good.mark == "" and good.loss == 0.0


def _worst_move_chooser(at_ply: int) -> object:
    """Greedy play, except that at ``at_ply`` (or the first ply after it where some move
    throws away ten points or more) the mover plays the worst move by greedy's measure."""
    done: list[int] = []

    def choose(state: State, rng: random.Random) -> Move:
        odds = mutant_odds(state)
        scored = sorted(
            ((greedy_score(state, m, odds), m) for m in state.legal_moves()),
            key=lambda sm: (sm[0], str(sm[1])),
        )
        if not done and len(state.history) >= at_ply and scored[0][0] <= -10:
            done.append(len(state.history))
            return scored[0][1]
        return make_bot("greedy", seed=len(state.history)).choose(state)

    choose.done = done  # type: ignore[attr-defined]
    return choose


def test_a_deliberately_bad_move_in_a_built_game_is_a_blunder() -> None:
    chooser = _worst_move_chooser(6)
    game = play_game(2, Variant.STANDARD, random.Random(21), chooser=chooser)  # type: ignore[arg-type]
    bad_ply = chooser.done[0]  # type: ignore[attr-defined]
    positions = positions_from_entries(game.entries)
    assert len(positions) > bad_ply
    # analyse only the moves around the blunder (the whole game is the CLI's test)
    marks = analyse_entries(
        game.entries, work=1500, min_visits=6, plies=range(bad_ply - 1, bad_ply + 2)
    )
    by_ply = {m.ply: m for m in marks}
    assert by_ply[bad_ply].mark == "blunder", by_ply[bad_ply]
    rows = summary(marks, 2)
    assert sum(r.blunders for r in rows) >= 1


def test_hints_only_in_local_games() -> None:
    state = position(low_board(), ["6@C3", "6@C4"])
    got = hint(state, networked=False, work=1500)
    assert got is not None and got.move == parse_move("C3-C4")
    assert 0.5 < got.win <= 1.0 and got.margin > 0
    assert got.describe().startswith("the expert would play C3-C4 \u2014 win chance ")
    with pytest.raises(HintRefused, match="its host did not allow them"):
        hint(state, networked=True)
    with pytest.raises(HintRefused, match="two or more people"):
        hint(state, networked=False, people=2)
    assert hint_refusal(networked=False, people=1) is None
    assert hint_refusal(networked=True, people=1) == HINTS_OFF_NETWORKED
    assert hint_refusal(networked=True, agreed=True) is None  # the genesis allows hints (§3.2)
    assert hint_refusal(networked=False, people=3, agreed=True) == HINTS_OFF_PEOPLE
    assert hint_refusal(networked=False, people=3) == HINTS_OFF_PEOPLE


def test_a_hint_is_seeded_from_the_position() -> None:
    state = position(low_board(), ["6@C3"])
    first = hint(state, networked=False, work=1500)
    assert first is not None and first.move in state.legal_moves()
    assert hint(state, networked=False, work=1500) == first  # same position, same hint
    assert position_seed(state) == position_seed(state.clone())
    later = position(low_board(), ["6@C3", "6@C4"])
    assert position_seed(later) != position_seed(state)


def test_a_stopped_hint_ends_early_and_gives_nothing() -> None:
    state = position(low_board(), ["6@C3"])
    polls: list[int] = []

    def stop() -> bool:
        polls.append(1)
        return len(polls) > 3  # the position "changes" after three rounds

    # ten times a hint's budget: without the stop it would run on and return a hint
    assert hint(state, networked=False, work=200_000, stop=stop) is None
    assert len(polls) <= 6
