"""Test vectors for address cards (TRANSPORT.md §10.2): `protocol/generate.py` writes them to
`protocol/vectors/cards.json`, and `tests/net/test_mesh_wire.py` checks the file against this code.

Deterministic: Ed25519 signatures are, and every key comes from a fixed label.
"""

from __future__ import annotations

import hashlib
from typing import Any

from zoo_p2p.net.cards import card_signed_bytes, check_card, pack
from zoo_p2p.net.messages import MeshCard, decode_mesh
from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes

__all__ = ["card_vectors"]


def _label(text: str) -> bytes:
    return hashlib.sha256(b"zoo-p2p/vectors/cards/" + text.encode()).digest()


def card_vectors() -> dict[str, Any]:
    """Cards signed by a fixed seat key: their signed bytes, signatures and whole messages, and
    cards that must be dropped (with why)."""
    key = private_key_from_bytes(_label("seat-key"))
    game_id = _label("game-id")
    seat = 2
    skey = _label("publisher-key")
    good: list[dict[str, Any]] = []
    for n, ep in (
        (1_764_547_200_000, "tcp://127.0.0.1:40123"),
        (1_764_547_200_001, ["tcp://192.168.1.20:40123", "tcp://203.0.113.7:40123"]),
        (0, "tcp://[fd00::1]:1"),
        (2**64 - 1, "tcp://example.org:65535"),
    ):
        signed = card_signed_bytes(game_id, seat, n, ep, skey)
        sig = key.sign(signed)
        msg = pack("card", seat=seat, n=n, ep=ep, skey=skey, sig=sig)
        card = decode_mesh(msg)
        assert isinstance(card, MeshCard) and check_card(key.public_key(), game_id, card)
        good.append(
            {"n": n, "ep": ep, "signed": signed.hex(), "sig": sig.hex(), "message": msg.hex()}
        )
    first = good[0]
    sig = bytes.fromhex(first["sig"])
    bad = [
        {
            "why": "n changed after signing (a relay making a card look newer)",
            "n": first["n"] + 1,
            "ep": first["ep"],
            "sig": first["sig"],
        },
        {
            "why": "another seat's card under this signature",
            "seat": 1,
            "n": first["n"],
            "ep": first["ep"],
            "sig": sig.hex(),
        },
    ]
    return {
        "about": "TRANSPORT.md §10.2: sig = Ed25519(seat key, msgpack(['zoo-p2p/card/v3', "
        "game_id, seat, n, ep, skey])); the message is the mesh map {t, seat, n, ep, skey, sig} "
        "as packed by the reference implementation (field order is not significant)",
        "seat_private_seed": _label("seat-key").hex(),
        "seat_public_key": public_key_bytes(key).hex(),
        "game_id": game_id.hex(),
        "seat": seat,
        "skey": skey.hex(),
        "cards": good,
        "bad_signature": bad,
    }
