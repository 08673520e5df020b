"""The playouts' fused move choice picks exactly what the scored list would."""

from __future__ import annotations

import random

import pytest

from zoo_p2p.bots.policy import noisy_best, public_odds, scored_moves
from zoo_p2p.rules import KnownDeal, Team, Variant


def _loop_pick(state, odds, rand, noise):  # type: ignore[no-untyped-def]
    best, best_s = None, -1e9
    for s, m in scored_moves(state, odds):
        s += rand() * noise
        if s > best_s:
            best_s, best = s, m
    return best


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_noisy_best_is_the_scored_lists_pick(n: int, variant: Variant) -> None:
    rng = random.Random(f"nb{n}{variant}")
    checked = 0
    for g in range(6):
        state = KnownDeal.random(rng, variant).new_state([Team(t) for t in range(n)], first_seat=0)
        while not state.is_terminal():
            odds = public_odds(state)
            seed = rng.random()
            for noise in (0.0, 1.5):
                a = _loop_pick(state, odds, random.Random(seed).random, noise)
                b = noisy_best(state, odds, random.Random(seed).random, noise)
                assert a == b, (g, noise)
                checked += 1
            state.apply(rng.choice(state.legal_moves()))
    assert checked > 100
