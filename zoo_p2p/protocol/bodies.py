"""Entry bodies (PROTOCOL.md §3): the genesis, parsed and checked, and the shape of every other
kind (types and array sizes), checked before any field of a body is used.

Pure. `Session` reads the genesis with `open_genesis` and checks each body with `SHAPES`.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.crypto import check_public_key, public_key_from_bytes, verify_signature
from zoo_p2p.protocol.deal import (
    COMMIT_SIZE,
    NONCE_SIZE,
    SALT_SIZE,
    SEED_SIZE,
    n_tables,
    table_size,
)
from zoo_p2p.protocol.encoding import ZERO_HASH, Entry, Kind, decode_entry
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.names import check_name
from zoo_p2p.rules import N_SQUARES, Team, Variant
from zoo_p2p.text import seat_word

ON_LEAVE_END = "end"  # a claim ends the game (§10.3); absent from the genesis
ON_LEAVE_PLAY_ON = "play-on"  # the others re-deal and play on (§10.7)
ON_LEAVE_RULES = (ON_LEAVE_PLAY_ON, ON_LEAVE_END)


def default_on_leave(n_seats: int) -> str:
    """The table rule a new game gets unless the host says otherwise: play-on at 3–4 seats."""
    return ON_LEAVE_PLAY_ON if n_seats >= 3 else ON_LEAVE_END


def is_bin(x: Any, size: int) -> bool:
    """`x` is a bytes object of exactly `size` bytes."""
    return type(x) is bytes and len(x) == size


class Genesis:
    """The parsed genesis body: nonce, variant, seats, fixed first player (or None), clocks,
    whether every seat may ask the expert for hints (§3.2), and the table rule `on_leave`
    (§10.7: `play-on` or `end`, what a claim against a seat that stopped answering does)."""

    __slots__ = (
        "clocks",
        "first_player",
        "has_clocks",
        "hints",
        "nonce",
        "on_leave",
        "seats",
        "variant",
    )

    def __init__(
        self,
        nonce: bytes,
        variant: Variant,
        seats: tuple[SeatInfo, ...],
        first: int | None,
        clocks: Clocks | None = None,
        hints: bool = False,
        on_leave: str = ON_LEAVE_END,
    ) -> None:
        self.nonce = nonce
        self.variant = variant
        self.seats = seats
        self.first_player = first
        self.on_leave = on_leave
        self.has_clocks = clocks is not None or hints or on_leave == ON_LEAVE_PLAY_ON
        self.clocks = clocks or Clocks()
        self.hints = hints

    @property
    def play_on(self) -> bool:
        """The table plays on after a claim (§10.7)."""
        return self.on_leave == ON_LEAVE_PLAY_ON

    def to_body(self) -> list[Any]:
        """The genesis body as packed: [nonce, variant, [[name, key, team]...], first|nil,
        clocks, hints, "play-on"] (a genesis without clocks, from before §10, has only the first
        four; the sixth element is there when hints are allowed, §3.2, or when a seventh follows;
        the seventh only for the table rule `play-on`, §10.7: a trailing default is left out)."""
        body: list[Any] = [
            self.nonce,
            self.variant.value,
            [[s.name, s.public_key, int(s.team)] for s in self.seats],
            self.first_player,
        ]
        if self.has_clocks:
            body.append(self.clocks.to_body())
        if self.on_leave == ON_LEAVE_PLAY_ON:
            body += [self.hints, ON_LEAVE_PLAY_ON]
        elif self.hints:
            body.append(True)
        return body

    @classmethod
    def from_body(cls, body: Any) -> Genesis:
        """Validate and parse a genesis body (RemoteProtocolError naming what is wrong)."""
        if not (isinstance(body, list) and len(body) in (4, 5, 6, 7)):
            raise RemoteProtocolError(
                "genesis body is not [nonce, variant, seats, first, clocks, hints, on_leave]"
            )
        nonce, variant, seats, first = body[:4]
        clocks = Clocks.from_body(body[4]) if len(body) >= 5 else None
        on_leave = ON_LEAVE_END
        if len(body) == 7:
            if type(body[6]) is not str or body[6] != ON_LEAVE_PLAY_ON:
                raise RemoteProtocolError(
                    f"genesis on_leave is not {ON_LEAVE_PLAY_ON!r} (absent means {ON_LEAVE_END!r})"
                )
            if type(body[5]) is not bool:
                raise RemoteProtocolError("genesis hints is not a boolean before on_leave")
            on_leave = ON_LEAVE_PLAY_ON
            hints = body[5]
        else:
            if len(body) == 6 and body[5] is not True:
                raise RemoteProtocolError("genesis hints is not true (absent means not allowed)")
            hints = len(body) == 6
        if not is_bin(nonce, NONCE_SIZE):
            raise RemoteProtocolError("genesis nonce is not 32 bytes")
        if type(variant) is not str or variant not in ("standard", "general"):
            raise RemoteProtocolError(f"unknown variant {variant!r}")
        if not (isinstance(seats, list) and 2 <= len(seats) <= 4):
            raise RemoteProtocolError("a game has 2 to 4 seats")
        infos = []
        for s in seats:
            if not (isinstance(s, list) and len(s) == 3):
                raise RemoteProtocolError("a seat is not [name, public_key, team]")
            name, key, team = s
            try:
                check_name(name)
            except ValueError as exc:
                raise RemoteProtocolError(f"seat name: {exc}") from None
            try:
                check_public_key(key)
            except ValueError as exc:
                raise RemoteProtocolError(f"seat public key: {exc}") from None
            if type(team) is not int or not 0 <= team <= 3:
                raise RemoteProtocolError("a seat team is not 0..3")
            infos.append(SeatInfo(name, key, Team(team)))
        if len({i.team for i in infos}) != len(infos):
            raise RemoteProtocolError("two seats have the same team")
        if len({i.public_key for i in infos}) != len(infos):
            raise RemoteProtocolError("two seats have the same public key")
        if first is not None and (type(first) is not int or not 0 <= first < len(infos)):
            raise RemoteProtocolError("genesis first player is not a seat")
        if on_leave == ON_LEAVE_PLAY_ON and len(infos) < 3:
            raise RemoteProtocolError(
                "a 2-seat game always ends with a claim: on_leave play-on needs 3 or 4 seats"
            )
        return cls(nonce, Variant(variant), tuple(infos), first, clocks, hints, on_leave)


def open_genesis(genesis: bytes) -> tuple[Entry, Genesis, tuple[Ed25519PublicKey, ...]]:
    """The genesis entry, its parsed body and the seats' keys; RemoteProtocolError unless it is
    a genesis signed by seat 0's key, read from its own body."""
    e = decode_entry(genesis)
    if e.seq != 0 or e.prev != ZERO_HASH or e.seat != 0 or e.kind != Kind.GENESIS:
        raise RemoteProtocolError("not a genesis entry (seq 0, zero prev, seat 0)", entry=genesis)
    g = Genesis.from_body(e.body)
    try:
        keys = tuple(public_key_from_bytes(s.public_key) for s in g.seats)
    except ValueError:
        raise RemoteProtocolError("a seat public key is invalid", entry=genesis) from None
    if not verify_signature(keys[0], e.sig, e.payload):
        who = seat_word(0, g.seats[0].team.label)
        raise RemoteProtocolError(f"bad signature: not {who}'s key", entry=e.raw, seat=0)
    return e, g, keys


def _links_shape(links: Any, lo: int, hi: int) -> str | None:
    if not (isinstance(links, list) and lo <= len(links) <= hi):
        return f"expected {lo}..{hi} links" if lo != hi else f"expected {lo} links"
    for link in links:
        if not (
            isinstance(link, list)
            and len(link) == 2
            and type(link[0]) is int
            and 0 <= link[0] <= 255
            and is_bin(link[1], SALT_SIZE)
        ):
            return "a link is not [value 0..255, salt: bin(32)]"
    return None


def _commit_shape(b: Any, n: int, general: bool) -> str | None:
    count = n_tables(general)
    if not (isinstance(b, list) and len(b) == 2 and is_bin(b[0], COMMIT_SIZE)):
        return "not [nonce_commitment: bin(32), tables]"
    if not (isinstance(b[1], list) and len(b[1]) == count):
        return f"must hold {count} tables"
    for t, blob in enumerate(b[1]):
        if not is_bin(blob, table_size(t) * COMMIT_SIZE):
            return f"table {t} is not bin({table_size(t) * COMMIT_SIZE})"
    return None


def _open_shape(b: Any, n: int, general: bool) -> str | None:
    if not (isinstance(b, list) and len(b) == 2 and is_bin(b[0], NONCE_SIZE)):
        return "not [nonce: bin(32), links]"
    return _links_shape(b[1], N_SQUARES, N_SQUARES)


def _move_shape(b: Any, n: int, general: bool) -> str | None:
    if not (isinstance(b, list) and len(b) == 3 and all(type(x) is int for x in b)):
        return "not [kind, a, b] (three integers)"
    return None


def _reveal_shape(b: Any, n: int, general: bool) -> str | None:
    if not (isinstance(b, list) and len(b) == 1):
        return "not [links]"
    return _links_shape(b[0], 1, 1 if general else 2)


def _seed_shape(b: Any, n: int, general: bool) -> str | None:
    if not (isinstance(b, list) and len(b) == 1 and is_bin(b[0], SEED_SIZE)):
        return "not [seed: bin(32)]"
    return None


def _result_shape(b: Any, n: int, general: bool) -> str | None:
    if not (
        isinstance(b, list)
        and len(b) == 1
        and isinstance(b[0], list)
        and len(b[0]) == n
        and all(type(x) is int and 0 <= x <= 255 for x in b[0])
    ):
        return f"not [[total 0..255 × {n}]]"
    return None


# Body shapes by kind (PROTOCOL.md §3): types and array sizes, checked before any field is used.
def _redeal_shape(b: Any, n: int, general: bool) -> str | None:
    # the sizes depend on the hidden part: `Session` checks them against its own (§10.7)
    if not (isinstance(b, list) and len(b) == 2 and is_bin(b[0], 32) and isinstance(b[1], list)):
        return "not [claim_hash, tables]"
    if not 1 <= len(b[1]) <= (1 if general else 5) or not all(type(x) is bytes for x in b[1]):
        return "tables is not 1 to 5 bin (1 in the General variant)"
    return None


SHAPES = {
    Kind.COMMIT: _commit_shape,
    Kind.OPEN: _open_shape,
    Kind.MOVE: _move_shape,
    Kind.REVEAL: _reveal_shape,
    Kind.SEED: _seed_shape,
    Kind.RESULT: _result_shape,
    Kind.REDEAL: _redeal_shape,
}


__all__ = [
    "ON_LEAVE_END",
    "ON_LEAVE_PLAY_ON",
    "ON_LEAVE_RULES",
    "SHAPES",
    "Genesis",
    "default_on_leave",
    "is_bin",
    "open_genesis",
]
