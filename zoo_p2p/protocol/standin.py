"""The stand-in of a resigned seat (PROTOCOL.md §10.4): a public key and a frozen move policy.

Pure. Once a seat's resignation is in the log its seed is public, so everything its stand-in
signs is a function of the log: the signing key is derived from public data
(`stand_in_private_key`), its links, seed and result come from that seed, and its moves from
`reference_move`, a normative rule on the public state. Every peer computes the same entry, byte
for byte (Ed25519 signatures are deterministic), and nobody controls the seat.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.protocol.crypto import public_key_bytes, sha256
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.rules import Move, State
from zoo_p2p.rules.state import Card

DOMAIN_STAND_IN = b"zoo-p2p/v1/stand-in\0"


def stand_in_seed(game_id: bytes, seat: int, seed: bytes) -> bytes:
    """The stand-in's 32-byte Ed25519 private seed:
    `H("zoo-p2p/v1/stand-in\\0" ‖ game_id ‖ u8(seat) ‖ seed)`, with `seed` the seat's opened seed.
    """
    if len(game_id) != 32 or len(seed) != 32 or not 0 <= seat <= 3:
        raise ValueError("a stand-in key needs a 32-byte game id and seed and a seat 0..3")
    return sha256(DOMAIN_STAND_IN + game_id + bytes([seat]) + seed)


def stand_in_private_key(game_id: bytes, seat: int, seed: bytes) -> Ed25519PrivateKey:
    """The stand-in's signing key (public to anyone holding the log: it proves nothing)."""
    return Ed25519PrivateKey.from_private_bytes(stand_in_seed(game_id, seat, seed))


def stand_in_public_key(game_id: bytes, seat: int, seed: bytes) -> bytes:
    """The raw 32-byte public key the resignation of `seat` names (§10.4)."""
    return public_key_bytes(stand_in_private_key(game_id, seat, seed))


def capture_score(state: State, move: Move) -> int:
    """The reference policy's score of a move: the printed value of the card it captures (a Zoo
    card 0–4 on top of the target square, or a character 3–6, healthy or mutant)."""
    card: Card = state.top(move.to)
    if card.kind not in ("zoo", "character", "mutant") or card.value is None:
        raise ValueError(f"{move} captures nothing")  # never for a legal move
    return card.value


def reference_move(state: State) -> Move:
    """The stand-in's move (PROTOCOL.md §10.4, normative): among the legal moves of the seat to
    move, the one with the highest `capture_score`; among equal scores, the one whose body
    `[kind, a, b]` (`encode_move`) is smallest (compared as integers, element by element)."""
    moves = state.legal_moves()
    if not moves:
        raise ValueError("the seat to move has no legal move")
    return min(moves, key=lambda m: (-capture_score(state, m), encode_move(m)))


__all__ = [
    "DOMAIN_STAND_IN",
    "capture_score",
    "reference_move",
    "stand_in_private_key",
    "stand_in_public_key",
    "stand_in_seed",
]
