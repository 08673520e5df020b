"""Every message of protocol/TRANSPORT.md as a frozen dataclass, and the one msgpack boundary.

Two namespaces share tags (`resign` is a transport message and a mesh message with other
fields), so there are two entry points: `decode(frame)` for a transport message (§4) and
`decode_mesh(frame)` for a direct-link message (§10.3, also the `m` of a `Tunnel`). Both raise
only `WireError`, check every field (ints bounded, byte, list and str lengths, names, seat
states, endpoints) and return a typed message, so no handler reads an unchecked field.
`encode(msg)` writes the exact bytes the peers have always sent: a msgpack map whose keys are
`"t"` and then the fields in their declared order (an optional field that is None is left out).

The limits, the field checks and the msgpack boundary they rest on are in `zoo_p2p.net.schema`
(re-exported here). Pure: no sockets.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from zoo_p2p.net.schema import (
    _MESH_FIELDS,
    _OPTIONAL,
    _SCHEMA,
    _SPECTATOR_SCHEMA,
    MAX_BATCH,
    MAX_CARD_N,
    MAX_ENTRY,
    MAX_EP,
    MAX_EPS,
    MAX_FINGERPRINT,
    MAX_FRAME,
    MAX_GET,
    MAX_HINTS,
    MAX_NAME,
    MAX_REASON,
    MAX_SEATS,
    MAX_SPECTATORS,
    MAX_STATEMENT,
    MAX_VOTE,
    MESH,
    SEAT_STATES,
    STATEMENT,
    TRANSPORT,
    WIRE_VERSION,
    Limits,
    WireError,
    _pack,
    check_mesh,
    check_transport,
    endpoint,
    endpoint_ok,
    eps_ok,
    unpack_limited,
    unpack_map,
    unpack_mesh_map,
    unpack_statement,
    valid_name,
)

__all__ = [
    "MAX_BATCH",
    "MAX_CARD_N",
    "MAX_ENTRY",
    "MAX_EP",
    "MAX_EPS",
    "MAX_FINGERPRINT",
    "MAX_FRAME",
    "MAX_GET",
    "MAX_HINTS",
    "MAX_NAME",
    "MAX_REASON",
    "MAX_SEATS",
    "MAX_SPECTATORS",
    "MAX_STATEMENT",
    "MAX_VOTE",
    "MESH",
    "SEAT_STATES",
    "STATEMENT",
    "TRANSPORT",
    "WIRE_VERSION",
    "_OPTIONAL",
    "_SCHEMA",
    "Bye",
    "Claim",
    "Done",
    "Entries",
    "Farewell",
    "Head",
    "Hello",
    "Knock",
    "Leave",
    "Limits",
    "Links",
    "Lobby",
    "LobbySeat",
    "MeshCard",
    "MeshEntries",
    "MeshGet",
    "MeshHead",
    "MeshMessage",
    "MeshProof",
    "MeshResign",
    "MeshVote",
    "Message",
    "Ping",
    "Presence",
    "Reject",
    "Resign",
    "Seats",
    "Sync",
    "Tunnel",
    "Watch",
    "Watching",
    "Welcome",
    "Who",
    "WireError",
    "as_map",
    "check_mesh",
    "check_transport",
    "decode",
    "decode_mesh",
    "encode",
    "endpoint",
    "endpoint_ok",
    "eps_ok",
    "unpack_limited",
    "unpack_map",
    "unpack_mesh_map",
    "unpack_statement",
    "valid_name",
]

# ----- the messages ------------------------------------------------------------------------

Head = tuple[int, bytes]  # [seq, sha256 of the entry at seq] (TRANSPORT.md §10.3)
LobbySeat = tuple[str, str, int]  # name, fingerprint, team


class _Message:
    """What every message class has: its tag, and the wire keys its fields are written under."""

    __slots__ = ()
    T: ClassVar[str]
    _RENAMED: ClassVar[dict[str, str]] = {"start": "from"}  # python name -> wire key
    _OPTIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset()


# transport messages (§4)


@dataclass(frozen=True, kw_only=True, slots=True)
class Knock(_Message):
    """joiner -> host: "prove who you are" (§2)."""

    T: ClassVar[str] = "knock"
    v: int = WIRE_VERSION


@dataclass(frozen=True, kw_only=True, slots=True)
class Hello(_Message):
    """joiner -> host: who I am, signed (`wire.hello_signed_bytes`); `have` = entries I hold."""

    T: ClassVar[str] = "hello"
    v: int = WIRE_VERSION
    name: str
    team: int | None
    pub: bytes
    curve: bytes
    game: bytes | None
    have: int
    sig: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class Welcome(_Message):
    """host -> joiner: proof of the host's identity, my seat so far; `hints` None: absent."""

    T: ClassVar[str] = "welcome"
    _OPTIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset({"hints"})
    v: int = WIRE_VERSION
    pub: bytes
    sig: bytes
    seat: int | None
    hints: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Reject(_Message):
    """host -> joiner: the game is full, has started without you, is another game…"""

    T: ClassVar[str] = "reject"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Leave(_Message):
    """both: I leave now, and why."""

    T: ClassVar[str] = "leave"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Farewell(_Message):
    """host -> joiner: "I heard your `leave`" (§6)."""

    T: ClassVar[str] = "farewell"


@dataclass(frozen=True, kw_only=True, slots=True)
class Lobby(_Message):
    """host -> joiners: who has joined so far, how many seats; `hints` None: absent."""

    T: ClassVar[str] = "lobby"
    _OPTIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset({"hints"})
    seats: tuple[LobbySeat, ...]
    need: int
    hints: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Links(_Message):
    """joiner -> host: where my publisher listens, before my hello; host -> joiners: where the
    other joiners' publishers listen (TRANSPORT.md §10.10). Hints only: a card decides."""

    T: ClassVar[str] = "links"
    l: tuple[tuple[str, bytes], ...]  # noqa: E741 - the wire key


@dataclass(frozen=True, kw_only=True, slots=True)
class Entries(_Message):
    """both: log entries numbered from `start` (the wire's `from`)."""

    T: ClassVar[str] = "entries"
    start: int
    e: tuple[bytes, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class Sync(_Message):
    """both: "send me every entry from seq `start` on"."""

    T: ClassVar[str] = "sync"
    start: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Presence(_Message):
    """host -> joiners: older form of `Seats`: which seats are connected now."""

    T: ClassVar[str] = "presence"
    up: tuple[bool, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class Seats(_Message):
    """host -> joiners: every seat's presence and how long it has been lost (whole seconds)."""

    T: ClassVar[str] = "seats"
    state: tuple[str, ...]
    lost: tuple[int, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class Ping(_Message):
    """both: liveness on an idle link."""

    T: ClassVar[str] = "ping"


@dataclass(frozen=True, kw_only=True, slots=True)
class Who(_Message):
    """host -> joiner: "I do not know this link: say hello again"."""

    T: ClassVar[str] = "who"


@dataclass(frozen=True, kw_only=True, slots=True)
class Done(_Message):
    """joiner -> host: I hold the complete log."""

    T: ClassVar[str] = "done"
    have: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Bye(_Message):
    """both: the game is closed / I leave."""

    T: ClassVar[str] = "bye"


@dataclass(frozen=True, kw_only=True, slots=True)
class Tunnel(_Message):
    """both (`mesh`): one mesh message carried over the host link (`decode_mesh(m)`)."""

    T: ClassVar[str] = "mesh"
    m: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class Claim(_Message):
    """both: one claim vote, msgpack `[claimed, at, seat, sig]` (PROTOCOL.md §10.2)."""

    T: ClassVar[str] = "claim"
    vote: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class Resign(_Message):
    """both: a resignation statement (PROTOCOL.md §10.4); `key` is sent empty and ignored."""

    T: ClassVar[str] = "resign"
    r: bytes
    key: bytes = b""


# the spectators' messages (§12): not part of the players' wire


@dataclass(frozen=True, kw_only=True, slots=True)
class Watch(_Message):
    """spectator -> host (after a welcome): let me watch; I hold `have` entries of `game`."""

    T: ClassVar[str] = "watch"
    v: int = WIRE_VERSION
    game: bytes | None
    have: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Watching(_Message):
    """host -> spectator: admitted; `n` spectators watch now (you included), at most `most`."""

    T: ClassVar[str] = "watching"
    v: int = WIRE_VERSION
    n: int
    most: int


Message = (
    Knock
    | Hello
    | Welcome
    | Reject
    | Leave
    | Farewell
    | Lobby
    | Links
    | Entries
    | Sync
    | Presence
    | Seats
    | Ping
    | Who
    | Done
    | Bye
    | Tunnel
    | Claim
    | Resign
    | Watch
    | Watching
)


# mesh messages (§10.3)


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshCard(_Message):
    """Where seat `seat` publishes, with which CURVE key, how new (`n`), signed (§10.2)."""

    T: ClassVar[str] = "card"
    seat: int
    n: int
    ep: str | tuple[str, ...]
    skey: bytes
    sig: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshEntries(_Message):
    """`ent`: entries numbered from `start`, and the sender's head."""

    T: ClassVar[str] = "ent"
    start: int
    e: tuple[bytes, ...]
    h: Head


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshHead(_Message):
    """My head, and which seats I heard directly in the last 2.5 s."""

    T: ClassVar[str] = "head"
    h: Head
    up: tuple[bool, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshGet(_Message):
    """ "seat `to`: publish up to `n` entries from seq `start`"."""

    T: ClassVar[str] = "get"
    start: int
    n: int
    to: int


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshProof(_Message):
    """A proof in PROTOCOL.md §9.1's format."""

    T: ClassVar[str] = "proof"
    p: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshVote(_Message):
    """A claim vote, as the `vote` of a `Claim`."""

    T: ClassVar[str] = "vote"
    v: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class MeshResign(_Message):
    """A resignation statement, as the `r` of a `Resign`; never a key."""

    T: ClassVar[str] = "resign"
    r: bytes


MeshMessage = MeshCard | MeshEntries | MeshHead | MeshGet | MeshProof | MeshVote | MeshResign


# ----- decode and encode -------------------------------------------------------------------


def _tuples(x: Any) -> Any:
    """msgpack arrays as tuples, all the way down (frozen messages hold no lists)."""
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _codec(cls: type[_Message]) -> tuple[tuple[str, str, bool], ...]:
    """(attribute, wire key, optional) for each field of `cls`, in wire order."""
    return tuple(
        (f.name, cls._RENAMED.get(f.name, f.name), f.name in cls._OPTIONAL_FIELDS)
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
    )


_TRANSPORT_CLASSES: tuple[type[_Message], ...] = (
    Knock,
    Hello,
    Welcome,
    Reject,
    Leave,
    Farewell,
    Lobby,
    Links,
    Entries,
    Sync,
    Presence,
    Seats,
    Ping,
    Who,
    Done,
    Bye,
    Tunnel,
    Claim,
    Resign,
)
_MESH_CLASSES: tuple[type[_Message], ...] = (
    MeshCard,
    MeshEntries,
    MeshHead,
    MeshGet,
    MeshProof,
    MeshVote,
    MeshResign,
)
_SPECTATOR_CLASSES: tuple[type[_Message], ...] = (Watch, Watching)
_CODECS = {cls: _codec(cls) for cls in (*_TRANSPORT_CLASSES, *_SPECTATOR_CLASSES, *_MESH_CLASSES)}
_BY_TAG = {cls.T: cls for cls in (*_TRANSPORT_CLASSES, *_SPECTATOR_CLASSES)}
_MESH_BY_TAG = {cls.T: cls for cls in _MESH_CLASSES}
assert set(_BY_TAG) == set(_SCHEMA) | set(_SPECTATOR_SCHEMA)
assert set(_MESH_BY_TAG) == set(_MESH_FIELDS)


def _build(cls: type[_Message], msg: dict[str, Any]) -> Any:
    return cls(**{attr: _tuples(msg[key]) for attr, key, _ in _CODECS[cls] if key in msg})


def decode(frame: bytes) -> Message:
    """The transport message (§4) in `frame`, every field checked; `WireError` otherwise."""
    msg = unpack_map(frame)
    built: Message = _build(_BY_TAG[msg["t"]], msg)
    return built


def decode_mesh(frame: bytes) -> MeshMessage:
    """The mesh message (§10.3) in `frame`, every field checked; `WireError` otherwise."""
    msg = unpack_mesh_map(frame)
    built: MeshMessage = _build(_MESH_BY_TAG[msg["t"]], msg)
    return built


def as_map(msg: Message | MeshMessage) -> dict[str, object]:
    """The msgpack map `encode` writes for `msg`: `"t"`, then its fields in declared order."""
    out: dict[str, object] = {"t": msg.T}
    for attr, key, optional in _CODECS[type(msg)]:
        value = getattr(msg, attr)
        if not (optional and value is None):
            out[key] = value
    return out


def encode(msg: Message | MeshMessage) -> bytes:
    """The bytes of `msg`, checked as a receiver would (so we never send junk)."""
    fields = as_map(msg)
    wire_form = _untuple(fields)
    if isinstance(msg, _MESH_CLASSES):
        check_mesh(wire_form)
    else:
        check_transport(wire_form)
    data = _pack(fields)
    if len(data) > MAX_FRAME:
        raise ValueError(f"{msg.T} message too large ({len(data)} bytes)")
    return data


def _untuple(fields: dict[str, object]) -> dict[str, Any]:
    def lists(x: object) -> object:
        return [lists(v) for v in x] if isinstance(x, tuple | list) else x

    return {k: lists(v) for k, v in fields.items()}
