"""The public interface: levels, make_bot, errors."""

from __future__ import annotations

import random

import pytest

from zoo_p2p.bots import LEVELS, BotError, make_bot
from zoo_p2p.bots.hard import DEFAULT_THINK, HardBot
from zoo_p2p.rules import KnownDeal, Team


def test_levels_are_fixed() -> None:
    assert LEVELS == ("random", "greedy", "hard", "expert")


@pytest.mark.parametrize("level", LEVELS)
def test_make_bot_each_level(level: str) -> None:
    bot = make_bot(level, seed=1, think=0.05)
    assert bot.level == level


def test_unknown_level_lists_levels() -> None:
    with pytest.raises(ValueError, match="random, greedy, hard, expert"):
        make_bot("wizard")


def test_hard_default_think_is_within_budget() -> None:
    bot = make_bot("hard")
    assert isinstance(bot, HardBot)
    assert bot.think == DEFAULT_THINK <= 1.0


def test_no_move_raises_bot_error() -> None:
    state = KnownDeal.random(random.Random(4)).new_state([Team.YELLOW, Team.RED])
    while not state.is_terminal():
        state.apply_unchecked(state.legal_moves()[0])
    for level in LEVELS:
        with pytest.raises(BotError):
            make_bot(level, seed=0, think=0.01, work=50).choose(state)


def test_pending_reveal_raises_bot_error() -> None:
    state = KnownDeal.random(random.Random(4)).new_state([Team.YELLOW, Team.RED]).public()
    state.apply(state.legal_moves()[0])
    assert state.needs is not None
    with pytest.raises(BotError, match="revealed"):
        make_bot("greedy", seed=0).choose(state)
