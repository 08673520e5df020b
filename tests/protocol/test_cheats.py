"""The cheat catalogue: each fault is detected, names the seat and carries the entry as proof."""

from __future__ import annotations

import random

import pytest

from tests.protocol.conftest import finished_game
from tests.protocol.helpers import forge
from zoo_p2p.errors import CheatError, RemoteProtocolError
from zoo_p2p.protocol.audit import CHEAT, INCOMPLETE, audit
from zoo_p2p.protocol.deal import DEAL_TABLE, SeatTables
from zoo_p2p.protocol.encoding import Kind, decode_entry, encode_payload, pack
from zoo_p2p.protocol.events import Floor
from zoo_p2p.protocol.session import Session, encode_move
from zoo_p2p.protocol.simulate import LocalGame, random_mover, setup_game, step
from zoo_p2p.rules import Variant


def _advance_to(game: LocalGame, kind: str, rng: random.Random) -> Floor:
    """Play until the floor is of `kind`; return it."""
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.kind == kind:
            return f
        step(game, rng)


def _owed(game: LocalGame, seat: int) -> list[bytes]:
    """What `seat` would send now, produced on a throwaway copy so the real sessions stay put."""
    s = game.sessions[seat]
    twin = Session(
        s.entries[0], key=game.keys[seat], seed=game.seeds[seat], nonce=game.nonces[seat]
    )
    for raw in s.entries[1:]:
        twin.receive(raw)
    return twin.take_outgoing()


def _honest(game: LocalGame, seat: int) -> list[Session]:
    return [s for i, s in enumerate(game.sessions) if i != seat]


def _expect_cheat(sessions: list[Session], raw: bytes, seat: int, match: str) -> None:
    for s in sessions:
        n = len(s)
        with pytest.raises(CheatError, match=match) as info:
            s.receive(raw)
        assert info.value.seat == seat and info.value.entry == raw and info.value.evidence
        assert len(s) == n and s.stopped is not None and s.stopped.seat == seat
        assert s.floor is None
        with pytest.raises(RemoteProtocolError, match="stopped"):
            s.receive(raw)


@pytest.mark.parametrize("field", ["value", "salt"])
def test_wrong_reveal_value_or_salt_in_the_opening_round(field: str) -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(11))
    rng = random.Random(0)
    _advance_to(game, Kind.OPEN, rng)
    step(game, rng)  # seat 0 opens honestly
    body = decode_entry(_owed(game, 1)[0]).body
    link = body[1][7]
    if field == "value":
        link[0] = (link[0] + 1) % 50
    else:
        link[1] = bytes(32)
    bad = forge(game, 1, Kind.OPEN, body)
    _expect_cheat(_honest(game, 1), bad, 1, "does not match its commitment")


def test_wrong_reveal_after_a_capture() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(12))
    rng = random.Random(0)
    _advance_to(game, Kind.REVEAL, rng)
    body = decode_entry(_owed(game, 0)[0]).body
    body[0][0][0] = (body[0][0][0] + 3) % 50
    _expect_cheat(_honest(game, 0), forge(game, 0, Kind.REVEAL, body), 0, "commitment")


def test_wrong_first_player_nonce() -> None:
    game = setup_game(2, Variant.GENERAL, random.Random(13))
    rng = random.Random(0)
    _advance_to(game, Kind.OPEN, rng)
    body = decode_entry(_owed(game, 0)[0]).body
    body[0] = bytes(32)
    _expect_cheat(_honest(game, 0), forge(game, 0, Kind.OPEN, body), 0, "nonce")


def _cheater_game(seed: int, seat: int, fake: SeatTables) -> LocalGame:
    """A 2-seat game where `seat` commits to `fake` tables instead of its seed's."""
    game = setup_game(2, Variant.STANDARD, random.Random(seed))
    s = game.sessions[seat]
    game.sessions[seat] = Session(
        s.entries[0],
        key=game.keys[seat],
        seed=game.seeds[seat],
        nonce=game.nonces[seat],
        tables=fake,
    )
    return game


def test_non_permutation_caught_at_the_collision() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(14))
    real = SeatTables.from_seed(game.seeds[0], game.sessions[0].game_id, general=False)
    deal = list(real.tables[DEAL_TABLE])
    deal[1] = deal[0]  # slots 0 and 1 (both top cards) map to the same token
    fake = SeatTables((tuple(deal), *real.tables[1:]), real.salts)
    game = _cheater_game(14, 0, fake)
    rng = random.Random(0)
    _advance_to(game, Kind.OPEN, rng)
    with pytest.raises(CheatError) as own:  # the cheater's own session refuses to send it
        game.sessions[0].take_outgoing()
    bad = own.value.entry
    assert bad is not None
    _expect_cheat(_honest(game, 0), bad, 0, "not a permutation")


def test_non_permutation_caught_at_the_final_audit_from_opened_seeds() -> None:
    seed, seat = 15, 1
    honest = setup_game(2, Variant.STANDARD, random.Random(seed))
    rng = random.Random(0)
    while step(honest, rng):
        pass
    # Which of the seat's table entries were never revealed in that game?
    obs = Session(honest.entries[0])
    for raw in honest.entries[1:]:
        if decode_entry(raw).kind == Kind.SEED:
            break
        obs.receive(raw)
    real = SeatTables.from_seed(honest.seeds[seat], honest.sessions[0].game_id, general=False)
    tables = [list(t) for t in real.tables]
    for t, images in enumerate(obs._images[seat]):
        unused = sorted(set(range(len(tables[t]))) - {x for x, _ in images.values()})
        if len(unused) >= 2:
            a, b = unused[:2]
            tables[t][b] = tables[t][a]  # two never-revealed indices collide
            break
    else:
        pytest.fail("every table entry was revealed; pick another seed")
    fake = SeatTables(tuple(tuple(t) for t in tables), real.salts)
    game = _cheater_game(seed, seat, fake)
    rng = random.Random(0)
    while True:  # the same game, move for move, until the cheater opens its seed
        f = game.sessions[0].floor
        assert f is not None
        if f == Floor(seat, Kind.SEED):
            break
        step(game, rng, random_mover)
    with pytest.raises(CheatError) as own:
        game.sessions[seat].take_outgoing()
    bad = own.value.entry
    assert bad is not None
    _expect_cheat(_honest(game, seat), bad, seat, "does not match the commitment")
    report = audit([*game.sessions[0].entries, bad])
    assert report.verdict == CHEAT and report.fault_seat == seat
    assert report.fault_index == len(game.sessions[0].entries)


def test_wrong_seed_opened() -> None:
    game = setup_game(2, Variant.GENERAL, random.Random(16))
    rng = random.Random(0)
    _advance_to(game, Kind.SEED, rng)
    _expect_cheat(_honest(game, 0), forge(game, 0, Kind.SEED, [bytes(32)]), 0, "does not match")


def test_out_of_turn_entry_is_rejected_not_appended() -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(17))
    rng = random.Random(0)
    step(game, rng)  # seat 0 commits; the floor is seat 1's
    body = decode_entry(game.sessions[1].entries[1]).body  # seat 0's commit body, re-signed
    raw = forge(game, 2, Kind.COMMIT, body)
    for s in (game.sessions[0], game.sessions[1]):
        with pytest.raises(RemoteProtocolError, match="out of turn") as info:
            s.receive(raw)
        assert info.value.seat == 2 and info.value.entry == raw
        assert len(s) == 2 and s.stopped is None


def test_wrong_kind_on_the_floor() -> None:
    game = finished_game(2)
    obs = Session(game.entries[0])
    raw = forge(game, 0, Kind.SEED, [bytes(32)], on=obs)
    with pytest.raises(RemoteProtocolError, match="out of turn"):
        obs.receive(raw)


def test_forged_signature() -> None:
    game = finished_game(2)
    e = decode_entry(game.entries[1])
    payload = encode_payload(e.seq, e.prev, 1, e.kind, e.body)  # claims seat 1 ...
    raw = pack([payload, game.keys[0].sign(payload)])  # ... signed with seat 0's key
    obs = Session(game.entries[0])
    with pytest.raises(RemoteProtocolError, match="bad signature") as info:
        obs.receive(raw)
    assert info.value.seat == 1


def test_tampered_body_keeps_old_signature() -> None:
    game = finished_game(2)
    e = decode_entry(game.entries[1])
    body = list(e.body)
    body[0] = bytes(32)
    raw = pack([encode_payload(e.seq, e.prev, e.seat, e.kind, body), e.sig])
    obs = Session(game.entries[0])
    with pytest.raises(RemoteProtocolError, match="bad signature"):
        obs.receive(raw)
    assert audit([game.entries[0], raw]).fault_index == 1


def _two_games_same_keys(seed: int) -> tuple[LocalGame, LocalGame]:
    """Two games between the same keys and seats, told apart only by the genesis nonce."""
    a = setup_game(2, Variant.STANDARD, random.Random(seed))
    b = setup_game(2, Variant.STANDARD, random.Random(seed))
    genesis_b = Session.create_genesis(
        a.keys[0], list(a.sessions[0].seats), Variant.STANDARD, None, bytes(range(32))
    )
    b.sessions = [Session(genesis_b, key=a.keys[i], seed=a.seeds[i]) for i in range(2)]
    b.keys = a.keys
    return a, b


def test_entry_from_another_game_with_the_same_players() -> None:
    a, b = _two_games_same_keys(18)
    genesis_b = b.sessions[0].entries[0]
    rng = random.Random(0)
    step(b, rng)
    foreign = b.sessions[0].entries[1]
    with pytest.raises(RemoteProtocolError, match="another game") as info:
        a.sessions[1].receive(foreign)
    assert info.value.seat == 0
    with pytest.raises(RemoteProtocolError, match="another game"):
        a.sessions[1].receive(genesis_b)


def test_fork_two_entries_signed_for_the_same_seq() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(19))
    rng = random.Random(0)
    f = _advance_to(game, Kind.MOVE, rng)
    mover = game.sessions[f.seat]
    assert mover.state is not None
    moves = mover.state.legal_moves()
    alt = forge(game, f.seat, Kind.MOVE, encode_move(moves[1]))
    first = mover.move(moves[0])
    for i, s in enumerate(game.sessions):
        if i != f.seat:
            s.receive(first)
    _expect_cheat(_honest(game, f.seat), alt, f.seat, "fork")


def test_illegal_move_is_rejected_and_the_game_goes_on() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(20))
    rng = random.Random(0)
    f = _advance_to(game, Kind.MOVE, rng)
    raw = forge(game, f.seat, Kind.MOVE, [1, 0, 1])  # a Step from a square without a character
    watcher = game.sessions[1 - f.seat]
    with pytest.raises(RemoteProtocolError, match="illegal move") as info:
        watcher.receive(raw)
    assert info.value.seat == f.seat and watcher.stopped is None
    for bad_body in ([0, 9, 0], [2, 0, 0], [0, 3, 25], "5@C3", [0, 3]):
        with pytest.raises(RemoteProtocolError):
            watcher.receive(forge(game, f.seat, Kind.MOVE, bad_body))
    step(game, rng)  # the real move is still accepted
    assert len(watcher) == len(game.sessions[f.seat])


def test_wrong_result_signature_is_rejected() -> None:
    game = setup_game(2, Variant.GENERAL, random.Random(21))
    rng = random.Random(0)
    _advance_to(game, Kind.RESULT, rng)
    scores = list(game.sessions[0].final_scores or ())
    scores[0] += 1
    with pytest.raises(RemoteProtocolError, match="differs"):
        game.sessions[1].receive(forge(game, 0, Kind.RESULT, [scores]))


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seat_refusing_to_open_its_seed_is_named(seat: int) -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(22))
    rng = random.Random(0)
    while game.sessions[0].floor != Floor(seat, Kind.SEED):
        step(game, rng)
    for s in game.sessions:
        assert s.floor == Floor(seat, Kind.SEED)
    report = audit(game.sessions[0].entries)
    assert report.verdict == INCOMPLETE and report.waiting_for == Floor(seat, Kind.SEED)
    assert any(f"seat {seat + 1}" in n and "has not opened its seed" in n for n in report.notes)
    assert report.scores is not None  # the scores are known; only the seed audit is missing


def test_wrong_mutant_link_is_caught() -> None:
    for seed in range(40, 80):
        game = setup_game(2, Variant.STANDARD, random.Random(seed))
        rng = random.Random(seed)
        while game.sessions[0].floor is not None:
            f = game.sessions[0].floor
            if f.kind == Kind.REVEAL and f.seat == 1:
                body = decode_entry(_owed(game, 1)[0]).body
                if len(body[0]) == 2:  # a deal link and a mutant link
                    body[0][1][0] = (body[0][1][0] + 1) % 10
                    bad = forge(game, 1, Kind.REVEAL, body)
                    _expect_cheat(_honest(game, 1), bad, 1, "table [1-4] index")
                    return
            step(game, rng)
    pytest.fail("no reveal round with a mutant link in 40 games")


def test_replaying_an_old_game_between_the_same_keys_is_no_fork() -> None:
    """An honest seat's entries from another game must not frame it as a forker in this one."""
    a, b = _two_games_same_keys(21)
    rng = random.Random(0)
    for _ in range(4):  # both games past seq 3: the old entries' seqs are already held
        step(a, rng)
        step(b, rng)
    watcher = a.sessions[1]
    held = len(watcher)
    for raw in b.sessions[0].entries[1:4]:
        with pytest.raises(RemoteProtocolError, match="another game") as info:
            watcher.receive(raw)
        assert not isinstance(info.value, CheatError)
    assert watcher.stopped is None and len(watcher) == held
    step(a, rng)  # the game goes on
    assert len(watcher) == held + 1
