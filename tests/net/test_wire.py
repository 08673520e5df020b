"""Transport messages and invites, without sockets: round trips, limits, fuzz."""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite, InviteError


def test_invite_round_trip_and_forgiving_reader() -> None:
    """str() and parse() agree; quotes and spaces around a pasted invite are fine."""
    inv = Invite(
        host="192.168.1.20",
        port=40123,
        server_key=bytes(range(32)),
        fingerprint="IZYT-2IBP-ZXM5-NOYC",
    )
    text = str(inv)
    assert text.startswith("zoo://192.168.1.20:40123/")
    assert Invite.parse(text) == inv
    assert Invite.parse(f"  '{text}'\n") == inv
    v6 = Invite(host="[::1]", port=5, server_key=b"\x01" * 32, fingerprint="IV7F-M2JN-KPTH-JXDE")
    assert Invite.parse(str(v6)) == v6
    assert v6.endpoint == "tcp://[::1]:5"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "http://x:1/a/b",
        "zoo://host/abc/fp",
        "zoo://host:0/" + "a" * 52 + "/FP",
        "zoo://host:99999/" + "a" * 52 + "/FP",
        "zoo://host:1/" + "a" * 50 + "/FP",
        "zoo://host:1/" + "1" * 52 + "/FP",
        "zoo://host:1/" + "a" * 52 + "/bad fp",
        "zoo://ho st:1/" + "a" * 52 + "/FP",
    ],
)
def test_bad_invites_say_why(bad: str) -> None:
    """Anything that is not an invite raises InviteError (a ValueError) with a reason."""
    with pytest.raises(InviteError):
        Invite.parse(bad)


def test_messages_round_trip_and_schema() -> None:
    """pack() refuses what unpack() would refuse; the right messages pass both."""
    data = wire.pack("entries", **{"from": 3, "e": [b"a", b"b"]})
    assert wire.unpack(data) == {"t": "entries", "from": 3, "e": [b"a", b"b"]}
    assert wire.unpack(wire.pack("ping")) == {"t": "ping"}
    for bad in [
        {"t": "ping", "x": 1},
        {"t": "entries", "from": -1, "e": []},
        {"t": "entries", "from": 0, "e": ["text"]},
        {"t": "entries", "from": True, "e": []},
        {"t": "presence", "up": [1, 0]},
        {
            "t": "hello",
            "v": 1,
            "name": "",
            "team": None,
            "pub": bytes(32),
            "curve": bytes(32),
            "game": None,
            "have": 0,
            "sig": bytes(64),
        },
        {
            "t": "hello",
            "v": 1,
            "name": "x",
            "team": 7,
            "pub": bytes(32),
            "curve": bytes(32),
            "game": None,
            "have": 0,
            "sig": bytes(64),
        },
        {"t": "lobby", "seats": [["a", "b"]], "need": 2},
        {"t": 5},
    ]:
        with pytest.raises(wire.WireError):
            wire.unpack(msgpack.packb(bad))
    with pytest.raises(wire.WireError):
        wire.unpack(b"\x00" * (wire.MAX_FRAME + 1))


def test_batches_keep_numbering_and_fit_a_frame() -> None:
    """Big resyncs are split into frames under the limit, numbered from the right seq."""
    entries = [bytes([i % 256]) * 16000 for i in range(100)]
    parts = wire.batches(entries, 7)
    assert sum(len(b) for _, b in parts) == 100
    seq = 7
    for first, batch in parts:
        assert first == seq
        seq += len(batch)
        assert len(wire.pack("entries", **{"from": first, "e": batch})) <= wire.MAX_FRAME


def test_hello_signature_binds_the_curve_key() -> None:
    """The signed bytes change with the link's CURVE key and the host's server key."""
    h = wire.Hello(name="ann", team=None, pub=bytes(32), curve=b"\x01" * 32, game=None, have=0)
    other = wire.Hello(name="ann", team=None, pub=bytes(32), curve=b"\x02" * 32, game=None, have=0)
    assert wire.hello_signed_bytes(b"k" * 32, h) != wire.hello_signed_bytes(b"k" * 32, other)
    assert wire.hello_signed_bytes(b"k" * 32, h) != wire.hello_signed_bytes(b"j" * 32, h)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_only_ever_raise_wire_error(data: bytes) -> None:
    """Garbage never raises anything but the peer-fault error."""
    with contextlib.suppress(wire.WireError):
        wire.unpack(data)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["t", "from", "e", "up", "name", "x"]),
        st.one_of(
            st.integers(-5, 2**40),
            st.text(max_size=5),
            st.binary(max_size=5),
            st.none(),
            st.booleans(),
            st.lists(st.one_of(st.binary(max_size=3), st.booleans()), max_size=5),
        ),
        max_size=4,
    )
)
def test_random_maps_only_ever_raise_wire_error(msg: dict[str, object]) -> None:
    """Well-formed msgpack with the wrong shape is refused the same way."""
    with contextlib.suppress(wire.WireError):
        wire.unpack(msgpack.packb(msg))


def test_hello_names_and_keys_follow_the_genesis_rules() -> None:
    """A hello the host lets in never makes a genesis it cannot build (PROTOCOL.md §2.4, §3.1)."""
    from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes

    good_pub = public_key_bytes(private_key_from_bytes(b"k" * 32))

    def hello(name: str, pub: bytes) -> bytes:
        msg = {"t": "hello", "v": 1, "name": name, "team": None, "pub": pub}
        msg.update({"curve": bytes(32), "game": None, "have": 0, "sig": bytes(64)})
        return msgpack.packb(msg)

    assert wire.unpack(hello("[/]", good_pub))["name"] == "[/]"
    for name in (" Ada", "Ada ", "Zoe\u0308", "\u0301a", "a\u00a0b"):
        with pytest.raises(wire.WireError, match=r"hello\.name"):
            wire.unpack(hello(name, good_pub))
    for pub in (bytes.fromhex("01" + "00" * 31), bytes(32), bytes.fromhex("ee" + "ff" * 31)):
        with pytest.raises(wire.WireError, match=r"hello\.pub"):
            wire.unpack(hello("Ada", pub))
