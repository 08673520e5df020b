"""Hostile files and fields: the verdict says what is proven, files are bounded, text is data."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import msgpack
import pytest
from typer.testing import CliRunner

from tests.protocol.conftest import finished_game
from tests.protocol.helpers import forge
from zoo_p2p.errors import LogError, RemoteProtocolError
from zoo_p2p.protocol.audit import CHEAT, INCOMPLETE, OK, REJECTED, audit
from zoo_p2p.protocol.crypto import check_public_key, private_key_from_bytes, public_key_bytes
from zoo_p2p.protocol.encoding import (
    MAX_LOG_BYTES,
    ZERO_HASH,
    Kind,
    decode_entry,
    encode_payload,
    make_entry,
    pack,
)
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.names import check_name, is_valid_name
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import play_game, setup_game, step
from zoo_p2p.rules import Team, Variant
from zoo_p2p.storage import audit_file, read_log, write_log

IDENTITY_ENCODINGS = [
    "01" + "00" * 31,  # the identity point
    "01" + "00" * 30 + "80",  # the identity with the sign bit: x = 0 has no negative
    "ee" + "ff" * 30 + "7f",  # y = p + 1: the identity, non-canonical
    "ee" + "ff" * 31,  # y = p + 1 with the sign bit
]
SMALL_ORDER = [
    "ec" + "ff" * 30 + "7f",  # order 2
    "00" * 32,  # order 4
    "00" * 31 + "80",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
]


def _app():  # type: ignore[no-untyped-def]
    from zoo_p2p.cli.app import app

    return app


def _genesis_with(seats: list[list[object]], signer: int = 0) -> bytes:
    key = private_key_from_bytes(bytes([signer + 1]) * 32)
    body = [bytes(32), "standard", seats, None]
    return make_entry(key, 0, ZERO_HASH, 0, Kind.GENESIS, body)


def _key(i: int) -> bytes:
    return public_key_bytes(private_key_from_bytes(bytes([i + 1]) * 32))


# ---------------------------------------------------------------------- keys
@pytest.mark.parametrize("hexkey", IDENTITY_ENCODINGS + SMALL_ORDER)
def test_small_order_and_non_canonical_keys_are_refused(hexkey: str) -> None:
    raw = bytes.fromhex(hexkey)
    with pytest.raises(ValueError):
        check_public_key(raw)
    genesis = _genesis_with([["Ada", _key(0), 0], ["Eve", raw, 1]])
    report = audit([genesis])
    assert report.verdict == REJECTED and report.fault_seat is None
    assert "public key" in (report.fault_reason or "")


def test_anyone_can_sign_for_the_identity_key_so_it_is_refused() -> None:
    """The attack: with the identity as public key, (R = identity, S = 0) signs any message."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    ident = bytes.fromhex(IDENTITY_ENCODINGS[0])
    Ed25519PublicKey.from_public_bytes(ident).verify(ident + bytes(32), b"any message")
    seats = [["Ada", _key(0), 0], ["Eve", ident, 1]]
    genesis = _genesis_with(seats)
    with pytest.raises(RemoteProtocolError, match="small-order"):
        Session(genesis)


def test_real_keys_are_accepted() -> None:
    rng = random.Random(3)
    for _ in range(20):
        check_public_key(public_key_bytes(private_key_from_bytes(rng.randbytes(32))))


# ---------------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name", ["Ada", "[/]", "[link=http://x]a[/link]", "Zoë", "李小龍", "a b", "x" * 32, "🦓 zebra"]
)
def test_valid_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        " Ada",
        "Ada ",
        "x" * 33,
        "a\x1b[31mb",
        "a\u202eb",  # bidi override (Cf)
        "a\u200db",  # zero-width joiner (Cf)
        "a\u00a0b",  # no-break space (Zs other than U+0020)
        "a\nb",
        "a\u2028b",  # line separator
        "\u0301a",  # starts with a combining mark
        "Zoe\u0308",  # not NFC (NFC is Zoë)
        "a\ue000",  # private use
        "a\U000e0001",  # tag (Cf)
        b"Ada",
        7,
    ],
)
def test_invalid_names(name: object) -> None:
    assert not is_valid_name(name)
    genesis = _genesis_with([[name, _key(0), 0], ["Bo", _key(1), 1]])
    report = audit([genesis])
    assert report.verdict == REJECTED and report.fault_seat is None


def test_hostile_names_print_literally_in_verify(tmp_path: Path) -> None:
    names = ["[/]", "[link=http://x]a[/link]", "[bold red]x"]
    rng = random.Random(9)
    game = setup_game(3, Variant.GENERAL, rng)
    keys = game.keys
    seats = [
        SeatInfo(n, public_key_bytes(k), t)
        for n, k, t in zip(names, keys, (Team.YELLOW, Team.BLUE, Team.RED), strict=True)
    ]
    genesis = Session.create_genesis(keys[0], seats, Variant.GENERAL, None, bytes(32))
    game.sessions = [Session(genesis, key=keys[i], seed=game.seeds[i]) for i in range(3)]
    for _ in range(20):
        step(game, rng)
    log = tmp_path / "[red]evil[/red].zoolog"
    write_log(log, game.sessions[0].entries)
    res = CliRunner().invoke(_app(), ["verify", str(log)], env={"COLUMNS": "400"})
    assert res.exit_code == 3, res.output
    for n in names:
        assert n in res.output
    assert "[red]evil[/red].zoolog" in res.output


# ---------------------------------------------------------------------- bodies
def test_every_body_is_checked_against_its_shape_first() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(31))
    s = game.sessions[1]
    for body in ([bytes(32), [b"x"] * 5], [bytes(32), [bytes(1600)] * 5], "x", [], [None, None]):
        with pytest.raises(RemoteProtocolError, match="commit body"):
            s.receive(forge(game, 0, Kind.COMMIT, body, on=s))
    assert len(s) == 1


@pytest.mark.parametrize(
    ("what", "inner"),
    [("map", {}), ("map", [{}]), ("extension type", msgpack.ExtType(1, b""))],
)
def test_an_empty_map_or_ext_in_a_signed_body_is_rejected_at_step_1(
    what: str, inner: object, tmp_path: Path
) -> None:
    """`0x80` and a zero-length ext pass msgpack's max_map_len=0 / max_ext_len=0 limits, but the
    profile has no maps and no extension types (§2.1): decoding fails at §6 step 1, so the entry
    convicts nobody even though its author signed it (a bad shape at step 8 would convict)."""
    game = setup_game(2, Variant.STANDARD, random.Random(31))
    s = game.sessions[1]
    assert s.floor is not None
    raw = forge(game, s.floor.seat, Kind.COMMIT, [bytes(32), inner], on=s)
    with pytest.raises(RemoteProtocolError, match=f"holds an? {what}"):
        decode_entry(raw)
    with pytest.raises(RemoteProtocolError, match=what):
        s.receive(raw)
    assert s.signer_at(raw) is None
    report = audit([*s.entries, raw])
    assert report.verdict == REJECTED and report.fault_seat is None, report.fault_reason
    assert report.fault_index == len(s.entries) and what in (report.fault_reason or "")
    p = _write(tmp_path, "g.zoolog", b"".join([*s.entries, raw]))
    res = CliRunner().invoke(_app(), ["verify", "--json", str(p)])
    assert res.exit_code == 5, res.output
    out = json.loads(res.output)[0]
    assert out["verdict"] == REJECTED and out["fault"]["seat"] is None


def test_a_result_with_too_many_totals_is_refused() -> None:
    game = setup_game(2, Variant.GENERAL, random.Random(21))
    rng = random.Random(0)
    while game.sessions[0].floor is not None and game.sessions[0].floor.kind != Kind.RESULT:
        step(game, rng)
    scores = list(game.sessions[0].final_scores or ())
    with pytest.raises(RemoteProtocolError, match="result body"):
        game.sessions[1].receive(forge(game, 0, Kind.RESULT, [[*scores, 0]]))


# ---------------------------------------------------------------------- who is named
def test_splicing_an_authentic_entry_from_another_game_names_nobody() -> None:
    a = finished_game(2)
    b = play_game(2, Variant.STANDARD, random.Random(777))
    entries = a.entries
    # same seats? no: another game entirely; its entry 3 is authentic but not of this chain
    report = audit([*entries[:3], b.entries[3]])
    assert report.verdict == REJECTED and report.fault_seat is None and report.fault_index == 3


def test_an_entry_for_a_seat_that_does_not_exist_names_nobody() -> None:
    game = finished_game(2)
    e = decode_entry(game.entries[2])
    payload = encode_payload(e.seq, e.prev, 3, e.kind, e.body)
    raw = pack([payload, game.keys[0].sign(payload)])
    report = audit([*game.entries[:2], raw])
    assert report.verdict == REJECTED and report.fault_seat is None
    assert "no seat 4" in (report.fault_reason or "")


def test_an_out_of_turn_signed_entry_convicts_its_signer() -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(17))
    step(game, random.Random(0))
    body = decode_entry(game.sessions[1].entries[1]).body
    raw = forge(game, 2, Kind.COMMIT, body)
    report = audit([*game.sessions[0].entries, raw])
    assert (
        report.verdict == CHEAT
        and report.fault_seat == 2
        and "out of turn" in (report.fault_reason or "")
    )


# ---------------------------------------------------------------------- files
def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_settled_cases_of_a_log_file(tmp_path: Path) -> None:
    entries = finished_game(2).entries
    whole = b"".join(entries)
    cases = {
        "empty": (b"", REJECTED, 0),
        "duplicate": (b"".join([*entries[:5], entries[4], *entries[5:]]), REJECTED, 5),
        "garbage tail": (b"".join(entries[:5]) + b"\x01\x02", REJECTED, 5),
        "garbage tail after the game": (whole + b"\xc1", REJECTED, len(entries)),
        "torn tail": (b"".join(entries[:5]) + entries[5][:9], INCOMPLETE, None),
        "torn tail after the game": (whole + entries[3][:20], REJECTED, len(entries)),
        "just a torn entry": (entries[0][:30], REJECTED, 0),
        "complete": (whole, OK, None),
    }
    codes = {OK: 0, INCOMPLETE: 3, CHEAT: 4, REJECTED: 5}
    for name, (data, verdict, index) in cases.items():
        p = _write(tmp_path, name.replace(" ", "-"), data)
        report = audit_file(p)
        assert report.verdict == verdict, (name, report.fault_reason)
        assert report.fault_index == index, name
        assert report.fault_seat is None, name
        res = CliRunner().invoke(_app(), ["verify", "--json", str(p)])
        assert res.exit_code == codes[verdict], (name, res.output)
        assert json.loads(res.output)[0]["verdict"] == verdict


def test_the_first_bad_entry_is_reported_even_if_later_bytes_are_unreadable(
    tmp_path: Path,
) -> None:
    entries = finished_game(2).entries
    bad = bytearray(entries[3])
    bad[-1] ^= 0xFF  # breaks the signature of entry 3
    p = _write(tmp_path, "g", b"".join([*entries[:3], bytes(bad), *entries[4:6]]) + b"\xff" * 99)
    report = audit_file(p)
    assert report.verdict == REJECTED and report.fault_index == 3
    assert "signature" in (report.fault_reason or "")


def test_special_files_are_unreadable_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        t = time.monotonic()
        with pytest.raises(LogError, match="not a regular file"):
            audit_file(path)
        with pytest.raises(LogError):
            read_log(path)
        assert time.monotonic() - t < 5
    res = CliRunner().invoke(_app(), ["verify", str(fifo), "/dev/zero"])
    assert res.exit_code == 6 and res.output.count("UNREADABLE") == 2


def test_a_file_larger_than_any_game_is_refused_fast(tmp_path: Path) -> None:
    entries = finished_game(2).entries
    p = tmp_path / "big.zoolog"
    with p.open("wb") as f:
        f.write(entries[0])
        f.truncate(40 * 1024 * 1024)
    t = time.monotonic()
    with pytest.raises(LogError, match="no game log can exceed"):
        audit_file(p)
    assert time.monotonic() - t < 2
    res = CliRunner().invoke(_app(), ["verify", str(p)])
    assert res.exit_code == 6
    # just under the bound: read entry by entry and rejected at the first bad one
    p.write_bytes(entries[0] + b"\x92\xc5\x3f\xbb" + bytes(MAX_LOG_BYTES - len(entries[0]) - 8))
    t = time.monotonic()
    report = audit_file(p)
    assert report.verdict == REJECTED and report.fault_index == 1
    assert time.monotonic() - t < 2


def test_hostile_kinds_variants_and_reasons_print_literally(tmp_path: Path) -> None:
    game = finished_game(2)
    entries = game.entries
    hostile_kind = make_entry(game.keys[1], 1, sha256_of(entries[0]), 1, "[/]", [])
    key = private_key_from_bytes(bytes([1]) * 32)
    body = [bytes(32), "[link=http://x]a[/link]", [["Ada", _key(0), 0], ["Bo", _key(1), 1]], None]
    hostile_variant = make_entry(key, 0, ZERO_HASH, 0, Kind.GENESIS, body)
    runner = CliRunner()
    for data, literal in (
        (entries[0] + hostile_kind, "'[/]'"),
        (hostile_variant, "'[link=http://x]a[/link]'"),
    ):
        p = tmp_path / "x.zoolog"
        p.write_bytes(data)
        res = runner.invoke(_app(), ["verify", str(p)], env={"COLUMNS": "300"})
        assert res.exit_code == 5, res.output
        assert literal in res.output, res.output


def sha256_of(raw: bytes) -> bytes:
    from zoo_p2p.protocol.crypto import sha256

    return sha256(raw)
