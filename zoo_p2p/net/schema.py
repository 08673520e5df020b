"""The wire's limits and field checks (protocol/TRANSPORT.md §4, §10.2-10.3), and the one place
where a peer's bytes meet msgpack in `zoo_p2p.net` (`unpack_limited`, with one profile of limits
per use: `TRANSPORT`, `MESH`, `STATEMENT`). The typed messages built on them are in
`zoo_p2p.net.messages`; the log's own strict decoding (`zoo_p2p.protocol.encoding`) is the
protocol layer's and stays there. Pure: no sockets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgpack

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net.invite import InviteError, format_address, parse_address
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
MAX_VOTE = 4096  # bytes in a claim vote (TRANSPORT.md §4)
MAX_STATEMENT = 4096  # bytes in one vote or resignation statement on the direct links
MAX_CARD_N = 2**64 - 1  # a card's counter is a u64
MAX_EPS = 4  # endpoints in one card (e.g. the LAN address and the router's mapped one)
MAX_EP = 128  # characters in an endpoint
MAX_GET = 64  # entries in one `get` reply
SEAT_STATES = ("connected", "lost", "left")
_FINGERPRINT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567-")


class WireError(RemoteProtocolError):
    """A transport message that is not well formed; it is dropped and logged.

    Its reason never quotes more than a short, made-safe piece of what the peer sent."""


# ----- the msgpack boundary ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class Limits:
    """What one decoder lets msgpack allocate (None: msgpack's default, bounded by the frame)."""

    what: str  # named in the error: "", "mesh: ", "statement: "
    max_str: int | None
    max_array: int
    max_map: int | None
    max_bin: int
    no_ext: bool = True  # ext types refused (the statements' profile leaves them to the session)
    kw: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kw: dict[str, Any] = {
            "raw": False,
            "strict_map_key": True,
            "use_list": True,
            "max_bin_len": self.max_bin,
            "max_array_len": self.max_array,
        }
        if self.max_str is not None:
            kw["max_str_len"] = self.max_str
        if self.max_map is not None:
            kw["max_map_len"] = self.max_map
        if self.no_ext:
            kw["max_ext_len"] = 0
        object.__setattr__(self, "kw", kw)


TRANSPORT = Limits(what="", max_str=4096, max_array=4 * MAX_BATCH, max_map=16, max_bin=MAX_FRAME)
MESH = Limits(what="mesh: ", max_str=1024, max_array=MAX_BATCH, max_map=8, max_bin=MAX_FRAME)
STATEMENT = Limits(
    what="", max_str=None, max_array=8, max_map=None, max_bin=MAX_STATEMENT, no_ext=False
)


def unpack_limited(data: bytes, limits: Limits) -> Any:
    """The msgpack object in `data` (a peer's bytes), within `limits`; `WireError` otherwise.

    Strings are UTF-8, map keys str or bytes, no ext types, nothing after the object."""
    if len(data) > MAX_FRAME:
        raise WireError(f"{limits.what}frame too large ({len(data)} bytes)")
    try:
        return msgpack.unpackb(data, **limits.kw)
    except Exception as exc:  # msgpack raises many kinds; all mean garbage
        raise WireError(f"{limits.what}not msgpack ({type(exc).__name__})") from None


def unpack_statement(data: bytes) -> Any:
    """A claim vote's or resignation statement's msgpack (the session checks its shape)."""
    try:
        return unpack_limited(data, STATEMENT)
    except WireError:
        raise WireError("not msgpack") from None


def _pack(obj: object) -> bytes:
    return bytes(msgpack.packb(obj, use_bin_type=True))


# ----- field checks (transport, TRANSPORT.md §4) -------------------------------------------

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
    "links": {"l": (list,)},  # lobby-time hints of publishers (TRANSPORT.md §10.10): never trusted
}

# the spectators' own messages (TRANSPORT.md §12): kept apart so that the players' table
# above, and every frame a player sends, stays exactly what it was
_SPECTATOR_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "watch": {"v": (int,), "game": (bytes, type(None)), "have": (int,)},  # spectator -> host
    "watching": {"v": (int,), "n": (int,), "most": (int,)},  # host -> spectator: admitted
}
MAX_SPECTATORS = 64  # the most `zoo host --spectators` accepts (TRANSPORT.md §12)

# type tag -> keys a message MAY carry besides the required ones, and their python types
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "lobby": {"hints": (bool,)},  # true: the genesis will allow hints (PROTOCOL.md §3.2)
    # true: this table allows hints, said (and signed) before the joiner's hello (TRANSPORT.md §5)
    "welcome": {"hints": (bool,)},
}


def valid_name(name: object) -> bool:
    """A player name exactly as a genesis accepts it (PROTOCOL.md §3.1, `protocol.names`)."""
    return is_valid_name(name)


def _valid_fingerprint(fp: object) -> bool:
    return (
        isinstance(fp, str)
        and 1 <= len(fp) <= MAX_FINGERPRINT
        and all(c in _FINGERPRINT_CHARS for c in fp)
    )


def check_transport(msg: dict[str, Any]) -> None:
    """`WireError` unless `msg` (an unpacked map) is a transport message of §4, every field
    of its type and range."""
    kind = msg.get("t")
    if not isinstance(kind, str) or (kind not in _SCHEMA and kind not in _SPECTATOR_SCHEMA):
        raise WireError(f"unknown message type {shown(kind, 40)!r}")
    schema = _SCHEMA[kind] if kind in _SCHEMA else _SPECTATOR_SCHEMA[kind]
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
    check = _KIND_CHECKS.get(kind)
    if check is not None:
        check(msg)


def _check_hello(msg: dict[str, Any]) -> None:
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


def _check_welcome(msg: dict[str, Any]) -> None:
    if len(msg["pub"]) != 32 or len(msg["sig"]) != 64:
        raise WireError("welcome: bad key or signature length")
    if msg["seat"] is not None and msg["seat"] >= MAX_SEATS:
        raise WireError("welcome.seat: 0..3")


def _check_reason(msg: dict[str, Any]) -> None:
    if len(msg["reason"]) > MAX_REASON:
        raise WireError(f"{msg['t']}.reason: at most {MAX_REASON} characters")


def _check_entries(msg: dict[str, Any]) -> None:
    if len(msg["e"]) > MAX_BATCH:
        raise WireError("entries: batch too large")
    if msg["from"] + len(msg["e"]) >= 2**32:
        raise WireError("entries: numbered beyond 2**32")
    for entry in msg["e"]:
        if not isinstance(entry, bytes) or not 0 < len(entry) <= MAX_ENTRY:
            raise WireError(f"entries: an entry is not bytes of 1..{MAX_ENTRY}")


def _check_presence(msg: dict[str, Any]) -> None:
    if not 1 <= len(msg["up"]) <= MAX_SEATS or not all(isinstance(u, bool) for u in msg["up"]):
        raise WireError("presence.up: 1..4 booleans")


def _check_seats(msg: dict[str, Any]) -> None:
    n = len(msg["state"])
    if not 1 <= n <= MAX_SEATS or len(msg["lost"]) != n:
        raise WireError("seats: 1..4 states and as many lost times")
    for st, lost in zip(msg["state"], msg["lost"], strict=True):
        if st not in SEAT_STATES or type(st) is not str:
            raise WireError("seats.state: connected, lost or left")
        if type(lost) is not int or not 0 <= lost < 2**32:
            raise WireError("seats.lost: whole seconds")


def _check_lobby(msg: dict[str, Any]) -> None:
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


MAX_HINTS = MAX_SEATS - 1  # a `links` message names at most the other joiners' publishers


def _check_links(msg: dict[str, Any]) -> None:
    pairs = msg["l"]
    if len(pairs) > MAX_HINTS:
        raise WireError(f"links: at most {MAX_HINTS} publishers")
    for pair in pairs:
        if not (
            isinstance(pair, list) and len(pair) == 2 and endpoint_ok(pair[0]) and _bin(pair[1], 32)
        ):
            raise WireError("links: a publisher is not [endpoint, 32-byte key]")
    if len({pair[0] for pair in pairs}) != len(pairs):
        raise WireError("links: one endpoint twice")


def _check_watch(msg: dict[str, Any]) -> None:
    if msg["game"] is not None and len(msg["game"]) > 64:
        raise WireError("watch.game: too long")


def _check_watching(msg: dict[str, Any]) -> None:
    if not 1 <= msg["most"] <= MAX_SPECTATORS or not 1 <= msg["n"] <= msg["most"]:
        raise WireError(f"watching: 1 <= n <= most <= {MAX_SPECTATORS}")


def _check_claim(msg: dict[str, Any]) -> None:
    if len(msg["vote"]) > MAX_VOTE:
        raise WireError(f"claim.vote: at most {MAX_VOTE} bytes")


def _check_resign(msg: dict[str, Any]) -> None:
    if len(msg["key"]) not in (0, 32):
        raise WireError("resign.key: 0 or 32 bytes")


_KIND_CHECKS = {
    "hello": _check_hello,
    "welcome": _check_welcome,
    "reject": _check_reason,
    "leave": _check_reason,
    "entries": _check_entries,
    "presence": _check_presence,
    "seats": _check_seats,
    "lobby": _check_lobby,
    "links": _check_links,
    "claim": _check_claim,
    "resign": _check_resign,
    "watch": _check_watch,
    "watching": _check_watching,
}


# ----- field checks (mesh, TRANSPORT.md §10.2-10.3) ----------------------------------------


def _u32(x: Any) -> bool:
    return type(x) is int and 0 <= x < 2**32


def _bin(x: Any, n: int) -> bool:
    return type(x) is bytes and len(x) == n


def _entries_ok(e: Any, most: int) -> bool:
    return (
        isinstance(e, list)
        and len(e) <= most
        and all(type(x) is bytes and 0 < len(x) <= MAX_ENTRY_SIZE for x in e)
    )


def _head_ok(h: Any) -> bool:
    return isinstance(h, list) and len(h) == 2 and _u32(h[0]) and _bin(h[1], 32)


def endpoint(host: str, port: int) -> str:
    """`tcp://HOST:PORT` in the one form a card may carry (IPv6 in brackets, names lowercase);
    `InviteError` if `host` or `port` is not one a card may carry."""
    return "tcp://" + format_address(parse_address(f"{_bracketed(host)}:{port}"))


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def endpoint_ok(ep: Any) -> bool:
    """True for `tcp://HOST:PORT` exactly as `endpoint()` writes it: an IPv4 address, a
    bracketed IPv6 address without zone or a DNS name (never a wildcard or multicast address),
    and a port 1-65535, in at most MAX_EP printable characters."""
    if not isinstance(ep, str) or len(ep) > MAX_EP or not ep.startswith("tcp://"):
        return False
    try:
        return endpoint(*_split(ep[6:])) == ep
    except (InviteError, ValueError):
        return False


def _split(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    if not (port.isascii() and port.isdigit()) or len(port) > 5:
        raise ValueError(port)
    return host, int(port)


def eps_ok(ep: Any) -> bool:
    """A card's `ep`: one endpoint, or a list of 2..MAX_EPS distinct ones."""
    if isinstance(ep, list):
        return 2 <= len(ep) <= MAX_EPS and len(set(ep)) == len(ep) and all(map(endpoint_ok, ep))
    return endpoint_ok(ep)


_MESH_FIELDS = {
    "card": {"seat", "n", "ep", "skey", "sig"},
    "ent": {"from", "e", "h"},
    "head": {"h", "up"},
    "get": {"from", "n", "to"},
    "proof": {"p"},
    "vote": {"v"},  # a claim vote (PROTOCOL.md §10.2), so a claim needs no host (p2)
    "resign": {"r"},  # a resignation statement (PROTOCOL.md §10.4), never the stand-in's key
}


def _mesh_ok(kind: str, msg: dict[str, Any]) -> bool:
    if kind == "card":
        return (
            _u32(msg["seat"])
            and msg["seat"] < 4
            and type(msg["n"]) is int
            and 0 <= msg["n"] <= MAX_CARD_N
            and eps_ok(msg["ep"])
            and _bin(msg["skey"], 32)
            and _bin(msg["sig"], 64)
        )
    if kind == "ent":
        return _u32(msg["from"]) and _entries_ok(msg["e"], MAX_BATCH) and _head_ok(msg["h"])
    if kind == "head":
        up = msg["up"]
        return (
            _head_ok(msg["h"])
            and isinstance(up, list)
            and len(up) <= 4
            and all(type(u) is bool for u in up)
        )
    if kind == "get":
        return (
            _u32(msg["from"])
            and type(msg["n"]) is int
            and 1 <= msg["n"] <= MAX_GET
            and _u32(msg["to"])
            and msg["to"] < 4
        )
    if kind == "proof":
        return type(msg["p"]) is bytes and 0 < len(msg["p"]) <= MAX_FRAME - 64
    if kind == "vote":
        return type(msg["v"]) is bytes and 0 < len(msg["v"]) <= MAX_STATEMENT
    return type(msg["r"]) is bytes and 0 < len(msg["r"]) <= MAX_STATEMENT  # resign


def check_mesh(msg: dict[str, Any]) -> None:
    """`WireError` unless `msg` (an unpacked map) is a mesh message of §10.3, in range."""
    kind = msg.get("t")
    if not isinstance(kind, str) or kind not in _MESH_FIELDS:
        raise WireError(f"mesh: unknown message type {shown(kind, 20)!r}")
    if set(msg) - {"t"} != _MESH_FIELDS[kind]:
        raise WireError(f"mesh {kind}: wrong fields")
    if not _mesh_ok(kind, msg):
        raise WireError(f"mesh {kind}: a field is out of range or mistyped")


def unpack_map(data: bytes) -> dict[str, Any]:
    """A checked transport message as a map (for code that still reads it by key)."""
    msg = unpack_limited(data, TRANSPORT)
    if not isinstance(msg, dict):
        raise WireError("not a map")
    check_transport(msg)
    return msg


def unpack_mesh_map(data: bytes) -> dict[str, Any]:
    """A checked mesh message as a map (for code that still reads it by key)."""
    msg = unpack_limited(data, MESH)
    if not isinstance(msg, dict):
        raise WireError("mesh: not a map")
    check_mesh(msg)
    return msg
