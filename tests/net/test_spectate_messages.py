"""The spectators' two messages (TRANSPORT.md §12): they round-trip byte for byte, decode checks
their fields and raises only `WireError`, and the players' table of kinds is unchanged."""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zoo_p2p.net import messages, wire
from zoo_p2p.net.messages import Watch, Watching, WireError, decode, encode

PLAYERS_KINDS = {
    "knock", "hello", "welcome", "reject", "leave", "farewell", "lobby", "entries", "sync",
    "presence", "seats", "ping", "who", "done", "bye", "mesh", "claim", "resign",
    "links",  # the lobby's link hints (TRANSPORT.md §10.10, issue 22), a players' message
}  # fmt: skip


def _frames() -> list[bytes]:
    return [
        wire.pack("watch", v=1, game=None, have=0),
        wire.pack("watch", v=1, game=b"g" * 32, have=77),
        wire.pack("watching", v=1, n=1, most=4),
        wire.pack("watching", v=1, n=64, most=64),
    ]


def test_the_spectators_messages_round_trip_and_leave_the_players_table_alone() -> None:
    for frame in _frames():
        msg = decode(frame)
        assert isinstance(msg, Watch | Watching)
        assert encode(msg) == frame
    assert decode(_frames()[1]) == Watch(game=b"g" * 32, have=77)
    assert set(wire._SCHEMA) == PLAYERS_KINDS  # the players' wire: the same 19 kinds


@pytest.mark.parametrize(
    "bad",
    [
        {"t": "watch", "v": 1, "game": None},  # a field missing
        {"t": "watch", "v": 2, "game": None, "have": 0},  # another version
        {"t": "watch", "v": 1, "game": b"g" * 65, "have": 0},  # game too long
        {"t": "watch", "v": 1, "game": None, "have": 2**32},  # have out of range
        {"t": "watch", "v": 1, "game": None, "have": 0, "name": "x"},  # an extra field
        {"t": "watching", "v": 1, "n": 0, "most": 4},
        {"t": "watching", "v": 1, "n": 5, "most": 4},
        {"t": "watching", "v": 1, "n": 1, "most": 65},
        {"t": "watching", "v": 1, "n": True, "most": 4},
    ],
)
def test_decode_refuses_what_section_12_refuses(bad: dict[str, object]) -> None:
    with pytest.raises(WireError):
        decode(msgpack.packb(bad, use_bin_type=True))


def test_encode_refuses_to_send_junk() -> None:
    with pytest.raises(WireError):
        encode(Watching(n=9, most=4))
    with pytest.raises(WireError):
        encode(Watch(game=b"x" * 65, have=0))


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=80),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["watch", "watching"]),
    st.dictionaries(st.sampled_from(["v", "game", "have", "n", "most", "x"]), _VALUES, max_size=5),
)
def test_decode_raises_only_wire_error_on_spectator_maps(
    kind: str, fields: dict[str, object]
) -> None:
    data = msgpack.packb({"t": kind, **fields}, use_bin_type=True)
    try:
        msg = decode(data)
    except WireError:
        return
    assert kind == msg.T and decode(encode(msg)) == msg  # what decodes also encodes


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0), st.integers(min_value=0), st.binary(max_size=6))
def test_decode_raises_only_wire_error_on_mutated_spectator_frames(
    pick: int, at: int, extra: bytes
) -> None:
    frames = _frames()
    data = bytearray(frames[pick % len(frames)])
    i = at % len(data)
    data[i] ^= 1 << (at % 8)
    data[i:i] = extra
    for fn in (decode, messages.decode_mesh):
        with contextlib.suppress(WireError):
            fn(bytes(data))
