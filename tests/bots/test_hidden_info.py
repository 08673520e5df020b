"""A bot decides from what its seat can see: hidden bottoms and mutants change nothing."""

from __future__ import annotations

import random

import pytest

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.base import Bot
from zoo_p2p.bots.expert import ExpertBot, PeekBot, PeekBottomsBot, PeekMutantsBot
from zoo_p2p.bots.hard import HardBot
from zoo_p2p.rules import IllegalMoveError, KnownDeal, State, Team, Variant
from zoo_p2p.rules.state import UNKNOWN


def _twin_states(seed: int, plies: int, variant: Variant) -> tuple[State, State]:
    """Two games, same top cards and visible history, different hidden bottoms and mutants."""
    rng = random.Random(seed)
    deal = KnownDeal.random(rng, variant)
    teams = [Team.YELLOW, Team.RED]
    a = deal.new_state(teams)
    for _ in range(plies):
        moves = a.legal_moves()
        a.apply(moves[int(rng.random() * len(moves))])
    _top, under = a.square_codes()
    hidden = [q for q in range(25) if under[q] == UNKNOWN]
    assert len(hidden) >= 2
    for _attempt in range(200):
        tokens = list(deal.slot_tokens)
        slots = [25 + q for q in hidden]
        shuffled = [tokens[s] for s in slots]
        rng.shuffle(shuffled)
        for s, t in zip(slots, shuffled, strict=True):
            tokens[s] = t
        copies = tuple(int(rng.random() * 10) for _ in deal.mutant_copies)
        other = KnownDeal.from_tokens(tokens, copies, variant)
        b = other.new_state(teams)
        try:
            for m in a.history:
                b.apply(m)
        except IllegalMoveError:  # a mutant came up at another time: not a twin
            continue
        differs = [deal.oracle().bottom[q] != other.oracle().bottom[q] for q in hidden]
        new_mutants = copies != deal.mutant_copies or not copies
        if b.digest() == a.digest() and any(differs) and new_mutants:
            return a, b
    raise AssertionError("no twin deal found")


def _bots(level: str) -> tuple[Bot, Bot]:
    if level == "hard":
        return (
            HardBot(seed=5, work=1500, clock=lambda: 0.0),
            HardBot(seed=5, work=1500, clock=lambda: 0.0),
        )
    if level == "expert":
        return ExpertBot(seed=5, work=1500), ExpertBot(seed=5, work=1500)
    return make_bot(level, seed=5), make_bot(level, seed=5)


@pytest.mark.parametrize("level", ["random", "greedy", "hard", "expert"])
@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("plies", [0, 7])
def test_same_public_view_same_decision(level: str, variant: Variant, plies: int) -> None:
    a, b = _twin_states(100 + plies, plies, variant)
    assert a.has_oracle and b.has_oracle
    bot_a, bot_b = _bots(level)
    # the bot is handed the oracle states on purpose: it must drop the oracle itself
    ma = bot_a.choose(a)
    mb = bot_b.choose(b)
    assert ma == mb
    # and the public view decides the same as the full state
    bot_c, _ = _bots(level)
    assert bot_c.choose(a.public()) == ma


def test_twins_really_differ_in_hidden_facts() -> None:
    a, b = _twin_states(3, 7, Variant.STANDARD)
    assert a.digest() == b.digest()
    ca, cb = a.clone(), b.clone()
    ca.playout(random.Random(1))
    cb.playout(random.Random(1))
    # the same random playout on the two deals diverges once hidden facts come up
    assert ca.digest() != cb.digest() or ca.scores() != cb.scores()


def test_peek_uses_the_hidden_deal_and_the_expert_does_not() -> None:
    # on twins the expert decides the same; peek, handed the oracle, may not (and handed the
    # public state it cannot peek: it decides like the expert)
    a, _b = _twin_states(107, 7, Variant.STANDARD)
    expert = ExpertBot(seed=5, work=1500).choose(a)
    assert PeekBot(seed=5, work=1500).choose(a.public()) == expert
    assert PeekBot(seed=5, work=1500).level == "peek"


def _partway(seed: int, plies: int) -> State:
    """A standard game some plies in, with its hidden deal (an oracle)."""
    rng = random.Random(seed)
    state = KnownDeal.random(rng, Variant.STANDARD).new_state([Team.YELLOW, Team.RED])
    for _ in range(plies):
        moves = state.legal_moves()
        state.apply(moves[int(rng.random() * len(moves))])
    return state


def test_determinize_keeps_the_bottoms_it_is_told() -> None:
    state = _partway(11, 6)
    pub = state.public()
    hidden = pub.face_down()
    real = state._oracle
    assert real is not None and len(hidden) >= 3
    told = {q: real.bottom[q] for q in hidden[:3]}
    counts = [0] * 5
    for q in hidden:
        counts[real.bottom[q]] += 1
    for k in range(20):
        bottom = pub.determinize(random.Random(k), told).bottom
        assert all(bottom[q] == v for q, v in told.items())
        # still a deal: the face-down values are the copies nobody has seen
        got = [0] * 5
        for q in hidden:
            got[bottom[q]] += 1
        assert got == counts
    with pytest.raises(ValueError, match="cannot hold"):
        pub.determinize(random.Random(0), {next(q for q in range(25) if q not in hidden): 0})


def test_partial_peeks_are_told_their_part_of_the_deal_and_nothing_else() -> None:
    state = _partway(23, 8)
    real = state._oracle
    assert real is not None
    pub = state.public()
    hidden = pub.face_down()
    mutants = make_bot("peek-mutants", seed=3, work=100, measurement=True)
    bottoms = make_bot("peek-bottoms", seed=3, work=100, measurement=True)
    assert isinstance(mutants, PeekMutantsBot) and isinstance(bottoms, PeekBottomsBot)
    assert mutants.peeks and bottoms.peeks  # the arena hands them the state with its deal
    seen_other_bottoms = False
    seen_other_mutants = False
    for _ in range(30):
        m = mutants._oracles(state)(pub)
        assert m.mut_top == real.mut_top and m.mut_bottom == real.mut_bottom
        # a mutant hiding face down fixes that card's value; the other bottoms are sampled
        assert all(m.bottom[q] == real.bottom[q] for q in hidden if real.mut_bottom[q])
        seen_other_bottoms |= any(m.bottom[q] != real.bottom[q] for q in hidden)
        b = bottoms._oracles(state)(pub)
        assert all(b.bottom[q] == real.bottom[q] for q in hidden)
        seen_other_mutants |= (b.mut_top, b.mut_bottom) != (real.mut_top, real.mut_bottom)
    assert seen_other_bottoms and seen_other_mutants
    # handed the public state, peek-bottoms cannot peek and searches exactly as the expert
    assert PeekBottomsBot(seed=5, work=1500).choose(pub) == ExpertBot(seed=5, work=1500).choose(pub)
