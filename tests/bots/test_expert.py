"""The expert: exact chance, look-ahead beyond one ply, any legal move, public state only."""

from __future__ import annotations

import pytest

from zoo_p2p.bots import LEVELS, MEASUREMENT_LEVELS, make_bot
from zoo_p2p.bots.expert import ExpertBot
from zoo_p2p.rules import parse_move, parse_square

from .conftest import position, tops_from


def _expert(seed: int = 0, work: int = 6000) -> ExpertBot:
    return ExpertBot(seed=seed, work=work)


def test_expert_is_offered_and_peek_is_not() -> None:
    assert "expert" in LEVELS and "peek" not in LEVELS
    assert "peek" in MEASUREMENT_LEVELS
    assert make_bot("expert", seed=1, work=100).level == "expert"
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("peek", seed=1)
    assert make_bot("peek", seed=1, work=100, measurement=True).level == "peek"


def _risky_three() -> tuple[list[int], list[str]]:
    # ten 3s on top; nine are captured, so the last one (B1, next to Yellow's 6) surely hides
    # the 3-mutant: taking it gains 3, loses the 6, and Red's 5 on B2 then takes the mutant
    tops = tops_from(["33033", "23000", "31013", "12121", "32303"])
    sends = ["6@A1", "5@B2", "5@E1", "6@E5", "4@E3", "4@A5", "3@C5", "3@A3", "E1-D1", "A3-A4"]
    return tops, sends


@pytest.mark.parametrize("seed", [0, 1])
def test_avoids_a_capture_whose_mutant_risk_costs_more_than_it_gains(seed: int) -> None:
    tops, sends = _risky_three()
    state = position(tops, sends)
    assert state.to_move == 0 and not state.hand(0)
    from zoo_p2p.bots.policy import public_odds

    assert public_odds(state)[3] == 1.0
    b1 = parse_square("B1")
    assert parse_move("A1-B1") in state.legal_moves()
    assert make_bot("greedy", seed=seed).choose(state) != parse_move("A1-B1")
    move = _expert(seed).choose(state)
    assert move.to != b1, f"{move} takes the last 3, which surely hides the mutant"


def _fork() -> list[str]:
    # Yellow's 6 takes Red's 6 early; then it stands on E2 and can step to D2, next to Red's 4
    # (C2) and Red's 5 (D3): Red saves one, the 6 takes the other, and nothing of Red's can
    # touch a 6. One ply sees only a 0 on D2 (and 1s elsewhere).
    return ["6@E1", "6@E2", "E1-E2", "4@C2", "3@A5", "5@D3", "4@A4", "3@E5", "5@B5", "E5-D5"]


FORK_TOPS = tops_from(["00101", "10303", "11030", "31101", "33013"])


def test_the_fork_position_is_what_it_says() -> None:
    state = position(FORK_TOPS, _fork())
    assert state.to_move == 0 and not state.hand(0)
    greedy = make_bot("greedy", seed=0).choose(state)
    assert greedy != parse_move("E2-D2"), "one ply must not see the plan"


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_a_two_move_plan_one_ply_cannot_see(seed: int) -> None:
    state = position(FORK_TOPS, _fork())
    assert _expert(seed).choose(state) == parse_move("E2-D2")


@pytest.mark.parametrize("seed", [0, 1])
def test_takes_a_free_six_with_a_six(seed: int) -> None:
    from .conftest import low_board

    state = position(low_board(), ["6@C3", "6@C4"])
    assert _expert(seed, work=3000).choose(state) == parse_move("C3-C4")


def test_same_seed_same_move_and_work_bounds_the_search() -> None:
    tops, sends = _risky_three()
    state = position(tops, sends[:4])
    a, b = _expert(3, 2000), _expert(3, 2000)
    assert a.choose(state) == b.choose(state)
    assert 0 < a.last_iterations < 2000


def test_evaluate_reports_the_focus_move() -> None:
    from .conftest import low_board

    state = position(low_board(), ["6@C3", "6@C4"])
    bad = parse_move("3@A1")
    stats = _expert(0, 2000).evaluate(state, focus=[bad], min_visits=5)
    by_move = {s.move: s for s in stats}
    assert by_move[bad].visits >= 5
    best = stats[0]
    assert best.move == parse_move("C3-C4")
    assert best.margin > by_move[bad].margin + 10
