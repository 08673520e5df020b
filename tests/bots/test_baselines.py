"""The random and greedy bots behave as specified; the hard bot keeps to its budget."""

from __future__ import annotations

import random
from collections import Counter

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.base import greedy_score, mutant_odds
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.bots.simple import GreedyBot, RandomBot
from zoo_p2p.rules import KnownDeal, State, Team, Variant


def _start(seed: int = 1, seats: int = 2) -> State:
    return KnownDeal.random(random.Random(seed)).new_state([Team(i) for i in range(seats)])


def test_random_bot_is_seeded_and_uniform() -> None:
    state = _start()
    a = [RandomBot(9).choose(state) for _ in range(3)]
    assert a == [RandomBot(9).choose(state)] * 3
    bot = RandomBot(9)
    picks = Counter(bot.choose(state) for _ in range(4000))
    n = len(state.legal_moves())
    assert len(picks) == n  # every legal move comes up
    assert max(picks.values()) < 3 * 4000 / n


def test_greedy_plays_a_best_scored_move() -> None:
    state = _start(5)
    for _ in range(20):
        if state.is_terminal():
            break
        pub = state.public()
        odds = mutant_odds(pub)
        best = max(greedy_score(pub, m, odds) for m in pub.legal_moves())
        move = GreedyBot(3).choose(state)
        assert abs(greedy_score(pub, move, odds) - best) < 1e-9
        state.apply(move)


def test_greedy_score_counts_a_character_twice() -> None:
    from .conftest import low_board, position

    state = position(low_board(), ["5@C3", "4@C4"])
    from zoo_p2p.rules import parse_move

    move = parse_move("C3-C4")
    assert greedy_score(state, move, mutant_odds(state)) == 8.0


def test_mutant_odds_follow_public_facts() -> None:
    state = _start()
    assert mutant_odds(state)[:4] == [0.1, 0.1, 0.1, 0.1]
    assert mutant_odds(state)[4] == 0.0
    general = KnownDeal.random(random.Random(1), Variant.GENERAL).new_state([Team(0), Team(1)])
    assert mutant_odds(general) == [0.0] * 5


def test_greedy_beats_random() -> None:
    wins = 0
    for g in range(10):
        state = _start(100 + g)
        bots = [make_bot("greedy", seed=g), make_bot("random", seed=g)]
        if g % 2:
            bots.reverse()
        while not state.is_terminal():
            state.apply(bots[state.to_move].choose(state.public()))
        greedy_seat = g % 2
        wins += state.winners() == [greedy_seat]
    assert wins >= 9


class _FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.t = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.t += self.step
        return self.t


def test_hard_bot_stops_at_its_time_budget() -> None:
    clock = _FakeClock(0.05)
    bot = HardBot(think=0.5, clock=clock)  # unseeded: bounded by time only
    move = bot.choose(_start())
    assert move in _start().legal_moves()
    # one read at the start, one after each round: about think / step rounds
    assert 5 <= clock.reads <= 12


def test_seeded_hard_bot_is_deterministic() -> None:
    state = _start(8, seats=3)
    moves = {HardBot(seed=4, work=2000, clock=lambda: 0.0).choose(state) for _ in range(3)}
    assert len(moves) == 1


def test_seeded_hard_bot_uses_a_work_budget() -> None:
    bot = make_bot("hard", seed=1, think=0.5)
    assert isinstance(bot, HardBot) and bot.work is not None and bot.work > 0
    assert isinstance(make_bot("hard"), HardBot) and make_bot("hard").work is None  # type: ignore[union-attr]
