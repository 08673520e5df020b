"""The expert: exact chance, look-ahead beyond one ply, any legal move, public state only."""

from __future__ import annotations

import pytest

from zoo_p2p.bots import LEVELS, MEASUREMENT_LEVELS, make_bot
from zoo_p2p.bots.expert import ExpertBot
from zoo_p2p.rules import Oracle, State, Variant, parse_move, parse_square
from zoo_p2p.rules.state import EMPTY, UNKNOWN

from .conftest import position, tops_from


def _expert(seed: int = 0, work: int = 6000) -> ExpertBot:
    return ExpertBot(seed=seed, work=work)


@pytest.mark.parametrize("peek", ["peek", "peek-mutants", "peek-bottoms"])
def test_expert_is_offered_and_peek_is_not(peek: str) -> None:
    assert "expert" in LEVELS and peek not in LEVELS
    assert peek in MEASUREMENT_LEVELS
    assert make_bot("expert", seed=1, work=100).level == "expert"
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot(peek, seed=1)
    assert make_bot(peek, seed=1, work=100, measurement=True).level == peek


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


def _fork_state() -> State:
    # in the General variant: D2 is a 0, and in the standard game the 6 that steps there risks
    # the 0-mutant (about one chance in eight, the 6 then lost and taken: the plan's +18 margin
    # against a sure +12 is then a real choice, not a plan missed)
    return position(FORK_TOPS, _fork(), variant=Variant.GENERAL)


def test_the_fork_position_is_what_it_says() -> None:
    state = _fork_state()
    assert state.to_move == 0 and not state.hand(0)
    greedy = make_bot("greedy", seed=0).choose(state)
    assert greedy != parse_move("E2-D2"), "one ply must not see the plan"


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_a_two_move_plan_one_ply_cannot_see(seed: int) -> None:
    assert _expert(seed).choose(_fork_state()) == parse_move("E2-D2")


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


def _mutant_cards(state: State, oracle: Oracle, value: int) -> list[tuple[int, int]]:
    """The (square, layer) of every card of ``value`` in the zoo that ``oracle`` flags."""
    top, under = state.square_codes()
    out = []
    for q in range(25):
        t, u = top[q], under[q]
        b = oracle.bottom[q] if u == UNKNOWN else u
        if 0 <= t < UNKNOWN and t == value and oracle.mut_top[q] and u != EMPTY:
            out.append((q, 1))
        if 0 <= t < UNKNOWN and t == value and oracle.mut_bottom[q] and u == EMPTY:
            out.append((q, 0))
        if u != EMPTY and b == value and oracle.mut_bottom[q]:
            out.append((q, 0))
    return out


@pytest.mark.parametrize("mutant", [True, False])
def test_a_root_capture_is_conditioned_on_the_mutant_exactly(mutant: bool) -> None:
    import random

    from zoo_p2p.bots.expert import _force

    state = position(tops_from(["01230", "12301", "23012", "30123", "01234"]), ["6@A1"])
    a2 = parse_square("A2")  # a top 1 over a hidden bottom: the 1-mutant may be it or not
    st = (0.1, 1, a2, 1)
    rng = random.Random(5)
    hits = 0
    for _ in range(200):
        base = state.determinize(rng)
        forced = _force(state, base, st, mutant, rng)
        assert forced.bottom == base.bottom
        ones = _mutant_cards(state, forced, 1)
        assert len(ones) == 1, "exactly one 1-mutant in the zoo"
        assert ((a2, 1) in ones) == mutant
        for v in (0, 2, 3):  # the other values' mutants are untouched
            assert _mutant_cards(state, forced, v) == _mutant_cards(state, base, v)
        hits += forced.mut_top[a2] != base.mut_top[a2]
    assert hits > 0  # the base deal did need moving now and then


def test_stratified_mean_weighs_each_outcome_by_its_exact_chance() -> None:
    from zoo_p2p.bots.expert import _Edge, _means

    edge = _Edge(0.0)
    edge.n, edge.reward, edge.win, edge.margin = 8, 4.0, 4.0, 0.0
    # two rounds met the mutant (mean reward 0.1), six did not (0.7); the chance is 1/10
    acc = [2, 0.2, 0.0, -20.0, 6, 4.2, 6.0, 30.0]
    value, win, margin = _means(edge, (0.1, 2, 7, 1), acc)
    assert value == pytest.approx(0.1 * 0.1 + 0.9 * 0.7)
    assert win == pytest.approx(0.9)
    assert margin == pytest.approx(0.1 * -10 + 0.9 * 5)
    assert _means(edge, None, None) == (0.5, 0.5, 0.0)


def test_a_character_left_hanging_is_counted_as_taken() -> None:
    from zoo_p2p.bots.expert import _take_hanging

    from .conftest import low_board

    # Yellow's 6 on C3, Red's 5 on C4 (sent next to it): Yellow to move can take the 5
    state = position(low_board(), ["6@C3", "5@C4"])
    totals = [10.0, 10.0]
    _take_hanging(state, totals)
    assert totals == [15.0, 5.0]
    # Red to move has nothing to take: a 5 cannot take a 6
    state = position(low_board(), ["6@C3", "5@C4", "3@A1"])
    totals = [10.0, 10.0]
    _take_hanging(state, totals)
    assert totals == [10.0, 10.0]


def test_mean_field_playout_turns_no_card_and_charges_the_risk() -> None:
    import random

    from zoo_p2p.bots.expert import _mean_field_playout
    from zoo_p2p.bots.policy import public_odds

    state = position(tops_from(["01230", "12301", "23012", "30123", "01234"]), [])
    oracle = state.determinize(random.Random(1))
    no = [False] * 25
    det = state.with_oracle(Oracle(oracle.bottom, no, no))
    odds = public_odds(det)
    before = [s.total for s in det.scores()]
    plies, charged = _mean_field_playout(det, random.Random(2), 1.5, 6, odds, 1.0)
    assert plies == 6
    assert not det.mutants_found
    # every move so far was a send onto a Zoo card: each charged its character's value x chance
    assert all(c > 0 for c in charged)
    assert sum(charged) <= sum(6 * 0.1 for _ in range(6)) + 1e-9
    assert [s.total for s in det.scores()] != before


def test_a_stopped_playout_scores_a_smooth_win_chance() -> None:
    import math

    from zoo_p2p.bots.expert import rewards

    # at the end: who won (half) and the clamped margin (half)
    rew, wins, margins = rewards([20.0, 10.0], 0.5)
    assert rew == pytest.approx([0.5 + 0.5 * (0.5 + 10 / 60), 0.5 * (0.5 - 10 / 60)])
    # stopped early: the win part is the logistic of the margin over `soft` points
    rew, wins, margins = rewards([20.0, 10.0], 0.5, soft=5.0)
    lead = 1 / (1 + math.exp(-2.0))
    assert rew == pytest.approx(
        [0.5 * lead + 0.5 * (0.5 + 10 / 60), 0.5 * (1 - lead) + 0.5 * (0.5 - 10 / 60)]
    )
    assert sum(rew) == pytest.approx(1.0)  # still zero-sum between two seats
    assert wins == [1.0, 0.0] and margins == [10.0, -10.0]  # the statistics still count who leads
    # a one-point lead is worth much less than a ten-point one
    close, _w, _m = rewards([11.0, 10.0], 0.5, soft=5.0)
    assert 0.5 < close[0] < rew[0]
