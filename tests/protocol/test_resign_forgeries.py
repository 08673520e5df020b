"""Forged and bad resignations (PROTOCOL.md §6, §9, §10.4), re-signed with keys the test holds.

- The one entry exempt from the genesis-key signature check is the `resign` entry that the
  resigner's own stand-in appends: a `resign` entry "by" the floor holder with 64 zero bytes as
  its signature is refused, names nobody, and can frame nobody (in a file, or as a §9 proof).
- A resignation stands only at a `move` or `reveal` floor, and only while its signer has signed
  nothing after the `at` it names.
- A statement whose seed misses the seat's commitments (or whose stand-in field is not the
  derived key) is a proof against its signer: at the statement, in the log, and as a §9 proof.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.protocol.helpers import forge
from zoo_p2p.cli.app import app
from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, encode_payload, make_entry, pack
from zoo_p2p.protocol.evidence import ProofError, check, make_proof
from zoo_p2p.protocol.liveness import FINISHED, Resignation, sign_resignation
from zoo_p2p.protocol.liveness_samples import _game, play_until
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, broadcast, random_mover, step
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.storage import append_proof


def _watch(log: list[bytes]) -> Session:
    s = Session(log[0])
    for raw in log[1:]:
        s.receive(raw)
    return s


def _unsigned(seat: int, log: list[bytes], body: object) -> bytes:
    """A `resign` entry "by" `seat` at the head of `log`, with 64 zero bytes as its signature."""
    payload = encode_payload(len(log), sha256(log[-1]), seat, Kind.RESIGN, body)
    return pack([payload, bytes(64)])


def _resign_while_another_moves(n: int, label: str) -> tuple[LocalGame, random.Random, int]:
    """Seat 2 (index 1) signs its resignation while another seat holds a move floor. Returns
    the game (nobody holds the statement yet), the rng and that floor holder."""
    game, rng = _game(n, label)
    moves = [0]

    def stop(f: object) -> bool:
        assert hasattr(f, "kind") and hasattr(f, "seat")
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return bool(f.kind == Kind.MOVE and moves[0] > 4 and f.seat != 1)

    play_until(game, rng, stop)
    floor = game.sessions[0].floor
    assert floor is not None
    return game, rng, floor.seat


def _play_out(game: LocalGame, rng: random.Random) -> None:
    """Every live seat speaks (a stand-in's entries by the first live seat) to the end."""
    while game.sessions[0].floor is not None:
        f = game.sessions[0].floor
        live = [i for i, s in enumerate(game.sessions) if s.seat is not None and not s.left]
        if f.seat in game.sessions[live[0]].resigned:
            for raw in game.sessions[live[0]].take_outgoing():
                broadcast(game, live[0], raw)
        else:
            step(game, rng, random_mover)


# ----- A: the exemption from the genesis-key check is the stand-in's own resign entry ---------


def _forged_and_honest() -> tuple[LocalGame, list[bytes], int, bytes, list[bytes]]:
    """A 3-seat game where seat 2 resigns while seat F moves. Returns the log before the
    resign entry, F, the forged entry (zero signature, "by" F, carrying the statement that F
    holds as every seat does) and the honest finished log (F's real resign entry in it)."""
    game, rng, floor_seat = _resign_while_another_moves(3, "forged-resign")
    statement = game.sessions[1].resign()
    log = game.sessions[0].entries
    forged = _unsigned(floor_seat, log, statement.to_body())
    for i, s in enumerate(game.sessions):
        if i != 1:
            assert s.add_resignation(statement)
    (real, *rest) = game.sessions[floor_seat].take_outgoing()
    assert decode_entry(real).kind == Kind.RESIGN and decode_entry(real).seat == floor_seat
    for raw in [real, *rest]:
        broadcast(game, floor_seat, raw)
    _play_out(game, rng)
    honest = game.sessions[0].entries
    assert honest[: len(log)] == log and honest[len(log)] == real
    return game, log, floor_seat, forged, honest


def _rechain(game: LocalGame, start: list[bytes], rest: list[bytes]) -> list[bytes]:
    """`rest` re-signed onto `start` (each entry's prev_hash is the new predecessor's hash),
    with the keys that signed them: a seat's own, or seat 2's stand-in key once it resigned."""
    out = list(start)
    gid = sha256(start[0])
    for raw in rest:
        e = decode_entry(raw)
        key = game.keys[e.seat]
        if e.seat == 1:
            key = stand_in_private_key(gid, 1, game.seeds[1])
        out.append(make_entry(key, e.seq, sha256(out[-1]), e.seat, e.kind, e.body))
    return out


def test_an_unsigned_resign_entry_by_the_floor_holder_is_refused_and_names_nobody() -> None:
    game, log, _floor_seat, forged, honest = _forged_and_honest()
    k = len(log)
    watcher = _watch(log)
    with pytest.raises(RemoteProtocolError, match="bad signature") as caught:
        watcher.receive(forged)
    assert not isinstance(caught.value, CheatError) and len(watcher) == k
    assert watcher.signer_at(forged) is None
    # played out on top of it (the rest of the game chained on the forged entry, every entry
    # re-signed by the key that signed it): the log does not verify; nobody named
    played = _rechain(game, [*log, forged], honest[k + 1 :])
    report = audit(played)
    assert report.verdict == "rejected" and report.fault_index == k
    assert report.fault_seat is None and report.cheater is None
    assert audit(honest).verdict == "ok"


def test_the_forged_entry_before_the_real_one_frames_nobody_in_the_file(tmp_path: Path) -> None:
    _, log, _floor_seat, forged, honest = _forged_and_honest()
    k = len(log)
    report = audit([*log, forged, *honest[k:]])
    assert report.verdict == "rejected" and report.fault_index == k
    assert report.fault_seat is None and report.cheater is None
    path = tmp_path / "spliced.zoolog"
    path.write_bytes(b"".join([*log, forged, *honest[k:]]))
    out = CliRunner().invoke(app, ["verify", str(path)])
    assert out.exit_code == 5, out.output
    assert "cheat" not in out.output.lower()


def test_the_forged_fork_proof_beside_an_honest_log_convicts_nobody(tmp_path: Path) -> None:
    _, log, _floor_seat, forged, honest = _forged_and_honest()
    k = len(log)
    # what a forger would store or send: the chain up to the forged entry, then F's real one
    proof = pack([1, sha256(honest[0]), [*honest[1:k], forged, honest[k]]])
    with pytest.raises(ProofError):
        check(proof, honest[0])
    with pytest.raises(ProofError):  # and the forged entry as the offending one proves nothing
        check(make_proof(log, forged), honest[0])
    path = tmp_path / "honest.zoolog"
    path.write_bytes(b"".join(honest))
    append_proof(path, proof)
    out = CliRunner().invoke(app, ["verify", str(path)])
    assert out.exit_code == 0, out.output
    assert "cheat" not in out.output.lower() and "proves nothing" in out.output
    report = audit(honest, proofs=[proof])
    assert report.verdict == "ok" and report.convictions == ()


def test_only_the_resigners_own_entry_at_its_floor_escapes_the_genesis_key() -> None:
    """The stand-in's entry at the resigner's floor is accepted; the same body under any other
    seat, key, seq or with another seat's statement is checked with the genesis key."""
    game, rng = _game(3, "stand-in-exemption")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 1)
    statement = game.sessions[1].resign()
    log = game.sessions[0].entries
    k = len(log)
    prev = sha256(log[-1])
    own_key = stand_in_private_key(sha256(log[0]), 1, game.seeds[1])
    good = make_entry(own_key, k, prev, 1, Kind.RESIGN, statement.to_body())
    other_key = stand_in_private_key(sha256(log[0]), 1, bytes(32))  # derived from another seed
    bad = [
        make_entry(other_key, k, prev, 1, Kind.RESIGN, statement.to_body()),
        make_entry(own_key, k, prev, 0, Kind.RESIGN, statement.to_body()),  # another seat
        _unsigned(1, log, statement.to_body()),
    ]
    for raw in bad:
        w = _watch(log)
        with pytest.raises(RemoteProtocolError) as caught:
            w.receive(raw)
        assert not isinstance(caught.value, CheatError) and len(w) == k
    w = _watch(log)
    w.receive(good)
    assert w.resigned == {1: k}


# ----- C: no resignation after the game is decided; a statement is tied to its `at` ---------


def _to_floor(n: int, kind: str, label: str) -> tuple[LocalGame, random.Random]:
    game, rng = _game(n, label)
    play_until(game, rng, lambda f: f.kind == kind)
    return game, rng


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kind", [Kind.SEED, Kind.RESULT])
def test_a_resignation_after_the_last_move_is_refused(n: int, kind: str) -> None:
    game, rng = _to_floor(n, kind, f"decided-{n}-{kind}")
    f = game.sessions[0].floor
    assert f is not None and f.kind == kind
    s = game.sessions[n - 1]
    with pytest.raises(LocalProtocolError, match="decided"):
        s.resign()
    log = s.entries
    # signed anyway by the last seat (it is a valid signature of its real seed), appended by
    # the floor holder: refused, and no honest session keeps it
    statement = sign_resignation(
        game.keys[n - 1],
        s.game_id,
        n - 1,
        len(log),
        game.seeds[n - 1],
        None if n == 2 else stand_in_public_key(s.game_id, n - 1, game.seeds[n - 1]),
    )
    entry = forge(game, f.seat, Kind.RESIGN, statement.to_body(), on=game.sessions[0])
    for i in range(n - 1):
        assert not game.sessions[i].add_resignation(statement)
    out = game.sessions[f.seat].take_outgoing()  # its seed or result, no resignation
    assert [decode_entry(x).kind for x in out][:1] == [kind]
    for raw in out:
        broadcast(game, f.seat, raw)
    w = _watch(log)
    with pytest.raises(RemoteProtocolError, match="the game is decided"):
        w.receive(entry)
    report = audit([*log, entry])
    assert report.verdict != "ok" and report.fault_index == len(log)
    assert report.fault_seat in (None, f.seat)  # only the appender's own signature can count
    # the game is finished as the rules say, whatever was signed
    _play_out(game, rng)
    done = audit(game.sessions[0].entries)
    assert done.verdict == "ok" and done.ending is not None and done.ending.kind == FINISHED


def test_a_kept_statement_no_longer_stands_once_the_resigner_played_on() -> None:
    """Seat 2 signs a statement at entry `at` and then goes on playing; a seat that kept it
    appends it later, at its own floor: refused (the statement stood only while its signer
    signed nothing after `at`), and an honest session that held it does not append it."""
    game, rng, floor_seat = _resign_while_another_moves(3, "stale-statement")
    s1 = game.sessions[1]
    at = len(s1)
    statement = sign_resignation(  # (not s1.resign(): this seat goes on playing)
        game.keys[1],
        s1.game_id,
        1,
        at,
        game.seeds[1],
        stand_in_public_key(s1.game_id, 1, game.seeds[1]),
    )
    k = next(i for i in range(3) if i not in (1, floor_seat))
    log = game.sessions[0].entries
    # a keeper one entry short of `at`: it holds the statement and waits for the rest
    keeper = Session(log[0], key=game.keys[k], seed=game.seeds[k], nonce=game.nonces[k])
    for raw in log[1:-1]:
        keeper.receive(raw)
        keeper.take_outgoing()
    assert keeper.add_resignation(statement)
    while True:
        f = game.sessions[0].floor
        assert f is not None
        played_on = any(decode_entry(x).seat == 1 for x in game.sessions[0].entries[at:])
        if played_on and f.seat == k and f.kind == Kind.MOVE:
            break
        step(game, rng, random_mover)
    for raw in game.sessions[0].entries[len(keeper) :]:
        keeper.receive(raw)
    # seat 2 signed on after `at`: the keeper never appends the statement
    assert keeper.take_outgoing() == []
    log = game.sessions[0].entries
    assert keeper.entries == log
    assert not keeper.add_resignation(statement)
    late = forge(game, k, Kind.RESIGN, statement.to_body(), on=game.sessions[0])
    w = _watch(log)
    with pytest.raises(RemoteProtocolError, match="no longer stands"):
        w.receive(late)
    report = audit([*log, late])
    assert report.verdict != "ok" and report.fault_index == len(log)


# ----- D and live 1: a statement whose seed misses the commitments convicts its signer -------


def _bad_statement(game: LocalGame, seat: int, at: int) -> Resignation:
    """A resignation with a random seed and the stand-in key derived from it, validly signed."""
    seed = random.Random("bad seed").randbytes(32)
    gid = game.sessions[0].game_id
    key = None if len(game.sessions) == 2 else stand_in_public_key(gid, seat, seed)
    return sign_resignation(game.keys[seat], gid, seat, at, seed, key)


@pytest.mark.parametrize("n", [2, 3])
def test_a_statement_with_a_wrong_seed_is_a_proof_against_its_signer(n: int) -> None:
    game, _rng, floor_seat = _resign_while_another_moves(n, f"bad-seed-{n}")
    log = game.sessions[0].entries
    bad = _bad_statement(game, 1, len(log))
    s = game.sessions[floor_seat]
    with pytest.raises(CheatError, match="does not match its commitments") as caught:
        s.add_resignation(bad)
    assert caught.value.seat == 1 and s.stopped is not None and s.stopped.seat == 1
    assert s.take_outgoing() == [] and s.entries == log  # it appended nothing
    # the statement itself, after the log, is a §9 proof against seat 2 alone
    proof = make_proof(log, bad.to_bytes())
    c = check(proof, log[0])
    assert c.seat == 1 and "does not match its commitments" in c.reason
    assert c.reason.startswith("its signed resignation statement: ")
    assert c.seqs == (decode_entry(log[2]).seq,)  # seat 2's commit
    # an honest statement is no proof
    with pytest.raises(ProofError):
        check(make_proof(log, game.sessions[1].resign().to_bytes()), log[0])


@pytest.mark.parametrize("n", [2, 3])
def test_a_resign_entry_with_a_wrong_seed_convicts_the_resigner_not_the_appender(
    n: int, tmp_path: Path
) -> None:
    game, _rng, floor_seat = _resign_while_another_moves(n, f"bad-seed-entry-{n}")
    log = game.sessions[0].entries
    bad = _bad_statement(game, 1, len(log))
    entry = forge(game, floor_seat, Kind.RESIGN, bad.to_body())
    report = audit([*log, entry])
    assert report.verdict == "cheat" and report.fault_seat == 1
    assert report.fault_index == len(log) and report.fault_entries == (len(log), 2)
    path = tmp_path / "bad-seed.zoolog"
    path.write_bytes(b"".join([*log, entry]))
    out = CliRunner().invoke(app, ["verify", str(path)])
    assert out.exit_code == 4, out.output
    said = " ".join(out.output.split())
    assert "cheat: seat 2" in said and "does not match its commitments" in said
    c = check(make_proof(log, entry), log[0])
    assert c.seat == 1


def test_a_bad_statement_at_the_resigners_own_floor_convicts_it() -> None:
    """3 seats, the resigner holds the floor: its stand-in's entry (the derived key of the bad
    seed) is computed byte for byte, then the seed is found wrong: seat 2 is convicted."""
    game, rng = _game(3, "bad-seed-own-floor")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 1)
    log = game.sessions[0].entries
    bad = _bad_statement(game, 1, len(log))
    key = stand_in_private_key(sha256(log[0]), 1, bad.seed)
    entry = make_entry(key, len(log), sha256(log[-1]), 1, Kind.RESIGN, bad.to_body())
    report = audit([*log, entry])
    assert report.verdict == "cheat" and report.fault_seat == 1


def test_the_statement_vectors_read_back() -> None:
    """`liveness.json`'s `statements`, replayed as another implementation would: the peer's log,
    the statement, and what the peer does with it (kept, dropped, or a proof against its
    signer that `evidence.check` confirms)."""
    import json

    import msgpack

    from zoo_p2p.protocol.liveness import parse_resignation

    root = Path(__file__).resolve().parents[2]
    v = json.loads((root / "protocol" / "vectors" / "liveness.json").read_text())["statements"]
    verdicts = set()
    for case in v["cases"]:
        log = [bytes.fromhex(h) for h in v[case["log"]]][: case["log_length"]]
        peer = _watch(log)
        raw = bytes.fromhex(case["statement"])
        st = parse_resignation(msgpack.unpackb(raw))
        verdicts.add(case["verdict"])
        if case["verdict"] == "proof":
            with pytest.raises(CheatError) as caught:
                peer.add_resignation(st)
            assert caught.value.seat == case["seat"] == st.seat, case["what"]
            proof = bytes.fromhex(case["proof"])
            assert proof == pack([1, sha256(log[0]), [*log[1:], raw]])
            c = check(proof, log[0])
            assert c.seat == case["seat"] and c.reason == case["reason"]
        else:
            assert peer.add_resignation(st) == (case["verdict"] == "kept"), case["what"]
            with pytest.raises(ProofError):
                check(pack([1, sha256(log[0]), [*log[1:], raw]]), log[0])
    assert verdicts == {"kept", "dropped", "proof"}


def test_the_resign_entry_vectors_read_back() -> None:
    """`liveness.json`'s `statements.entries`: each forged `resign` entry at the head of its log
    gives the stated verdict, refused entry and convicted seat (or nobody)."""
    import json

    root = Path(__file__).resolve().parents[2]
    v = json.loads((root / "protocol" / "vectors" / "liveness.json").read_text())["statements"]
    seen = set()
    for case in v["entries"]:
        log = [bytes.fromhex(h) for h in v[case["log"]]]
        report = audit([*log, bytes.fromhex(case["entry"])])
        assert report.verdict == case["verdict"], case["what"]
        assert report.fault_index == case["index"] and report.fault_seat == case["seat"]
        seen.add((case["verdict"], case["seat"] is None))
    assert {("incomplete", True), ("rejected", True), ("cheat", False)} <= seen


def test_a_two_seat_resignation_is_scored_at_the_head_its_entry_follows() -> None:
    """§10.5: the totals at log length k (the head the resign entry follows), so a move the
    other seat made between the statement's `at` and k counts."""
    game, rng = _game(2, "two-seat-scored-at-k")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 0)
    statement = game.sessions[1].resign()  # seat 1 (index 0) holds the floor and moves first
    at = statement.at
    while True:  # seat 1's move (and its reveal round) until the resigner holds the floor
        f = game.sessions[0].floor
        assert f is not None
        if f.seat == 1:
            break
        step(game, rng, random_mover)
    s0 = game.sessions[0]
    totals_at, totals_k = s0._standing.totals_at(at), s0._totals()
    assert s0.add_resignation(statement)
    (entry,) = s0.take_outgoing()
    assert decode_entry(entry).seq > at
    ending = s0.outcome()
    assert ending.scores == totals_k and ending.winners == (0,)
    assert audit(s0.entries).ending == ending
    assert totals_at is not None and totals_at != totals_k  # (the move between counts)
