"""The re-deal is fair, measured on whole games through `Session` (PROTOCOL.md §10.7, issue 21).

tests/protocol/test_redeal.py tests the re-deal's functions (`compose_redeal`, `apply_redeal`)
on simulated public states. Here every seat is a `Session` that signs and checks every entry:
the games are played, a seat drops at a reveal floor, the others claim, commit their `redeal`
entries and answer the interrupted round from the re-deal, link by link (tests/protocol/
play_on_games.py). What the sessions published for that round is compared, by Pearson's
two-sample χ², with what the same population of games published without the dropout.

Seeded (the verdict is the same on every run); about 60 games, a few seconds. Larger runs:
bench/bench_redeal.py --session-games N.
"""

from __future__ import annotations

import pytest

from tests.protocol.play_on_games import STATS, Observed, colluding_tables, play_many
from tests.protocol.redeal_sim import homogeneity
from zoo_p2p.protocol.redeal import RedealTables
from zoo_p2p.protocol.simulate import LocalGame

GAMES = 60
SEED = 21
P_FAIR = 1e-3  # a fair re-deal passes every statistic at this level (as test_redeal.py)
P_CAUGHT = 1e-4  # the control (identity tables at every seat) falls below this


@pytest.fixture(scope="module")
def fair() -> Observed:
    return play_many(GAMES, SEED)


def p_value(kept: Observed, redealt: Observed, stat: str) -> float:
    return homogeneity(kept.kept[stat], redealt.redealt[stat])[2]


def test_every_dropout_played_on_and_was_observed(fair: Observed) -> None:
    # every odd game that reached its point played on (`play` raises otherwise), and both
    # samples are large enough to see a bias (the control below)
    assert fair.claims >= GAMES // 2 - 5, (fair.games, fair.claims)
    assert fair.games - fair.claims >= GAMES // 2 - 5
    for side in (fair.kept, fair.redealt):
        assert sum(side["deal_rank"].values()) >= 25
        assert sum(side["mutant"].values()) >= 15


def test_the_redeal_reveals_what_the_original_deal_would(fair: Observed) -> None:
    p = {stat: p_value(fair, fair, stat) for stat in STATS}
    assert homogeneity(fair.kept["deal_rank"], fair.redealt["deal_rank"])[1] == 1  # not vacuous
    assert min(p.values()) > P_FAIR, p


def test_the_test_sees_a_biased_redeal(fair: Observed, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the same odd games with every seat's re-deal tables the identity (the
    sessions still agree, commit and check every link) give a re-deal the χ² rejects."""
    monkeypatch.setattr(RedealTables, "from_seed", colluding_tables(set()))  # nobody honest
    biased = play_many(GAMES, SEED, parity=1)
    assert biased.claims == fair.claims
    p = p_value(fair, biased, "deal_rank")
    assert p < P_CAUGHT, (p, biased.redealt["deal_rank"], fair.kept["deal_rank"])


def test_one_honest_seat_is_enough_against_the_others_colluding(
    fair: Observed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every live seat but the last uses the identity for its re-deal tables (at 4 seats two
    colluders, at 3 one): the honest seat's tables alone make the re-deal uniform."""
    honest: set[bytes] = set()

    def last_is_honest(game: LocalGame, live: list[int]) -> None:
        honest.add(game.seeds[live[-1]])

    monkeypatch.setattr(RedealTables, "from_seed", colluding_tables(honest))
    colluded = play_many(GAMES, SEED, parity=1, on_claim=last_is_honest)
    assert colluded.claims == fair.claims and len(honest) == fair.claims
    p = {stat: p_value(fair, colluded, stat) for stat in STATS}
    assert min(p.values()) > P_FAIR, p
