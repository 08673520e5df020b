"""What every bot shares: the ``Bot`` protocol, its error, and cheap one-ply evaluation."""

from __future__ import annotations

from typing import Protocol

from zoo_p2p.errors import ZooError
from zoo_p2p.rules import Move, Send, State, Variant
from zoo_p2p.rules.board import COPIES_PER_VALUE, NEIGHBOURS
from zoo_p2p.rules.state import CHAR, MUTANT, UNKNOWN


class BotError(ZooError, ValueError):
    """A bot was asked to move where no move can be made (game over, or a reveal pending)."""


class Bot(Protocol):
    """A player: ``choose`` a legal move for ``state.to_move`` from the public state."""

    level: str

    def choose(self, state: State) -> Move:
        """The move this bot plays for the seat to move."""
        ...


def public_position(state: State) -> tuple[State, list[Move]]:
    """The public copy of ``state`` and its legal moves; ``BotError`` if there are none."""
    pub = state.public()
    if pub.needs is not None:
        raise BotError("a hidden card must be revealed before the next move")
    moves = pub.legal_moves()
    if not moves:
        raise BotError("the game is over: there is no move to choose")
    return pub, moves


def mutant_odds(state: State) -> list[float]:
    """For each Zoo value 0..4, the chance that capturing such a card now reveals the mutant.

    Public facts only: the mutant of value ``v`` is not found yet and hides, with equal
    chance, under any of the copies of ``v`` still in the zoo (10 minus those captured).
    """
    odds = [0.0] * 5
    if state.variant is Variant.GENERAL:
        return odds
    captured = [0] * 5
    for seat in range(state.n_seats):
        for v in state.captured_zoo(seat):
            captured[v] += 1
    for v in range(4):
        left = COPIES_PER_VALUE - captured[v]
        if v not in state.mutants_found and left > 0:
            odds[v] = 1.0 / left
    return odds


def threatened_loss(top: list[int], seat: int, where: dict[int, int]) -> int:
    """Largest loss (twice the value) among ``seat``'s characters an opponent can take next."""
    worst = 0
    for v, sq in where.items():
        if 2 * v <= worst:
            continue
        for n in NEIGHBOURS[sq]:
            c = top[n]
            if CHAR <= c < MUTANT:
                s, ov = divmod(c - CHAR, 8)
                if s != seat and ov >= v:
                    worst = 2 * v
                    break
    return worst


def greedy_score(state: State, move: Move, odds: list[float]) -> float:
    """One-ply worth of ``move`` for the seat to move in the public ``state``.

    Immediate points (an opponent's character counts twice: its owner also loses it),
    minus the expected loss of the moving character to a mutant (twice its value),
    minus the largest character this move leaves open to capture (twice its value).
    """
    p = state.to_move
    top, _under = state.square_codes()
    target = top[move.to]
    mover_value = move.value if isinstance(move, Send) else (top[move.frm] - CHAR) % 8
    gain = 0.0
    mutated_risk = 0.0
    if 0 <= target < UNKNOWN:
        gain = float(target)
        mutated_risk = odds[target] * 2 * mover_value
    elif CHAR <= target < MUTANT:
        gain = 2.0 * ((target - CHAR) % 8)
    elif target >= MUTANT:
        gain = float((target - MUTANT) % 8)
    after = state.clone()
    after.apply_unchecked(move)
    a_top, _ = after.square_codes()
    exposed = threatened_loss(a_top, p, after.on_board(p))
    return gain - mutated_risk - exposed
