"""Bots that play a seat from the public state only: ``random``, ``greedy`` and ``hard``.

>>> import random
>>> from zoo_p2p.rules import KnownDeal, Team
>>> state = KnownDeal.random(random.Random(3)).new_state([Team.YELLOW, Team.RED])
>>> bot = make_bot("greedy", seed=1)
>>> bot.choose(state) in state.legal_moves()
True
"""

from __future__ import annotations

from zoo_p2p.bots.base import Bot, BotError
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.bots.simple import GreedyBot, RandomBot

LEVELS: tuple[str, ...] = ("random", "greedy", "hard")

LEVEL_HELP: dict[str, str] = {
    "random": "a uniformly random legal move",
    "greedy": "one ply: immediate points minus exposure to capture and mutant risk",
    "hard": "information-set Monte Carlo tree search over sampled hidden cards",
}


def make_bot(level: str, seed: int | None = None, think: float | None = None) -> Bot:
    """A bot of ``level`` (one of ``LEVELS``); ``think`` is the hard bot's seconds per move."""
    key = level.strip().lower() if isinstance(level, str) else level
    if key == "random":
        return RandomBot(seed)
    if key == "greedy":
        return GreedyBot(seed)
    if key == "hard":
        return HardBot(seed=seed, think=think)
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)}")


__all__ = [
    "LEVELS",
    "LEVEL_HELP",
    "Bot",
    "BotError",
    "GreedyBot",
    "HardBot",
    "RandomBot",
    "make_bot",
]
