"""Clocks, claims and resignations (PROTOCOL.md §10): how a game ends when a seat stops answering.

Pure: the bytes every claim vote and resignation signs, their parsing and checking, and how a
game ended (`Ending`). The session (`session.py`) calls into this module; peers measure time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from zoo_p2p import defaults
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.crypto import verify_signature
from zoo_p2p.protocol.encoding import Kind, pack
from zoo_p2p.protocol.events import Event, Floor, SeatInfo
from zoo_p2p.text import seat_word

# seconds a seat has for a move (a person thinking), and for every entry software computes
# (commit, reveal, seed…): defined in `zoo_p2p.defaults`, which `zoo --help` reads without this
DEFAULT_MOVE_TIME = defaults.MOVE_TIME
DEFAULT_REVEAL_TIME = defaults.REVEAL_TIME
MAX_CLOCK = 86_400
DOMAIN_VOTE = b"zoo-p2p/v1/claim\0"
DOMAIN_RESIGN = b"zoo-p2p/v1/resign\0"


@dataclass(frozen=True, slots=True)
class Clocks:
    """How long the seat holding the floor has, in whole seconds, per floor (not a time bank)."""

    move: int = DEFAULT_MOVE_TIME
    reveal: int = DEFAULT_REVEAL_TIME

    def for_kind(self, kind: str) -> int:
        """Seconds allowed for a floor of this kind (a move, or anything software computes)."""
        return self.move if kind == Kind.MOVE else self.reveal

    def to_body(self) -> list[int]:
        """`[move_seconds, reveal_seconds]` as the genesis carries it."""
        return [self.move, self.reveal]

    @classmethod
    def from_body(cls, body: Any) -> Clocks:
        """Parse `[move_seconds, reveal_seconds]` (each 1..86400)."""
        if not (
            isinstance(body, list)
            and len(body) == 2
            and all(type(x) is int and 1 <= x <= MAX_CLOCK for x in body)
        ):
            raise RemoteProtocolError("genesis clocks are not [move_s, reveal_s] in 1..86400")
        return cls(body[0], body[1])


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    """The other seats claimed the game from `seat` (its time ran out at log length `at`)."""

    seat: int
    at: int
    by: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    """`seat` resigned; `stand_in` is the key that plays on (None: a 2-seat game ended)."""

    seat: int
    stand_in: bytes | None


def vote_bytes(game_id: bytes, at: int, head: bytes, claimed: int) -> bytes:
    """What a claim vote signs: the game, the floor position `at` (log length), its head hash and
    the claimed seat."""
    return DOMAIN_VOTE + game_id + at.to_bytes(4, "big") + head + bytes([claimed])


def resign_bytes(game_id: bytes, seat: int, at: int, seed: bytes, new_key: bytes | None) -> bytes:
    """What a resignation signs: the game, the seat, the resigner's log length, its opened seed
    and the stand-in's key."""
    return DOMAIN_RESIGN + game_id + bytes([seat]) + at.to_bytes(4, "big") + seed + (new_key or b"")


@dataclass(frozen=True, slots=True)
class Vote:
    """One seat's signed "the floor holder's time ran out" at log length `at`."""

    claimed: int
    at: int
    seat: int
    sig: bytes

    def to_bytes(self) -> bytes:
        """The vote as the wire carries it: msgpack `[claimed, at, seat, sig]`."""
        return pack([self.claimed, self.at, self.seat, self.sig])


@dataclass(frozen=True, slots=True)
class Resignation:
    """A seat's signed resignation: its seed (now public) and, with 3+ seats, its stand-in key."""

    seat: int
    at: int
    seed: bytes
    new_key: bytes | None
    sig: bytes

    def to_body(self) -> list[Any]:
        """`[seat, at, seed, new_key | nil, sig]`: the statement, also the `resign` entry's body."""
        return [self.seat, self.at, self.seed, self.new_key, self.sig]

    def to_bytes(self) -> bytes:
        """The statement as the wire carries it."""
        return pack(self.to_body())


def parse_vote(obj: Any) -> Vote:
    """A vote from its msgpack value `[claimed, at, seat, sig]` (RemoteProtocolError if not)."""
    if not (
        isinstance(obj, list)
        and len(obj) == 4
        and all(type(x) is int for x in obj[:3])
        and type(obj[3]) is bytes
        and len(obj[3]) == 64
        and 0 <= obj[0] <= 3
        and 0 <= obj[2] <= 3
        and 1 <= obj[1] <= 1_000_000
    ):
        raise RemoteProtocolError("a claim vote is not [claimed, at, seat, sig]")
    return Vote(obj[0], obj[1], obj[2], obj[3])


def parse_resignation(obj: Any) -> Resignation:
    """A resignation from `[seat, at, seed, new_key | nil, sig]` (RemoteProtocolError if not)."""
    if not (
        isinstance(obj, list)
        and len(obj) == 5
        and type(obj[0]) is int
        and 0 <= obj[0] <= 3
        and type(obj[1]) is int
        and 1 <= obj[1] <= 1_000_000
        and type(obj[2]) is bytes
        and len(obj[2]) == 32
        and (obj[3] is None or (type(obj[3]) is bytes and len(obj[3]) == 32))
        and type(obj[4]) is bytes
        and len(obj[4]) == 64
    ):
        raise RemoteProtocolError("a resignation is not [seat, at, seed, new_key|nil, sig]")
    return Resignation(obj[0], obj[1], obj[2], obj[3], obj[4])


def sign_vote(
    key: Ed25519PrivateKey, game_id: bytes, at: int, head: bytes, claimed: int, seat: int
) -> Vote:
    """Our vote against `claimed` at log length `at` (head = hash of entry at-1)."""
    return Vote(claimed, at, seat, key.sign(vote_bytes(game_id, at, head, claimed)))


def sign_resignation(
    key: Ed25519PrivateKey,
    game_id: bytes,
    seat: int,
    at: int,
    seed: bytes,
    new_key: bytes | None,
) -> Resignation:
    """Our resignation at log length `at`: opens `seed`, hands the seat to `new_key` (None: no
    stand-in)."""
    sig = key.sign(resign_bytes(game_id, seat, at, seed, new_key))
    return Resignation(seat, at, seed, new_key, sig)


def signature_ok(pub: Ed25519PublicKey, sig: bytes, data: bytes) -> bool:
    """True if `sig` is `pub`'s signature of `data` (`crypto.verify_signature`, §2.4)."""
    return verify_signature(pub, sig, data)


_OWED = {
    Kind.COMMIT: "send its commitments",
    Kind.OPEN: "send its opening reveals",
    Kind.MOVE: "move",
    Kind.REVEAL: "reveal",
    Kind.SEED: "open its seed",
    Kind.RESULT: "sign the result",
}
_AWAITED = {
    Kind.COMMIT: "its commitments",
    Kind.OPEN: "its opening reveals",
    Kind.MOVE: "a move",
    Kind.REVEAL: "a reveal",
    Kind.SEED: "its seed",
    Kind.RESULT: "its signature on the result",
}

FINISHED = "finished"
CLAIMED = "claimed"
RESIGNED = "resigned"
ABANDONED = "abandoned"
LEFT = "left"
NEVER_STARTED = "never_started"


@dataclass(frozen=True, slots=True)
class PlayOn:
    """A claim that did not end the game (§10.7): `seat` owed entry `at` and is out (a stand-in
    plays it on); the claim is entry `claim`; `dealers` re-dealt the `cards` covered cards and
    the hidden mutants of `mutants` values."""

    seat: int
    at: int
    claim: int
    by: tuple[int, ...]
    dealers: tuple[int, ...]
    cards: int
    mutants: int

    def describe(self, seats: tuple[SeatInfo, ...]) -> str:
        """E.g. "seat 3 (Red) stopped answering at entry 48; a stand-in plays on; the 12 cards
        nobody had seen were re-dealt by seats 1, 2 and 4"."""
        who = seat_word(self.seat, seats[self.seat].team.name.capitalize())
        nums = [str(d + 1) for d in self.dealers]
        dealt = ", ".join(nums[:-1]) + f" and {nums[-1]}" if len(nums) > 1 else nums[0]
        what = f"the {self.cards} card{'' if self.cards == 1 else 's'} nobody had seen"
        if self.mutants:
            what += f" (and which copy of {self.mutants} value{'s' if self.mutants > 1 else ''} "
            what += "hides the mutant)"
        return (
            f"{who} stopped answering at entry {self.at}; a stand-in plays on; {what} "
            f"{'was' if self.cards == 1 and not self.mutants else 'were'} re-dealt by seats {dealt}"
        )


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended, as the log proves it.

    kind: finished (every result signed), claimed (the others signed a claim against `seat`),
    resigned (a 2-seat game: `seat` resigned), abandoned (the log stops; `seat` holds the floor),
    left (3–4 seats: the log stops right at `seat`'s resignation, entry `at`; a stand-in takes
    the seat and the rest of the game is not in the log: no result, as for abandoned),
    never_started (a claim against `seat`, which had signed no entry of the game: no result,
    no scores, no winners; PROTOCOL.md §10.5).
    `at` is the log length when the floor was claimed (the claimed seat owed entry `at`), the
    resignation's index, or the log length when abandoned. `late` are the claimed seat's entries
    after the claim's head (its late answers: the conflict). `resigned` lists seats that resigned
    and were played on by a stand-in (3–4 seats).
    """

    kind: str
    seat: int | None = None
    at: int = 0
    floor_kind: str | None = None
    by: tuple[int, ...] = ()
    late: tuple[int, ...] = ()
    seconds: int | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    resigned: tuple[int, ...] = ()
    played_on: tuple[PlayOn, ...] = ()

    def describe(self, seats: tuple[SeatInfo, ...]) -> str:
        """One line for people, e.g. "ended: seat 2 (Blue) did not reveal within 15 s …"."""

        def who(i: int) -> str:
            return seat_word(i, seats[i].team.name.capitalize())

        def names(seq: tuple[int, ...]) -> str:
            return ", ".join(who(i) for i in seq)

        def won() -> str:
            if not self.winners:
                return ""
            verb = "wins" if len(self.winners) == 1 else "win"
            return f"; {names(self.winners)} {verb}"

        played_on = ""
        notes = [p.describe(seats) for p in self.played_on]
        if self.resigned:
            notes.append(f"{names(self.resigned)} resigned; a stand-in played on")
        if notes:
            played_on = f" ({'; '.join(notes)})"
        if self.kind == FINISHED:
            return f"finished{played_on}{won()}"
        if self.kind == CLAIMED:
            assert self.seat is not None and self.floor_kind is not None
            text = (
                f"ended: {who(self.seat)} did not {_OWED.get(self.floor_kind, 'answer')} within "
                f"{self.seconds} s of entry {self.at - 1} (claimed by {names(self.by)})"
            )
            if self.late:
                text += (
                    f"; its late answer (entry {self.late[0]}"
                    f"{'' if len(self.late) == 1 else f'–{self.late[-1]}'}) came after the claim"
                )
            return text + played_on + won()  # (a resigned seat cannot win, §10.5)
        if self.kind == NEVER_STARTED:
            assert self.seat is not None
            text = (
                f"never started: {who(self.seat)} signed nothing in this game "
                f"(claimed by {names(self.by)})"
            )
            if self.late:
                text += f"; its commitments (entry {self.late[0]}) came after the claim"
            return text + "; no result"
        if self.kind == RESIGNED:
            assert self.seat is not None
            return f"resigned: {who(self.seat)} resigned at entry {self.at}{won()}"
        if self.kind == LEFT:
            assert self.seat is not None
            return (
                f"left: {who(self.seat)} resigned at entry {self.at} (a stand-in takes its seat); "
                "the log stops there: no result"
            )
        if self.seat is None:
            return f"abandoned at entry {self.at}"
        awaited = _AWAITED.get(self.floor_kind or "", "an entry")
        waiting = f"waiting for {awaited} from {who(self.seat)}"
        if self.never_started:
            return (
                f"abandoned at entry {self.at}: {waiting}, which signed nothing in this game: "
                "never started, no result"
            )
        return f"abandoned at entry {self.at}: {waiting}{played_on}"

    @property
    def never_started(self) -> bool:
        """The game never started: claimed (or stopped) while a seat that had signed nothing
        owed its first entry, its `commit` (PROTOCOL.md §3.2, §10.5). Seat 0 signed the genesis."""
        if self.kind == NEVER_STARTED:
            return True
        return (
            self.kind == ABANDONED
            and self.floor_kind == Kind.COMMIT
            and self.seat is not None
            and self.seat != 0
        )


def forfeit_winners(
    totals: tuple[int, ...], loser: int, out: tuple[int, ...] = ()
) -> tuple[int, ...]:
    """Winners when `loser` forfeits: the other seats (not in `out`) with the highest total."""
    rest = [i for i in range(len(totals)) if i != loser and i not in out]
    if not rest:
        return ()
    best = max(totals[i] for i in rest)
    return tuple(i for i in rest if totals[i] == best)


__all__ = [
    "ABANDONED",
    "CLAIMED",
    "DEFAULT_MOVE_TIME",
    "DEFAULT_REVEAL_TIME",
    "FINISHED",
    "LEFT",
    "NEVER_STARTED",
    "RESIGNED",
    "Claimed",
    "Clocks",
    "Ending",
    "Floor",
    "PlayOn",
    "Resignation",
    "Resigned",
    "Vote",
    "forfeit_winners",
    "parse_resignation",
    "parse_vote",
    "resign_bytes",
    "sign_resignation",
    "sign_vote",
    "signature_ok",
    "vote_bytes",
]
