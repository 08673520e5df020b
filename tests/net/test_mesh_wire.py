"""The mesh's messages (TRANSPORT.md §10.3): strict schemas, and cards bound to seat and game."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net import mesh, wire
from zoo_p2p.net.messages import MeshCard

GAME = bytes(range(32))
HEAD = [7, bytes(32)]


def _typed(card: dict[str, Any]) -> MeshCard:
    """A card's fields as the typed message `check_card` takes (no decode checks: a forgery
    the decoder would pass is what these tests aim at)."""
    ep = card["ep"]
    return MeshCard(
        seat=card["seat"],
        n=card["n"],
        ep=ep if isinstance(ep, str) else tuple(ep),
        skey=card["skey"],
        sig=card["sig"],
    )


def _card(key: Ed25519PrivateKey, game: bytes = GAME, **over: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "seat": 2,
        "n": 7,
        "ep": "tcp://127.0.0.1:4000",
        "skey": b"s" * 32,
    }
    sig = key.sign(mesh.card_signed_bytes(game, 2, 7, "tcp://127.0.0.1:4000", b"s" * 32))
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
            "n": 1,
            "ep": "ipc:///tmp/x",
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        {
            "t": "card",
            "seat": 1,
            "n": 1,
            "ep": "tcp://" + "a" * 200,
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        {
            "t": "card",
            "seat": 9,
            "n": 1,
            "ep": "tcp://a:1",
            "skey": b"s" * 32,
            "sig": b"g" * 64,
        },
        # a card without its counter (the form before it): an older card is no longer read
        {"t": "card", "seat": 1, "ep": "tcp://a:1", "skey": b"s" * 32, "sig": b"g" * 64},
        {"t": "card", "seat": 1, "n": -1, "ep": "tcp://a:1", "skey": b"s" * 32, "sig": b"g" * 64},
        {"t": "card", "seat": 1, "n": 1.0, "ep": "tcp://a:1", "skey": b"s" * 32, "sig": b"g" * 64},
        {"t": "card", "seat": 1, "n": True, "ep": "tcp://a:1", "skey": b"s" * 32, "sig": b"g" * 64},
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
    assert mesh.check_card(key.public_key(), GAME, _typed(card)) == mesh.Card(
        2, "tcp://127.0.0.1:4000", b"s" * 32, n=7
    )
    assert mesh.check_card(other.public_key(), GAME, _typed(card)) is None  # another seat's key
    assert mesh.check_card(key.public_key(), bytes(32), _typed(card)) is None  # another game
    for field, value in (("skey", b"S" * 32), ("seat", 1), ("ep", "tcp://evil:1"), ("n", 8)):
        forged = dict(card, **{field: value})  # a relay swapping a key, the address or the age
        assert mesh.check_card(key.public_key(), GAME, _typed(forged)) is None


EPS = ["tcp://10.88.1.2:4000", "tcp://11.88.2.1:4000"]


def _multi(key: Ed25519PrivateKey, eps: list[str], **over: object) -> dict[str, object]:
    sig = key.sign(mesh.card_signed_bytes(GAME, 2, 9, eps, b"s" * 32))
    fields: dict[str, object] = {
        "seat": 2,
        "n": 9,
        "ep": eps,
        "skey": b"s" * 32,
        "sig": sig,
        **over,
    }
    return mesh.unpack(msgpack.packb({"t": "card", **fields}, use_bin_type=True))


def test_a_card_with_several_endpoints_is_signed_as_a_list() -> None:
    key = Ed25519PrivateKey.generate()
    card = mesh.check_card(key.public_key(), GAME, _typed(_multi(key, EPS)))
    assert card is not None and card.endpoints == tuple(EPS) and card.wire_ep() == EPS
    assert card.n == 9
    one = mesh.card_signed_bytes(GAME, 2, 9, EPS[0], b"s" * 32)
    many = mesh.card_signed_bytes(GAME, 2, 9, EPS, b"s" * 32)
    assert msgpack.unpackb(one) == [b"zoo-p2p/card/v3", GAME, 2, 9, EPS[0], b"s" * 32]
    assert msgpack.unpackb(many) == [b"zoo-p2p/card/v3", GAME, 2, 9, EPS, b"s" * 32]
    # a relay can neither drop, add nor reorder an endpoint under the signature
    for forged in (EPS[::-1], [*EPS, "tcp://6.6.6.6:1"], [EPS[0], "tcp://6.6.6.6:4000"]):
        forgery = _typed(dict(_multi(key, EPS), ep=forged))
        assert mesh.check_card(key.public_key(), GAME, forgery) is None
    # nor pass a one-endpoint card signed as a list off as the v1 card (or the reverse)
    one = _multi(key, EPS)
    assert mesh.check_card(key.public_key(), GAME, _typed(dict(one, ep=EPS[0]))) is None


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
    msg = {"t": "card", "seat": 1, "n": 1, "ep": ep, "skey": b"s" * 32, "sig": b"g" * 64}
    with pytest.raises(wire.WireError):
        mesh.unpack(msgpack.packb(msg, use_bin_type=True))


def test_good_endpoints_are_read() -> None:
    for ep in ("tcp://[fd00::1]:1", "tcp://example.org:65535", "tcp://127.0.0.1:9"):
        assert mesh.endpoint_ok(ep), ep
    assert mesh.endpoint("FD00:0::1", 5) == "tcp://[fd00::1]:5"
    assert mesh.endpoint("[::1]", 5) == "tcp://[::1]:5"


def test_a_cards_signed_bytes_are_the_ones_the_spec_spells_out() -> None:
    """TRANSPORT.md §10.2's example, written out by hand from msgpack's format (not by the code
    under test): a second implementation signs and checks these very bytes."""
    want = (
        b"\x96"  # an array of 6
        + b"\xc4\x0f"
        + b"zoo-p2p/card/v3"  # the domain, bin
        + b"\xc4\x20"
        + bytes(range(32))  # the game id, bin
        + b"\x02"  # the seat
        + b"\xce\x00\x0f\x42\x40"  # n = 1 000 000 (uint32: its shortest encoding)
        + b"\xb4"
        + b"tcp://127.0.0.1:4000"  # one endpoint: a str
        + b"\xc4\x20"
        + b"s" * 32  # the publisher key, bin
    )
    assert len(want) == 113
    assert mesh.card_signed_bytes(GAME, 2, 1_000_000, "tcp://127.0.0.1:4000", b"s" * 32) == want


def test_the_card_vectors_are_what_the_code_makes_and_check_as_the_spec_says() -> None:
    """protocol/vectors/cards.json (made by protocol/generate.py) for a second implementation:
    each card's signed bytes are the spec's msgpack array, its signature verifies with the seat
    key, its message is read back; the bad ones are dropped."""
    import json
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from zoo_p2p.net.card_samples import card_vectors

    path = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "cards.json"
    v = json.loads(path.read_text())
    assert v == card_vectors(), "protocol/vectors/cards.json is stale: run protocol/generate.py"
    pub = Ed25519PublicKey.from_public_bytes(bytes.fromhex(v["seat_public_key"]))
    game, skey = bytes.fromhex(v["game_id"]), bytes.fromhex(v["skey"])
    for c in v["cards"]:
        signed = bytes.fromhex(c["signed"])
        assert signed == msgpack.packb(
            [b"zoo-p2p/card/v3", game, v["seat"], c["n"], c["ep"], skey], use_bin_type=True
        )
        pub.verify(bytes.fromhex(c["sig"]), signed)
        msg = mesh.unpack(bytes.fromhex(c["message"]))
        assert msg == {
            "t": "card",
            "seat": v["seat"],
            "n": c["n"],
            "ep": c["ep"],
            "skey": skey,
            "sig": bytes.fromhex(c["sig"]),
        }
        assert mesh.check_card(pub, game, _typed(msg)) is not None
    for c in v["bad_signature"]:
        msg = {"seat": c.get("seat", v["seat"]), "n": c["n"], "ep": c["ep"], "skey": skey}
        msg["sig"] = bytes.fromhex(c["sig"])
        assert mesh.check_card(pub, game, _typed(msg)) is None, c["why"]
