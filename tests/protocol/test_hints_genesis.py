"""The genesis `hints` field (PROTOCOL.md §3.2): written only when asked, round-trips, strictly
typed, part of the game id, read by the auditor; its vector and its sample log."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import private_key_from_bytes, sha256
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.samples import HINTS_LOG, hints_game
from zoo_p2p.protocol.session import Genesis, Session
from zoo_p2p.protocol.simulate import setup_game
from zoo_p2p.rules import Variant
from zoo_p2p.storage import read_log

ROOT = Path(__file__).resolve().parents[2]


def _seats_and_key() -> tuple[Ed25519PrivateKey, list[SeatInfo]]:
    game = setup_game(2, Variant.STANDARD, random.Random(7))
    return game.keys[0], list(game.sessions[0].seats)


def test_the_hints_field_round_trips_and_is_absent_unless_asked() -> None:
    key, seats = _seats_and_key()
    nonce = bytes(range(32))
    on = Session.create_genesis(key, seats, Variant.STANDARD, None, nonce, Clocks(), hints=True)
    off = Session.create_genesis(key, seats, Variant.STANDARD, None, nonce, Clocks())
    body_on, body_off = decode_entry(on).body, decode_entry(off).body
    assert body_on[5] is True and len(body_on) == 6
    assert len(body_off) == 5  # not allowed: no sixth element at all
    assert Session(on).genesis.hints and not Session(off).genesis.hints
    assert Genesis.from_body(body_on).to_body() == body_on  # parsed and written back, unchanged
    assert Genesis.from_body(body_off).to_body() == body_off
    assert sha256(on) != sha256(off)  # the flag is part of the game id
    # a genesis with hints but no explicit clocks still writes the clocks before the flag
    bare = Session.create_genesis(key, seats, Variant.STANDARD, None, nonce, hints=True)
    assert decode_entry(bare).body[4:] == [[300, 15], True]


@pytest.mark.parametrize("bad", [False, None, 1, 0, "true", b"\x01", [True]])
def test_a_hints_field_of_another_type_is_rejected(bad: object) -> None:
    key, seats = _seats_and_key()
    body = decode_entry(
        Session.create_genesis(key, seats, Variant.STANDARD, None, bytes(32), Clocks(), hints=True)
    ).body
    with pytest.raises(RemoteProtocolError, match="hints"):
        Genesis.from_body([*body[:5], bad])


def test_hints_need_the_clocks_before_them_and_nothing_after() -> None:
    key, seats = _seats_and_key()
    body = decode_entry(
        Session.create_genesis(key, seats, Variant.STANDARD, None, bytes(32), Clocks(), hints=True)
    ).body
    with pytest.raises(RemoteProtocolError):
        Genesis.from_body([*body[:4], True])  # `true` where the clocks belong
    with pytest.raises(RemoteProtocolError):
        Genesis.from_body([*body, True])  # a seventh element


def test_the_genesis_vector() -> None:
    v = json.loads((ROOT / "protocol" / "vectors" / "genesis.json").read_text())
    key = private_key_from_bytes(bytes.fromhex(v["private_key_seed"]))
    entry = bytes.fromhex(v["genesis_entry"])
    s = Session(entry)
    assert sha256(entry).hex() == v["genesis_hash"]
    assert s.genesis.hints is v["hints"] is True
    assert s.clocks.to_body() == v["clocks"]
    assert Session(bytes.fromhex(v["without_hints_entry"])).genesis.hints is False
    assert len(v["refused"]) >= 5
    for case in v["refused"]:
        with pytest.raises(RemoteProtocolError):
            Session(bytes.fromhex(case["genesis_entry"]))
    assert s.seats[0].public_key == key.public_key().public_bytes_raw()


def test_the_hints_sample_log_verifies_and_the_auditor_reports_the_flag() -> None:
    read = read_log(ROOT / "replays" / HINTS_LOG)
    assert read.entries == hints_game().entries  # regenerated only by protocol/generate.py
    report = audit(read.entries)
    assert report.ok and report.hints and report.to_json()["hints"] is True
    plain = audit(read_log(ROOT / "replays" / "2p-standard.zoolog").entries)
    assert plain.ok and not plain.hints and plain.to_json()["hints"] is False
