"""hypothesis: garbage and mutated entries only ever raise RemoteProtocolError, nothing else."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.protocol.conftest import finished_game
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack
from zoo_p2p.protocol.events import Gap
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Variant

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.binary(max_size=40)
    | st.text(max_size=10),
    lambda children: st.lists(children, max_size=6),
    max_leaves=20,
)


def _prefix_at(kind: str) -> list[bytes]:
    """The log of a 2-seat game up to the first point where the floor is of `kind`."""
    entries = finished_game(2, Variant.STANDARD).entries
    obs = Session(entries[0])
    for i, raw in enumerate(entries[1:], start=1):
        if obs.floor is not None and obs.floor.kind == kind:
            return entries[:i]
        obs.receive(raw)
    raise AssertionError(kind)


_PREFIXES = {k: _prefix_at(k) for k in (Kind.COMMIT, Kind.OPEN, Kind.MOVE, Kind.REVEAL)}


def _observer(prefix: list[bytes]) -> Session:
    s = Session(prefix[0])
    for raw in prefix[1:]:
        s.receive(raw)
    return s


def _only_remote_errors(s: Session, raw: bytes) -> None:
    try:
        events = s.receive(raw)
    except RemoteProtocolError:
        return
    assert isinstance(events, list)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    s = _observer(_PREFIXES[Kind.COMMIT])
    _only_remote_errors(s, data)
    with pytest.raises(RemoteProtocolError):
        Session(data)


@FUZZ
@given(st.data())
def test_mutated_real_entries(data: st.DataObject) -> None:
    entries = finished_game(2, Variant.STANDARD).entries
    i = data.draw(st.integers(0, 12))
    raw = bytearray(entries[i])
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "set"]))
        pos = data.draw(st.integers(0, len(raw) - 1))
        if op == "flip":
            raw[pos] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del raw[pos:]
        elif op == "insert":
            raw[pos:pos] = data.draw(st.binary(min_size=1, max_size=4))
        else:
            raw[pos] = data.draw(st.sampled_from([0x00, 0xC0, 0xC1, 0xCA, 0xCB, 0xD9, 0xDC, 0xFF]))
        if not raw:
            raw = bytearray(b"\x90")
    s = _observer(entries[: max(1, i)])
    _only_remote_errors(s, bytes(raw))


@FUZZ
@given(
    kind=st.sampled_from([Kind.COMMIT, Kind.OPEN, Kind.MOVE, Kind.REVEAL]),
    claimed=st.sampled_from(sorted(Kind.ALL)),
    body=msgpack_values,
    seat=st.integers(0, 1),
)
def test_validly_signed_entries_with_arbitrary_bodies(
    kind: str, claimed: str, body: Any, seat: int
) -> None:
    """The hardest case: the signature is right and seq/prev chain, only the body is garbage."""
    game = finished_game(2, Variant.STANDARD)
    prefix = _PREFIXES[kind]
    s = _observer(prefix)
    raw = make_entry(game.keys[seat], len(prefix), sha256(prefix[-1]), seat, claimed, body)
    _only_remote_errors(s, raw)


@FUZZ
@given(header=st.lists(msgpack_values, min_size=0, max_size=8))
def test_arbitrary_payload_headers_signed_by_a_seat(header: list[Any]) -> None:
    game = finished_game(2, Variant.STANDARD)
    s = _observer(_PREFIXES[Kind.OPEN])
    payload = pack(header)
    _only_remote_errors(s, pack([payload, game.keys[0].sign(payload)]))


@FUZZ
@given(seq=st.integers(0, 300), seat=st.integers(0, 3))
def test_wrong_seq_and_seat_never_crash(seq: int, seat: int) -> None:
    game = finished_game(2, Variant.STANDARD)
    s = _observer(_PREFIXES[Kind.MOVE])
    key = game.keys[seat % 2]
    raw = make_entry(key, seq, sha256(s.entries[-1]), seat, Kind.MOVE, [0, 3, 0])
    try:
        events = s.receive(raw)
    except RemoteProtocolError:
        return
    assert events == [] or events == [Gap(len(s))] or len(s) == len(_PREFIXES[Kind.MOVE]) + 1


def test_genesis_every_byte_flip_is_rejected() -> None:
    genesis = finished_game(2).entries[0]
    for pos in range(len(genesis)):
        bad = bytearray(genesis)
        bad[pos] ^= 0x10
        with pytest.raises(RemoteProtocolError):
            Session(bytes(bad))


def test_non_canonical_encodings_are_rejected() -> None:
    raw = finished_game(2).entries[1]
    e = decode_entry(raw)
    # the same payload, framed with a bin32 length instead of bin16: same value, other bytes
    bad = b"\x92\xc6" + len(e.payload).to_bytes(4, "big") + e.payload + b"\xc4\x40" + e.sig
    with pytest.raises(RemoteProtocolError, match="canonical"):
        decode_entry(bad)
    # a float where an int is expected, validly signed
    payload = pack([1, 1.0, e.prev, 0, Kind.COMMIT, e.body])
    with pytest.raises(RemoteProtocolError, match="seq is not"):
        decode_entry(pack([payload, b"\0" * 64]))
    obs = _observer(_PREFIXES[Kind.MOVE])
    assert obs.floor is not None
    mover = obs.floor.seat
    raw = make_entry(
        finished_game(2).keys[mover],
        len(obs),
        sha256(obs.entries[-1]),
        mover,
        Kind.MOVE,
        [0, 3.0, 1],
    )
    with pytest.raises(RemoteProtocolError, match="float"):
        obs.receive(raw)
    assert obs.signer_at(raw) is None  # not decodable under the profile: convicts nobody
    with pytest.raises(RemoteProtocolError, match="too large"):
        decode_entry(b"\x00" * 20000)


# ------------------------------------------------------------ the auditor on mutated files
def _signed_by(raw: bytes, seat: int, genesis: bytes) -> bool:
    """Independently: `raw` decodes and carries `seat`'s valid signature (keys from the genesis)."""
    from zoo_p2p.protocol.crypto import public_key_from_bytes

    try:
        e = decode_entry(raw)
        key = Session(genesis).seats[seat].public_key
        public_key_from_bytes(key).verify(e.sig, e.payload)
    except Exception:
        return False
    return e.seat == seat


@FUZZ
@given(data=st.data())
def test_mutated_log_files_only_get_documented_verdicts(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from zoo_p2p.protocol.audit import CHEAT, OK, VERDICTS
    from zoo_p2p.storage import LogReader, audit_file

    game = finished_game(2, Variant.STANDARD)
    entries = list(game.entries)
    other = finished_game(2, Variant.STANDARD, seed=2).entries
    for _ in range(data.draw(st.integers(1, 3))):
        ops = ["flip", "drop", "dup", "swap", "splice", "cut", "junk", "forge", "forge"]
        op = data.draw(st.sampled_from(ops))
        i = data.draw(st.integers(0, len(entries) - 1))
        if op == "forge" and i > 0:  # a seat signs anything at the head of the chain
            key_seat = data.draw(st.integers(0, 1))
            claimed = data.draw(st.sampled_from([key_seat, key_seat, 1 - key_seat, 3]))
            kind = data.draw(st.sampled_from(sorted(Kind.ALL)))
            body = data.draw(msgpack_values)
            try:
                raw = make_entry(
                    game.keys[key_seat], i, sha256(entries[i - 1]), claimed, kind, body
                )
            except (ValueError, TypeError, OverflowError):
                continue
            entries[i] = raw
            entries = entries[: i + 1]
        elif op == "flip" and entries[i]:
            b = bytearray(entries[i])
            b[data.draw(st.integers(0, len(b) - 1))] ^= 1 << data.draw(st.integers(0, 7))
            entries[i] = bytes(b)
        elif op == "drop" and len(entries) > 1:
            del entries[i]
        elif op == "dup":
            entries.insert(i, entries[i])
        elif op == "swap" and i + 1 < len(entries):
            entries[i], entries[i + 1] = entries[i + 1], entries[i]
        elif op == "splice":
            entries[i] = other[min(i, len(other) - 1)]
        elif op == "cut":
            entries = entries[: i + 1]
            entries[-1] = entries[-1][: data.draw(st.integers(0, len(entries[-1])))]
        elif op == "junk":
            entries.insert(i, data.draw(st.binary(min_size=1, max_size=20)))
    path = tmp_path_factory.mktemp("fuzz") / "g.zoolog"
    path.write_bytes(b"".join(entries))
    report = audit_file(path)
    assert report.verdict in VERDICTS
    if report.verdict == OK:
        assert report.fault_index is None and report.torn_bytes == 0
    if report.fault_seat is not None:
        assert report.verdict == CHEAT
        with LogReader(path) as reader:  # read lazily: bytes after the fault may be garbage
            framed = list(itertools.islice(reader, (report.fault_index or 0) + 1))
        assert _signed_by(framed[-1], report.fault_seat, framed[0])
