"""A fully known deal: all 50 Zoo cards and the four mutants fixed up front."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from zoo_p2p.rules.board import N_SQUARES, Team, Variant
from zoo_p2p.rules.state import Oracle, State

N_SLOTS = 2 * N_SQUARES


@dataclass(frozen=True)
class KnownDeal:
    """Slot tokens (slot s < 25: top of square s; 25 + q: bottom of square q) and mutant copies.

    Token ``t`` is the Zoo card of value ``t // 10``, copy ``t % 10``; for value ``v`` in 0..3 the
    copy ``mutant_copies[v]`` hides the mutant (no mutants in the General variant).
    """

    slot_tokens: tuple[int, ...]
    mutant_copies: tuple[int, ...]
    variant: Variant

    def __post_init__(self) -> None:
        if sorted(self.slot_tokens) != list(range(N_SLOTS)):
            raise ValueError("slot_tokens must be a permutation of 0..49")
        want = 0 if self.variant is Variant.GENERAL else 4
        if len(self.mutant_copies) != want or any(c not in range(10) for c in self.mutant_copies):
            raise ValueError(f"mutant_copies must be {want} copies in 0..9")

    @classmethod
    def random(cls, rng: random.Random, variant: Variant = Variant.STANDARD) -> KnownDeal:
        """A uniformly random deal from an injected generator."""
        tokens = list(range(N_SLOTS))
        rnd = rng.random
        for i in range(N_SLOTS - 1, 0, -1):  # Fisher-Yates (float draws: fine for local play)
            j = int(rnd() * (i + 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        copies = () if variant is Variant.GENERAL else tuple(int(rnd() * 10) for _ in range(4))
        return cls(tuple(tokens), copies, variant)

    @classmethod
    def from_tokens(
        cls, slot_tokens: Sequence[int], mutant_copies: Sequence[int], variant: Variant
    ) -> KnownDeal:
        """Build from explicit tokens and mutant copies."""
        return cls(tuple(slot_tokens), tuple(mutant_copies), variant)

    def is_mutant(self, token: int) -> bool:
        """Does this token hide the Big Ugly Mutant?"""
        v, c = divmod(token, 10)
        return self.variant is Variant.STANDARD and v < 4 and self.mutant_copies[v] == c

    @property
    def top_values(self) -> list[int]:
        """The 25 public top values."""
        return [t // 10 for t in self.slot_tokens[:N_SQUARES]]

    @cached_property
    def _oracle(self) -> Oracle:
        st = self.slot_tokens
        mutants = {10 * v + c for v, c in enumerate(self.mutant_copies)}
        return Oracle(
            [t // 10 for t in st[N_SQUARES:]],
            [t in mutants for t in st[:N_SQUARES]],
            [t in mutants for t in st[N_SQUARES:]],
        )

    def oracle(self) -> Oracle:
        """The hidden facts of this deal, for the engine (shared, never mutated)."""
        return self._oracle

    @cached_property
    def _seen(self) -> tuple[int, ...]:
        seen = [0] * 5
        for t in self.slot_tokens[:N_SQUARES]:
            seen[t // 10] += 1
        return tuple(seen)

    def new_state(self, teams: Sequence[Team], *, first_seat: int = 0) -> State:
        """A game on this deal whose hidden facts are answered automatically."""
        teams = tuple(Team(t) for t in teams)
        if not 2 <= len(teams) <= 4 or len(set(teams)) != len(teams):
            raise ValueError("2 to 4 players, each with a distinct team")
        if not 0 <= first_seat < len(teams):
            raise ValueError(f"first seat {first_seat} out of range")
        return State._fresh(
            teams, self.top_values, self.variant, first_seat, self._oracle, list(self._seen)
        )
