"""Transport messages (see protocol/TRANSPORT.md): signed hellos and welcomes, batching, and the
map-shaped `pack`/`unpack` of code that does not use `zoo_p2p.net.messages` yet (the schema,
the checks and the msgpack limits are there).

Pure functions, no sockets: the peers in `zoo_p2p.net.peer` use them, the tests fuzz them.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import msgpack

from zoo_p2p.errors import ZooError
from zoo_p2p.net.messages import (
    _OPTIONAL,
    _SCHEMA,
    MAX_BATCH,
    MAX_ENTRY,
    MAX_FINGERPRINT,
    MAX_FRAME,
    MAX_NAME,
    MAX_REASON,
    MAX_SEATS,
    SEAT_STATES,
    WIRE_VERSION,
    WireError,
    check_transport,
    unpack_map,
    valid_name,
)

__all__ = [
    "DOMAIN_HELLO",
    "DOMAIN_WELCOME",
    "MAX_BATCH",
    "MAX_ENTRY",
    "MAX_FINGERPRINT",
    "MAX_FRAME",
    "MAX_NAME",
    "MAX_REASON",
    "MAX_SEATS",
    "SEAT_STATES",
    "WIRE_VERSION",
    "_OPTIONAL",
    "_SCHEMA",
    "Hello",
    "NetError",
    "WireError",
    "batches",
    "derive_secret",
    "hello_signed_bytes",
    "pack",
    "unpack",
    "valid_name",
    "welcome_signed_bytes",
]

DOMAIN_HELLO = b"zoo-p2p/hello/v1"
DOMAIN_WELCOME = b"zoo-p2p/welcome/v1"


class NetError(ZooError):
    """A transport failure we cannot recover from (bad invite, port in use, host rejected us)."""


def pack(kind: str, **fields: Any) -> bytes:
    """Encode one transport message (checked against the schema, so we never send junk)."""
    msg = {"t": kind, **fields}
    check_transport(msg)
    data: bytes = msgpack.packb(msg, use_bin_type=True)
    if len(data) > MAX_FRAME:
        raise ValueError(f"{kind} message too large ({len(data)} bytes)")
    return data


def unpack(data: bytes) -> dict[str, Any]:
    """Decode and validate one transport message; raise `WireError` on anything odd."""
    return unpack_map(data)


@dataclass(frozen=True, kw_only=True)
class Hello:
    """A joiner's signed introduction: who it is and which CURVE key it speaks with."""

    name: str
    team: int | None
    pub: bytes
    curve: bytes
    game: bytes | None
    have: int


def hello_signed_bytes(server_curve: bytes, hello: Hello) -> bytes:
    """The bytes a hello's Ed25519 signature covers (domain-separated, bound to the host's key)."""
    return bytes(
        msgpack.packb(
            [
                DOMAIN_HELLO,
                server_curve,
                hello.curve,
                hello.name,
                hello.team,
                hello.pub,
                hello.game,
            ],
            use_bin_type=True,
        )
    )


def welcome_signed_bytes(
    server_curve: bytes, client_curve: bytes, host_pub: bytes, hints: bool = False
) -> bytes:
    """The bytes the host's welcome signature covers (ties the invite's fingerprint to the host).

    A welcome that says `hints: true` signs it too (one more element, `true`): the host's own
    key says "this table allows hints", so a relay or a bug cannot add or strip it unseen. A
    welcome without it signs the four elements of old, so older joiners still verify it."""
    signed: list[object] = [DOMAIN_WELCOME, server_curve, client_curve, host_pub]
    if hints:
        signed.append(True)
    return bytes(msgpack.packb(signed, use_bin_type=True))


def derive_secret(private_raw: bytes, label: bytes, context: bytes = b"") -> bytes:
    """32 secret bytes derived from our Ed25519 private key (HMAC-SHA256), for one purpose."""
    return hmac.new(
        private_raw, b"zoo-p2p/derive/v1/" + label + b"/" + context, hashlib.sha256
    ).digest()


def batches(entries: list[bytes], start: int) -> list[tuple[int, list[bytes]]]:
    """Split entries (numbered from `start`) into (from, batch) pieces that fit one frame."""
    out: list[tuple[int, list[bytes]]] = []
    batch: list[bytes] = []
    size = 0
    first = start
    for i, entry in enumerate(entries):
        if batch and (len(batch) >= MAX_BATCH or size + len(entry) > MAX_FRAME // 2):
            out.append((first, batch))
            batch, size, first = [], 0, start + i
        batch.append(entry)
        size += len(entry) + 8
    if batch:
        out.append((first, batch))
    return out
