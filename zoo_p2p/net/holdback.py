"""Who holds the game up (protocol/TRANSPORT.md §10.4), sans-I/O: which peer we asked for which
entry and when, which peers each entry reached us from, and the notices that follow.

Two notices, never verdicts (nobody can prove that a message was not sent): a peer that
advertises a head past the seq we asked it for and does not deliver it within HOLD_BACK, while
it says it hears us both when we asked and after ("seat N holds back entry S"); and an author
whose own entry reached us only from others while its direct link was live ("seat N did not
send us its own entry S"). `HoldBack` keeps the bounded bookkeeping (TRACKED asks, WATCHED
entries) and returns the notices; it reads no clock (`now` is passed in).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Mapping
from typing import Protocol

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.text import shown

__all__ = ["HOLD_BACK", "LIVE", "TRACKED", "WATCHED", "Heard", "HoldBack"]

LIVE = 2.5  # a direct link not heard from for this long is down
HOLD_BACK = 1.0  # an advertised entry not delivered this long after we asked: named
TRACKED = 64  # pending asks we watch
WATCHED = 1024  # recent entries whose delivery we watch (who sent them to us)


class Heard(Protocol):
    """What we know of a peer's direct link that the notices read (`gossip.PeerLinks`)."""

    head: tuple[int, bytes] | None  # its last advertised head
    heard: float  # last message from its publisher
    first_heard: float  # first message from its publisher (0: never)


class HoldBack:
    """The asks we watch and who delivered each recent entry. `seat` is ours (None: none)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.asked: dict[tuple[int, int], float] = {}  # (peer seat, seq) -> first asked
        self.named: set[tuple[str, int]] = set()
        self.accepted_at: dict[int, float] = {}  # seq -> when we accepted it
        self.sources: dict[int, set[int]] = {}  # seq -> seats it reached us from
        self.early: dict[int, dict[int, bytes]] = {}  # seq not held -> seat -> hash of copy

    def asking(self, seat: int, seq: int, now: float, hears_us: bool) -> None:
        """We ask `seat` for `seq` now. It is held against `seat` only if it said it hears us
        when we asked: a `get` published before its subscription reached our publisher is
        lost, and that is nobody's fault."""
        if len(self.asked) < TRACKED and hears_us:
            self.asked.setdefault((seat, seq), now)

    def answered(self, seat: int, start: int, count: int) -> None:
        """`seat` sent us `count` entries from `start`: whatever we asked it for there is in."""
        for i in range(count):
            self.asked.pop((seat, start + i), None)

    def heard(self, seat: int, start: int, entries: list[bytes], held: list[bytes]) -> None:
        """Entries numbered from `start` reached us from `seat` (direct or over the host link);
        `held` is our log."""
        for i, raw in enumerate(entries):
            seq = start + i
            if seq < len(held) and held[seq] == raw and seq in self.accepted_at:
                self.sources.setdefault(seq, set()).add(seat)
            elif seq >= len(held) and (seq in self.early or len(self.early) < TRACKED):
                # it came before its predecessor (the owner keeps it): who sent it counts
                # once it is appended, else its author would be named for not sending it
                self.early.setdefault(seq, {})[seat] = hashlib.sha256(raw).digest()

    def accepted(self, before: int, after: int, now: float, log: Callable[[], list[bytes]]) -> None:
        """Our log grew from `before` entries to `after` at `now` (`log()`: its entries, read
        only if an early copy is waiting: it is a copy of the whole log)."""
        held = log() if self.early else []
        for seq in range(before, after):
            self.accepted_at[seq] = now
            for seat, digest in self.early.pop(seq, {}).items():
                if hashlib.sha256(held[seq]).digest() == digest:
                    self.sources.setdefault(seq, set()).add(seat)
        if self.early:
            self.early = {k: v for k, v in self.early.items() if k >= after}
        if len(self.accepted_at) > WATCHED:
            for seq in sorted(self.accepted_at)[: len(self.accepted_at) - WATCHED]:
                self.accepted_at.pop(seq, None)
                self.sources.pop(seq, None)

    def notices(
        self,
        now: float,
        log: Callable[[], list[bytes]],
        peers: Mapping[int, Heard],
        resigned: Container[int],
        hears_us: Callable[[int], bool],
        name: Callable[[int], str],
    ) -> list[str]:
        """What to tell the player now (each seat named once for each kind); the asks and
        entries older than HOLD_BACK are forgotten. `hears_us(seat)`: `seat` says now that it
        hears us directly. `log()` is read only if something is to be said or checked."""
        out: list[str] = []
        copy: list[list[bytes]] = []

        def held() -> list[bytes]:
            if not copy:
                copy.append(log())
            return copy[0]

        for (seat, seq), t in list(self.asked.items()):
            p = peers.get(seat)
            if now - t < HOLD_BACK:
                continue
            del self.asked[(seat, seq)]
            if p is None or p.head is None or p.head[0] < seq or ("held", seat) in self.named:
                continue
            if not hears_us(seat):
                continue  # it does not hear our `get` (no direct link our way, e.g. behind NAT)
            self.named.add(("held", seat))
            what = _what(held(), seq) if seq < len(held()) else f"entry {seq}"
            out.append(f"{name(seat)} holds back {what}: it advertises it but does not send it")
        for seq, t in list(self.accepted_at.items()):
            if now - t < HOLD_BACK:
                continue
            author = _author(held(), seq)
            if author is not None and author not in resigned:  # every peer computes a stand-in's
                line = self._silent(author, seq, t, now, peers, held(), name)
                if line:
                    out.append(line)
            self.accepted_at.pop(seq, None)
            self.sources.pop(seq, None)
        return out

    def _silent(
        self,
        author: int,
        seq: int,
        t: float,
        now: float,
        peers: Mapping[int, Heard],
        held: list[bytes],
        name: Callable[[int], str],
    ) -> str:
        """Entry `seq` of `author`, accepted at `t`, reached us only from others while the
        author's direct link was live: the line that names the author, once; else ""."""
        srcs = self.sources.get(seq, set())
        p = peers.get(author)
        if (
            author == self.seat
            or author in srcs
            or not srcs
            or p is None
            or now - p.heard >= LIVE
            # the author had linked to us well before: its push to us cannot have raced
            # the link's setup (it sends its card first on a new link)
            or not 0 < p.first_heard <= t - HOLD_BACK
            # and its publisher spoke well after: had it published the entry, that would
            # have arrived first (a publisher keeps its order); a crashed author is silent
            or p.heard <= t + HOLD_BACK / 2
            or ("author", author) in self.named
        ):
            return ""
        self.named.add(("author", author))
        via = ", ".join(name(x) for x in sorted(srcs))
        return (
            f"{name(author)} did not send us its own {_what(held, seq)}; it reached us from {via}"
        )


def _author(held: list[bytes], seq: int) -> int | None:
    try:
        return decode_entry(held[seq]).seat
    except (RemoteProtocolError, IndexError):
        return None


def _what(held: list[bytes], seq: int) -> str:
    try:
        e = decode_entry(held[seq])
    except (RemoteProtocolError, IndexError):
        return f"entry {seq}"
    return f"entry {seq} ({shown(e.kind, 20)})"
