"""The signed entry: strict msgpack profile, encoding, decoding and signing (see PROTOCOL.md §2).

An entry is the msgpack array `[payload: bin, sig: bin(64)]`; the payload is the msgpack array
`[version, seq, prev_hash, seat, kind, body]`. The signature covers the payload bytes exactly.
Decoding is strict: the bytes must be exactly what re-packing the decoded value gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.crypto import sha256

VERSION = 1
MAX_ENTRY_SIZE = 16 * 1024
MAX_PAYLOAD_SIZE = MAX_ENTRY_SIZE - 80
SIG_SIZE = 64
HASH_SIZE = 32
ZERO_HASH = bytes(HASH_SIZE)
MAX_SEQ = 1_000_000
# The longest possible game (PROTOCOL.md §2.3): every move captures exactly one card, so a game has
# at most 50 + 4·n moves; with the genesis, 4 entries per seat (commit, open, seed, result) and at
# most one reveal round of n entries per move, n = 4 gives 1 + 16 + 66·5 = 347 entries. Rounded
# up to 512 (room for resignations and claims), each at most MAX_ENTRY_SIZE bytes.
MAX_LOG_ENTRIES = 512
MAX_LOG_BYTES = MAX_LOG_ENTRIES * MAX_ENTRY_SIZE


class Kind:
    """The entry kinds (the `kind` field, a short string)."""

    GENESIS = "genesis"
    COMMIT = "commit"
    OPEN = "open"
    MOVE = "move"
    REVEAL = "reveal"
    SEED = "seed"
    RESULT = "result"
    CLAIM = "claim"  # §10: the other seats claim the game from a seat whose time ran out
    RESIGN = "resign"  # §10: a seat's signed resignation
    REDEAL = "redeal"  # §10.7: a live seat's commitments over the hidden part, after a claim

    ALL = frozenset({GENESIS, COMMIT, OPEN, MOVE, REVEAL, SEED, RESULT, CLAIM, RESIGN, REDEAL})


@dataclass(frozen=True, slots=True)
class Entry:
    """A decoded entry whose framing is valid (the signature is NOT checked by decoding)."""

    raw: bytes
    payload: bytes
    sig: bytes
    version: int
    seq: int
    prev: bytes
    seat: int
    kind: str
    body: Any

    @property
    def hash(self) -> bytes:
        """SHA-256 of the entry's full bytes (what the next entry's prev_hash must be)."""
        return sha256(self.raw)


def pack(obj: Any) -> bytes:
    """Pack a value with the protocol's msgpack profile (bin type for bytes, no floats)."""
    out: bytes = msgpack.packb(obj, use_bin_type=True)
    return out


def strict_unpack(data: bytes, what: str, *, types_checked: bool = False) -> Any:
    """Unpack `data` under the strict profile; raise RemoteProtocolError unless canonical.

    The profile has no floats, no maps and no extension types (PROTOCOL.md §2.1); msgpack's
    `max_map_len=0` and `max_ext_len=0` still admit an empty map and a zero-length ext, so the
    decoded value is searched for them. `types_checked=True` skips that search: the caller
    type-checks every field (and searches the parts it does not type, as `decode_entry` does).
    """
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            timestamp=0,
            max_str_len=256,
            max_bin_len=MAX_PAYLOAD_SIZE,
            max_array_len=64,
            max_map_len=0,
            max_ext_len=0,
        )
        canonical = pack(obj)
    except Exception as exc:  # msgpack raises many kinds (ValueError, StackError, ExtraData...)
        raise RemoteProtocolError(f"{what} is not valid msgpack: {type(exc).__name__}") from None
    if canonical != data:
        raise RemoteProtocolError(f"{what} is not in canonical msgpack form")
    if not types_checked:
        _check_profile(obj, what)
    return obj


def _check_profile(obj: Any, what: str) -> None:
    """Raise RemoteProtocolError if `obj` holds a value outside the profile (§2.1).

    What remains after strict unpacking and the canonical check is a tree of lists, int, bool,
    None, str, bytes and, possibly, float, dict (only `{}`) and ExtType (only zero-length ones).
    """
    stack = [obj]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is list:
            stack.extend(x)
        elif t is float:
            raise RemoteProtocolError(f"{what} holds a float (the profile has none)")
        elif t is dict:
            raise RemoteProtocolError(f"{what} holds a map (the profile has none)")
        elif t is msgpack.ExtType:
            raise RemoteProtocolError(f"{what} holds an extension type (the profile has none)")


def decode_entry(raw: bytes) -> Entry:
    """Decode an entry's framing and header strictly (no signature check, no body check)."""
    if not isinstance(raw, bytes | bytearray):
        raise RemoteProtocolError("entry is not bytes")
    raw = bytes(raw)
    if len(raw) > MAX_ENTRY_SIZE:
        raise RemoteProtocolError(f"entry too large ({len(raw)} > {MAX_ENTRY_SIZE} bytes)")
    outer = strict_unpack(raw, "entry", types_checked=True)  # [bin, bin], checked below
    if not (
        isinstance(outer, list)
        and len(outer) == 2
        and type(outer[0]) is bytes
        and type(outer[1]) is bytes
    ):
        raise RemoteProtocolError("entry is not [payload: bin, sig: bin]")
    payload, sig = outer
    if len(sig) != SIG_SIZE:
        raise RemoteProtocolError("signature is not 64 bytes")
    header = strict_unpack(payload, "payload", types_checked=True)  # header typed, body below
    if not (isinstance(header, list) and len(header) == 6):
        raise RemoteProtocolError("payload is not [version, seq, prev, seat, kind, body]")
    version, seq, prev, seat, kind, body = header
    if type(version) is not int or version != VERSION:
        raise RemoteProtocolError(f"unsupported protocol version {version!r}")
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        raise RemoteProtocolError("seq is not a valid integer")
    if type(prev) is not bytes or len(prev) != HASH_SIZE:
        raise RemoteProtocolError("prev_hash is not 32 bytes")
    if type(seat) is not int or not 0 <= seat <= 3:
        raise RemoteProtocolError("seat is not 0..3")
    if type(kind) is not str or kind not in Kind.ALL:
        raise RemoteProtocolError(f"unknown entry kind {kind!r}")
    _check_profile(body, "payload")
    return Entry(raw, payload, sig, version, seq, prev, seat, kind, body)


def encode_payload(seq: int, prev: bytes, seat: int, kind: str, body: Any) -> bytes:
    """Encode the payload `[version, seq, prev, seat, kind, body]`."""
    return pack([VERSION, seq, prev, seat, kind, body])


def sign_entry(key: Ed25519PrivateKey, payload: bytes) -> bytes:
    """Sign a payload and frame it as the entry `[payload, sig]`."""
    return pack([payload, key.sign(payload)])


def make_entry(
    key: Ed25519PrivateKey, seq: int, prev: bytes, seat: int, kind: str, body: Any
) -> bytes:
    """Build and sign a complete entry."""
    return sign_entry(key, encode_payload(seq, prev, seat, kind, body))
