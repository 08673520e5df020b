"""The fair deal without a dealer: seed → permutations, salts, commitments, composition.

See PROTOCOL.md §4. Table ids: 0 = the deal table (50 entries, slot → token); 1 + v = the mutant
table of Zoo value v (10 entries, copy → position; copy c of value v is the mutant iff the composed
table maps c to 0). All functions are pure and deterministic.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from zoo_p2p.protocol.crypto import hmac_sha256, sha256

DEAL_TABLE = 0
N_SLOTS = 50
N_COPIES = 10
MUTANT_VALUES = (0, 1, 2, 3)
SEED_SIZE = 32
NONCE_SIZE = 32
SALT_SIZE = 32
COMMIT_SIZE = 32

DOMAIN_PERM = b"zoo-p2p/v1/perm\x00"
DOMAIN_SALT = b"zoo-p2p/v1/salt\x00"
DOMAIN_COMMIT = b"zoo-p2p/v1/commit\x00"
DOMAIN_NONCE = b"zoo-p2p/v1/nonce\x00"
DOMAIN_NONCE_DERIVE = b"zoo-p2p/v1/nonce-from-seed\x00"
DOMAIN_FIRST = b"zoo-p2p/v1/first-player\x00"
DOMAIN_GAME_KEY = b"zoo-p2p/v1/game-key\x00"

# Rejection-sampling limits: a byte b is accepted for range m iff b < _LIMIT[m]; then j = b % m.
_LIMIT = [0] + [256 - (256 % m) for m in range(1, 257)]


def table_size(table: int) -> int:
    """Number of entries of a table id (50 for the deal, 10 for a mutant table)."""
    return N_SLOTS if table == DEAL_TABLE else N_COPIES


def n_tables(general: bool) -> int:
    """How many tables a seat commits to: 1 in the General variant, else 5."""
    return 1 if general else 1 + len(MUTANT_VALUES)


def game_key(seed: bytes, game_id: bytes) -> bytes:
    """The seat's per-game key: HMAC(seed, DOMAIN_GAME_KEY ‖ game_id).

    Every table, salt and derived nonce comes from this key, not from the seed directly, so a
    seed reused in another game gives tables that share nothing with this game's.
    """
    return hmac_sha256(seed, DOMAIN_GAME_KEY + game_id)


def derive_permutation(key: bytes, table: int) -> list[int]:
    """The seat's secret permutation for `table`, by HMAC-SHA256-driven Fisher–Yates.

    `key` is the per-game key (`game_key`). The byte stream is
    HMAC(key, DOMAIN_PERM ‖ table ‖ counter_be32) for counter 0, 1, ...;
    for i = n-1 down to 1, draw bytes until b < 256 - 256 % (i+1), swap a[i] with a[b % (i+1)].
    """
    return permutation_from_stream(key, DOMAIN_PERM + bytes([table]), table_size(table))


def permutation_from_stream(key: bytes, prefix: bytes, n: int) -> list[int]:
    """§4.2's Fisher–Yates over `0..n-1`, driven by HMAC(key, prefix ‖ counter_be32).

    `derive_permutation` is this with prefix `DOMAIN_PERM ‖ u8(table)`; the re-deal
    (`redeal.py`) uses it with its own domain and the size of the hidden part.
    """
    a = list(range(n))
    counter = 0
    stream = b""
    pos = 0
    limit = _LIMIT
    for i in range(n - 1, 0, -1):
        m = i + 1
        lim = limit[m]
        while True:
            if pos == len(stream):
                stream = hmac_sha256(key, prefix + struct.pack(">I", counter))
                counter += 1
                pos = 0
            b = stream[pos]
            pos += 1
            if b < lim:
                break
        j = b % m
        a[i], a[j] = a[j], a[i]
    return a


def derive_salt(key: bytes, table: int, index: int) -> bytes:
    """The salt of one table entry: HMAC(key, DOMAIN_SALT ‖ table ‖ index), key = game_key."""
    return hmac_sha256(key, DOMAIN_SALT + bytes((table, index)))


def commitment(game_id: bytes, seat: int, table: int, index: int, value: int, salt: bytes) -> bytes:
    """SHA-256(DOMAIN_COMMIT ‖ game_id ‖ seat ‖ table ‖ index ‖ value ‖ salt)."""
    return sha256(DOMAIN_COMMIT + game_id + bytes((seat, table, index, value)) + salt)


def nonce_commitment(game_id: bytes, seat: int, nonce: bytes) -> bytes:
    """SHA-256(DOMAIN_NONCE ‖ game_id ‖ seat ‖ nonce): the first-player nonce commitment."""
    return sha256(DOMAIN_NONCE + game_id + bytes((seat,)) + nonce)


def nonce_from_seed(seed: bytes, game_id: bytes) -> bytes:
    """A first-player nonce derived from the seed (used when no nonce is given)."""
    return hmac_sha256(game_key(seed, game_id), DOMAIN_NONCE_DERIVE)


def first_player(game_id: bytes, nonces: Sequence[bytes]) -> int:
    """The first seat: SHA-256(DOMAIN_FIRST ‖ game_id ‖ nonce_0 ‖ … ‖ nonce_n-1) mod n."""
    digest = sha256(DOMAIN_FIRST + game_id + b"".join(nonces))
    return int.from_bytes(digest, "big") % len(nonces)


@dataclass(frozen=True, slots=True)
class SeatTables:
    """One seat's secret tables and salts (index = table id) and the commitments built on them."""

    tables: tuple[tuple[int, ...], ...]
    salts: tuple[tuple[bytes, ...], ...]

    @classmethod
    def from_seed(cls, seed: bytes, game_id: bytes, *, general: bool) -> SeatTables:
        """Derive every table and salt of a seat from its secret seed and the game id."""
        count = n_tables(general)
        key = game_key(seed, game_id)
        tables = tuple(tuple(derive_permutation(key, t)) for t in range(count))
        salts = tuple(
            tuple(derive_salt(key, t, i) for i in range(table_size(t))) for t in range(count)
        )
        return cls(tables, salts)

    def commitments(self, game_id: bytes, seat: int) -> list[bytes]:
        """Per table, the concatenated 32-byte commitments of entries 0..n-1 (sent by `commit`)."""
        out = []
        for t, (table, salts) in enumerate(zip(self.tables, self.salts, strict=True)):
            out.append(
                b"".join(
                    commitment(game_id, seat, t, i, v, s)
                    for i, (v, s) in enumerate(zip(table, salts, strict=True))
                )
            )
        return out


def compose(tables: Sequence[Sequence[int]]) -> list[int]:
    """Compose per-seat permutations in seat order: result[x] = g_n-1(…g_1(g_0(x)))."""
    n = len(tables[0])
    result = list(range(n))
    for table in tables:
        result = [table[y] for y in result]
    return result


def mutant_copy(composed_mutant_table: Sequence[int]) -> int:
    """The copy that hides the mutant: the index the composed mutant table maps to 0."""
    return list(composed_mutant_table).index(0)
