"""Who still stands in a game (PROTOCOL.md §10): claim votes, claims, resignations, stand-ins.

Pure. The part of a `Session` that decides how a game ends when a seat stops answering or
leaves: it keeps the claim votes about the current head and the resignation statements not yet
in the log, checks `claim` and `resign` entries, knows which seats resigned and the key and
tables of each one's stand-in, and gives the ending. It reads the session's log through `Log`
and never writes to it: the session appends every entry, holds the floor (§5) and stops on a
cheat. The bytes that votes and statements sign, and `Ending`, are in `liveness.py`; a
stand-in's key and move policy are in `standin.py`.
"""

from __future__ import annotations

from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.crypto import public_key_bytes, sha256
from zoo_p2p.protocol.deal import SeatTables
from zoo_p2p.protocol.encoding import Entry, Kind, make_entry
from zoo_p2p.protocol.events import Event, Floor
from zoo_p2p.protocol.liveness import (
    ABANDONED,
    CLAIMED,
    FINISHED,
    LEFT,
    NEVER_STARTED,
    RESIGNED,
    Claimed,
    Clocks,
    Ending,
    PlayOn,
    Resignation,
    Resigned,
    Vote,
    forfeit_winners,
    parse_resignation,
    resign_bytes,
    signature_ok,
    vote_bytes,
)
from zoo_p2p.protocol.redeal import claimed_stand_in_private_key
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import State

# a resignation stands only at these floors (§10.4), and a claim there may play on (§10.7)
PLAY_FLOORS = (Kind.MOVE, Kind.REVEAL, Kind.REDEAL)

Fault = tuple[str, tuple[bytes, ...]]  # what a resigner's own signature proves, and the entries


class Log(Protocol):
    """What the standing reads of the session that holds it (`Session` is one)."""

    @property
    def n(self) -> int: ...
    @property
    def game_id(self) -> bytes: ...
    @property
    def general(self) -> bool: ...
    @property
    def state(self) -> State | None: ...
    @property
    def floor(self) -> Floor | None: ...
    @property
    def head(self) -> bytes: ...
    def __len__(self) -> int: ...
    def entry(self, k: int) -> bytes: ...
    def author(self, k: int) -> int: ...
    def commit(self, seat: int) -> tuple[list[bytes], bytes] | None: ...
    def who(self, seat: int) -> str: ...


def _reject(e: Entry, reason: str) -> RemoteProtocolError:
    return RemoteProtocolError(reason, entry=e.raw, seat=e.seat)


class Standing:
    """The seats' standing in one game (§10): votes, claims, resignations and stand-ins."""

    def __init__(self, log: Log, keys: tuple[Ed25519PublicKey, ...], first: Floor | None) -> None:
        self._log = log
        # the genesis keys, never replaced: `_keys[r]` becomes r's stand-in key when r resigns,
        # but a vote or statement r signed before is checked with its own key (§10.3, §10.4)
        self._genesis_keys = keys
        self._keys: list[Ed25519PublicKey] = list(keys)
        self._floors: list[Floor | None] = [None, first]  # the floor at each log length
        self._totals: list[tuple[int, ...] | None] = [None, None]  # public totals, likewise
        self._votes: dict[int, Vote] = {}
        self._vote_at = 0  # the log length the held votes are about
        self._voted_at = 0  # we signed a vote at this log length: the floor holder is late
        self._adopt: list[Any] | None = None  # a claim body to append after our late answer
        self._statements: dict[int, Resignation] = {}  # statements not yet in the log
        self.ending: Ending | None = None  # set by a claim, or a resignation in a 2-seat game
        self.resigned: dict[int, int] = {}  # seat -> index of its resign entry
        self.opened_seeds: dict[int, bytes] = {}  # seeds opened by resignations
        # resigned (or claimed-out) seat -> its stand-in's signing key (public to all) and
        # tables (None for a claimed seat: its seed is never opened, §10.7)
        self._stand_ins: dict[int, tuple[Ed25519PrivateKey, SeatTables | None]] = {}
        self.claimed_out: dict[int, int] = {}  # seat -> index of the play-on claim against it
        self.played_on: list[PlayOn] = []  # each play-on claim, in log order (§10.7)
        self.play_on = False  # the genesis table rule (§10.7), set by the session
        self.left = False  # we resigned: we sign nothing more

    # ------------------------------------------------------------------ the log, entry by entry
    def record(self, floor: Floor | None, totals: tuple[int, ...] | None) -> None:
        """The floor and the public totals once the entry just appended is applied."""
        self._floors.append(floor)
        self._totals.append(totals)

    def last_totals(self) -> tuple[int, ...] | None:
        """The public totals at the head."""
        return self._totals[-1]

    def totals_at(self, length: int) -> tuple[int, ...] | None:
        """The public totals when the log had `length` entries."""
        return self._totals[length]

    def key(self, seat: int) -> Ed25519PublicKey:
        """The key that signs for `seat` now (its stand-in's once it resigned)."""
        return self._keys[seat]

    def stand_in(self, seat: int) -> tuple[Ed25519PrivateKey, SeatTables | None] | None:
        """The signing key (public to all) and tables of `seat`'s stand-in, or None (a claimed
        seat's stand-in has no tables: it takes part in no chain, §10.7)."""
        return self._stand_ins.get(seat)

    def replaced(self, seat: int) -> bool:
        """A stand-in plays `seat`: it resigned (§10.4) or was claimed out (§10.7)."""
        return seat in self.resigned or seat in self.claimed_out

    def out_before(self, at: int) -> set[int]:
        """The seats a stand-in played at log length `at` (their entry is before it)."""
        out = {i for i, k in self.resigned.items() if k < at}
        return out | {i for i, k in self.claimed_out.items() if k < at}

    def live(self) -> tuple[int, ...]:
        """The seats still playing (neither resigned nor claimed out), in seat order."""
        return tuple(i for i in range(self._log.n) if not self.replaced(i))

    def everyone_else_resigned(self, seat: int) -> bool:
        """Every seat but `seat` has resigned (or was claimed out): nobody would play on."""
        return all(self.replaced(i) for i in range(self._log.n) if i != seat)

    # ------------------------------------------------------------------ claim votes (§10.2)
    def can_claim(self, seat: int | None) -> bool:
        """`seat` is ours and another playing seat holds the floor."""
        f = self._log.floor
        return (
            seat is not None
            and f is not None
            and f.seat != seat
            and not self.replaced(f.seat)  # a stand-in never stalls: every peer computes it
        )

    def bind(self) -> None:
        """We signed a vote at the head: from now on we refuse the floor holder's entry here."""
        self._voted_at = len(self._log)

    def release_vote(self) -> None:
        """Take back our binding vote."""
        self._voted_at = 0

    @property
    def voted(self) -> bool:
        """True while our vote against the floor holder at the current head binds us."""
        return self._voted_at == len(self._log) and self._voted_at > 0

    def bound_against(self, e: Entry) -> bool:
        """We signed a vote at the head and `e`, at the head, is not a claim: we refuse it."""
        n_held = len(self._log)
        return e.seq == n_held and self._voted_at == n_held and e.kind != Kind.CLAIM

    def add_vote(self, vote: Vote) -> bool:
        """Keep a claim vote about the current head; False (dropped) if stale or wrong."""
        log = self._log
        f = log.floor
        at = len(log)
        if (
            f is None
            or vote.at != at
            or vote.claimed != f.seat
            or vote.seat == vote.claimed
            or not 0 <= vote.seat < log.n
            or self.replaced(vote.seat)  # (a stand-in does not vote: its key is public)
            or self.replaced(vote.claimed)
            or not signature_ok(
                self._keys[vote.seat],
                vote.sig,
                vote_bytes(log.game_id, at, log.head, vote.claimed),
            )
        ):
            return False
        if self._vote_at != at:
            self._votes, self._vote_at = {}, at
        self._votes[vote.seat] = vote
        return True

    def votes_missing(self) -> list[int]:
        """Seats whose vote the claim against the current floor holder still lacks."""
        f = self._log.floor
        if f is None:
            return []
        have = self._votes if self._vote_at == len(self._log) else {}
        return [
            i for i in range(self._log.n) if i != f.seat and i not in have and not self.replaced(i)
        ]

    def owed_claim(self) -> list[Any] | None:
        """The body of the claim we append now (our votes are complete), or None."""
        f = self._log.floor
        if f is None or self._vote_at != len(self._log) or not self._votes or self.votes_missing():
            return None
        votes = [[v.seat, v.sig] for _, v in sorted(self._votes.items())]
        return [f.seat, self._vote_at, votes]

    # ------------------------------------------------------------------ claims (§10.3)
    def check_claim(self, e: Entry, c: int, author: int) -> tuple[int, int, tuple[int, ...]]:
        """Check claim `e`'s body as entry `c` of our log appended by `author` (§10.3):
        (claimed, at, voters), or raise naming `e`'s signer."""
        b = e.body
        if not (
            isinstance(b, list)
            and len(b) == 3
            and type(b[0]) is int
            and type(b[1]) is int
            and isinstance(b[2], list)
        ):
            raise _reject(e, "claim body is not [claimed, at, votes]")
        claimed, at, votes = b
        if not 1 <= at <= c or at >= len(self._floors):
            raise _reject(e, f"a claim about entry {at} cannot stand at entry {c}")
        who = self._log.who
        if c > at and author != claimed:
            raise _reject(
                e,
                f"a claim after the head its votes name (entry {at - 1}) stands only as the "
                f"claimed seat's own, after its late answers; {who(author)} chained it on "
                f"entry {c - 1}",
            )
        floor = self._floors[at]
        if floor is None or floor.seat != claimed:
            raise _reject(e, f"{who(claimed)} did not hold the floor at entry {at}")
        out = self.out_before(at)  # stand-ins at that head
        if claimed in out:
            raise _reject(
                e, f"{who(claimed)} is a stand-in at entry {at}: every peer computes its entries"
            )
        late = [k for k in range(at, c) if not self._late_entry(k, claimed)]
        if late:
            raise _reject(
                e,
                f"entry {late[0]} after the claimed position is neither the claimed seat's nor a "
                "stand-in's",
            )
        want = [i for i in range(self._log.n) if i != claimed and i not in out]
        self._check_votes(e, claimed, at, votes, want)
        return claimed, at, tuple(want)

    def _check_votes(self, e: Entry, claimed: int, at: int, votes: Any, want: list[int]) -> None:
        if not want:
            raise _reject(
                e,
                f"every seat but {self._log.who(claimed)} had resigned by entry {at}: nobody can "
                "vote (a stand-in never does), so no claim stands against it",
            )
        if not (
            isinstance(votes, list)
            and len(votes) == len(want)
            and all(
                isinstance(v, list) and len(v) == 2 and v[0] == i and type(v[1]) is bytes
                for v, i in zip(votes, want, strict=False)
            )
        ):
            raise _reject(e, f"a claim needs one vote from each of seats {want}, in order")
        msg = vote_bytes(self._log.game_id, at, sha256(self._log.entry(at - 1)), claimed)
        for seat, sig in votes:
            if not signature_ok(self._genesis_keys[seat], sig, msg):
                raise _reject(e, f"{self._log.who(seat)}'s claim vote does not verify")

    def _late_entry(self, k: int, claimed: int) -> bool:
        """Entry `k` may stand between a claim's head and the claimed seat's own claim (§10.3):
        the claimed seat's late answer, or a stand-in's entry that every peer computes after it
        (a seat resigned by then; its `resign` entry, when its stand-in appended it, included)."""
        a = self._log.author(k)
        if a in self.claimed_out and self.claimed_out[a] < k:
            return True
        return a == claimed or (a in self.resigned and self.resigned[a] <= k)

    def plays_on(self, e: Entry) -> bool:
        """Claim `e` (checked, at the head) does not end the game but puts its seat out (§10.7):
        the table plays on, the claim is at the head its votes name, at a play floor, and at
        least two live seats remain after it."""
        claimed, at = e.body[0], e.body[1]
        return e.seq == at and self.would_play_on(claimed, at)

    def would_play_on(self, claimed: int, at: int) -> bool:
        """A claim against `claimed` at log length `at`, appended at the head its votes name,
        would play on (§10.7.2): the table plays on, the floor there was a play floor, and two
        live seats would remain."""
        floor = self._floors[at] if 0 < at < len(self._floors) else None
        return (
            self.play_on
            and floor is not None
            and floor.seat == claimed
            and floor.kind in PLAY_FLOORS
            and not self.replaced(claimed)
            and len([i for i in self.live() if i != claimed]) >= 2
        )

    def out_key(self, claimed: int, at: int) -> Ed25519PrivateKey:
        """The signing key (public to all) of `claimed`'s stand-in once a claim at log length
        `at` puts it out: derived from the game, the seat and the head the votes name (§10.7.6);
        it signs the play-on claim entry itself."""
        head = sha256(self._log.entry(at - 1))
        return claimed_stand_in_private_key(self._log.game_id, claimed, head)

    def play_on_claim(self, body: list[Any]) -> bytes:
        """The play-on claim entry every peer computes from a claim body (§10.7.2): authored by
        the claimed seat at the position its votes name, signed with its stand-in's key."""
        c, at = body[0], body[1]
        head = sha256(self._log.entry(at - 1))
        return make_entry(self.out_key(c, at), at, head, c, Kind.CLAIM, body)

    def play_on_claim_of(self, e: Entry) -> bytes | None:
        """The computed play-on claim, if `e` is shaped as one (a claim authored by the seat it
        claims, at the position its votes name, which would play on): `e` then stands only
        byte for byte as that entry (its key is public). None for any other entry."""
        b = e.body
        if not (
            e.kind == Kind.CLAIM
            and isinstance(b, list)
            and len(b) == 3
            and type(b[0]) is int
            and type(b[1]) is int
            and b[0] == e.seat
            and b[1] == e.seq
            and 1 <= e.seq <= len(self._log)
            and self.would_play_on(e.seat, e.seq)
        ):
            return None
        return self.play_on_claim(b)

    def put_out(self, e: Entry, play_on: PlayOn) -> list[Event]:
        """Apply play-on claim `e` (checked, `plays_on`): its seat is out, its stand-in's key
        derived from public data plays it on (§10.7)."""
        c = play_on.seat
        key = self.out_key(c, play_on.at)
        self._keys[c] = key.public_key()
        self._stand_ins[c] = (key, None)
        self.claimed_out[c] = e.seq
        self.played_on.append(play_on)
        self._votes = {}
        return [Claimed(c, play_on.at, play_on.by)]

    def on_claim(self, e: Entry, clocks: Clocks) -> list[Event]:
        """Apply claim `e` at the head (`clocks`: the game's, for the seconds the claimed seat
        had)."""
        claimed, at, by = self.check_claim(e, e.seq, e.seat)
        floor = self._floors[at]
        assert floor is not None
        # what counts is the log before `at`, the head the votes name, so that every log of the
        # game gives the same ending, the claimed seat's own (with its late answers) included
        out = tuple(sorted(self.out_before(at)))
        if claimed not in (self._log.author(k) for k in range(at)):
            # the claimed seat signed no entry up to the head the votes name (it owed its first
            # commit): it never took its seat, so the game never started and nobody wins (§10.5)
            kind = NEVER_STARTED
            scores: tuple[int, ...] | None = None
            winners: tuple[int, ...] = ()
            resigned: tuple[int, ...] = ()
        else:
            kind, resigned = CLAIMED, out
            scores = self._totals[at] or tuple(0 for _ in range(self._log.n))  # the claimed head
            winners = forfeit_winners(scores, claimed, out)  # (a resigned seat cannot win)
        self.ending = Ending(
            kind,
            seat=claimed,
            at=at,
            floor_kind=floor.kind,
            by=by,
            late=tuple(range(at, e.seq)),
            seconds=clocks.for_kind(floor.kind),
            scores=scores,
            winners=winners,
            resigned=tuple(i for i in resigned if i in self.resigned),
            played_on=tuple(self.played_on),
        )
        self._votes = {}
        return [Claimed(claimed, at, by)]

    def adopt(self, e: Entry, seat: int) -> list[Event]:
        """Another seat's claim against us (`seat`) for a position we filled with our late
        answers: valid after what we hold, as ours? Then we append its body next (§10.3)."""
        self.check_claim(e, len(self._log), seat)
        self._adopt = e.body
        return [Claimed(e.body[0], e.body[1], ())]

    def take_adoption(self) -> list[Any] | None:
        """The claim body we adopted, once (None if none)."""
        body, self._adopt = self._adopt, None
        return body

    # ------------------------------------------------------------------ resignations (§10.4)
    def statement_signed(self, r: Resignation) -> bool:
        """`r` names a seat of this game and carries that seat's genesis-key signature."""
        return 0 <= r.seat < self._log.n and signature_ok(
            self._genesis_keys[r.seat],
            r.sig,
            resign_bytes(self._log.game_id, r.seat, r.at, r.seed, r.new_key),
        )

    def statement_fault(self, r: Resignation) -> Fault | None:
        """What the resigner's own signature on `r` proves wrong (§10.4), with the entries that
        show it, or None. Only fixed functions of the game and the seat: an honest statement
        never has a fault, wherever and whenever it is checked."""
        log = self._log
        if log.n == 2 and r.new_key is not None:
            return "its resignation names a stand-in key in a 2-seat game (it must be nil)", ()
        if log.n > 2 and r.new_key != stand_in_public_key(log.game_id, r.seat, r.seed):
            return (
                "its resignation's stand-in key is not the one derived from the opened seed "
                "(§10.4)",
                (),
            )
        held = log.commit(r.seat)
        if held is None:  # pragma: no cover - called after the opening round
            return None
        commits, commit_entry = held
        tables = SeatTables.from_seed(r.seed, log.game_id, general=log.general)
        if tables.commitments(log.game_id, r.seat) != commits:
            return (
                "the seed opened by its resignation does not match its commitments",
                (commit_entry,),
            )
        return None

    def keep(self, r: Resignation) -> bool:
        """Keep a signed, faultless statement until it is in the log; False if it can never
        stand any more."""
        if self.refusal(r, len(self._log), waiting=False) is not None:
            return False
        self._statements[r.seat] = r
        return True

    def refusal(self, r: Resignation, seq: int, *, waiting: bool = True) -> str | None:
        """Why a `resign` entry carrying `r` cannot stand at `seq` (the head), naming nobody by
        itself, or None (§10.4). `waiting=False` only asks whether it can never stand any more
        (what may still change is not a refusal: the log too short for `at`, a stand-in's entry
        due first)."""
        log = self._log
        f = log.floor
        if log.state is None or f is None:
            return "a resignation stands only while the game is being played"
        if f.kind not in PLAY_FLOORS:
            return (
                f"the game is decided (the floor is {log.who(f.seat)}'s, for {f.kind!r}): "
                "no resignation stands after the last move"
            )
        if not 0 <= r.seat < log.n or self.replaced(r.seat):
            return f"{log.who(r.seat)} cannot resign here"
        if self.everyone_else_resigned(r.seat):
            return "every other seat has resigned: nobody would play on"
        if waiting and self.replaced(f.seat):
            return f"the stand-in of {log.who(f.seat)} holds the floor: its entry comes first"
        if r.at < len(self._floors):
            then = self._floors[r.at]
            if then is None or then.kind not in PLAY_FLOORS:
                return f"a resignation signed at entry {r.at} was signed outside play"
        late = next((k for k in range(r.at, seq) if log.author(k) == r.seat), None)
        if late is not None:
            return (
                f"{log.who(r.seat)} signed entry {late} after its resignation (signed at entry "
                f"{r.at}): the statement no longer stands"
            )
        if waiting and seq < r.at:
            return f"a resignation signed at entry {r.at} cannot stand at {seq}"
        return None

    def author_of(self, r: int) -> int | None:
        """The seat that appends `r`'s resignation (§10.4): the floor holder; when that is `r`,
        with 2 seats the other seat, with 3–4 seats `r` itself, i.e. its stand-in (the entry is
        signed with the derived key and computed by every peer, `stand_in_resignation`). None
        while a stand-in holds the floor (its computed entry comes first) or when no other seat
        plays on."""
        f = self._log.floor
        if f is None or self.replaced(f.seat) or self.everyone_else_resigned(r):
            return None
        if f.seat != r:
            return f.seat
        return 1 - r if self._log.n == 2 else r

    def stand_in_resignation(self, r: Resignation) -> bytes:
        """The `resign` entry of seat `r.seat` while it holds the floor (3–4 seats): the first
        entry of its stand-in, signed with the key derived from the opened seed, a function of
        the log and the statement: every peer that holds the statement computes these bytes."""
        log = self._log
        key = stand_in_private_key(log.game_id, r.seat, r.seed)
        return make_entry(key, len(log), log.head, r.seat, Kind.RESIGN, r.to_body())

    def stand_in_resignation_of(self, e: Entry) -> Resignation | None:
        """The statement of `e` if `e` claims to be the one entry exempt from the genesis-key
        signature check (§6): the `resign` entry that the resigner's own stand-in appends while
        the resigner holds the floor (3–4 seats). Narrow: at the head, at the floor of the seat
        `e` names, a seat still playing, and the body is that very seat's resignation. The
        session then accepts it only byte for byte as `stand_in_resignation` computes it (signed
        with the key derived from the statement's seed); every other entry has its signature
        checked with its seat's genesis key."""
        f = self._log.floor
        if not (
            self._log.n > 2
            and e.kind == Kind.RESIGN
            and e.seq == len(self._log)
            and f is not None
            and f.seat == e.seat
            and not self.replaced(e.seat)
        ):
            return None
        try:
            r = parse_resignation(e.body)
        except RemoteProtocolError:
            return None
        return r if r.seat == e.seat else None

    def owed_resignation(self, seat: int) -> tuple[Resignation, bool] | None:
        """A held statement that can stand now and that we append: (it, True) when `seat` (ours)
        is its author, (it, False) when its resigner's stand-in is (every peer computes it)."""
        for r_seat, r in sorted(self._statements.items()):
            # (not yet: the log is shorter than the resigner's `at`, or a stand-in's entry comes
            # first; never any more: the game is decided, the resigner signed on after `at`)
            if self.refusal(r, len(self._log)) is not None:
                continue
            author = self.author_of(r_seat)
            if author == seat:
                return r, True
            if author == r_seat:
                return r, False
        return None

    def check_resign(self, e: Entry) -> Resignation:
        """The statement of `resign` entry `e` at the head, if `e` may carry it here: it can
        stand, `e`'s author appends it, and it is signed (its faults are the caller's)."""
        try:
            r = parse_resignation(e.body)
        except RemoteProtocolError as exc:
            raise _reject(e, exc.reason) from None
        why = self.refusal(r, e.seq)
        if why is not None:
            raise _reject(e, why)
        author = self.author_of(r.seat)
        assert author is not None  # (None is refused above: a stand-in's floor, nobody left)
        who = self._log.who
        if e.seat != author:
            by = "its stand-in" if author == r.seat else who(author)
            raise _reject(e, f"{by} appends this resignation, not {who(e.seat)}")
        if author == r.seat and e.raw != self.stand_in_resignation(r):
            raise _reject(
                e,
                f"not the resign entry of {who(r.seat)}'s stand-in that every peer computes "
                "(signed with the key derived from its opened seed, §10.4)",
            )
        if not self.statement_signed(r):
            raise _reject(e, f"{who(r.seat)}'s resignation signature does not verify")
        return r

    def on_resign(self, e: Entry, r: Resignation, totals: tuple[int, ...]) -> list[Event]:
        """Apply the checked resignation `r` of entry `e` (`totals`: the public totals at the
        head it follows, §10.5): a 2-seat game ends; else `r.seat`'s stand-in plays on."""
        f = self._log.floor
        assert f is not None
        self._statements.pop(r.seat, None)
        if r.new_key is None:
            self.ending = Ending(
                RESIGNED,
                seat=r.seat,
                at=e.seq,
                floor_kind=f.kind,
                scores=totals,
                winners=forfeit_winners(totals, r.seat),
            )
            return [Resigned(r.seat, None)]
        game_id = self._log.game_id
        key = stand_in_private_key(game_id, r.seat, r.seed)
        if r.new_key in [public_key_bytes(p) for p in self._keys]:  # pragma: no cover - SHA-256
            raise _reject(e, "the stand-in key is already a seat's key")
        self._keys[r.seat] = key.public_key()
        tables = SeatTables.from_seed(r.seed, game_id, general=self._log.general)
        self._stand_ins[r.seat] = (key, tables)
        self.resigned[r.seat] = e.seq
        self.opened_seeds[r.seat] = r.seed
        return [Resigned(r.seat, r.new_key)]

    # ------------------------------------------------------------------ the ending
    def outcome(self, final_scores: tuple[int, ...] | None) -> Ending:
        """How the game ended so far: finished (`final_scores`, once every result is signed),
        claimed, resigned, or abandoned (still open)."""
        if self.ending is not None:
            return self.ending
        n = self._log.n
        out = tuple(sorted(self.resigned))
        played_on = tuple(self.played_on)
        if final_scores is not None:
            rest = [i for i in range(n) if not self.replaced(i)] or list(range(n))
            best = max(final_scores[i] for i in rest)
            winners = tuple(i for i in rest if final_scores[i] == best)
            return Ending(
                FINISHED, scores=final_scores, winners=winners, resigned=out, played_on=played_on
            )
        f = self._log.floor
        last = max(self.resigned.values(), default=-1)
        if out and last == len(self._log) - 1:  # the log stops at a resignation (3–4 seats)
            seat = next(i for i, at in self.resigned.items() if at == last)
            return Ending(
                LEFT,
                seat=seat,
                at=last,
                floor_kind=None if f is None else f.kind,
                resigned=out,
                played_on=played_on,
            )
        return Ending(
            ABANDONED,
            seat=None if f is None else f.seat,
            at=len(self._log),
            floor_kind=None if f is None else f.kind,
            resigned=out,
            played_on=played_on,
        )


__all__ = ["PLAY_FLOORS", "Fault", "Log", "Standing"]
