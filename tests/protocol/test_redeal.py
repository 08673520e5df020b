"""The re-deal of the hidden part (docs/design/PLAY-ON.md, zoo_p2p/protocol/redeal.py).

Fairness: 900 simulated dropouts (3–4 seats, random bots, a random ply; generator seed 21),
even games observed under their original deal, odd games under the re-deal; Pearson's
two-sample χ² of homogeneity on each statistic must give p > 1e-3 when at least one re-dealing
seat is honest, and the control (no honest seat) p < 1e-6. Everything is seeded: the test is
deterministic. bench/bench_redeal.py prints the same figures at a larger sample.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.protocol.redeal_sim import (
    Dropout,
    TableSource,
    chi2_sf,
    homogeneity,
    honest,
    identity,
    play_games,
    redeal_samples,
    reverse,
)
from zoo_p2p.protocol.deal import (
    DEAL_TABLE,
    DOMAIN_PERM,
    commitment,
    derive_permutation,
    derive_salt,
    game_key,
    permutation_from_stream,
)
from zoo_p2p.protocol.redeal import (
    DOMAIN_REDEAL_PERM,
    HiddenPart,
    RedealError,
    RedealTables,
    apply_redeal,
    claimed_stand_in_public_key,
    claimed_stand_in_seed,
    commitment_problem,
    compose_redeal,
    derive_redeal_permutation,
    hidden_part,
    link_problem,
    public_record,
    redeal_key,
    reveal_chain,
    state_mismatch,
    table_problem,
)
from zoo_p2p.protocol.redeal_samples import redeal_vectors
from zoo_p2p.protocol.standin import stand_in_public_key
from zoo_p2p.rules import KnownDeal, Send, State, Team, Variant

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "protocol" / "vectors" / "redeal.json"

GAMES = 900
P_FAIR = 1e-3
P_CAUGHT = 1e-6

GID = bytes(range(32))
CLAIM = bytes(range(32, 64))


def played_game(seed: int, plies: int, n: int = 3) -> tuple[KnownDeal, State]:
    rng = random.Random(seed)
    deal = KnownDeal.random(rng)
    state = deal.new_state(list(Team)[:n])
    for _ in range(plies):
        if state.is_terminal():
            break
        moves = state.legal_moves()
        state.apply(moves[int(rng.random() * len(moves))])
    return deal, state


def record(seed: int, plies: int) -> tuple[KnownDeal, State, HiddenPart]:
    deal, state = played_game(seed, plies)
    known, reveals = public_record(deal, state)
    return deal, state, hidden_part(known, reveals, Variant.STANDARD)


def seats_tables(h: HiddenPart, n: int, salt: str = "") -> list[RedealTables]:
    return [
        RedealTables.from_seed(f"seed{k}{salt}".encode().ljust(32, b"."), GID, CLAIM, h)
        for k in range(n)
    ]


# --- the hidden part ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_hidden_part_is_what_nobody_has_seen(seed: int) -> None:
    deal, state, h = record(seed, 6 + 3 * seed)
    assert state_mismatch(h, state) is None
    assert len(h.covered) == len(h.tokens) == len(state.face_down())
    # the hidden tokens are the original deal's tokens under the covered squares
    assert sorted(deal.slot_tokens[s] for s in h.covered) == list(h.tokens)
    hidden_values = {v for v, _ in h.copies}
    assert hidden_values == {0, 1, 2, 3} - state.mutants_found
    for v, cs in h.copies:
        assert deal.mutant_copies[v] in cs  # the real mutant is among the unturned copies


def test_a_pending_reveal_is_part_of_the_hidden_part() -> None:
    """Claimed during a reveal round: the exposed bottom and the captured card's flag are hidden."""
    deal, state, _h = record(3, 4)
    pub = state.public()
    send = next(m for m in pub.legal_moves() if isinstance(m, Send) and m.to in pub.face_down())
    top_token = deal.slot_tokens[send.to]
    pub.apply(send)
    assert pub.needs is not None and pub.needs.bottom
    known, reveals = public_record(deal, state)  # nothing of the pending round is public yet
    pending = hidden_part(known, reveals, Variant.STANDARD)
    assert state_mismatch(pending, pub) is None
    assert 25 + send.to in pending.covered
    v, c = divmod(top_token, 10)
    if v in {x for x, _ in pending.copies}:
        assert c in pending.copies_of(v)
    # the re-dealt deal answers the pending round, and the game goes on
    tables = seats_tables(pending, 2)
    new = apply_redeal(
        pending,
        compose_redeal(pending, [t.tables for t in tables]),
        known,
        reveals,
        Variant.STANDARD,
    )
    after = pub.with_oracle(new.oracle())
    assert after.needs is None
    assert after.under(send.to).value == new.slot_tokens[25 + send.to] // 10


@pytest.mark.parametrize(
    "known, reveals, reason",
    [
        ({s: s for s in range(24)}, {}, "top slot 24 is not revealed"),
        ({**{s: s for s in range(25)}, 30: 3}, {}, "token 3 revealed at slots 3 and 30"),
        ({**{s: s for s in range(25)}, 50: 40}, {}, "slot 50 is outside"),
        ({s: s for s in range(25)}, {(3, 9): False}, "turned over but never revealed"),
        ({s: s for s in range(25)}, {(4, 0): False}, "no card of value 4"),
        ({s: s for s in range(25)}, {(0, 1): True, (0, 2): True}, "two mutants of value 0"),
    ],
)
def test_an_impossible_public_record_is_refused(
    known: dict[int, int], reveals: dict[tuple[int, int], bool], reason: str
) -> None:
    with pytest.raises(RedealError, match=reason):
        hidden_part(known, reveals, Variant.STANDARD)


def test_general_variant_has_only_the_deal_table() -> None:
    rng = random.Random(5)
    deal = KnownDeal.random(rng, Variant.GENERAL)
    state = deal.new_state([Team.YELLOW, Team.BLUE, Team.RED])
    for _ in range(10):
        state.apply(rng.choice(state.legal_moves()))
    known, reveals = public_record(deal, state)
    assert reveals == {}
    h = hidden_part(known, reveals, Variant.GENERAL)
    assert h.table_ids() == (0,)
    new = apply_redeal(
        h, compose_redeal(h, [t.tables for t in seats_tables(h, 2)]), known, {}, Variant.GENERAL
    )
    assert new.mutant_copies == ()
    with pytest.raises(RedealError, match="General"):
        hidden_part(known, {(0, 0): False}, Variant.GENERAL)


# --- the re-dealt state is consistent with everything public --------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_the_redealt_deal_agrees_with_everything_public(seed: int) -> None:
    deal, state, h = record(100 + seed, 2 * seed + 1)
    known, reveals = public_record(deal, state)
    tables = seats_tables(h, 2 + seed % 3, salt=str(seed))
    new = apply_redeal(
        h, compose_redeal(h, [t.tables for t in tables]), known, reveals, Variant.STANDARD
    )
    for slot, tok in known.items():  # every revealed card stays where it was
        assert new.slot_tokens[slot] == tok
    for (v, c), flag in reveals.items():  # every published flag stays
        assert new.is_mutant(10 * v + c) is flag
    assert sorted(new.slot_tokens[s] for s in h.covered) == list(h.tokens)
    # the rules engine sees the same board, hands and scores, and plays on to the end
    again = state.public().with_oracle(new.oracle())
    assert again.digest() == state.digest()
    assert [s.total for s in again.scores()] == [s.total for s in state.scores()]
    rng = random.Random(seed)
    while not again.is_terminal():
        again.apply(rng.choice(again.legal_moves()))
    assert sum(len(again.captured_zoo(p)) for p in range(again.n_seats)) <= 50


def test_the_new_deal_depends_on_every_remaining_seat() -> None:
    deal, state, h = record(7, 10)
    known, reveals = public_record(deal, state)
    a = seats_tables(h, 3)
    b = [a[0], seats_tables(h, 3, salt="x")[1], a[2]]
    deals = [
        apply_redeal(h, compose_redeal(h, [t.tables for t in s]), known, reveals, Variant.STANDARD)
        for s in (a, b)
    ]
    assert deals[0].slot_tokens != deals[1].slot_tokens


def test_apply_redeal_refuses_a_record_of_another_hidden_part() -> None:
    deal, state, h = record(9, 12)
    known, reveals = public_record(deal, state)
    composed = compose_redeal(h, [t.tables for t in seats_tables(h, 2)])
    slot = h.covered[0]
    with pytest.raises(RedealError, match="does not give this hidden part"):
        apply_redeal(h, composed, {**known, slot: h.tokens[0]}, reveals, Variant.STANDARD)


# --- tables that are not a permutation of the hidden part -----------------------------------


def test_tables_that_are_not_a_permutation_of_the_hidden_part_are_refused() -> None:
    v = json.loads(VECTOR.read_text())
    h = hidden_part(
        {s: t for s, t in v["known_tokens"]},
        {(a, c): f for a, c, f in v["mutant_reveals"]},
        Variant.STANDARD,
    )
    good = [list(x) for x in RedealTables.from_seed(b"s" * 32, GID, CLAIM, h).tables]
    assert table_problem(h, good) is None
    assert len(v["refused_tables"]) >= 5
    for case in v["refused_tables"]:
        reason = table_problem(h, case["tables"])
        assert reason is not None and reason == case["reason"], case["what"]
        # compose_redeal names the seat that brought them
        with pytest.raises(RedealError, match=r"re-deal seat #1: "):
            compose_redeal(h, [good, case["tables"]])
    bad_type = [row[:] for row in good]
    bad_type[0][0] = True  # a bool is not an index
    assert "outside" in (table_problem(h, bad_type) or "")


# --- commitments ------------------------------------------------------------------------------


def test_commitments_over_the_wrong_token_set_do_not_verify() -> None:
    _deal, _state, h = record(11, 14)
    seed = b"k" * 32
    right = RedealTables.from_seed(seed, GID, CLAIM, h)
    blobs = right.commitments(GID, CLAIM, 2)
    assert commitment_problem(h, GID, CLAIM, 2, blobs, seed) is None
    outside = next(t for t in range(50) if t not in h.tokens)
    others = [
        HiddenPart(h.covered, tuple(sorted((*h.tokens[1:], outside))), h.copies),  # same sizes
        HiddenPart(h.covered[1:], h.tokens[1:], h.copies),  # one slot fewer
        HiddenPart(h.covered, h.tokens, h.copies[1:]),  # a found mutant treated as hidden
    ]
    for other in others:
        wrong = RedealTables.from_seed(seed, GID, CLAIM, other)
        wrong_blobs = wrong.commitments(GID, CLAIM, 2)
        problem = commitment_problem(h, GID, CLAIM, 2, wrong_blobs, seed)
        assert problem is not None
        # a seat that committed over the wrong set: its links do not open its commitments
        # for a verifier that holds the true hidden part
        if other.covered == h.covered:
            link = wrong.link(DEAL_TABLE, 0)
            got = link_problem(h, GID, CLAIM, 2, wrong_blobs, DEAL_TABLE, 0, link)
            assert "does not match" in (got or "")
            assert link_problem(other, GID, CLAIM, 2, wrong_blobs, DEAL_TABLE, 0, link) is None
    # the same-size case is caught only by the digest: the shape is right
    same = others[0]
    blobs_same = RedealTables.from_seed(seed, GID, CLAIM, same).commitments(GID, CLAIM, 2)
    assert [len(b) for b in blobs_same] == [len(b) for b in blobs]
    assert "does not give" in (commitment_problem(h, GID, CLAIM, 2, blobs_same, seed) or "")


def test_commitments_are_bound_to_the_seat_the_claim_and_the_seed() -> None:
    _deal, _state, h = record(12, 8)
    seed = b"q" * 32
    blobs = RedealTables.from_seed(seed, GID, CLAIM, h).commitments(GID, CLAIM, 1)
    assert commitment_problem(h, GID, CLAIM, 2, blobs, seed) is not None  # another seat
    other_claim = bytes(32)
    assert commitment_problem(h, GID, other_claim, 1, blobs, seed) is not None
    assert commitment_problem(h, GID, CLAIM, 1, blobs, b"r" * 32) is not None
    assert commitment_problem(h, GID, CLAIM, 1, blobs[:-1], seed) is not None
    short = [blobs[0][:-32], *blobs[1:]]
    assert "bytes, not" in (commitment_problem(h, GID, CLAIM, 1, short, seed) or "")


def test_redeal_is_domain_separated_from_the_opening_deal() -> None:
    """Re-deal tables, salts and commitments are not §4's for the same seed and game."""
    _deal, _state, h = record(13, 2)
    seed = b"z" * 32
    key = game_key(seed, GID)
    t = RedealTables.from_seed(seed, GID, CLAIM, h)
    assert redeal_key(seed, GID, CLAIM) != key
    assert t.salt(DEAL_TABLE, 0) != derive_salt(key, DEAL_TABLE, 0)
    y, salt = t.link(DEAL_TABLE, 0)
    blob = t.commitments(GID, CLAIM, 0)[0]
    assert blob[:32] != commitment(GID, 0, DEAL_TABLE, 0, y, salt)
    # the derivation is §4.2's algorithm, only under another prefix
    for n in (1, 2, 9, 25, 50):
        p = derive_redeal_permutation(key, 3, n)
        assert sorted(p) == list(range(n))
        assert p == permutation_from_stream(key, DOMAIN_REDEAL_PERM + bytes([3]), n)
    assert permutation_from_stream(key, DOMAIN_PERM + bytes([0]), 50) == derive_permutation(key, 0)


def test_links_check_against_the_redeal_commitments() -> None:
    _deal, _state, h = record(14, 10)
    tables = seats_tables(h, 3)
    blobs = [t.commitments(GID, CLAIM, k) for k, t in enumerate(tables)]
    x = 0
    for k, t in enumerate(tables):
        link = t.link(DEAL_TABLE, x)
        assert link_problem(h, GID, CLAIM, k, blobs[k], DEAL_TABLE, x, link) is None
        forged = [(link[0] + 1) % len(h.covered), link[1]]
        assert "does not match" in (
            link_problem(h, GID, CLAIM, k, blobs[k], DEAL_TABLE, x, forged) or ""
        )
        x = link[0]
    assert reveal_chain(tables, DEAL_TABLE, 0)[-1] == x
    n = len(h.covered)
    assert "outside" in (link_problem(h, GID, CLAIM, 0, blobs[0], DEAL_TABLE, n, [0, b""]) or "")
    assert "no re-deal table" in (link_problem(h, GID, CLAIM, 0, blobs[0], 9, 0, [0, b""]) or "")


# --- the claimed seat's stand-in key ----------------------------------------------------------


def test_the_claimed_seats_stand_in_key_comes_from_public_data_only() -> None:
    k = claimed_stand_in_public_key(GID, 2, CLAIM)
    assert k == claimed_stand_in_public_key(GID, 2, CLAIM)
    assert k != claimed_stand_in_public_key(GID, 1, CLAIM)
    assert k != claimed_stand_in_public_key(GID, 2, bytes(32))
    assert k != claimed_stand_in_public_key(bytes(32), 2, CLAIM)
    # not §10.4's stand-in key, even if the claim hash were taken for a seed
    assert k != stand_in_public_key(GID, 2, CLAIM)
    assert len(claimed_stand_in_seed(GID, 2, CLAIM)) == 32
    with pytest.raises(RedealError):
        claimed_stand_in_seed(GID, 2, b"short")


# --- vectors --------------------------------------------------------------------------------


def test_the_vector_file_is_what_the_code_generates() -> None:
    assert json.loads(VECTOR.read_text()) == redeal_vectors(), "run protocol/generate.py"


def test_the_vectors_recompute_from_their_inputs() -> None:
    """What a second implementation does with redeal.json: every output from the inputs."""
    v = json.loads(VECTOR.read_text())
    gid, claim = bytes.fromhex(v["game_id"]), bytes.fromhex(v["claim_hash"])
    known = {s: t for s, t in v["known_tokens"]}
    reveals = {(a, c): f for a, c, f in v["mutant_reveals"]}
    h = hidden_part(known, reveals, Variant.STANDARD)
    assert list(h.covered) == v["hidden"]["covered"]
    assert h.encode().hex() == v["hidden"]["encoding"]
    assert h.digest(gid).hex() == v["hidden"]["digest"]
    per_seat = []
    for s in v["seats"]:
        seed = bytes.fromhex(s["seed"])
        assert redeal_key(seed, gid, claim).hex() == s["redeal_key"]
        t = RedealTables.from_seed(seed, gid, claim, h)
        assert [list(x) for x in t.tables] == s["tables"]
        assert [c.hex() for c in t.commitments(gid, claim, s["seat"])] == s["commitments"]
        blobs = [bytes.fromhex(c) for c in s["commitments"]]
        assert commitment_problem(h, gid, claim, s["seat"], blobs, seed) is None
        per_seat.append(t)
    composed = compose_redeal(h, [t.tables for t in per_seat])
    assert [list(x) for x in composed] == v["composed"]
    new = apply_redeal(h, composed, known, reveals, Variant.STANDARD)
    assert list(new.slot_tokens) == v["new_deal"]["slot_tokens"]
    assert list(new.mutant_copies) == v["new_deal"]["mutant_copies"]
    r = v["reveal"]
    assert new.slot_tokens[r["slot"]] == r["token"]
    assert [y for y, _ in r["links"]] == reveal_chain(per_seat, DEAL_TABLE, r["index"])
    cs = v["claimed_stand_in"]
    assert claimed_stand_in_public_key(gid, cs["seat"], claim).hex() == cs["public_key"]
    w = v["wrong_token_set"]
    wrong = [bytes.fromhex(c) for c in w["commitments"]]
    seed0 = bytes.fromhex(v["seats"][0]["seed"])
    assert commitment_problem(h, gid, claim, w["seat"], wrong, seed0) == w["reason"] is not None


# --- fairness ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dropouts() -> list[Dropout]:
    return play_games(GAMES, seed=21)


def p_values(played: list[Dropout], seats: list[TableSource] | None) -> dict[str, float]:
    s = redeal_samples(played, seats, seed=22)
    return {k: homogeneity(s.original[k], s.redealt[k])[2] for k in s.original}


def test_chi2_p_values_are_exact() -> None:
    # known quantiles: χ²(1) 3.841 and χ²(10) 18.307 at p = 0.05, χ²(4) 18.467 at 0.001
    assert chi2_sf(3.841459, 1) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(18.307038, 10) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(18.466827, 4) == pytest.approx(0.001, rel=1e-5)
    assert chi2_sf(2.0, 2) == pytest.approx(0.36787944, rel=1e-7)  # exp(-1)
    assert chi2_sf(0.0, 3) == 1.0


def test_the_redeal_is_distributed_as_the_original_deal(dropouts: list[Dropout]) -> None:
    p = p_values(dropouts, None)
    assert min(p.values()) > P_FAIR, p


@pytest.mark.parametrize(
    "seats",
    [
        [honest, identity, reverse],
        [identity, honest, reverse],
        [reverse, identity, honest],
        [identity, honest],
    ],
    ids=["honest-first", "honest-middle", "honest-last", "two-seats"],
)
def test_one_honest_seat_is_enough_against_colluders(
    dropouts: list[Dropout], seats: list[TableSource]
) -> None:
    p = p_values(dropouts, seats)
    assert min(p.values()) > P_FAIR, p


def test_control_colluders_alone_are_caught(dropouts: list[Dropout]) -> None:
    """The test can fail: with no honest seat the re-deal is biased and the χ² sees it."""
    p = p_values(dropouts, [identity, reverse, identity])
    assert p["bottom_row"] < P_CAUGHT, p
    assert p["mutant"] < P_CAUGHT, p
    assert p["bottom"] < P_FAIR, p  # by single square too, at the threshold the fair runs pass


def test_a_second_redeal_after_play_went_on_is_consistent_too() -> None:
    """Claim, re-deal, play on with the new deal, claim again: the second re-deal is over what
    is still hidden then, and keeps everything revealed since the first one."""
    deal, state, h1 = record(31, 6)
    known1, reveals1 = public_record(deal, state)
    first = apply_redeal(
        h1,
        compose_redeal(h1, [t.tables for t in seats_tables(h1, 3)]),
        known1,
        reveals1,
        Variant.STANDARD,
    )
    game = state.public().with_oracle(first.oracle())
    rng = random.Random(31)
    for _ in range(8):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_moves()))
    known2, reveals2 = public_record(first, game)
    h2 = hidden_part(known2, reveals2, Variant.STANDARD)
    assert state_mismatch(h2, game) is None
    assert set(h2.covered) <= set(h1.covered)
    second = apply_redeal(
        h2,
        compose_redeal(h2, [t.tables for t in seats_tables(h2, 2, salt="2")]),
        known2,
        reveals2,
        Variant.STANDARD,
    )
    for slot, tok in known2.items():
        assert second.slot_tokens[slot] == tok
    for (v, c), flag in reveals2.items():
        assert second.is_mutant(10 * v + c) is flag
    assert game.public().with_oracle(second.oracle()).digest() == game.digest()
