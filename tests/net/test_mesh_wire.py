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
