"""The language-neutral test vectors in protocol/vectors and the sample logs in replays/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import fingerprint, private_key_from_bytes, public_key_bytes, sha256
from zoo_p2p.protocol.deal import (
    SeatTables,
    commitment,
    derive_permutation,
    derive_salt,
    first_player,
    game_key,
    nonce_commitment,
)
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.samples import SAMPLE_GAMES, all_vectors, sample_game
from zoo_p2p.storage import read_log

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"
REPLAYS = ROOT / "replays"


def load(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((VECTORS / name).read_text())  # type: ignore[no-any-return]


def test_vector_files_are_what_the_code_generates() -> None:
    for name, content in all_vectors().items():
        assert load(name) == content, f"protocol/vectors/{name} is stale: run protocol/generate.py"


def test_permutation_vectors() -> None:
    cases = load("permutations.json")["cases"]
    for case in cases:
        seed = bytes.fromhex(case["seed"])
        key = game_key(seed, bytes.fromhex(case["game_id"]))
        assert key.hex() == case["game_key"]
        for t, perm in case["tables"].items():
            assert derive_permutation(key, int(t)) == perm
            assert sorted(perm) == list(range(len(perm)))
        assert [derive_salt(key, 0, i).hex() for i in range(3)] == case["salts_table0_first3"]
    # the same seed in another game: different tables, different salts
    same_seed = [c for c in cases if c["seed"] == cases[0]["seed"]]
    assert len(same_seed) == 2
    assert same_seed[0]["tables"]["0"] != same_seed[1]["tables"]["0"]
    assert same_seed[0]["salts_table4_last"] != same_seed[1]["salts_table4_last"]


def test_commitment_vectors() -> None:
    v = load("commitments.json")
    gid = bytes.fromhex(v["game_id"])
    for c in v["single"]:
        got = commitment(
            gid, c["seat"], c["table"], c["index"], c["value"], bytes.fromhex(c["salt"])
        )
        assert got.hex() == c["commitment"]
    sc = v["seat_commitments"]
    blobs = SeatTables.from_seed(bytes.fromhex(sc["seed"]), gid, general=False).commitments(
        gid, sc["seat"]
    )
    assert [sha256(b).hex() for b in blobs] == sc["tables_sha256"]
    nonces = [bytes.fromhex(n) for n in v["nonces"]]
    assert nonce_commitment(gid, 0, nonces[0]).hex() == v["nonce_commitment_seat0"]
    for k, first in v["first_player"].items():
        assert first_player(gid, nonces[: int(k)]) == first


def test_entry_vectors() -> None:
    v = load("entries.json")
    key = private_key_from_bytes(bytes.fromhex(v["private_key_seed"]))
    assert public_key_bytes(key).hex() == v["public_key"]
    assert fingerprint(public_key_bytes(key)) == v["fingerprint"]
    e = decode_entry(bytes.fromhex(v["genesis_entry"]))
    assert e.payload.hex() == v["genesis_payload"] and e.seq == 0 and e.kind == "genesis"
    key.public_key().verify(e.sig, e.payload)
    m = decode_entry(bytes.fromhex(v["move_entry_seq7_step_C3_D3"]))
    assert m.prev.hex() == v["genesis_hash"] and m.body == [1, 12, 13]


@pytest.mark.parametrize("name", ["sample-log-2p.json", "sample-log-3p-general.json"])
def test_sample_log_vector_audits_to_the_recorded_outcome(name: str) -> None:
    v = load(name)
    report = audit([bytes.fromhex(h) for h in v["entries"]])
    assert report.ok
    assert report.game_id is not None and report.game_id.hex() == v["game_id"]
    assert list(report.moves) == v["moves"] and report.first_seat == v["first_seat"]
    assert list(report.slot_tokens or ()) == v["deal_slot_tokens"]
    assert list(report.mutant_copies or ()) == v["mutant_copies"]
    assert list(report.scores or ()) == v["scores"]


@pytest.mark.parametrize(("name", "n", "variant"), SAMPLE_GAMES)
def test_replays_verify_and_are_reproducible(name: str, n: int, variant: object) -> None:
    read = read_log(REPLAYS / name)
    assert not read.torn
    report = audit(read.entries)
    assert report.ok, report.fault_reason
    assert len(report.seats) == n and report.variant == variant.value  # type: ignore[attr-defined]
    assert read.entries == sample_game(n, variant).entries  # type: ignore[arg-type]


def test_validation_vectors() -> None:
    from zoo_p2p.protocol.crypto import check_public_key
    from zoo_p2p.protocol.names import is_valid_name

    v = load("validation.json")
    for case in v["refused_public_keys"]:
        with pytest.raises(ValueError):
            check_public_key(bytes.fromhex(case["key"]))
    for k in v["accepted_public_keys"]:
        check_public_key(bytes.fromhex(k))
    assert all(is_valid_name(n) for n in v["accepted_names"])
    assert not any(is_valid_name(n) for n in v["refused_names"])
    assert len(v["out_of_profile_logs"]) >= 3
    for case in v["out_of_profile_logs"]:
        report = audit([bytes.fromhex(e) for e in case["entries"]])
        assert report.verdict == case["verdict"] == "rejected", case["why"]
        assert report.fault_index == case["fault_index"], case["why"]
        assert report.fault_seat is case["fault_seat"] is None, case["why"]
    from zoo_p2p.protocol.crypto import public_key_from_bytes, verify_signature

    assert [c["valid"] for c in v["signatures"]] == [True, False, False, False]
    for case in v["signatures"]:
        pub = bytes.fromhex(case["public_key"])
        check_public_key(pub)
        sig, msg = bytes.fromhex(case["signature"]), bytes.fromhex(case["message"])
        assert sig[:32] in (
            bytes([1]) + bytes(31),
            bytes([1]) + bytes(30) + b"\x80",
            b"\xee" + b"\xff" * 30 + b"\x7f",
        )
        assert verify_signature(public_key_from_bytes(pub), sig, msg) is case["valid"], case["why"]


def test_fork_proof_vector() -> None:
    from zoo_p2p.protocol.evidence import check

    v = load("proof-fork.json")
    c = check(bytes.fromhex(v["proof"]), bytes.fromhex(v["genesis"]))
    assert c.seat == v["convicts_seat"] and list(c.seqs) == v["entries"]
    assert c.reason == v["reason"] and "fork" in c.reason
