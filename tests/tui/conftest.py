"""Shared set-up for the full-screen app tests: a seeded local game against a greedy bot."""

from __future__ import annotations

import pytest

from zoo_p2p.bots import make_bot
from zoo_p2p.rules import Team
from zoo_p2p.tui.table import LocalTable


def local_table(seed: int = 7, names: tuple[str, str] = ("you", "greedy bot")) -> LocalTable:
    """You (Yellow) against a greedy bot (Blue), no thinking pause."""
    return LocalTable(
        teams=[Team.YELLOW, Team.BLUE],
        names=list(names),
        human={0},
        bots={1: make_bot("greedy", seed=1)},
        seed=seed,
        bot_delay=0,
        make_bots=lambda rng: {1: make_bot("greedy", seed=rng.randrange(2**32))},
    )


@pytest.fixture(autouse=True)
def _colour_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests start with colour on, whatever the caller's environment says."""
    monkeypatch.delenv("NO_COLOR", raising=False)
