"""Fairness: over 20,000 simulated deals every slot's card and every mutant position is uniform.

Chi-square tests on the composition of per-seat permutations, with all seats honest and with all
seats but one using fixed permutations (identity, or an adversarial fixed shuffle). The critical
values are at p ≈ 1e-6 (Wilson–Hilferty), so a fair deal essentially never fails, and a control
test shows that a classic biased shuffle is caught at this sample size.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence

import pytest

from zoo_p2p.protocol.deal import (
    DEAL_TABLE,
    N_COPIES,
    N_SLOTS,
    compose,
    derive_permutation,
    mutant_copy,
)

N_DEALS = 20_000
Z = 4.75  # one-sided normal quantile for p ≈ 1e-6


def chi2_critical(df: int, z: float = Z) -> float:
    """Wilson–Hilferty approximation of the chi-square quantile."""
    a = 2.0 / (9.0 * df)
    return float(df * (1.0 - a + z * math.sqrt(a)) ** 3)


def chi2(counts: list[int], expected: float) -> float:
    """Pearson's statistic against a flat expectation."""
    return sum((c - expected) ** 2 for c in counts) / expected


Seat = Callable[[int, int], Sequence[int]]  # (deal number, table) -> permutation


@functools.cache
def _honest_tables(k: int) -> list[list[bytes]]:
    """Honest seat k's permutations of every deal, per table: derived once a run and shared by
    the tests that seat it (each of 20,000 deals derives 5 permutations by HMAC-SHA256; seat 0
    and seat 1 each sit in two tests). The values are `derive_permutation`'s own, in bytes."""
    return [
        [
            bytes(derive_permutation(f"seat{k}-deal{i}".encode().ljust(32, b"."), t))
            for t in range(5)
        ]
        for i in range(N_DEALS)
    ]


def honest(k: int) -> Seat:
    """A seat drawing a fresh seed per deal."""

    def seat(i: int, t: int) -> Sequence[int]:
        if i < N_DEALS and 0 <= t < 5:
            return _honest_tables(k)[i][t]
        return derive_permutation(f"seat{k}-deal{i}".encode().ljust(32, b"."), t)

    return seat


def identity(i: int, t: int) -> list[int]:
    """A seat that always uses the identity."""
    return list(range(N_SLOTS if t == DEAL_TABLE else N_COPIES))


_FIXED = {
    t: random.Random(t).sample(range(50 if t == 0 else 10), 50 if t == 0 else 10) for t in range(5)
}


def fixed(i: int, t: int) -> list[int]:
    """A seat that always uses the same (adversarially chosen) permutation."""
    return _FIXED[t]


def run_deals(
    seats: list[Seat], n: int = N_DEALS
) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Count slot→token, mutant copy per value, and mutant slot per value over n deals."""
    slot_token = [[0] * N_SLOTS for _ in range(N_SLOTS)]
    mutant_copies = [[0] * N_COPIES for _ in range(4)]
    mutant_slots = [[0] * N_SLOTS for _ in range(4)]
    for i in range(n):
        deal = compose([s(i, DEAL_TABLE) for s in seats])
        where = [0] * N_SLOTS
        for slot, tok in enumerate(deal):
            slot_token[slot][tok] += 1
            where[tok] = slot
        for v in range(4):
            c = mutant_copy(compose([s(i, 1 + v) for s in seats]))
            mutant_copies[v][c] += 1
            mutant_slots[v][where[10 * v + c]] += 1
    return slot_token, mutant_copies, mutant_slots


def assert_uniform(seats: list[Seat]) -> None:
    slot_token, mutant_copies, mutant_slots = run_deals(seats)
    # Each slot's token (49 df) and each slot's value (4 df).
    crit_tok, crit_val = chi2_critical(49), chi2_critical(4)
    for row in slot_token:
        assert chi2(row, N_DEALS / 50) < crit_tok
        values = [sum(row[10 * v : 10 * v + 10]) for v in range(5)]
        assert chi2(values, N_DEALS / 5) < crit_val
    # The whole slot × token table (df (50-1)²).
    total = sum(chi2(row, N_DEALS / 50) for row in slot_token)
    assert total < chi2_critical(49 * 49)
    for v in range(4):
        assert chi2(mutant_copies[v], N_DEALS / 10) < chi2_critical(9)
        assert chi2(mutant_slots[v], N_DEALS / 50) < chi2_critical(49)


def test_uniform_with_every_seat_honest() -> None:
    assert_uniform([honest(0), honest(1), honest(2)])


@pytest.mark.parametrize("position", [0, 3])
def test_uniform_when_all_but_one_seat_use_the_identity(position: int) -> None:
    seats: list[Seat] = [identity] * 4
    seats[position] = honest(position)
    assert_uniform(seats)


def test_uniform_when_the_others_use_a_fixed_shuffle() -> None:
    assert_uniform([fixed, honest(1), fixed])


def test_the_chi_square_test_can_fail_on_a_biased_shuffle() -> None:
    """Control: the naive 'swap with any index' shuffle is biased, and these tests see it."""

    def naive(i: int, t: int) -> list[int]:
        rng = random.Random(i * 7 + t)
        a = list(range(N_SLOTS if t == DEAL_TABLE else N_COPIES))
        for k in range(len(a)):
            j = rng.randrange(len(a))
            a[k], a[j] = a[j], a[k]
        return a

    slot_token, _, _ = run_deals([naive])
    total = sum(chi2(row, N_DEALS / 50) for row in slot_token)
    assert total > chi2_critical(49 * 49)
