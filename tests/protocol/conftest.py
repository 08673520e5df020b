"""Shared fixtures: complete local games (cached per test session) and an isolated ZOO_HOME."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from zoo_p2p.protocol.simulate import LocalGame, play_game
from zoo_p2p.rules import Variant

_GAMES: dict[tuple[int, str, int], LocalGame] = {}


def finished_game(n: int, variant: Variant = Variant.STANDARD, seed: int = 1) -> LocalGame:
    """A complete game among n local seats (cached: treat it as read-only)."""
    k = (n, variant.value, seed)
    if k not in _GAMES:
        _GAMES[k] = play_game(n, variant, random.Random(f"{n}-{variant.value}-{seed}"))
    return _GAMES[k]


@pytest.fixture(autouse=True)
def zoo_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own ZOO_HOME."""
    monkeypatch.setenv("ZOO_HOME", str(tmp_path / "zoo-home"))
    yield tmp_path / "zoo-home"
