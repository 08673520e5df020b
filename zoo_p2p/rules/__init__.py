"""Pure game logic for Apocalypse at the Zoo of Carson City (no I/O, no clock, no global random).

>>> import random
>>> deal = KnownDeal.random(random.Random(1))
>>> state = deal.new_state([Team.YELLOW, Team.RED])
>>> len(state.legal_moves())
100
"""

from zoo_p2p.errors import IllegalMoveError, NotationError
from zoo_p2p.rules.board import (
    CHARACTER_VALUES,
    EXAMPLES,
    N_SQUARES,
    NEIGHBOURS,
    Move,
    Send,
    Step,
    Team,
    Variant,
    move_name,
    parse_move,
    parse_square,
    square_name,
)
from zoo_p2p.rules.deal import KnownDeal
from zoo_p2p.rules.state import Card, Needs, Oracle, RevealError, ScoreLine, State

__all__ = [
    "CHARACTER_VALUES",
    "EXAMPLES",
    "NEIGHBOURS",
    "N_SQUARES",
    "Card",
    "IllegalMoveError",
    "KnownDeal",
    "Move",
    "Needs",
    "NotationError",
    "Oracle",
    "RevealError",
    "ScoreLine",
    "Send",
    "State",
    "Step",
    "Team",
    "Variant",
    "move_name",
    "parse_move",
    "parse_square",
    "square_name",
]
