"""Property tests over thousands of random games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from zoo_p2p.errors import IllegalMoveError
from zoo_p2p.rules import KnownDeal, Send, State, Step, Team, Variant
from zoo_p2p.rules.board import N_SQUARES, NEIGHBOURS

games = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(2, 4),
    st.sampled_from(list(Variant)),
)


def all_moves() -> list[Send | Step]:
    sends: list[Send | Step] = [Send(v, q) for v in (3, 4, 5, 6) for q in range(N_SQUARES)]
    return sends + [Step(a, b) for a in range(N_SQUARES) for b in NEIGHBOURS[a]]


ALL_MOVES = all_moves()


def new_game(seed: int, n: int, variant: Variant) -> tuple[KnownDeal, State, random.Random]:
    rng = random.Random(seed)
    deal = KnownDeal.random(rng, variant)
    teams = rng.sample(list(Team), n)
    return deal, deal.new_state(teams, first_seat=rng.randrange(n)), rng


def accounted(s: State) -> None:
    """All 50 Zoo cards and all 4n characters are somewhere exactly once."""
    zoo_on_board = sum(1 for q in range(N_SQUARES) if s.top(q).kind == "zoo") + sum(
        1 for q in range(N_SQUARES) if s.under(q).kind in ("zoo", "unknown")
    )
    zoo_taken = sum(len(s.captured_zoo(p)) for p in range(s.n_seats))
    assert zoo_on_board + zoo_taken == 50
    chars: list[tuple[int, int]] = []
    for p in range(s.n_seats):
        chars += [(p, v) for v in s.hand(p)] + [(p, v) for v in s.on_board(p)]
        chars += [(s.teams.index(t), v) for t, v, _ in s.captured_characters(p)]
    for q in range(N_SQUARES):
        c = s.top(q)
        if c.kind == "mutant":
            assert c.seat is not None and c.value is not None
            chars.append((c.seat, c.value))
        if c.kind == "character":
            assert s.on_board(c.seat or 0).get(c.value or 0) == q
    assert sorted(chars) == sorted((p, v) for p in range(s.n_seats) for v in (3, 4, 5, 6))
    for line in s.scores():
        p = line.seat
        assert line.zoo == sum(s.captured_zoo(p))
        assert line.characters == sum(v for _, v, _ in s.captured_characters(p))
        assert line.survivors == sum(s.hand(p)) + sum(s.on_board(p))


@settings(max_examples=150, deadline=None)
@given(games)
def test_random_games_keep_every_card_and_only_play_legal_moves(
    g: tuple[int, int, Variant],
) -> None:
    seed, n, variant = g
    _, s, rng = new_game(seed, n, variant)
    plies = 0
    while not s.is_terminal():
        legal = s.legal_moves()
        assert legal, "a non-terminal state has a legal move"
        legal_set = set(legal)
        for m in rng.sample(ALL_MOVES, 12):  # every move outside the list is refused, with a reason
            if m not in legal_set:
                try:
                    s.check(m)
                except IllegalMoveError as e:
                    assert str(e)
                else:
                    raise AssertionError(f"{m} accepted but not in legal_moves")
        move = rng.choice(legal)
        s.check(move)
        s.apply(move)
        accounted(s)
        plies += 1
        assert plies <= 50 + 4 * n, "every turn takes a card, so a game is bounded"
    assert s.legal_moves() == []


@settings(max_examples=300, deadline=None)
@given(games)
def test_fast_playout_and_replay_agree(g: tuple[int, int, Variant]) -> None:
    """The fast playout path, the checked path and the reveal-driven path reach one digest."""
    seed, n, variant = g
    deal, s, rng = new_game(seed, n, variant)
    start = s.clone()
    s.playout(rng)
    assert s.is_terminal()
    accounted(s)
    replay = start.clone()
    for m in s.history:
        replay.apply(m)
    assert replay.digest() == s.digest()
    assert replay.is_terminal()
    # the same moves without an oracle, hidden facts supplied by hand, as a network game would
    blind = State.new(start.teams, deal.top_values, variant=variant, first_seat=start.to_move)
    oracle = deal.oracle()
    for m in s.history:
        blind.apply(m)
        need = blind.needs
        if need is not None:
            mut = None
            if need.mutant_value is not None:
                flags = oracle.mut_top if need.layer == 1 else oracle.mut_bottom
                mut = flags[need.square]
            blind.reveal(bottom=oracle.bottom[need.square] if need.bottom else None, mutant=mut)
    assert blind.digest() == s.digest()
    assert [x.total for x in blind.scores()] == [x.total for x in s.scores()]


@settings(max_examples=200, deadline=None)
@given(games)
def test_determinize_is_consistent_with_what_is_public(g: tuple[int, int, Variant]) -> None:
    seed, n, variant = g
    _, s, rng = new_game(seed, n, variant)
    for _ in range(rng.randrange(40)):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_moves()))
    pub = s.public()
    o = pub.determinize(rng)
    sim = pub.with_oracle(o)
    # revealed facts are kept; the sampled game plays out legally
    for q in range(N_SQUARES):
        if pub.under(q).kind == "zoo":
            assert sim.under(q) == pub.under(q)
    sim.playout(rng)
    assert sim.is_terminal()
    accounted(sim)
    flagged: list[int] = []
    for q in range(N_SQUARES):
        top, under = pub.top(q), pub.under(q)
        if o.mut_top[q]:
            assert top.kind == "zoo" and under.kind != "empty"
            flagged.append(top.value or 0)
        if o.mut_bottom[q]:
            if under.kind == "unknown":
                flagged.append(o.bottom[q])
            elif under.kind == "zoo":
                flagged.append(under.value or 0)
            else:
                assert top.kind == "zoo"
                flagged.append(top.value or 0)
    assert all(v < 4 and v not in pub.mutants_found for v in flagged)
    assert len(set(flagged)) == len(flagged), "one mutant per value"
    if variant is Variant.GENERAL:
        assert not any(o.mut_top) and not any(o.mut_bottom)
    else:
        assert sum(o.mut_top) + sum(o.mut_bottom) <= 4 - len(pub.mutants_found)
