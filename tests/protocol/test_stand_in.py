"""The stand-in no peer controls (PROTOCOL.md §10.4): a key derived from public data, a frozen
reference policy, entries every peer computes byte for byte and the auditor checks."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.evidence import convicted_by
from zoo_p2p.protocol.liveness_samples import (
    _game,
    claim_round,
    play_until,
    resigned_game,
    stand_in_vectors,
)
from zoo_p2p.protocol.session import Session, encode_move
from zoo_p2p.protocol.simulate import LocalGame, broadcast, random_mover, step
from zoo_p2p.protocol.standin import (
    capture_score,
    reference_move,
    stand_in_private_key,
    stand_in_public_key,
)
from zoo_p2p.rules import Send, State, Step, Team, Variant
from zoo_p2p.storage import read_log

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors" / "stand-in.json"


def _raw_public(private_seed: bytes) -> bytes:
    return (
        Ed25519PrivateKey.from_private_bytes(private_seed)
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )


def _log(name: str) -> list[bytes]:
    held = read_log(ROOT / "replays" / name)
    return list(getattr(held, "entries", held))


def test_the_derived_key_vectors() -> None:
    """Recomputed here from the formula, as another implementation would (hashlib, not ours)."""
    v = json.loads(VECTORS.read_text())
    assert len(v["derivations"]) == 2
    for d in v["derivations"]:
        game_id, seed, seat = bytes.fromhex(d["game_id"]), bytes.fromhex(d["seed"]), d["seat"]
        private = hashlib.sha256(b"zoo-p2p/v1/stand-in\0" + game_id + bytes([seat]) + seed)
        assert private.hexdigest() == d["private_seed"]
        assert _raw_public(private.digest()).hex() == d["public_key"]
        assert stand_in_public_key(game_id, seat, seed).hex() == d["public_key"]
    # the first is the sample log's: its resignation names exactly that key
    log = _log(v["log"].removeprefix("replays/"))
    resign = next(decode_entry(r) for r in log if decode_entry(r).kind == Kind.RESIGN)
    seat, _, seed, new_key, _ = resign.body
    first = v["derivations"][0]
    assert (seat, seed.hex(), new_key.hex()) == (first["seat"], first["seed"], first["public_key"])
    assert sha256(log[0]).hex() == first["game_id"]


def test_the_stand_in_vectors_are_current() -> None:
    assert json.loads(VECTORS.read_text()) == stand_in_vectors(), "stale: run protocol/generate.py"


def test_the_policy_decisions_read_back() -> None:
    """Every stand-in move of the sample log is the best-scoring legal move, the smallest body
    among equals (recomputed from the listed moves), and a fresh replay agrees."""
    v = json.loads(VECTORS.read_text())
    log = _log(v["log"].removeprefix("replays/"))
    assert len(v["decisions"]) >= 5 and v["ties_at"]  # the tie-break decided at least once
    watcher = Session(log[0])
    by_seq = {d["seq"]: d for d in v["decisions"]}
    for raw in log[1:]:
        e = decode_entry(raw)
        d = by_seq.pop(e.seq, None)
        if d is not None:
            best = max(m[3] for m in d["legal"])
            assert d["chosen"] == min(m[:3] for m in d["legal"] if m[3] == best)
            assert e.body == d["chosen"] and raw.hex() == d["entry"]
            assert watcher.state is not None
            assert encode_move(reference_move(watcher.state)) == d["chosen"]
        watcher.receive(raw)
    assert not by_seq and watcher.finished


def _general(tops: list[int], first: int = 0) -> State:
    return State.new([Team.YELLOW, Team.BLUE], tops, variant=Variant.GENERAL, first_seat=first)


def test_the_policy_takes_the_highest_card_and_breaks_ties_by_the_smallest_body() -> None:
    tops = [i % 3 for i in range(25)]  # values 0, 1, 2 only
    tops[17] = 4
    st = _general(tops)
    assert reference_move(st) == Send(3, 17)  # four characters score 4 there: the 3 is smallest
    tops[9] = 4
    st = _general(tops)
    assert reference_move(st) == Send(3, 9)  # two squares tie too: the smaller square
    assert capture_score(st, Send(6, 9)) == 4 == capture_score(st, Send(3, 17))
    assert capture_score(st, Send(3, 0)) == 0


def test_the_policy_prefers_a_character_worth_more_than_any_zoo_card() -> None:
    tops = [i % 3 for i in range(25)]  # the best Zoo card is worth 2
    st = _general(tops)
    st.apply(Send(6, 12))  # seat 1 (Yellow)
    st.reveal(bottom=1)
    st.apply(Send(3, 13))  # seat 2 (Blue), next to it
    st.reveal(bottom=0)
    assert st.to_move == 0
    assert capture_score(st, Step(12, 13)) == 3
    assert reference_move(st) == Step(12, 13)
    # with a Zoo card worth 4 in reach, it scores more than the 3: a Send comes first in the
    # body order, but the score decides before the order
    tops[2] = 4
    st2 = _general(tops)
    st2.apply(Send(6, 12))
    st2.reveal(bottom=1)
    st2.apply(Send(3, 13))
    st2.reveal(bottom=0)
    assert reference_move(st2) == Send(3, 2)


def test_the_policy_breaks_a_tie_between_a_send_and_a_step_for_the_send() -> None:
    tops = [i % 3 for i in range(25)]  # the best Zoo card is worth 2 (squares 2, 5, 8, 11, …)
    st = _general(tops)
    st.apply(Send(4, 12))  # seat 1, next to the 2 on square 11
    st.reveal(bottom=3)
    st.apply(Send(3, 24))
    st.reveal(bottom=3)
    # Step 12→11 and Send(3, 2) both score 2: [0, 3, 2] < [1, 12, 11]
    assert capture_score(st, Step(12, 11)) == 2 == capture_score(st, Send(3, 2))
    assert max(capture_score(st, m) for m in st.legal_moves()) == 2
    assert reference_move(st) == Send(3, 2)


def _stand_in_move_seq(log: list[bytes]) -> int:
    watcher = Session(log[0])
    for raw in log[1:]:
        e = decode_entry(raw)
        if e.kind == Kind.MOVE and e.seat in watcher.resigned:
            return e.seq
        watcher.receive(raw)
    raise AssertionError("no stand-in move in the log")


def test_the_auditor_rejects_a_forged_stand_in_move_naming_the_entry() -> None:
    """Signed correctly with the (public) stand-in key, but not the reference policy's move:
    rejected at that entry, and nobody is convicted (anyone can sign with that key)."""
    log = _log("3p-standard-resigned.zoolog")
    k = _stand_in_move_seq(log)
    watcher = Session(log[0])
    for raw in log[1:k]:
        watcher.receive(raw)
    st = watcher.state
    assert st is not None
    chosen = reference_move(st)
    other = next(m for m in st.legal_moves() if m != chosen)
    e = decode_entry(log[k])
    seat = e.seat
    seed = watcher.opened_seeds[seat]
    key = stand_in_private_key(watcher.game_id, seat, seed)
    forged = make_entry(key, k, sha256(log[k - 1]), seat, Kind.MOVE, encode_move(other))
    report = audit([*log[:k], forged, *log[k + 1 :]])
    assert report.verdict == "rejected" and report.fault_index == k
    assert report.fault_seat is None and report.cheater is None
    assert report.fault_reason is not None
    assert f"the reference policy gives move {chosen}" in report.fault_reason
    assert f"this is move {other}" in report.fault_reason
    with pytest.raises(RemoteProtocolError) as info:
        watcher.receive(forged)
    assert not isinstance(info.value, CheatError)
    assert convicted_by(watcher, forged, info.value) is None and watcher.signer_at(forged) is None
    assert watcher.receive(log[k]) and len(watcher) == k + 1  # the computed one still stands
    # and a different stand-in entry for a seq already held is no fork: it proves nothing
    with pytest.raises(RemoteProtocolError, match="proves nothing") as held:
        watcher.receive(forged)
    assert not isinstance(held.value, CheatError)


def test_every_peer_computes_the_same_stand_in_entry() -> None:
    """Two peers that never exchanged the stand-in's entry compute it byte for byte."""
    game, seat, _ = resigned_game(3)
    log = game.sessions[0].entries
    k = _stand_in_move_seq(log)
    views = [Session(log[0]) for _ in range(2)]
    for v in views:
        for raw in log[1:k]:
            v.receive(raw)
    assert views[0].stand_in_entry() == views[1].stand_in_entry() == log[k]
    assert decode_entry(log[k]).seat == seat


def test_a_claim_needs_no_vote_from_a_stand_in_and_none_is_against_it() -> None:
    """Seat 2 resigned a 3-seat game: a claim against seat 1 needs seat 3's vote only, and a
    vote against the stand-in does not exist (its entries are computed, it never stalls)."""
    game, rng = _game(3, "stand-in-claim")
    moves = [0]

    def stop(f: object) -> bool:
        if getattr(f, "kind", None) == Kind.MOVE:
            moves[0] += 1
        return getattr(f, "kind", None) == Kind.MOVE and moves[0] > 3

    play_until(game, rng, stop)
    r = game.sessions[1].resign()
    for i in (0, 2):
        assert game.sessions[i].add_resignation(r)
    f = game.sessions[0].floor
    assert f is not None
    appender = f.seat if f.seat != 1 else 0
    for raw in game.sessions[appender].take_outgoing():
        broadcast(game, appender, raw)
    assert 1 in game.sessions[2].resigned
    # play on until seat 1 (index 0) must move, the stand-in's entries appended as they come
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.seat == 0 and f.kind == Kind.MOVE and len(game.sessions[2]) == len(game.sessions[0]):
            break
        if f.seat == 1:
            for raw in game.sessions[2].take_outgoing():
                broadcast(game, 2, raw)
        else:
            step(game, rng, random_mover)
    s2 = game.sessions[2]
    assert s2.votes_missing() == [2]  # its own vote only: the stand-in is not asked
    claim = claim_round(game, [2])
    game.sessions[0].receive(claim)
    report = audit(game.sessions[0].entries)
    assert report.verdict == "ok", report.fault_reason
    assert report.ending is not None and report.ending.by == (2,) and report.ending.seat == 0
    # a claim naming the stand-in's vote too is refused
    body = decode_entry(claim).body
    stand = stand_in_private_key(s2.game_id, 1, s2.opened_seeds[1])
    extra = [body[0], body[1], [[1, stand.sign(b"x")], *body[2]]]
    log = game.sessions[0].entries[:-1]
    obs = Session(log[0])
    for raw in log[1:]:
        obs.receive(raw)
    bad = make_entry(game.keys[2], len(log), sha256(log[-1]), 2, Kind.CLAIM, extra)
    with pytest.raises(RemoteProtocolError, match="one vote from each of seats"):
        obs.receive(bad)


def _play_on(game: LocalGame, rng: random.Random, until: Callable[[], bool]) -> int:
    """Floor holders speak; a resigned seat's entries are appended by the lowest live seat.
    Returns how often a stand-in held the floor (after a move): nobody could claim then."""
    held = 0
    while not until():
        f = game.sessions[0].floor
        assert f is not None
        live = [i for i, s in enumerate(game.sessions) if s.seat is not None and not s.left]
        if f.seat in game.sessions[live[0]].resigned:
            held += 1
            assert not any(game.sessions[i].can_claim() for i in live)
            out = game.sessions[live[0]].take_outgoing()
            assert out
            for raw in out:
                broadcast(game, live[0], raw)
        else:
            step(game, rng, random_mover)
    return held


def _seat_0_to_move(game: LocalGame) -> bool:
    f = game.sessions[0].floor
    return f is not None and f.seat == 0 and f.kind == Kind.MOVE


def _resign(game: LocalGame, seat: int) -> None:
    r = game.sessions[seat].resign()
    for i, s in enumerate(game.sessions):
        if i != seat:
            assert s.add_resignation(r)
    for i, s in enumerate(game.sessions):
        if i != seat and not s.left and s.seat is not None:
            for raw in s.take_outgoing():
                broadcast(game, i, raw)
    assert all(seat in s.resigned for s in game.sessions)


def test_two_seats_resign_a_four_seat_game_and_it_finishes() -> None:
    """Seats 2 and 3 resign a 4-seat game; the two stand-ins play on and the game finishes in
    every log alike. A resignation cannot stand while a stand-in holds the floor (its computed
    entry comes first), nobody may claim against a stand-in, and the last seat playing cannot
    resign (nobody would play on)."""
    game, rng = _game(4, "two-resign")
    moves = [0]

    def counted() -> bool:
        f = game.sessions[0].floor
        if f is not None and f.kind == Kind.MOVE:
            moves[0] += 1
        return f is not None and f.kind == Kind.MOVE and moves[0] > 6 and f.seat not in (1, 2)

    _play_on(game, rng, counted)
    _resign(game, 1)
    f = game.sessions[0].floor
    assert f is not None
    # an observer that holds the log up to a point where the stand-in holds the floor: the
    # second resignation may not stand there
    log = game.sessions[0].entries
    obs = Session(log[0])
    for raw in log[1:]:
        obs.receive(raw)
    _play_on(game, rng, lambda: _seat_0_to_move(game))
    r2 = game.sessions[2].resign()
    behind = Session(log[0], key=game.keys[3], seed=game.seeds[3], nonce=game.nonces[3])
    head = game.sessions[0].entries
    k = next(
        i for i in range(len(log), len(head)) if decode_entry(head[i]).seat == 1
    )  # the stand-in's first entry
    for raw in head[1:k]:
        behind.receive(raw)
    assert behind.floor is not None and behind.floor.seat == 1
    assert behind.stand_in_entry() == head[k]
    assert not behind.can_claim()  # no claim against a stand-in
    with pytest.raises(LocalProtocolError):
        behind.vote_claim()
    early = make_entry(game.keys[0], k, sha256(head[k - 1]), 0, Kind.RESIGN, r2.to_body())
    with pytest.raises(RemoteProtocolError, match="holds the floor: its entry comes first"):
        behind.receive(early)
    for i in (0, 1, 3):
        assert game.sessions[i].add_resignation(r2)
    (entry,) = game.sessions[0].take_outgoing()  # seat 1 holds a move floor: it appends it
    assert decode_entry(entry).kind == Kind.RESIGN
    for raw in [entry]:
        broadcast(game, 0, raw)
    _play_on(game, rng, lambda: game.sessions[0].floor is None)
    logs = [s.entries for s in game.sessions]
    assert all(x == logs[0] for x in logs)
    report = audit(logs[0])
    assert report.verdict == "ok", report.fault_reason
    assert report.ending is not None and report.ending.resigned == (1, 2)
    assert set(report.winners) <= {0, 3}


def test_the_last_seat_playing_cannot_resign() -> None:
    game, rng = _game(3, "last-one")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 0)
    _resign(game, 1)
    _play_on(game, rng, lambda: _seat_0_to_move(game))
    _resign(game, 2)
    with pytest.raises(LocalProtocolError, match="every other seat has resigned"):
        game.sessions[0].resign()


def test_a_resigner_holding_the_floor_has_its_resignation_appended_by_its_stand_in() -> None:
    """Seat 2 resigns while it holds a move floor (3 seats). No designated seat appends the
    entry any more: the resigner's stand-in does, signed with the derived key, so seats 1 and
    3 compute the same bytes without exchanging anything, and the stand-in's move follows at
    once. The old deputy's entry (seat 1's own key) and the resigner's own are refused."""
    game, rng = _game(3, "resign-at-own-floor")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 1)
    r = game.sessions[1].resign()
    for i in (0, 2):
        assert game.sessions[i].add_resignation(r)
    head = game.sessions[0].entries
    deputy = make_entry(game.keys[0], len(head), sha256(head[-1]), 0, Kind.RESIGN, r.to_body())
    own = make_entry(game.keys[1], len(head), sha256(head[-1]), 1, Kind.RESIGN, r.to_body())
    obs = Session(head[0])
    for raw in head[1:]:
        obs.receive(raw)
    with pytest.raises(RemoteProtocolError, match="its stand-in appends this resignation"):
        obs.receive(deputy)
    with pytest.raises(RemoteProtocolError, match="that every peer computes"):
        obs.receive(own)
    first = game.sessions[0].take_outgoing()
    third = game.sessions[2].take_outgoing()
    assert first[:2] == third[:2]  # the resignation, then the stand-in's move (then seat 1's
    # own entries, if the move asks for a reveal: its reveal comes first)
    resign = decode_entry(first[0])
    assert resign.kind == Kind.RESIGN and resign.seat == 1
    assert decode_entry(first[1]).seat == 1 and decode_entry(first[1]).kind == Kind.MOVE
    assert obs.signer_at(first[0]) is None  # its key is public: its signature proves nothing
    for i, raw in enumerate(first):
        got = game.sessions[2].receive(raw)
        assert i >= 2 or got == []  # the very entries it computed
        game.sessions[1].receive(raw)
        obs.receive(raw)
    for raw in game.sessions[2].take_outgoing():
        broadcast(game, 2, raw)
    _play_on(game, rng, lambda: game.sessions[0].floor is None)
    report = audit(game.sessions[0].entries)
    assert report.verdict == "ok", report.fault_reason
    assert report.ending is not None and report.ending.resigned == (1,)


def test_the_resign_at_own_floor_vector() -> None:
    """Rebuilt here from the formula (payload, derived key) as another implementation would."""
    v = json.loads(VECTORS.read_text())["resign_at_own_floor"]
    log = [bytes.fromhex(h) for h in v["log"]]
    body = msgpack.unpackb(bytes.fromhex(v["statement"]))
    seat, _, seed, new_key, _ = body
    game_id = hashlib.sha256(log[0]).digest()
    private = hashlib.sha256(b"zoo-p2p/v1/stand-in\0" + game_id + bytes([seat]) + seed).digest()
    assert _raw_public(private) == new_key
    payload = msgpack.packb(
        [1, len(log), hashlib.sha256(log[-1]).digest(), seat, "resign", body], use_bin_type=True
    )
    sig = Ed25519PrivateKey.from_private_bytes(private).sign(payload)
    assert msgpack.packb([payload, sig], use_bin_type=True).hex() == v["entry"]
    s = Session(log[0])
    for raw in log[1:]:
        s.receive(raw)
    assert s.floor is not None and s.floor.seat == seat
    s.receive(bytes.fromhex(v["entry"]))
    assert seat in s.resigned and s.stand_in_entry() is not None
