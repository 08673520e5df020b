"""Proofs of cheating (PROTOCOL.md §9): built from a log, re-checked from the genesis alone,
kept in the `<log>.proofs` sidecar, and reported by `zoo verify`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.protocol.helpers import forge
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.audit import CHEAT, OK, REJECTED, audit
from zoo_p2p.protocol.encoding import Kind, decode_entry, encode_payload, pack
from zoo_p2p.protocol.evidence import (
    PROOF_VERSION,
    ProofError,
    check,
    decode_proof,
    find_fork,
    make_proof,
)
from zoo_p2p.protocol.session import Session, encode_move
from zoo_p2p.protocol.simulate import LocalGame, setup_game, step
from zoo_p2p.rules import Variant
from zoo_p2p.storage import MAX_PROOFS, append_proof, proofs_path, read_proofs, write_log


def _advance(game: LocalGame, kind: str, rng: random.Random) -> int:
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.kind == kind:
            return f.seat
        step(game, rng)


def _fork_case() -> tuple[LocalGame, bytes, int]:
    game = setup_game(2, Variant.STANDARD, random.Random(19))
    rng = random.Random(0)
    seat = _advance(game, Kind.MOVE, rng)
    mover = game.sessions[seat]
    assert mover.state is not None
    moves = mover.state.legal_moves()
    alt = forge(game, seat, Kind.MOVE, encode_move(moves[1]))
    first = mover.move(moves[0])
    game.sessions[1 - seat].receive(first)
    step(game, rng)  # the log goes on past the fork point
    return game, alt, seat


def _illegal_move_case() -> tuple[LocalGame, bytes, int]:
    game = setup_game(2, Variant.STANDARD, random.Random(20))
    seat = _advance(game, Kind.MOVE, random.Random(0))
    return game, forge(game, seat, Kind.MOVE, [1, 0, 1]), seat


def _lying_result_case() -> tuple[LocalGame, bytes, int]:
    game = setup_game(2, Variant.GENERAL, random.Random(21))
    _advance(game, Kind.RESULT, random.Random(0))
    scores = list(game.sessions[0].final_scores or ())
    scores[0] += 1
    return game, forge(game, 0, Kind.RESULT, [scores]), 0


def _bad_seed_case() -> tuple[LocalGame, bytes, int]:
    game = setup_game(3, Variant.STANDARD, random.Random(16))
    rng = random.Random(0)
    _advance(game, Kind.SEED, rng)
    step(game, rng)  # seat 0 opens honestly
    return game, forge(game, 1, Kind.SEED, [bytes(32)]), 1


def _wrong_link_case() -> tuple[LocalGame, bytes, int]:
    game = setup_game(3, Variant.STANDARD, random.Random(11))
    rng = random.Random(0)
    _advance(game, Kind.OPEN, rng)
    step(game, rng)
    honest_body = decode_entry(game.sessions[0].entries[-1]).body
    body = [bytes(32), honest_body[1]]  # seat 0's links for seat 1: wrong inputs, wrong nonce
    return game, forge(game, 1, Kind.OPEN, body), 1


CASES = {
    "fork": (_fork_case, "fork"),
    "illegal move": (_illegal_move_case, "illegal move"),
    "lying result": (_lying_result_case, "differs"),
    "bad seed": (_bad_seed_case, "does not match"),
    "wrong link": (_wrong_link_case, "commitment"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_proof_convicts_the_signer_from_the_genesis_alone(name: str) -> None:
    build, match = CASES[name]
    game, bad, seat = build()
    held = game.sessions[1 - seat if game.sessions[0].seat == seat else 0].entries
    proof = make_proof(held, bad)
    c = check(proof, held[0])
    assert c.seat == seat and match in c.reason
    assert c.seqs[0] == decode_entry(bad).seq and c.evidence[0] == bad
    if name == "fork":
        assert c.seqs == (c.seqs[0], c.seqs[0]) and len(c.evidence) == 2
    p = decode_proof(proof)
    assert p.offending == bad and p.chain[0] == held[1]
    # the log plus the stored proof: the auditor says cheat and names the same seat
    report = audit(held, proofs=[proof])
    assert report.verdict == CHEAT and report.cheater == seat and report.fault_index is None


def test_valid_entries_foreign_entries_and_bad_signatures_prove_nothing() -> None:
    game, alt, _seat = _fork_case()
    held = game.sessions[0].entries
    genesis = held[0]
    # a valid next entry proves nothing
    with pytest.raises(ProofError, match="proves nothing"):
        check(make_proof(held[:-1], held[-1]), genesis)
    # a bad signature (claims seat 1, signed by seat 0) convicts nobody
    e = decode_entry(alt)
    payload = encode_payload(e.seq, e.prev, 1 - e.seat, e.kind, e.body)
    forged = pack([payload, game.keys[e.seat].sign(payload)])
    with pytest.raises(ProofError, match="signature does not prove"):
        check(make_proof(held, forged), genesis)
    # another game's genesis, a tampered chain, a broken proof
    other = setup_game(2, Variant.STANDARD, random.Random(99)).sessions[0].entries[0]
    proof = make_proof(held, alt)
    with pytest.raises(ProofError, match="another game"):
        check(proof, other)
    p = decode_proof(proof)
    tampered = pack([PROOF_VERSION, p.game_id, [p.chain[1], *p.chain[1:]]])
    with pytest.raises(ProofError, match="proof entry 1"):
        check(tampered, genesis)
    for junk in (b"", b"\x93\x01", proof[:-1], proof + b"\x00", pack([2, p.game_id, [alt]])):
        with pytest.raises(ProofError):
            check(junk, genesis)


def test_an_honest_entry_replayed_from_another_game_is_no_proof() -> None:
    a = setup_game(2, Variant.STANDARD, random.Random(5))
    b = setup_game(2, Variant.STANDARD, random.Random(5))
    b.sessions = [
        Session(
            Session.create_genesis(
                a.keys[0], list(a.sessions[0].seats), Variant.STANDARD, None, bytes(range(32))
            ),
            key=a.keys[i],
            seed=a.seeds[i],
        )
        for i in range(2)
    ]
    rng = random.Random(0)
    for _ in range(3):
        step(a, rng)
        step(b, rng)
    held = a.sessions[0].entries
    for raw in b.sessions[0].entries[1:3]:
        with pytest.raises(ProofError):
            check(make_proof(held, raw), held[0])


def test_the_sidecar_keeps_proofs_once_and_is_bounded(tmp_path: Path) -> None:
    game, alt, _seat = _fork_case()
    log = tmp_path / "g.zoolog"
    write_log(log, game.sessions[0].entries)
    assert read_proofs(log) == []
    proof = make_proof(game.sessions[0].entries, alt)
    assert append_proof(log, proof) and not append_proof(log, proof)
    assert proofs_path(log).name == "g.zoolog.proofs"
    assert read_proofs(log) == [proof]
    for k in range(MAX_PROOFS + 3):
        append_proof(log, proof + bytes([k]))  # the store does not judge; readers check
    assert len(read_proofs(log)) == MAX_PROOFS
    side = proofs_path(log)
    side.write_bytes(side.read_bytes()[:-7])  # a torn last record is ignored
    assert read_proofs(log)[0] == proof


def _app():  # type: ignore[no-untyped-def]
    from zoo_p2p.cli.app import app

    return app


def test_verify_names_the_cheater_from_the_sidecar_and_a_fork_between_two_logs(
    tmp_path: Path,
) -> None:
    game, alt, seat = _fork_case()
    held = game.sessions[0].entries
    log = tmp_path / "a.zoolog"
    write_log(log, held)
    runner = CliRunner()
    res = runner.invoke(_app(), ["verify", str(log)])
    assert res.exit_code == 3, res.output  # incomplete: nothing proven yet
    append_proof(log, make_proof(held, alt))
    res = runner.invoke(_app(), ["verify", str(log)])
    team = held and game.sessions[0].seats[seat].team.label
    assert res.exit_code == 4, res.output
    assert f"cheat: seat {seat + 1} ({team}), proven by entries" in res.output
    res = runner.invoke(_app(), ["verify", "--json", str(log)])
    out = json.loads(res.output)
    assert out[0]["verdict"] == CHEAT and out[0]["proofs"][0]["seat"] == seat

    # two peers' logs of the same game that fork at one seq
    s = decode_entry(alt).seq
    other = tmp_path / "b.zoolog"
    write_log(other, [*held[:s], alt])
    assert find_fork(held, [*held[:s], alt]) is not None
    res = runner.invoke(_app(), ["verify", str(tmp_path / "c.zoolog"), str(other)])
    assert res.exit_code == 2  # one missing file: a usage error, before any log is audited
    res = runner.invoke(_app(), ["verify", str(other), str(tmp_path / "a.zoolog")])
    assert res.exit_code == 4, res.output
    assert f"seat {seat + 1} ({team}) signed two different entries for seq {s}" in res.output


def test_a_bad_signature_in_a_log_is_rejected_and_names_nobody() -> None:
    game, _alt, _seat = _fork_case()
    held = game.sessions[0].entries
    e = decode_entry(held[3])
    forged = pack([e.payload, bytes(64)])
    report = audit([*held[:3], forged])
    assert report.verdict == REJECTED and report.fault_seat is None and report.fault_index == 3
    assert audit(held).verdict != OK  # still incomplete, not ok


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_proofs_only_convict_by_signature_or_fail_cleanly(data: st.DataObject) -> None:
    game, alt, seat = _FUZZ
    held = game.sessions[0].entries
    proof = bytearray(make_proof(held, alt))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(proof) - 1))
        proof[pos] = data.draw(st.integers(0, 255))
    try:
        c = check(bytes(proof), held[0])
    except ProofError:
        return
    except RemoteProtocolError as exc:  # pragma: no cover - only ProofError may escape
        pytest.fail(f"check raised {type(exc).__name__}: {exc}")
    # a mutation that still convicts must convict the forker (only its signature can)
    assert c.seat == seat


_FUZZ = _fork_case()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_reshuffled_proof_chains_prove_nothing_or_convict_the_last_signer(
    data: st.DataObject,
) -> None:
    game, alt, _seat = _FUZZ
    held = game.sessions[0].entries
    chain = list(decode_proof(make_proof(held, alt)).chain)
    pool = [*held[1:], alt]
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["drop", "swap", "replace", "cut", "append"]))
        i = data.draw(st.integers(0, len(chain) - 1))
        if op == "drop" and len(chain) > 1:
            del chain[i]
        elif op == "swap" and i + 1 < len(chain):
            chain[i], chain[i + 1] = chain[i + 1], chain[i]
        elif op == "replace":
            chain[i] = data.draw(st.sampled_from(pool))
        elif op == "cut":
            chain = chain[: i + 1]
        elif op == "append":
            chain.append(data.draw(st.sampled_from(pool)))
    proof = pack([PROOF_VERSION, decode_proof(make_proof(held, alt)).game_id, chain])
    try:
        c = check(proof, held[0])
    except ProofError:
        return
    last = decode_entry(chain[-1])
    assert c.seat == last.seat and c.evidence[0] == chain[-1]


def test_a_fork_between_two_logs_is_found_before_garbage_in_one(tmp_path: Path) -> None:
    game, alt, _seat = _fork_case()
    held = game.sessions[0].entries
    s = decode_entry(alt).seq
    a, b = tmp_path / "a.zoolog", tmp_path / "b.zoolog"
    write_log(a, held)
    b.write_bytes(b"".join([*held[:s], alt]) + b"\x01garbage")
    res = CliRunner().invoke(_app(), ["verify", str(a), str(b)])
    assert res.exit_code == 5, res.output  # b is rejected (garbage), and the fork is a cheat
    assert f"signed two different entries for seq {s}" in res.output
