"""The bots find the obvious: free captures, no blunders next to a bigger opponent, sure animals."""

from __future__ import annotations

import pytest

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.base import Bot, threatened_loss
from zoo_p2p.bots.expert import ExpertBot
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.rules import Send, Step, parse_move

from .conftest import low_board, position, tops_from


def _bot(level: str, seed: int = 0) -> Bot:
    if level == "hard":
        return HardBot(seed=seed, work=16000, clock=lambda: 0.0)
    if level == "expert":
        return ExpertBot(seed=seed, work=4000)
    return make_bot(level, seed=seed)


@pytest.mark.parametrize("level", ["greedy", "hard", "expert"])
@pytest.mark.parametrize("seed", [0, 1])
def test_takes_a_free_six_with_a_six(level: str, seed: int) -> None:
    state = position(low_board(), ["6@C3", "6@C4"])
    assert state.to_move == 0
    assert _bot(level, seed).choose(state) == parse_move("C3-C4")


@pytest.mark.parametrize("level", ["greedy", "hard", "expert"])
@pytest.mark.parametrize("seed", [0, 1])
def test_does_not_step_next_to_a_bigger_opponent(level: str, seed: int) -> None:
    tops = low_board(C3=4)
    state = position(tops, ["3@B3", "5@D3"])
    # the tempting blunder: the 3 takes the animal on C3 and stands next to Red's 5
    assert parse_move("B3-C3") in state.legal_moves()
    move = _bot(level, seed).choose(state)
    assert move != parse_move("B3-C3")
    after = state.clone()
    after.apply(move)
    top, _ = after.square_codes()
    assert threatened_loss(top, 0, after.on_board(0)) == 0


@pytest.mark.parametrize("level", ["greedy", "hard", "expert"])
@pytest.mark.parametrize("seed", [0, 1])
def test_prefers_a_sure_animal_when_scores_are_equal(level: str, seed: int) -> None:
    tops = tops_from(["13333", "33333", "32422", "22221", "11101"])
    state = position(tops, ["3@A1", "3@E5"])
    assert state.scores()[0].total == state.scores()[1].total
    move = _bot(level, seed).choose(state)
    top, _ = state.square_codes()
    assert top[move.to] == 4, f"{move} takes a {top[move.to]}"


def test_greedy_risks_its_cheapest_character_on_a_possible_mutant() -> None:
    tops = tops_from(["33333", "33333", "22222", "11111", "00000"])
    state = position(tops, [])
    move = make_bot("greedy", seed=0).choose(state)
    assert isinstance(move, Send) and move.value == 3


def test_greedy_is_indifferent_once_the_mutant_is_found() -> None:
    tops = tops_from(["33333", "22222", "33333", "11111", "00000"])
    state = position(tops, [])
    state.apply(parse_move("3@A1"))
    state.reveal(bottom=0, mutant=True)  # Yellow's 3 mutates: the 3s are safe now
    assert 3 in state.mutants_found
    from zoo_p2p.bots.base import mutant_odds

    assert mutant_odds(state)[3] == 0.0
    ranked = make_bot("greedy", seed=0).ranked(state)  # type: ignore[attr-defined]
    sends = {m.value: s for s, m in ranked if isinstance(m, Send) and m.to == 12}
    assert sends[3] == sends[4] == sends[5] == sends[6] == 3.0


def test_hard_escapes_a_threat() -> None:
    # Red's 6 stands next to Yellow's 5: moving the 5 away (or taking something) saves 10 points
    state = position(low_board(), ["5@C3", "6@C4", "3@A1", "4@E5"])
    move = _bot("hard").choose(state)
    after = state.clone()
    after.apply(move)
    top, _ = after.square_codes()
    assert threatened_loss(top, 0, after.on_board(0)) == 0
    assert isinstance(move, Step)
