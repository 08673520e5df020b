"""Game adverts on the LAN (protocol/TRANSPORT.md §3.3), sans-I/O: the TXT record a host
announces, how a browser checks one as hostile input, and the list of games a live browse
keeps. No socket and no clock here: `zoo_p2p.net.discovery` runs mDNS (python-zeroconf) and
hands every advert it reads to these.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from zoo_p2p.net.invite import (
    MAX_ADDRESSES,
    Address,
    Invite,
    InviteError,
    check_host,
    check_port,
)

__all__ = [
    "MAX_ADVERTS",
    "MAX_NAME",
    "SERVICE",
    "VARIANTS",
    "Advert",
    "BrowseState",
    "GameList",
    "parse_txt",
    "txt_for",
]

log = logging.getLogger("zoo_p2p.net.discovery")

SERVICE = "_zoo-p2p._tcp.local."
MAX_ADVERTS = 32  # adverts kept from one browse (the rest are ignored)
MAX_NAME = 32
VARIANTS = ("standard", "general")
_TXT_MAX = 255


@dataclass(frozen=True)
class Advert:
    """One game found on the LAN, every field checked."""

    name: str
    fingerprint: str
    seats: int
    taken: int
    variant: str
    invite: Invite
    hints: bool = False  # the host says its table allows hints (its welcome and genesis bind)

    @property
    def free(self) -> int:
        """Seats still free."""
        return self.seats - self.taken


def _instance(name: str, fingerprint: str) -> str:
    """A service instance label of at most 63 bytes: the name, cut on a character boundary."""
    tail = f" {fingerprint}"
    room = 63 - len(tail.encode())
    clean = "".join(ch if ch.isprintable() and ch not in ".\\" else "_" for ch in name)
    cut = clean.encode()[:room].decode("utf-8", errors="ignore") or "zoo"
    return cut + tail


def txt_for(
    invite: Invite, *, name: str, seats: int, taken: int, variant: str, hints: bool = False
) -> dict[str, str]:
    """The TXT properties that announce this game (the invite trimmed to fit 255 bytes)."""
    inv = invite
    while len(f"inv={inv}".encode()) > _TXT_MAX and inv.also:
        inv = inv.with_addresses(list(inv.addresses[:-1]))
    txt = {
        "v": "1",
        "name": name[:MAX_NAME],
        "fp": invite.fingerprint,
        "seats": str(seats),
        "taken": str(taken),
        "variant": variant,
        "inv": str(inv),
    }
    if hints:  # only then: an older browser sees the advert it always saw
        txt["hints"] = "1"
    return txt


def _hints_field(raw: bytes | None) -> bool:
    """The optional `hints` field: exactly ``1`` or ``0`` (absent: ``0``); anything else drops
    the advert (an advert with a bad field is dropped, whatever the field)."""
    if raw is None or raw == b"0":
        return False
    if raw == b"1":
        return True
    raise ValueError("advert with a bad hints field (1 or 0)")


def parse_txt(props: dict[bytes, bytes | None], extra: list[Address] | None = None) -> Advert:
    """Check a TXT record as hostile input; `extra` addresses (from A/AAAA records) are appended.

    Raises InviteError or ValueError with the reason when any field is missing or wrong.
    """

    def get(key: str) -> str:
        raw = props.get(key.encode())
        if raw is None:
            raise ValueError(f"advert without {key!r}")
        if len(raw) > _TXT_MAX:
            raise ValueError(f"advert field {key!r} too long")
        return raw.decode("utf-8", errors="strict")

    if get("v") != "1":
        raise ValueError("advert of an unknown version")
    name = get("name")
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise ValueError("advert with a bad name")
    fp = get("fp").upper()
    seats_t, taken_t = get("seats"), get("taken")
    if not (seats_t.isascii() and seats_t.isdigit() and taken_t.isascii() and taken_t.isdigit()):
        raise ValueError("advert with bad seat counts")
    seats, taken = int(seats_t[:2]), int(taken_t[:2])
    if not 2 <= seats <= 4 or not 1 <= taken <= seats:
        raise ValueError("advert with bad seat counts")
    variant = get("variant")
    if variant not in VARIANTS:
        raise ValueError("advert with an unknown variant")
    inv = Invite.parse(get("inv"))
    if inv.fingerprint != fp:
        raise ValueError("advert whose invite is for another fingerprint")
    if extra:
        have = list(inv.addresses)
        for host, port in extra:
            try:
                a = (check_host(host), check_port(port))
            except InviteError:
                continue
            if a not in have and len(have) < MAX_ADDRESSES:
                have.append(a)
        inv = inv.with_addresses(have)
    return Advert(name, fp, seats, taken, variant, inv, _hints_field(props.get(b"hints")))


class GameList:
    """The games a live browse lists, one per service instance name, at most `cap` of them.

    Adverts are hostile: a name already listed may only change its count of seats taken (an
    update that changes anything else, such as the invite or the fingerprint, is dropped and the
    first advert stays); an advert under another name claiming a listed fingerprint is listed
    beside the first one, never instead of it; the very same invite is listed once.
    """

    def __init__(self, cap: int = MAX_ADVERTS) -> None:
        self.cap = cap
        self.by_name: dict[str, Advert] = {}
        self.dropped = 0

    def games(self) -> tuple[Advert, ...]:
        """The games listed, in the order they were first seen."""
        return tuple(self.by_name.values())

    def room_for(self, name: str) -> bool:
        """Whether an advert under `name` could be listed (known, or the list not full)."""
        return name in self.by_name or len(self.by_name) < self.cap

    def add(self, name: str, advert: Advert) -> bool:
        """An advert read under `name`; True if the list changed."""
        old = self.by_name.get(name)
        if old is not None:
            if advert == old:
                return False
            same_game = (
                advert.invite == old.invite
                and advert.name == old.name
                and advert.seats == old.seats
                and advert.variant == old.variant
                and advert.hints == old.hints
            )
            if not same_game:
                log.info("dropped a conflicting advert for %r", name[:80])
                self.dropped += 1
                return False
            self.by_name[name] = advert
            return True
        if len(self.by_name) >= self.cap:
            self.dropped += 1
            return False
        if any(a.invite == advert.invite for a in self.by_name.values()):
            return False
        self.by_name[name] = advert
        return True

    def remove(self, name: str) -> bool:
        """The advert under `name` was withdrawn; True if the list changed."""
        return self.by_name.pop(name, None) is not None


@dataclass(frozen=True)
class BrowseState:
    """What a live browse lists now: the games, adverts dropped, the first network trouble
    (multicast refused), and `error` when mDNS cannot be used here at all."""

    games: tuple[Advert, ...] = ()
    dropped: int = 0
    trouble: str | None = None
    error: str | None = None
