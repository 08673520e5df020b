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
from zoo_p2p.protocol.crypto import check_public_key
from zoo_p2p.protocol.encoding import MAX_ENTRY_SIZE
from zoo_p2p.protocol.names import is_valid_name
from zoo_p2p.text import shown

WIRE_VERSION = 1
MAX_FRAME = 1 << 20  # one transport message, bytes (also the socket's MAXMSGSIZE)
MAX_ENTRY = MAX_ENTRY_SIZE  # one log entry inside a message (the protocol's limit)
MAX_BATCH = 512  # entries in one "entries" message
MAX_NAME = 32  # characters in a player name
MAX_SEATS = 4  # seats in a game
MAX_REASON = 200  # characters in a reject / leave reason
MAX_FINGERPRINT = 32  # characters in a fingerprint as shown in the lobby
_FINGERPRINT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567-")
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
    "knock": {"v": (int,)},
    "welcome": {"v": (int,), "pub": (bytes,), "sig": (bytes,), "seat": (int, type(None))},
    "reject": {"reason": (str,)},
    "leave": {"reason": (str,)},
    "farewell": {},  # host -> joiner: your leave was heard (TRANSPORT.md §6)
    "lobby": {"seats": (list,), "need": (int,)},
    "entries": {"from": (int,), "e": (list,)},
    "sync": {"from": (int,)},
    "presence": {"up": (list,)},
    "seats": {"state": (list,), "lost": (list,)},
    "ping": {},
    "who": {},
    "done": {"have": (int,)},
    "bye": {},
    "mesh": {"m": (bytes,)},  # a mesh message (zoo_p2p.net.mesh) through the host link
    "claim": {"vote": (bytes,)},  # a claim vote (PROTOCOL.md §10.2; zoo_p2p.net.liveness)
    "resign": {"r": (bytes,), "key": (bytes,)},  # a resignation (§10.4) [+ stand-in key, to host]
}

# type tag -> keys a message MAY carry besides the required ones, and their python types
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "lobby": {"hints": (bool,)},  # true: the genesis will allow hints (PROTOCOL.md §3.2)
    # true: this table allows hints, said (and signed) before the joiner's hello (TRANSPORT.md §5)
    "welcome": {"hints": (bool,)},
}


class NetError(ZooError):
    """A transport failure we cannot recover from (bad invite, port in use, host rejected us)."""


class WireError(RemoteProtocolError):
    """A transport message that is not well formed; it is dropped and logged.

    Its reason never quotes more than a short, made-safe piece of what the peer sent."""


def valid_name(name: object) -> bool:
    """A player name exactly as a genesis accepts it (PROTOCOL.md §3.1, `protocol.names`).

    1..32 code points, NFC, letters/marks/numbers/punctuation/symbols and the plain space, no
    leading mark or space, no trailing space: so a name the hello lets in never breaks a genesis.
    """
    return is_valid_name(name)


def _valid_fingerprint(fp: object) -> bool:
    return (
        isinstance(fp, str)
        and 1 <= len(fp) <= MAX_FINGERPRINT
        and all(c in _FINGERPRINT_CHARS for c in fp)
    )


def _valid_reason(reason: object) -> bool:
    return isinstance(reason, str) and len(reason) <= MAX_REASON


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
        raise WireError(f"unknown message type {shown(kind, 40)!r}")
    schema = _SCHEMA[kind]
    optional = _OPTIONAL.get(kind, {})
    keys = set(msg) - {"t"}
    if not set(schema) <= keys <= set(schema) | set(optional):
        odd = sorted(shown(k, 20) for k in list(keys ^ set(schema))[:8])
        raise WireError(f"{kind}: wrong fields {odd}")
    for key, types in [*schema.items(), *((k, t) for k, t in optional.items() if k in keys)]:
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
    if "v" in schema and msg["v"] != WIRE_VERSION:
        raise WireError(f"{kind}.v: version {msg['v']} (we speak {WIRE_VERSION})")
    if kind == "hello":
        if not valid_name(msg["name"]):
            raise WireError(f"hello.name: not a valid name (1..{MAX_NAME} characters, §3.1)")
        if len(msg["pub"]) != 32 or len(msg["curve"]) != 32 or len(msg["sig"]) != 64:
            raise WireError("hello: bad key or signature length")
        try:
            check_public_key(msg["pub"])
        except ValueError as exc:
            raise WireError(f"hello.pub: {exc}") from None
        if msg["game"] is not None and len(msg["game"]) > 64:
            raise WireError("hello.game: too long")
        if msg["team"] is not None and not 0 <= msg["team"] <= 3:
            raise WireError("hello.team: 0..3")
    elif kind == "welcome":
        if len(msg["pub"]) != 32 or len(msg["sig"]) != 64:
            raise WireError("welcome: bad key or signature length")
        if msg["seat"] is not None and msg["seat"] >= MAX_SEATS:
            raise WireError("welcome.seat: 0..3")
    elif kind in ("reject", "leave"):
        if not _valid_reason(msg["reason"]):
            raise WireError(f"{kind}.reason: at most {MAX_REASON} characters")
    elif kind == "entries":
        if len(msg["e"]) > MAX_BATCH:
            raise WireError("entries: batch too large")
        if msg["from"] + len(msg["e"]) >= 2**32:
            raise WireError("entries: numbered beyond 2**32")
        for entry in msg["e"]:
            if not isinstance(entry, bytes) or not 0 < len(entry) <= MAX_ENTRY:
                raise WireError(f"entries: an entry is not bytes of 1..{MAX_ENTRY}")
    elif kind == "presence":
        if not 1 <= len(msg["up"]) <= MAX_SEATS or not all(isinstance(u, bool) for u in msg["up"]):
            raise WireError("presence.up: 1..4 booleans")
    elif kind == "seats":
        n = len(msg["state"])
        if not 1 <= n <= MAX_SEATS or len(msg["lost"]) != n:
            raise WireError("seats: 1..4 states and as many lost times")
        for st, lost in zip(msg["state"], msg["lost"], strict=True):
            if st not in SEAT_STATES or type(st) is not str:
                raise WireError("seats.state: connected, lost or left")
            if type(lost) is not int or not 0 <= lost < 2**32:
                raise WireError("seats.lost: whole seconds")
    elif kind == "lobby":
        if not 2 <= msg["need"] <= MAX_SEATS:
            raise WireError("lobby.need: 2..4")
        if not 1 <= len(msg["seats"]) <= msg["need"]:
            raise WireError("lobby: 1..need seats")
        for seat in msg["seats"]:
            if not (
                isinstance(seat, list)
                and len(seat) == 3
                and valid_name(seat[0])
                and _valid_fingerprint(seat[1])
                and type(seat[2]) is int
                and 0 <= seat[2] <= 3
            ):
                raise WireError("lobby: a seat is not [name, fingerprint, team 0..3]")
        if len({seat[2] for seat in msg["seats"]}) != len(msg["seats"]):
            raise WireError("lobby: two seats with one team")


SEAT_STATES = ("connected", "lost", "left")


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
