"""Transport messages (see protocol/TRANSPORT.md): strict msgpack maps, size limits, signed hellos.

Pure functions, no sockets: the peers in `zoo_p2p.net.peer` use them, the tests fuzz them.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import msgpack

from zoo_p2p.errors import RemoteProtocolError, ZooError
from zoo_p2p.protocol.encoding import MAX_ENTRY_SIZE

WIRE_VERSION = 1
MAX_FRAME = 1 << 20  # one transport message, bytes (also the socket's MAXMSGSIZE)
MAX_ENTRY = MAX_ENTRY_SIZE  # one log entry inside a message (the protocol's limit)
MAX_BATCH = 512  # entries in one "entries" message
MAX_NAME = 32  # characters in a player name
DOMAIN_HELLO = b"zoo-p2p/hello/v1"
DOMAIN_WELCOME = b"zoo-p2p/welcome/v1"

# type tag -> required keys and their python types (extra keys are refused)
_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "hello": {
        "v": (int,),
        "name": (str,),
        "team": (int, type(None)),
        "pub": (bytes,),
        "curve": (bytes,),
        "game": (bytes, type(None)),
        "have": (int,),
        "sig": (bytes,),
    },
    "welcome": {"v": (int,), "pub": (bytes,), "sig": (bytes,), "seat": (int, type(None))},
    "reject": {"reason": (str,)},
    "lobby": {"seats": (list,), "need": (int,)},
    "entries": {"from": (int,), "e": (list,)},
    "sync": {"from": (int,)},
    "presence": {"up": (list,)},
    "ping": {},
    "who": {},
    "done": {"have": (int,)},
    "bye": {},
    "mesh": {"m": (bytes,)},  # a mesh message (zoo_p2p.net.mesh) through the host link
}


class NetError(ZooError):
    """A transport failure we cannot recover from (bad invite, port in use, host rejected us)."""


class WireError(RemoteProtocolError):
    """A transport message that is not well formed; it is dropped and logged."""


def pack(kind: str, **fields: Any) -> bytes:
    """Encode one transport message (checked against the schema, so we never send junk)."""
    msg = {"t": kind, **fields}
    _check(msg)
    data: bytes = msgpack.packb(msg, use_bin_type=True)
    if len(data) > MAX_FRAME:
        raise ValueError(f"{kind} message too large ({len(data)} bytes)")
    return data


def unpack(data: bytes) -> dict[str, Any]:
    """Decode and validate one transport message; raise `WireError` on anything odd."""
    if len(data) > MAX_FRAME:
        raise WireError(f"frame too large ({len(data)} bytes)")
    try:
        msg = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_bin_len=MAX_FRAME,
            max_str_len=4096,
            max_array_len=4 * MAX_BATCH,
            max_map_len=16,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises many kinds; all mean garbage
        raise WireError(f"not msgpack: {type(exc).__name__}") from None
    if not isinstance(msg, dict):
        raise WireError("not a map")
    _check(msg)
    return msg


def _check(msg: dict[str, Any]) -> None:
    kind = msg.get("t")
    if not isinstance(kind, str) or kind not in _SCHEMA:
        raise WireError(f"unknown message type {kind!r}")
    schema = _SCHEMA[kind]
    keys = set(msg) - {"t"}
    if keys != set(schema):
        raise WireError(f"{kind}: wrong fields {sorted(keys ^ set(schema))}")
    for key, types in schema.items():
        value = msg[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise WireError(f"{kind}.{key}: wrong type")
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not 0 <= value < 2**32
            and key != "team"
        ):
            raise WireError(f"{kind}.{key}: out of range")
    if kind == "hello":
        if not 1 <= len(msg["name"]) <= MAX_NAME or not msg["name"].isprintable():
            raise WireError("hello.name: 1..32 printable characters")
        if len(msg["pub"]) != 32 or len(msg["curve"]) != 32 or len(msg["sig"]) != 64:
            raise WireError("hello: bad key or signature length")
        if msg["game"] is not None and len(msg["game"]) > 64:
            raise WireError("hello.game: too long")
        if msg["team"] is not None and not 0 <= msg["team"] <= 3:
            raise WireError("hello.team: 0..3")
    elif kind == "welcome":
        if len(msg["pub"]) != 32 or len(msg["sig"]) != 64:
            raise WireError("welcome: bad key or signature length")
    elif kind == "entries":
        if len(msg["e"]) > MAX_BATCH:
            raise WireError("entries: batch too large")
        for entry in msg["e"]:
            if not isinstance(entry, bytes) or not 0 < len(entry) <= MAX_ENTRY:
                raise WireError(f"entries: an entry is not bytes of 1..{MAX_ENTRY}")
    elif kind == "presence":
        if len(msg["up"]) > 4 or not all(isinstance(u, bool) for u in msg["up"]):
            raise WireError("presence.up: up to 4 booleans")
    elif kind == "lobby":
        if len(msg["seats"]) > 4:
            raise WireError("lobby: too many seats")
        for seat in msg["seats"]:
            if not (
                isinstance(seat, list)
                and len(seat) == 3
                and isinstance(seat[0], str)
                and isinstance(seat[1], str)
                and isinstance(seat[2], int)
            ):
                raise WireError("lobby: a seat is not [name, fingerprint, team]")


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


def welcome_signed_bytes(server_curve: bytes, client_curve: bytes, host_pub: bytes) -> bytes:
    """The bytes the host's welcome signature covers (ties the invite's fingerprint to the host)."""
    return bytes(
        msgpack.packb([DOMAIN_WELCOME, server_curve, client_curve, host_pub], use_bin_type=True)
    )


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
