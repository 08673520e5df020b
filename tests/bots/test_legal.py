"""Every move a bot returns is legal, in every variant and player count."""

from __future__ import annotations

import random

import pytest

from zoo_p2p.bots import LEVELS, make_bot
from zoo_p2p.bots.expert import ExpertBot
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.bots.policy import public_odds, scored_moves
from zoo_p2p.rules import KnownDeal, Move, State, Team, Variant


def _bot(level: str, seed: int) -> object:
    if level == "hard":
        return HardBot(seed=seed, work=150, clock=lambda: 0.0)
    if level == "expert":
        return ExpertBot(seed=seed, work=150)
    return make_bot(level, seed=seed)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_full_games_only_legal_moves(seats: int, variant: Variant) -> None:
    rng = random.Random(seats * 10 + (variant is Variant.GENERAL))
    deal = KnownDeal.random(rng, variant)
    state = deal.new_state([Team(i) for i in range(seats)], first_seat=seats - 1)
    # the expert in every seat count and variant; the others rotate through the other seats
    bots = [_bot("expert" if i == 0 else LEVELS[(i + seats) % 3], seed=i) for i in range(seats)]
    plies = 0
    while not state.is_terminal():
        legal = state.legal_moves()
        move: Move = bots[state.to_move].choose(state.public())  # type: ignore[attr-defined]
        assert move in legal
        state.apply(move)  # checked path: raises IllegalMoveError on any illegal move
        plies += 1
    assert plies > 10


def test_policy_scores_exactly_the_legal_moves() -> None:
    rng = random.Random(7)
    for g in range(40):
        variant = Variant.STANDARD if g % 2 else Variant.GENERAL
        state: State = KnownDeal.random(rng, variant).new_state([Team(i) for i in range(2 + g % 3)])
        while not state.is_terminal():
            scored = scored_moves(state, public_odds(state))
            moves = [m for _s, m in scored]
            assert sorted(map(str, moves)) == sorted(map(str, state.legal_moves()))
            state.apply_unchecked(moves[int(rng.random() * len(moves))])
