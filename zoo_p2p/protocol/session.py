"""The session state machine (sans-I/O, h11 style): entry bytes in, events and entry bytes out.

One `Session` per seat (or per observer/auditor). It holds the log, knows at every point which
seat holds the floor and which entry kind is allowed (PROTOCOL.md §5), validates every incoming
entry (signature first, then seq, prev, floor, body), feeds the public rules `State` only what has
been revealed, and produces automatically every entry the local seat owes (commit, reveals, seed,
result). Moves are the only entries a human or bot decides: `Session.move`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from zoo_p2p.errors import CheatError, IllegalMoveError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.crypto import (
    check_public_key,
    public_key_bytes,
    public_key_from_bytes,
    sha256,
)
from zoo_p2p.protocol.deal import (
    COMMIT_SIZE,
    DEAL_TABLE,
    NONCE_SIZE,
    SALT_SIZE,
    SEED_SIZE,
    SeatTables,
    commitment,
    compose,
    first_player,
    mutant_copy,
    n_tables,
    nonce_commitment,
    nonce_from_seed,
    table_size,
)
from zoo_p2p.protocol.encoding import (
    ZERO_HASH,
    Entry,
    Kind,
    decode_entry,
    make_entry,
)
from zoo_p2p.protocol.events import (
    CardRevealed,
    CheatDetected,
    EntryAccepted,
    Event,
    Finished,
    Floor,
    GameOver,
    GameStarted,
    Gap,
    MoveApplied,
    MutantRevealed,
    ResultSigned,
    SeatInfo,
    SeedOpened,
    SeedsOpened,
)
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
    Resignation,
    Resigned,
    Vote,
    forfeit_winners,
    parse_resignation,
    resign_bytes,
    sign_resignation,
    sign_vote,
    signature_ok,
    vote_bytes,
)
from zoo_p2p.protocol.moves import decode_move, encode_move
from zoo_p2p.protocol.names import check_name
from zoo_p2p.protocol.standin import reference_move, stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import N_SQUARES, Move, State, Team, Variant
from zoo_p2p.text import seat_word

MAX_NAME_LEN = 32

Question = tuple[int, int]  # (table id, index in the composed table)


def _is_bin(x: Any, size: int) -> bool:
    return type(x) is bytes and len(x) == size


class Genesis:
    """The parsed genesis body: nonce, variant, seats, fixed first player (or None), clocks,
    and whether every seat may ask the expert for hints (§3.2)."""

    __slots__ = ("clocks", "first_player", "has_clocks", "hints", "nonce", "seats", "variant")

    def __init__(
        self,
        nonce: bytes,
        variant: Variant,
        seats: tuple[SeatInfo, ...],
        first: int | None,
        clocks: Clocks | None = None,
        hints: bool = False,
    ) -> None:
        self.nonce = nonce
        self.variant = variant
        self.seats = seats
        self.first_player = first
        self.has_clocks = clocks is not None or hints
        self.clocks = clocks or Clocks()
        self.hints = hints

    def to_body(self) -> list[Any]:
        """The genesis body as packed: [nonce, variant, [[name, key, team]...], first|nil,
        clocks, true] (a genesis without clocks, from before §10, has only the first four; the
        sixth element is there only when hints are allowed, §3.2)."""
        body: list[Any] = [
            self.nonce,
            self.variant.value,
            [[s.name, s.public_key, int(s.team)] for s in self.seats],
            self.first_player,
        ]
        if self.has_clocks:
            body.append(self.clocks.to_body())
        if self.hints:
            body.append(True)
        return body

    @classmethod
    def from_body(cls, body: Any) -> Genesis:
        """Validate and parse a genesis body (RemoteProtocolError naming what is wrong)."""
        if not (isinstance(body, list) and len(body) in (4, 5, 6)):
            raise RemoteProtocolError(
                "genesis body is not [nonce, variant, seats, first, clocks, hints]"
            )
        nonce, variant, seats, first = body[:4]
        clocks = Clocks.from_body(body[4]) if len(body) >= 5 else None
        if len(body) == 6 and body[5] is not True:
            raise RemoteProtocolError("genesis hints is not true (absent means not allowed)")
        hints = len(body) == 6
        if not _is_bin(nonce, NONCE_SIZE):
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
        return cls(nonce, Variant(variant), tuple(infos), first, clocks, hints)


class Session:
    """One peer's (or an auditor's) view of one game: the log, the floor and the public state."""

    # ------------------------------------------------------------------ construction
    @staticmethod
    def create_genesis(
        host_key: Ed25519PrivateKey,
        seats: Sequence[SeatInfo],
        variant: Variant,
        first_player: int | None,
        nonce: bytes,
        clocks: Clocks | None = None,
        *,
        hints: bool = False,
    ) -> bytes:
        """Build and sign the genesis entry (host = seat 0); LocalProtocolError on bad input.

        `clocks` (§10) default to `Clocks()`: 300 s a move, 15 s for what software computes.
        `hints` (§3.2): every seat may ask the expert; a seat that joins agrees to it."""
        g = Genesis(nonce, Variant(variant), tuple(seats), first_player, clocks or Clocks(), hints)
        body = g.to_body()
        try:
            Genesis.from_body(body)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(f"bad genesis: {exc.reason}") from None
        if public_key_bytes(host_key) != seats[0].public_key:
            raise LocalProtocolError("the host key must be seat 0's key")
        return make_entry(host_key, 0, ZERO_HASH, 0, Kind.GENESIS, body)

    def __init__(
        self,
        genesis: bytes,
        *,
        key: Ed25519PrivateKey | None = None,
        seed: bytes | None = None,
        nonce: bytes | None = None,
        tables: SeatTables | None = None,
    ) -> None:
        """Start from the genesis entry; with `key` and `seed` we play that key's seat.

        `tables` overrides the seed-derived tables (only tests use it, to play a cheater).
        """
        e = decode_entry(genesis)
        if e.seq != 0 or e.prev != ZERO_HASH or e.seat != 0 or e.kind != Kind.GENESIS:
            raise RemoteProtocolError(
                "not a genesis entry (seq 0, zero prev, seat 0)", entry=genesis
            )
        g = Genesis.from_body(e.body)
        try:
            self._pubs: list[Ed25519PublicKey] = [
                public_key_from_bytes(s.public_key) for s in g.seats
            ]
        except ValueError:
            raise RemoteProtocolError("a seat public key is invalid", entry=genesis) from None
        self.genesis = g
        self.n: int = len(g.seats)
        self._verify(e, 0)  # the genesis is signed by seat 0's key, read from its own body
        self.game_id: bytes = sha256(genesis)
        self.variant: Variant = g.variant
        self._general = g.variant is Variant.GENERAL
        self._n_tables = n_tables(self._general)
        self._entries: list[bytes] = [genesis]
        self._authors: list[int] = [0]
        self._head: bytes = self.game_id
        self._floor: Floor | None = Floor(0, Kind.COMMIT)
        self._stopped: CheatDetected | None = None
        # commitments: per seat, the nonce commitment and per table the 32-byte-chunk blob
        self._nonce_commits: list[bytes] = []
        self._commits: list[list[bytes]] = []
        self._commit_seq: list[int] = []
        self._nonces: list[bytes] = []
        # reveal bookkeeping: per seat, per table, output -> (input, seq of the revealing entry)
        self._images: list[list[dict[int, tuple[int, int]]]] = [
            [{} for _ in range(self._n_tables)] for _ in range(self.n)
        ]
        self._questions: list[Question] = []
        self._inputs: list[int] = []
        self._needs_seat: int = 0
        self.known_tokens: dict[int, int] = {}
        self.mutant_reveals: dict[tuple[int, int], bool] = {}  # (value, copy) -> is_mutant
        self.first_seat: int | None = None
        self.state: State | None = None
        self.final_scores: tuple[int, ...] | None = None
        self.opened_deal: SeedsOpened | None = None
        self._seeds: list[bytes] = []
        self._seat_tables: list[SeatTables] = []
        self.finished: bool = False
        # clocks, claims and resignations (§10)
        self.clocks: Clocks = g.clocks
        self._floors: list[Floor | None] = [None, self._floor]  # the floor at each log length
        self._totals_at: list[tuple[int, ...] | None] = [None, None]  # public totals, likewise
        self._turn_done = False  # set when a turn resolves: the totals must be recomputed
        self._votes: dict[int, Vote] = {}
        self._vote_at = 0  # the log length the held votes are about
        self._voted_at = 0  # we signed a vote at this log length: the floor holder is late
        self._adopt: list[Any] | None = None  # a claim body to append after our late answer
        self._resignations: dict[int, Resignation] = {}  # statements not yet in the log
        self.ending: Ending | None = None  # set by a claim, or a resignation in a 2-seat game
        self.resigned: dict[int, int] = {}  # seat -> index of its resign entry
        self.opened_seeds: dict[int, bytes] = {}  # seeds opened by resignations
        # resigned seat -> its stand-in's signing key (public to all) and tables, from its
        # opened seed (`opened_seeds`)
        self._stand_ins: dict[int, tuple[Ed25519PrivateKey, SeatTables]] = {}
        self._left = False  # we resigned: we sign nothing more
        # local seat
        self.seat: int | None = None
        self._tables: SeatTables | None = None
        self._my_commits: list[bytes] = []
        self._seed: bytes | None = None
        self._nonce: bytes | None = None
        self._key = key
        if key is not None:
            pk = public_key_bytes(key)
            mine = [i for i, s in enumerate(g.seats) if s.public_key == pk]
            if not mine:
                raise LocalProtocolError("our key is not one of the seats of this game")
            if seed is None or len(seed) != SEED_SIZE:
                raise LocalProtocolError("a playing seat needs a 32-byte secret seed")
            self.seat = mine[0]
            self._seed = seed
            self._tables = tables or SeatTables.from_seed(seed, self.game_id, general=self._general)
            self._my_commits = self._tables.commitments(self.game_id, self.seat)
            self._nonce = nonce if nonce is not None else nonce_from_seed(seed, self.game_id)
            if len(self._nonce) != NONCE_SIZE:
                raise LocalProtocolError("the first-player nonce must be 32 bytes")

    # ------------------------------------------------------------------ public surface
    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        """The seats as the genesis lists them."""
        return self.genesis.seats

    @property
    def floor(self) -> Floor | None:
        """Who may speak next and with which kind (None when finished or stopped)."""
        return None if self._stopped is not None else self._floor

    @property
    def entries(self) -> list[bytes]:
        """A copy of the log: every accepted entry, genesis first."""
        return list(self._entries)

    @property
    def stopped(self) -> CheatDetected | None:
        """The cheat that stopped this session, or None."""
        return self._stopped

    def __len__(self) -> int:
        return len(self._entries)

    def receive(self, raw: bytes) -> list[Event]:
        """Validate one entry from a peer and append it; return the events it caused.

        Returns [] for an exact duplicate of a held entry and [Gap(n)] for an entry from the
        future (not appended). Raises RemoteProtocolError (CheatError for provable cheating,
        which also stops the session) for anything wrong; the entry is then not appended.
        """
        if self._stopped is not None:
            c = self._stopped
            raise RemoteProtocolError(
                f"session stopped: {self.who(c.seat)} cheated ({c.reason})", entry=raw, seat=c.seat
            )
        try:
            e = decode_entry(raw)
        except RemoteProtocolError as exc:
            entry = raw if isinstance(raw, bytes) else None
            raise RemoteProtocolError(exc.reason, entry=entry) from None
        n_held = len(self._entries)
        if e.seq < n_held and self._entries[e.seq] == e.raw:
            return []
        if e.seat >= self.n:
            raise RemoteProtocolError(
                f"no seat {e.seat + 1} in this game of {self.n}", entry=e.raw, seat=e.seat
            )
        if not self._is_stand_in_resignation(e):  # (that one is checked byte for byte)
            self._verify(e, e.seat)
        if e.seq < n_held and e.kind == Kind.CLAIM:
            return self._claim_conflict(e)
        if e.seq == n_held and self._voted_at == n_held and e.kind != Kind.CLAIM:
            raise RemoteProtocolError(
                f"{self.who(e.seat)}'s {e.kind!r} came after we signed a claim at entry {n_held}",
                entry=e.raw,
                seat=e.seat,
            )
        if e.seq < n_held and e.seat in self._stand_ins and self._authors[e.seq] == e.seat:
            raise RemoteProtocolError(
                f"seq {e.seq} is already taken by the stand-in of {self.who(e.seat)}; another "
                "entry under its public key proves nothing (anyone can sign it, §10.4)",
                entry=e.raw,
            )
        if e.seq < n_held:
            held = self._entries[e.seq]
            # A fork is equivocation inside this chain: same seat, same seq, same predecessor.
            # An entry whose prev is not our entry seq-1 belongs to another chain (another game
            # between the same keys, say): rejected, never a cheat verdict against its signer.
            same_chain = e.seq > 0 and e.prev == sha256(self._entries[e.seq - 1])
            if same_chain and self._authors[e.seq] == e.seat:
                self._cheat(
                    e, e.seat, f"fork: two different entries signed for seq {e.seq}", (e.raw, held)
                )
            if e.seq == 0:
                what = "another game's genesis"
            elif not same_chain:
                what = "an entry of another game or chain (its prev is not our previous entry)"
            else:
                what = "a conflicting entry"
            raise RemoteProtocolError(
                f"seq {e.seq} is already taken; this is {what}", entry=e.raw, seat=e.seat
            )
        if e.seq > n_held:
            return [Gap(n_held)]
        if e.seat in self._stand_ins:
            self._check_stand_in(e)
        return self._accept(e, local=False)

    def _check_stand_in(self, e: Entry) -> None:
        """A stand-in's entry stands only if it is byte for byte the one every peer computes
        (§10.4). Its key is public, so a different one proves nothing about who made it: it is
        rejected naming no seat."""
        want = self.stand_in_entry()
        if want == e.raw:
            return
        who = f"the stand-in of {self.who(e.seat)}"
        if want is None:
            why = f"{who} does not hold the floor (floor: {self._floor})"
        else:
            w = decode_entry(want)
            what = f"move {decode_move(w.body)}" if w.kind == Kind.MOVE else repr(w.kind)
            got = e.kind
            if e.kind == Kind.MOVE:
                try:
                    got = f"move {decode_move(e.body)}"
                except RemoteProtocolError:
                    got = "a malformed move"
            why = (
                f"not the entry {who} plays here: the reference policy gives {what}, this is "
                f"{got} (every peer computes the stand-in's entries, §10.4)"
            )
        raise RemoteProtocolError(why, entry=e.raw)

    def signer_at(self, raw: bytes) -> int | None:
        """The seat whose own valid signature puts `raw` on this log's chain, else None.

        That is: `raw` decodes, names a seat of this game, carries that seat's valid signature,
        and was signed either at the head (seq = log length, prev = hash of the last entry) or
        at a held seq with the same predecessor and the same author as the held entry (a fork).
        Only such an entry, when rejected, proves something against its author (PROTOCOL.md
        §8); anything else (bad signature, unknown seat, another chain) convicts nobody.
        """
        try:
            e = decode_entry(raw)
        except RemoteProtocolError:
            return None
        if e.seat >= self.n or e.seat in self._stand_ins:
            return None  # (a stand-in's key is public: its signature proves nothing)
        n_held = len(self._entries)
        if e.seq == n_held:
            chained = e.prev == self._head
        elif 0 < e.seq < n_held:
            chained = e.prev == sha256(self._entries[e.seq - 1]) and self._authors[e.seq] == e.seat
        else:
            chained = False
        if not chained:
            return None
        try:
            self._pubs[e.seat].verify(e.sig, e.payload)
        except InvalidSignature:
            return None
        return e.seat

    @property
    def left(self) -> bool:
        """True once we signed our resignation: we sign nothing more (§10.4)."""
        return self._left

    def take_outgoing(self) -> list[bytes]:
        """Entries this seat owes right now (commit, reveals, seed, result), already appended."""
        out: list[bytes] = []
        if self.seat is None or self._stopped is not None or self._left:
            return out
        while True:
            stand_in = self.stand_in_entry()  # a resigned seat's: every peer appends it (§10.4)
            if stand_in is not None:
                self._accept(decode_entry(stand_in), local=True)
                out.append(stand_in)
                continue
            liveness = self._owed_liveness()
            if liveness:
                out.extend(liveness)
                continue
            f = self._floor
            if f is None or f.seat != self.seat or f.kind == Kind.MOVE:
                return out
            raw = make_entry(
                self._key_or_fail(),
                len(self._entries),
                self._head,
                self.seat,
                f.kind,
                self._owed_body(f.kind),
            )
            self._accept(decode_entry(raw), local=True)
            out.append(raw)

    def stand_in_entry(self) -> bytes | None:
        """The entry a resigned seat's stand-in owes now, or None (the floor is a playing seat's,
        or nobody's). A pure function of the log (§10.4): its key is derived from the opened seed,
        its links, seed and result from that seed, its move from the reference policy; Ed25519
        signatures are deterministic, so every peer computes these very bytes. Not appended."""
        f = self._floor
        if self._stopped is not None or f is None or f.seat not in self._stand_ins:
            return None
        key, tables = self._stand_ins[f.seat]
        body: Any
        if f.kind == Kind.MOVE:
            assert self.state is not None
            body = encode_move(reference_move(self.state))
        elif f.kind == Kind.REVEAL:
            body = [self._links_of(tables)]
        elif f.kind == Kind.SEED:
            body = [self.opened_seeds[f.seat]]
        elif f.kind == Kind.RESULT:
            body = [list(self.final_scores or ())]
        else:  # pragma: no cover - a resignation stands only after the opening round
            raise LocalProtocolError(f"a stand-in owes no {f.kind!r}")
        return make_entry(key, len(self._entries), self._head, f.seat, f.kind, body)

    def move(self, move: Move) -> bytes:
        """Play a move for the local seat; returns the entry (already appended) to broadcast."""
        if self._stopped is not None or self._left:
            raise LocalProtocolError("the session is stopped" if not self._left else "we resigned")
        f = self._floor
        if self.seat is None or f is None or f.kind != Kind.MOVE or f.seat != self.seat:
            raise LocalProtocolError(f"not our turn to move (floor: {f})")
        raw = make_entry(
            self._key_or_fail(),
            len(self._entries),
            self._head,
            self.seat,
            Kind.MOVE,
            encode_move(move),
        )
        self._accept(decode_entry(raw), local=True)
        return raw

    # ------------------------------------------------------------------ internals
    def _key_or_fail(self) -> Ed25519PrivateKey:
        if self._key is None:
            raise LocalProtocolError("an observer cannot write entries")
        return self._key

    def _verify(self, e: Entry, seat: int) -> None:
        try:
            self._pubs[seat].verify(e.sig, e.payload)
        except InvalidSignature:
            raise RemoteProtocolError(
                f"bad signature: not {self.who(seat)}'s key", entry=e.raw, seat=seat
            ) from None

    def who(self, seat: int) -> str:
        """How people read a seat of this game: `seat 2 (Blue)` (1-based, with its team)."""
        if 0 <= seat < self.n:
            return seat_word(seat, self.seats[seat].team.label)
        return seat_word(seat)

    def _reject(self, e: Entry, reason: str) -> RemoteProtocolError:
        return RemoteProtocolError(reason, entry=e.raw, seat=e.seat)

    def _cheat(self, e: Entry, seat: int, reason: str, evidence: tuple[bytes, ...]) -> None:
        ev = CheatDetected(seat, reason, evidence)
        self._stopped = ev
        raise CheatError(
            f"{self.who(seat)} cheated: {reason}", entry=e.raw, seat=seat, evidence=evidence
        )

    def _accept(self, e: Entry, *, local: bool) -> list[Event]:
        """Check an entry at the head of the log (signature already checked), apply, append."""
        if self._floor is None and not (e.kind == Kind.CLAIM and self.ending is None):
            raise self._reject(e, "the game is finished: no entry is expected")
        if e.prev != self._head:
            raise self._reject(
                e, "prev_hash does not match the previous entry (another game, or a fork)"
            )
        f = self._floor
        if e.kind in (Kind.CLAIM, Kind.RESIGN):
            pass  # who may append these is checked by their handlers (§10)
        elif f is None:  # pragma: no cover - refused above
            raise self._reject(e, "the game is finished: no entry is expected")
        elif e.seat != f.seat or e.kind != f.kind:
            raise self._reject(
                e,
                f"out of turn: {self.who(e.seat)} sent {e.kind!r} but the floor is "
                f"{self.who(f.seat)}'s, for {f.kind!r}",
            )
        shape = _SHAPES.get(e.kind)
        why = None if shape is None else shape(e.body, self.n, self._general)
        if why is not None:
            if local:
                raise LocalProtocolError(f"our own {e.kind} body is malformed: {why}")
            raise self._reject(e, f"{e.kind} body: {why}")
        handler = _HANDLERS[e.kind]
        events = handler(self, e, local)
        self._entries.append(e.raw)
        self._authors.append(e.seat)
        self._head = sha256(e.raw)
        self._floors.append(self._floor)
        st = self.state
        last = self._totals_at[-1]
        if st is None:
            self._totals_at.append(None)
        elif last is None or self._turn_done or e.kind == Kind.MOVE:  # the totals changed
            self._totals_at.append(tuple(x.total for x in st.scores()))
        else:
            self._totals_at.append(last)
        self._turn_done = False
        events.insert(0, EntryAccepted(e.seq, e.seat, e.kind))
        return events

    def _next_seat_or(self, seat: int) -> int | None:
        return seat + 1 if seat + 1 < self.n else None

    # --- commit -------------------------------------------------------------------
    def _on_commit(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 2 and _is_bin(b[0], COMMIT_SIZE)):
            raise self._reject(e, "commit body is not [nonce_commitment, tables]")
        tables = b[1]
        if not (isinstance(tables, list) and len(tables) == self._n_tables):
            raise self._reject(e, f"commit must hold {self._n_tables} tables")
        for t, blob in enumerate(tables):
            if not _is_bin(blob, table_size(t) * COMMIT_SIZE):
                raise self._reject(e, f"commit table {t} has the wrong size")
        self._nonce_commits.append(b[0])
        self._commits.append(list(tables))
        self._commit_seq.append(e.seq)
        nxt = self._next_seat_or(e.seat)
        if nxt is not None:
            self._floor = Floor(nxt, Kind.COMMIT)
        else:
            self._start_round([(DEAL_TABLE, s) for s in range(N_SQUARES)])
            self._floor = Floor(0, Kind.OPEN)
        return []

    # --- reveal chains ---------------------------------------------------------------
    def _start_round(self, questions: list[Question]) -> None:
        self._questions = questions
        self._inputs = [idx for _, idx in questions]

    def _my_links(self) -> list[list[Any]]:
        assert self._tables is not None
        return self._links_of(self._tables)

    def _links_of(self, tables: SeatTables) -> list[list[Any]]:
        return [
            [tables.tables[t][x], tables.salts[t][x]]
            for (t, _), x in zip(self._questions, self._inputs, strict=True)
        ]

    def _check_links(self, e: Entry, links: Any) -> list[int]:
        """Check one seat's links of the current round; return the new chain values."""
        qs = self._questions
        if not (isinstance(links, list) and len(links) == len(qs)):
            raise self._reject(e, f"expected {len(qs)} reveal links")
        seat = e.seat
        commits = self._commits[seat]
        images = self._images[seat]
        outs: list[int] = []
        fresh: dict[tuple[int, int], int] = {}
        for (t, _), x, link in zip(qs, self._inputs, links, strict=True):
            if not (
                isinstance(link, list)
                and len(link) == 2
                and type(link[0]) is int
                and _is_bin(link[1], SALT_SIZE)
            ):
                raise self._reject(e, "a reveal link is not [value, salt]")
            v, salt = link
            want = commits[t][x * COMMIT_SIZE : (x + 1) * COMMIT_SIZE]
            if not 0 <= v <= 255 or commitment(self.game_id, seat, t, x, v, salt) != want:
                self._cheat(
                    e,
                    seat,
                    f"reveal of table {t} index {x} does not match its commitment",
                    (e.raw, self._entries[self._commit_seq[seat]]),
                )
            if v >= table_size(t):
                self._cheat(
                    e,
                    seat,
                    f"table {t} maps {x} to {v}: not a permutation",
                    (e.raw, self._entries[self._commit_seq[seat]]),
                )
            prior = images[t].get(v)
            if (prior is not None and prior[0] != x) or fresh.get((t, v), x) != x:
                ev: tuple[bytes, ...] = (e.raw,)
                if prior is not None:
                    ev += (self._entries[prior[1]],)
                self._cheat(
                    e,
                    seat,
                    f"table {t} maps two indices to {v}: not a permutation (duplicate card)",
                    ev,
                )
            fresh[(t, v)] = x
            outs.append(v)
        return outs

    def _record_links(self, seat: int, seq: int, outs: list[int]) -> None:
        images = self._images[seat]
        for (t, _), x, v in zip(self._questions, self._inputs, outs, strict=True):
            images[t][v] = (x, seq)
        self._inputs = outs

    def _on_open(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 2 and _is_bin(b[0], NONCE_SIZE)):
            raise self._reject(e, "open body is not [nonce, links]")
        if nonce_commitment(self.game_id, e.seat, b[0]) != self._nonce_commits[e.seat]:
            self._cheat(
                e,
                e.seat,
                "first-player nonce does not match its commitment",
                (e.raw, self._entries[self._commit_seq[e.seat]]),
            )
        outs = self._check_links(e, b[1])
        events: list[Event] = []
        if e.seat + 1 == self.n:
            tokens = outs
            top_values = [t // 10 for t in tokens]
            nonces = [*self._nonces, b[0]]
            first = self.genesis.first_player
            if first is None:
                first = first_player(self.game_id, nonces)
            try:
                state = State.new(
                    [s.team for s in self.seats],
                    top_values,
                    variant=self.variant,
                    first_seat=first,
                )
            except ValueError as exc:  # impossible once every link is injective
                raise self._reject(e, f"the revealed top cards are impossible: {exc}") from None
            self._record_links(e.seat, e.seq, outs)
            self._nonces.append(b[0])
            self.state = state
            self.first_seat = first
            for sq, tok in enumerate(tokens):
                self.known_tokens[sq] = tok
                events.append(CardRevealed(sq, tok // 10, 1))
            events.append(GameStarted(first))
            self._questions = []
            self._after_turn(events)
        else:
            self._record_links(e.seat, e.seq, outs)
            self._nonces.append(b[0])
            self._floor = Floor(e.seat + 1, Kind.OPEN)
        return events

    def _after_turn(self, events: list[Event]) -> None:
        """Set the floor once a move (and its reveal round) is fully resolved."""
        st = self.state
        assert st is not None
        self._turn_done = True
        if st.is_terminal():
            totals = tuple(s.total for s in st.scores())
            self.final_scores = totals
            events.append(GameOver(totals, tuple(st.winners())))
            self._floor = Floor(0, Kind.SEED)
        else:
            self._floor = Floor(st.to_move, Kind.MOVE)

    def _on_move(self, e: Entry, local: bool) -> list[Event]:
        st = self.state
        assert st is not None
        try:
            mv = decode_move(e.body)
        except RemoteProtocolError as exc:
            if local:
                raise IllegalMoveError(exc.reason) from None
            raise self._reject(e, exc.reason) from None
        try:
            st.apply(mv)
        except IllegalMoveError as exc:
            if local:
                raise
            raise self._reject(e, f"illegal move {mv}: {exc}") from None
        events: list[Event] = [MoveApplied(e.seat, mv)]
        needs = st.needs
        if needs is None:
            self._after_turn(events)
            return events
        qs: list[Question] = []
        if needs.bottom:
            qs.append((DEAL_TABLE, N_SQUARES + needs.square))
        if needs.mutant_value is not None:
            slot = needs.square if needs.layer == 1 else N_SQUARES + needs.square
            tok = self.known_tokens[slot]
            if tok // 10 != needs.mutant_value:  # pragma: no cover - rules/protocol mismatch
                raise LocalProtocolError("captured card's token does not match its value")
            qs.append((1 + needs.mutant_value, tok % 10))
        self._needs_seat = e.seat
        self._start_round(qs)
        self._floor = Floor(0, Kind.REVEAL)
        return events

    def _on_reveal(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 1):
            raise self._reject(e, "reveal body is not [links]")
        outs = self._check_links(e, b[0])
        if e.seat + 1 < self.n:
            self._record_links(e.seat, e.seq, outs)
            self._floor = Floor(e.seat + 1, Kind.REVEAL)
            return []
        st = self.state
        assert st is not None and st.needs is not None
        needs = st.needs
        bottom: int | None = None
        mutant: bool | None = None
        events: list[Event] = []
        for (t, _), v in zip(self._questions, outs, strict=True):
            if t == DEAL_TABLE:
                bottom = v // 10
                events.append(CardRevealed(needs.square, bottom, 0))
            else:
                mutant = v == 0
                events.append(MutantRevealed(needs.square, t - 1, mutant, self._needs_seat))
        try:
            st.reveal(bottom=bottom, mutant=mutant)
        except ValueError as exc:  # impossible once every link is injective
            raise self._reject(e, f"the revealed card is impossible: {exc}") from None
        for (t, idx), v in zip(self._questions, outs, strict=True):
            if t == DEAL_TABLE:
                self.known_tokens[idx] = v
            else:
                self.mutant_reveals[(t - 1, idx)] = v == 0
        self._record_links(e.seat, e.seq, outs)
        self._questions = []
        self._after_turn(events)
        return events

    # --- end ---------------------------------------------------------------------------
    def _on_seed(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (isinstance(b, list) and len(b) == 1 and _is_bin(b[0], SEED_SIZE)):
            raise self._reject(e, "seed body is not [seed]")
        tables = SeatTables.from_seed(b[0], self.game_id, general=self._general)
        derived = tables.commitments(self.game_id, e.seat)
        for t, (got, want) in enumerate(zip(derived, self._commits[e.seat], strict=True)):
            if got != want:
                bad = next(
                    i
                    for i in range(table_size(t))
                    if got[i * 32 : i * 32 + 32] != want[i * 32 : i * 32 + 32]
                )
                self._cheat(
                    e,
                    e.seat,
                    f"opened seed does not match the commitment of table {t} index {bad} "
                    "(committed tables were not the seed's permutations)",
                    (e.raw, self._entries[self._commit_seq[e.seat]]),
                )
        for t, images in enumerate(self._images[e.seat]):
            for v, (x, seq) in images.items():
                if tables.tables[t][x] != v:  # pragma: no cover - implied by the commitments
                    self._cheat(
                        e,
                        e.seat,
                        f"opened seed contradicts the reveal of table {t} index {x}",
                        (e.raw, self._entries[seq]),
                    )
        self._seeds.append(b[0])
        self._seat_tables.append(tables)
        events: list[Event] = [SeedOpened(e.seat)]
        if e.seat + 1 < self.n:
            self._floor = Floor(e.seat + 1, Kind.SEED)
            return events
        deal = compose([st.tables[DEAL_TABLE] for st in self._seat_tables])
        for slot, tok in self.known_tokens.items():
            if deal[slot] != tok:  # pragma: no cover - implied by the commitment checks
                raise self._reject(e, f"slot {slot} revealed {tok} but the seeds give {deal[slot]}")
        copies: tuple[int, ...] = ()
        if not self._general:
            copies = tuple(
                mutant_copy(compose([st.tables[1 + v] for st in self._seat_tables]))
                for v in range(4)
            )
        self.opened_deal = SeedsOpened(tuple(deal), copies)
        events.append(self.opened_deal)
        self._floor = Floor(0, Kind.RESULT)
        return events

    def _on_result(self, e: Entry, local: bool) -> list[Event]:
        b = e.body
        if not (
            isinstance(b, list)
            and len(b) == 1
            and isinstance(b[0], list)
            and all(type(x) is int for x in b[0])
        ):
            raise self._reject(e, "result body is not [[total, ...]]")
        totals = tuple(b[0])
        if totals != self.final_scores:
            raise self._reject(e, f"signed result {totals} differs from scores {self.final_scores}")
        events: list[Event] = [ResultSigned(e.seat, totals)]
        if e.seat + 1 < self.n:
            self._floor = Floor(e.seat + 1, Kind.RESULT)
        else:
            self._floor = None
            self.finished = True
            events.append(Finished(totals))
        return events

    # --- clocks, claims, resignations (§10) ---------------------------------------------
    def time_allowed(self) -> int | None:
        """Seconds the floor holder has for the entry it owes now (None: nobody owes one)."""
        f = self.floor
        return None if f is None else self.clocks.for_kind(f.kind)

    def can_claim(self) -> bool:
        """True if we hold a seat and another seat holds the floor (so we may vote to claim)."""
        f = self.floor
        return (
            self.seat is not None
            and self._key is not None
            and f is not None
            and f.seat != self.seat
            and f.seat not in self.resigned  # a stand-in never stalls: every peer computes it
        )

    def vote_claim(self) -> Vote:
        """Sign our vote that the floor holder's time ran out at the current head.

        From now on we refuse the floor holder's entry at this position (the vote binds us), so
        no claim can be completed by the others while we go on with the late answer."""
        f = self.floor
        if not self.can_claim() or f is None or self.seat is None:
            raise LocalProtocolError("nobody else holds the floor: there is nothing to claim")
        at = len(self._entries)
        vote = sign_vote(self._key_or_fail(), self.game_id, at, self._head, f.seat, self.seat)
        self._voted_at = at
        self.add_vote(vote)
        return vote

    def release_vote(self) -> None:
        """Take back our binding vote (another voter went on with the floor holder's answer)."""
        self._voted_at = 0

    @property
    def voted(self) -> bool:
        """True while our vote against the floor holder at the current head binds us."""
        return self._voted_at == len(self._entries) and self._voted_at > 0

    def add_vote(self, vote: Vote) -> bool:
        """Keep a claim vote about the current head; False (dropped) if stale or wrong."""
        f = self.floor
        at = len(self._entries)
        if (
            f is None
            or vote.at != at
            or vote.claimed != f.seat
            or vote.seat == vote.claimed
            or not 0 <= vote.seat < self.n
            or vote.seat in self.resigned  # (a stand-in does not vote: its key is public)
            or vote.claimed in self.resigned
            or not signature_ok(
                self._pubs[vote.seat],
                vote.sig,
                vote_bytes(self.game_id, at, self._head, vote.claimed),
            )
        ):
            return False
        if self._vote_at != at:
            self._votes, self._vote_at = {}, at
        self._votes[vote.seat] = vote
        return True

    def votes_missing(self) -> list[int]:
        """Seats whose vote the claim against the current floor holder still lacks."""
        f = self.floor
        if f is None:
            return []
        have = self._votes if self._vote_at == len(self._entries) else {}
        return [
            i for i in range(self.n) if i != f.seat and i not in have and i not in self.resigned
        ]

    def resign(self) -> Resignation:
        """Sign our resignation: opens our seed and, with 3–4 seats, names the stand-in's key,
        derived from that seed (§10.4): from then on every peer computes the seat's entries.

        The statement is not an entry: the floor holder appends it (§10.4). Send it to all."""
        if self._left:
            raise LocalProtocolError("we resigned already")
        if self.seat is None or self._seed is None:
            raise LocalProtocolError("only a playing seat can resign")
        if self.state is None or self.floor is None:
            raise LocalProtocolError("a seat can resign only while the game is being played")
        stand_in = None
        if self.n > 2:
            if all(i in self.resigned for i in range(self.n) if i != self.seat):
                raise LocalProtocolError("every other seat has resigned: nobody would play on")
            stand_in = stand_in_public_key(self.game_id, self.seat, self._seed)
        r = sign_resignation(
            self._key_or_fail(), self.game_id, self.seat, len(self._entries), self._seed, stand_in
        )
        self._left = True  # we sign nothing more: the floor holder appends the resignation
        return r

    def add_resignation(self, r: Resignation) -> bool:
        """Keep a seat's signed resignation until it is in the log; False if it is not valid."""
        if (
            not 0 <= r.seat < self.n
            or r.seat in self.resigned
            or self.floor is None
            or self.state is None
            or r.new_key != self._stand_in_key_for(r)
            or not signature_ok(
                self._pubs[r.seat],
                r.sig,
                resign_bytes(self.game_id, r.seat, r.at, r.seed, r.new_key),
            )
        ):
            return False
        self._resignations[r.seat] = r
        return True

    def seat_key(self, seat: int) -> bytes:
        """The raw public key that signs for `seat` now (a stand-in's after a resignation)."""
        return public_key_bytes(self._pubs[seat])

    def _stand_in_key_for(self, r: Resignation) -> bytes | None:
        """The stand-in key resignation `r` must name: none with 2 seats, else the key derived
        from its opened seed (§10.4)."""
        if self.n == 2 or not 0 <= r.seat < self.n:
            return None
        return stand_in_public_key(self.game_id, r.seat, r.seed)

    def _resign_author(self, r: int) -> int | None:
        """The seat that appends `r`'s resignation (§10.4): the floor holder; when that is `r`,
        with 2 seats the other seat, with 3–4 seats `r` itself, i.e. its stand-in (the entry is
        signed with the derived key and computed by every peer, `_stand_in_resignation`). None
        while a stand-in holds the floor (its computed entry comes first) or when no other seat
        plays on."""
        f = self._floor
        if f is None or f.seat in self.resigned:
            return None
        if all(i in self.resigned for i in range(self.n) if i != r):
            return None
        if f.seat != r:
            return f.seat
        if self.n == 2:
            return 1 - r
        return r

    def _stand_in_resignation(self, r: Resignation) -> bytes:
        """The `resign` entry of seat `r.seat` while it holds the floor (3–4 seats): the first
        entry of its stand-in, signed with the key derived from the opened seed, a function of
        the log and the statement: every peer that holds the statement computes these bytes."""
        key = stand_in_private_key(self.game_id, r.seat, r.seed)
        return make_entry(key, len(self._entries), self._head, r.seat, Kind.RESIGN, r.to_body())

    def _is_stand_in_resignation(self, e: Entry) -> bool:
        """`e` claims to be a resigner's own `resign` entry at its floor, signed by its stand-in
        (§10.4): its signature is checked by `_on_resign` (byte for byte), not with the seat's
        genesis key."""
        f = self._floor
        return (
            self.n > 2
            and e.kind == Kind.RESIGN
            and e.seq == len(self._entries)
            and f is not None
            and f.seat == e.seat
            and e.seat not in self.resigned
        )

    def outcome(self) -> Ending:
        """How the game ended so far: finished, claimed, resigned, or abandoned (still open)."""
        if self.ending is not None:
            return self.ending
        out = tuple(sorted(self.resigned))
        if self.finished and self.final_scores is not None:
            totals = self.final_scores
            rest = [i for i in range(self.n) if i not in out] or list(range(self.n))
            best = max(totals[i] for i in rest)
            winners = tuple(i for i in rest if totals[i] == best)
            return Ending(FINISHED, scores=totals, winners=winners, resigned=out)
        f = self.floor
        last = max(self.resigned.values(), default=-1)
        if out and last == len(self._entries) - 1:  # the log stops at a resignation (3–4 seats)
            seat = next(i for i, at in self.resigned.items() if at == last)
            return Ending(
                LEFT,
                seat=seat,
                at=last,
                floor_kind=None if f is None else f.kind,
                resigned=out,
            )
        return Ending(
            ABANDONED,
            seat=None if f is None else f.seat,
            at=len(self._entries),
            floor_kind=None if f is None else f.kind,
            resigned=out,
        )

    def _totals(self) -> tuple[int, ...]:
        st = self.state
        if st is None:
            return tuple(0 for _ in range(self.n))
        return tuple(s.total for s in st.scores())

    def _owed_liveness(self) -> list[bytes]:
        """A claim to append (ours complete, or one to adopt), or a resignation we must append."""
        if self._adopt is not None:
            body, self._adopt = self._adopt, None
            return [self._append_local(Kind.CLAIM, body)]
        f = self._floor
        if f is None or self.seat is None:
            return []
        if self._vote_at == len(self._entries) and self._votes and not self.votes_missing():
            votes = [[v.seat, v.sig] for _, v in sorted(self._votes.items())]
            return [self._append_local(Kind.CLAIM, [f.seat, self._vote_at, votes])]
        for seat, r in sorted(self._resignations.items()):
            if seat in self.resigned or len(self._entries) < r.at:
                continue  # (wait until we hold everything the resigner held when it signed)
            author = self._resign_author(seat)
            if author == self.seat:
                return [self._append_local(Kind.RESIGN, r.to_body())]
            if author == seat:  # the resigner holds the floor: its stand-in appends it (§10.4)
                raw = self._stand_in_resignation(r)
                self._accept(decode_entry(raw), local=True)
                return [raw]
        return []

    def _append_local(self, kind: str, body: Any) -> bytes:
        assert self.seat is not None
        raw = make_entry(self._key_or_fail(), len(self._entries), self._head, self.seat, kind, body)
        self._accept(decode_entry(raw), local=True)
        return raw

    def _claim_check(self, e: Entry, c: int) -> tuple[int, int, tuple[int, ...]]:
        """Check a claim body for position `c` of our log: (claimed, at, voters) or raise."""
        b = e.body
        if not (
            isinstance(b, list)
            and len(b) == 3
            and type(b[0]) is int
            and type(b[1]) is int
            and isinstance(b[2], list)
        ):
            raise self._reject(e, "claim body is not [claimed, at, votes]")
        claimed, at, votes = b
        if not 1 <= at <= c or at >= len(self._floors):
            raise self._reject(e, f"a claim about entry {at} cannot stand at entry {c}")
        floor = self._floors[at]
        if floor is None or floor.seat != claimed:
            raise self._reject(e, f"{self.who(claimed)} did not hold the floor at entry {at}")
        out = {i for i, k in self.resigned.items() if k < at}  # stand-ins at that head
        if claimed in out:
            raise self._reject(
                e,
                f"{self.who(claimed)} is a stand-in at entry {at}: every peer computes its entries",
            )
        late = [k for k in range(at, c) if self._authors[k] != claimed]
        if late:
            raise self._reject(
                e, f"entry {late[0]} after the claimed position is not the claimed seat's"
            )
        head = sha256(self._entries[at - 1])
        want = [i for i in range(self.n) if i != claimed and i not in out]
        if not (
            len(votes) == len(want)
            and all(
                isinstance(v, list) and len(v) == 2 and v[0] == i and type(v[1]) is bytes
                for v, i in zip(votes, want, strict=False)
            )
        ):
            raise self._reject(e, f"a claim needs one vote from each of seats {want}, in order")
        msg = vote_bytes(self.game_id, at, head, claimed)
        for seat, sig in votes:
            if not signature_ok(self._pubs[seat], sig, msg):
                raise self._reject(e, f"{self.who(seat)}'s claim vote does not verify")
        return claimed, at, tuple(want)

    def _on_claim(self, e: Entry, local: bool) -> list[Event]:
        claimed, at, by = self._claim_check(e, e.seq)
        floor = self._floors[at]
        assert floor is not None
        late = tuple(range(at, e.seq))
        seconds = self.clocks.for_kind(floor.kind)
        if claimed not in self._authors[:at]:
            # the claimed seat signed no entry up to the head the votes name (it owed its first
            # commit): it never took its seat, so the game never started and nobody wins (§10.5)
            kind = NEVER_STARTED
            scores: tuple[int, ...] | None = None
            winners: tuple[int, ...] = ()
            resigned: tuple[int, ...] = ()
        else:
            kind, resigned = CLAIMED, tuple(sorted(self.resigned))
            scores = self._totals_at[at] or tuple(0 for _ in range(self.n))  # at the claimed head
            winners = forfeit_winners(scores, claimed)
        self.ending = Ending(
            kind,
            seat=claimed,
            at=at,
            floor_kind=floor.kind,
            by=by,
            late=late,
            seconds=seconds,
            scores=scores,
            winners=winners,
            resigned=resigned,
        )
        self._floor = None
        self.finished = True
        self._votes = {}
        return [Claimed(claimed, at, by)]

    def _claim_conflict(self, e: Entry) -> list[Event]:
        """A claim for a position we already filled: the same claim (ignored), or a claim we must
        adopt because what we hold there are the claimed seat's late answers (ours, say)."""
        held = decode_entry(self._entries[e.seq])
        if held.kind == Kind.CLAIM and held.body == e.body:
            return []
        if self.ending is not None or self._key is None or self.seat is None:
            raise RemoteProtocolError(
                f"seq {e.seq} is already taken; this claim conflicts with our log",
                entry=e.raw,
                seat=e.seat,
            )
        self._claim_check(e, len(self._entries))  # valid on top of what we hold?
        self._adopt = e.body
        return [Claimed(e.body[0], e.body[1], ())]

    def _on_resign(self, e: Entry, local: bool) -> list[Event]:
        try:
            r = parse_resignation(e.body)
        except RemoteProtocolError as exc:
            raise self._reject(e, exc.reason) from None
        f = self._floor
        if self.state is None or f is None:
            raise self._reject(e, "a resignation stands only while the game is being played")
        if not 0 <= r.seat < self.n or r.seat in self.resigned:
            raise self._reject(e, f"{self.who(r.seat)} cannot resign here")
        if f.seat in self.resigned:
            raise self._reject(
                e, f"the stand-in of {self.who(f.seat)} holds the floor: its entry comes first"
            )
        author = self._resign_author(r.seat)
        if author is None:
            raise self._reject(e, "every other seat has resigned: nobody would play on")
        if e.seat != author:
            who = "its stand-in" if author == r.seat else self.who(author)
            raise self._reject(e, f"{who} appends this resignation, not {self.who(e.seat)}")
        if author == r.seat and e.raw != self._stand_in_resignation(r):
            raise self._reject(
                e,
                f"not the resign entry of {self.who(r.seat)}'s stand-in that every peer computes "
                "(signed with the key derived from its opened seed, §10.4)",
            )
        if e.seq < r.at:
            raise self._reject(e, f"a resignation signed at entry {r.at} cannot stand at {e.seq}")
        if not signature_ok(
            self._pubs[r.seat], r.sig, resign_bytes(self.game_id, r.seat, r.at, r.seed, r.new_key)
        ):
            raise self._reject(e, f"{self.who(r.seat)}'s resignation signature does not verify")
        if (self.n == 2) != (r.new_key is None):
            raise self._reject(e, "a stand-in key is needed with 3 or 4 seats, none with 2")
        derived = SeatTables.from_seed(r.seed, self.game_id, general=self._general).commitments(
            self.game_id, r.seat
        )
        if derived != self._commits[r.seat]:
            self._cheat(
                e,
                r.seat,
                "the seed opened by its resignation does not match its commitments",
                (e.raw, self._entries[self._commit_seq[r.seat]]),
            )
        self._resignations.pop(r.seat, None)
        if r.new_key is None:
            totals = self._totals()
            self.ending = Ending(
                RESIGNED,
                seat=r.seat,
                at=e.seq,
                floor_kind=f.kind,
                scores=totals,
                winners=forfeit_winners(totals, r.seat),
            )
            self._floor = None
            self.finished = True
            return [Resigned(r.seat, None)]
        key = stand_in_private_key(self.game_id, r.seat, r.seed)
        if r.new_key != public_key_bytes(key):
            raise self._reject(
                e, "the stand-in key is not the one derived from the opened seed (§10.4)"
            )
        if r.new_key in [public_key_bytes(p) for p in self._pubs]:  # pragma: no cover - SHA-256
            raise self._reject(e, "the stand-in key is already a seat's key")
        self._pubs[r.seat] = key.public_key()
        self._stand_ins[r.seat] = (
            key,
            SeatTables.from_seed(r.seed, self.game_id, general=self._general),
        )
        self.resigned[r.seat] = e.seq
        self.opened_seeds[r.seat] = r.seed
        if self.seat == r.seat:
            self.seat, self._key = None, None  # our seat went to the stand-in
        return [Resigned(r.seat, r.new_key)]

    def _owed_body(self, kind: str) -> Any:
        assert self._tables is not None and self._nonce is not None and self._seed is not None
        assert self.seat is not None
        if kind == Kind.COMMIT:
            return [nonce_commitment(self.game_id, self.seat, self._nonce), self._my_commits]
        if kind == Kind.OPEN:
            return [self._nonce, self._my_links()]
        if kind == Kind.REVEAL:
            return [self._my_links()]
        if kind == Kind.SEED:
            return [self._seed]
        if kind == Kind.RESULT:
            return [list(self.final_scores or ())]
        raise LocalProtocolError(f"nothing automatic to send for {kind!r}")  # pragma: no cover


def _links_shape(links: Any, lo: int, hi: int) -> str | None:
    if not (isinstance(links, list) and lo <= len(links) <= hi):
        return f"expected {lo}..{hi} links" if lo != hi else f"expected {lo} links"
    for link in links:
        if not (
            isinstance(link, list)
            and len(link) == 2
            and type(link[0]) is int
            and 0 <= link[0] <= 255
            and _is_bin(link[1], SALT_SIZE)
        ):
            return "a link is not [value 0..255, salt: bin(32)]"
    return None


def _commit_shape(b: Any, n: int, general: bool) -> str | None:
    count = n_tables(general)
    if not (isinstance(b, list) and len(b) == 2 and _is_bin(b[0], COMMIT_SIZE)):
        return "not [nonce_commitment: bin(32), tables]"
    if not (isinstance(b[1], list) and len(b[1]) == count):
        return f"must hold {count} tables"
    for t, blob in enumerate(b[1]):
        if not _is_bin(blob, table_size(t) * COMMIT_SIZE):
            return f"table {t} is not bin({table_size(t) * COMMIT_SIZE})"
    return None


def _open_shape(b: Any, n: int, general: bool) -> str | None:
    if not (isinstance(b, list) and len(b) == 2 and _is_bin(b[0], NONCE_SIZE)):
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
    if not (isinstance(b, list) and len(b) == 1 and _is_bin(b[0], SEED_SIZE)):
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
_SHAPES = {
    Kind.COMMIT: _commit_shape,
    Kind.OPEN: _open_shape,
    Kind.MOVE: _move_shape,
    Kind.REVEAL: _reveal_shape,
    Kind.SEED: _seed_shape,
    Kind.RESULT: _result_shape,
}

_HANDLERS = {
    Kind.CLAIM: Session._on_claim,
    Kind.RESIGN: Session._on_resign,
    Kind.COMMIT: Session._on_commit,
    Kind.OPEN: Session._on_open,
    Kind.MOVE: Session._on_move,
    Kind.REVEAL: Session._on_reveal,
    Kind.SEED: Session._on_seed,
    Kind.RESULT: Session._on_result,
}

__all__ = ["Genesis", "Session", "decode_move", "encode_move"]
