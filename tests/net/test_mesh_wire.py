"""The mesh's messages (TRANSPORT.md §10.3): strict schemas, and cards bound to seat and game."""

from __future__ import annotations

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net import mesh, wire

GAME = bytes(range(32))
HEAD = [7, bytes(32)]


def _card(key: Ed25519PrivateKey, game: bytes = GAME, **over: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "seat": 2,
        "ep": "tcp://127.0.0.1:4000",
        "skey": b"s" * 32,
    }
    sig = key.sign(mesh.card_signed_bytes(game, 2, "tcp://127.0.0.1:4000", b"s" * 32))
    fields.update(sig=sig, **over)
    return mesh.unpack(mesh.pack("card", **fields))


def test_every_kind_round_trips() -> None:
    key = Ed25519PrivateKey.generate()
    msgs = [
        ("ent", {"from": 3, "e": [b"x" * 10, b"y"], "h": HEAD}),
        ("head", {"h": HEAD, "up": [True, False, True]}),
        ("get", {"from": 5, "n": 64, "to": 1}),
        ("proof", {"p": b"\x93\x01"}),
    ]
    for kind, fields in msgs:
        assert mesh.unpack(mesh.pack(kind, **fields)) == {"t": kind, **fields}
    assert _card(key)["seat"] == 2


@pytest.mark.parametrize(
    "msg",
    [
        {"t": "get", "from": 1, "n": 65, "to": 0},
        {"t": "get", "from": 1, "n": 0, "to": 0},
        {"t": "get", "from": -1, "n": 3, "to": 0},
        {"t": "get", "from": 1, "n": 3, "to": 4},
        {"t": "get", "from": 1, "n": 3},
        {"t": "head", "h": [1, b"short"], "up": []},
        {"t": "head", "h": HEAD, "up": [True] * 5},
        {"t": "head", "h": HEAD, "up": [1]},
        {"t": "ent", "from": 0, "e": [b""], "h": HEAD},
        {"t": "ent", "from": 0, "e": ["text"], "h": HEAD},
        {"t": "proof", "p": b""},
        {
            "t": "card",
            "seat": 1,
            "ep": "ipc:///tmp/x",
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        {
            "t": "card",
            "seat": 1,
            "ep": "tcp://" + "a" * 200,
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        {
            "t": "card",
            "seat": 9,
            "ep": "tcp://a:1",
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        {"t": "nonsense"},
        [1, 2, 3],
    ],
)
def test_malformed_messages_are_refused(msg: object) -> None:
    with pytest.raises(wire.WireError):
        mesh.unpack(msgpack.packb(msg, use_bin_type=True))


def test_garbage_is_refused() -> None:
    for data in (b"", b"\xc1", b"\x81\xa1t", bytes(range(256))):
        with pytest.raises(wire.WireError):
            mesh.unpack(data)


def test_a_card_holds_only_for_its_seat_key_and_game() -> None:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    card = _card(key)
    assert mesh.check_card(key.public_key(), GAME, card) == mesh.Card(
        2, "tcp://127.0.0.1:4000", b"s" * 32
    )
    assert mesh.check_card(other.public_key(), GAME, card) is None  # another seat's key
    assert mesh.check_card(key.public_key(), bytes(32), card) is None  # another game
    for field, value in (("skey", b"S" * 32), ("seat", 1), ("ep", "tcp://evil:1")):
        forged = dict(card, **{field: value})  # a relay swapping a key or the address
        assert mesh.check_card(key.public_key(), GAME, forged) is None


EPS = ["tcp://10.88.1.2:4000", "tcp://11.88.2.1:4000"]


def _multi(key: Ed25519PrivateKey, eps: list[str], **over: object) -> dict[str, object]:
    sig = key.sign(mesh.card_signed_bytes(GAME, 2, eps, b"s" * 32))
    fields: dict[str, object] = {"seat": 2, "ep": eps, "skey": b"s" * 32, "sig": sig, **over}
    return mesh.unpack(msgpack.packb({"t": "card", **fields}, use_bin_type=True))


def test_a_card_with_several_endpoints_is_signed_as_a_list_under_v2() -> None:
    key = Ed25519PrivateKey.generate()
    card = mesh.check_card(key.public_key(), GAME, _multi(key, EPS))
    assert card is not None and card.endpoints == tuple(EPS) and card.wire_ep() == EPS
    v1 = msgpack.unpackb(mesh.card_signed_bytes(GAME, 2, EPS[0], b"s" * 32))
    v2 = msgpack.unpackb(mesh.card_signed_bytes(GAME, 2, EPS, b"s" * 32))
    assert v1[0] == b"zoo-p2p/card/v1" and v2[0] == b"zoo-p2p/card/v2" and v2[3] == EPS
    # a relay can neither drop, add nor reorder an endpoint under the signature
    for forged in (EPS[::-1], [*EPS, "tcp://6.6.6.6:1"], [EPS[0], "tcp://6.6.6.6:4000"]):
        assert mesh.check_card(key.public_key(), GAME, dict(_multi(key, EPS), ep=forged)) is None
    # nor pass a one-endpoint card signed as a list off as the v1 card (or the reverse)
    one = _multi(key, EPS)
    assert mesh.check_card(key.public_key(), GAME, dict(one, ep=EPS[0])) is None


@pytest.mark.parametrize(
    "ep",
    [
        [EPS[0]],  # one endpoint is a string, never a list of one
        [EPS[0], EPS[0]],  # duplicates
        [f"tcp://10.0.0.{i}:4000" for i in range(1, 6)],  # more than 4
        [EPS[0], "tcp://0.0.0.0:4000"],  # a wildcard is no machine's address
        [EPS[0], "tcp://224.0.0.1:4000"],  # multicast
        [EPS[0], "tcp://10.1.2.3:0"],
        [EPS[0], "tcp://10.1.2.3:70000"],
        [EPS[0], "tcp://fd00::1:4000"],  # IPv6 without brackets
        [EPS[0], "tcp://[fe80::1%eth0]:4000"],  # a zone
        [EPS[0], "tcp://10.1.2.3:04000"],  # not the one canonical form
        [EPS[0], "tcp://Example.org:4000"],
        [EPS[0], "tcp://a_b:4000"],
        [EPS[0], "ipc:///tmp/x"],
        [EPS[0], 7],
        "tcp://10.1.2.3",
        "tcp://10.1.2.3:4000 ",
        [],
    ],
)
def test_bad_endpoints_are_refused(ep: object) -> None:
    msg = {"t": "card", "seat": 1, "ep": ep, "skey": b"s" * 32, "sig": b"g" * 64}
    with pytest.raises(wire.WireError):
        mesh.unpack(msgpack.packb(msg, use_bin_type=True))


def test_good_endpoints_are_read() -> None:
    for ep in ("tcp://[fd00::1]:1", "tcp://example.org:65535", "tcp://127.0.0.1:9"):
        assert mesh.endpoint_ok(ep), ep
    assert mesh.endpoint("FD00:0::1", 5) == "tcp://[fd00::1]:5"
    assert mesh.endpoint("[::1]", 5) == "tcp://[::1]:5"
