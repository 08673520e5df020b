"""Bots that play a seat from the public state only: ``random``, ``greedy``, ``hard``, ``expert``.

``peek`` (the expert told the hidden deal), ``peek-mutants`` and ``peek-bottoms`` (told only
where the mutants hide, or only the face-down bottom cards) exist for measurement in the arena
only: they are not in ``LEVELS`` and ``make_bot`` refuses them unless asked with
``measurement=True``.

>>> import random
>>> from zoo_p2p.rules import KnownDeal, Team
>>> state = KnownDeal.random(random.Random(3)).new_state([Team.YELLOW, Team.RED])
>>> bot = make_bot("greedy", seed=1)
>>> bot.choose(state) in state.legal_moves()
True
"""

from __future__ import annotations

from zoo_p2p.bots.base import Bot, BotError
from zoo_p2p.bots.expert import ExpertBot, MoveStats, PeekBot, PeekBottomsBot, PeekMutantsBot
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.bots.simple import GreedyBot, RandomBot

LEVELS: tuple[str, ...] = ("random", "greedy", "hard", "expert")
"""The levels offered for play, weakest first (every CLI option that takes a level uses these)."""

MEASUREMENT_LEVELS: tuple[str, ...] = (*LEVELS, "peek", "peek-mutants", "peek-bottoms")
"""The levels the arena accepts: the ``peek`` levels see (part of) the hidden deal and are never
offered for play."""

LEVEL_HELP: dict[str, str] = {
    "random": "a uniformly random legal move",
    "greedy": "one ply: immediate points minus exposure to capture and mutant risk",
    "hard": "Monte Carlo over the best one-ply moves, hidden cards sampled",
    "expert": "tree search several moves deep, every capture weighed with its exact odds",
}


def make_bot(
    level: str,
    seed: int | None = None,
    think: float | None = None,
    *,
    work: int | None = None,
    measurement: bool = False,
) -> Bot:
    """A bot of ``level`` (one of ``LEVELS``).

    ``think`` is a search bot's seconds per move; ``work`` a budget in simulated plies per move
    instead (deterministic with a seed, whatever the machine's load). The ``peek`` levels only
    with ``measurement=True`` (the arena).
    """
    key = level.strip().lower() if isinstance(level, str) else level
    if key == "random":
        return RandomBot(seed)
    if key == "greedy":
        return GreedyBot(seed)
    if key == "hard":
        if work is not None:
            return HardBot(seed=seed, think=think or 3600.0, work=work, clock=_no_clock)
        return HardBot(seed=seed, think=think)
    if key == "expert":
        return ExpertBot(seed=seed, think=think, work=work)
    if measurement:
        peek = {"peek": PeekBot, "peek-mutants": PeekMutantsBot, "peek-bottoms": PeekBottomsBot}
        if key in peek:
            return peek[key](seed=seed, think=think, work=work)
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)}")


def _no_clock() -> float:
    return 0.0


__all__ = [
    "LEVELS",
    "LEVEL_HELP",
    "MEASUREMENT_LEVELS",
    "Bot",
    "BotError",
    "ExpertBot",
    "GreedyBot",
    "HardBot",
    "MoveStats",
    "PeekBot",
    "PeekBottomsBot",
    "PeekMutantsBot",
    "RandomBot",
    "make_bot",
]
