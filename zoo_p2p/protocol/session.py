"""The session state machine (sans-I/O, h11 style): entry bytes in, events and entry bytes out.

One `Session` per seat (or per observer/auditor). It holds the log, knows at every point which
seat holds the floor and which entry kind is allowed (PROTOCOL.md §5), validates every incoming
entry (signature first, then seq, prev, floor, body), feeds the public rules `State` only what has
been revealed, and produces automatically every entry the local seat owes (commit, reveals, seed,
result). Moves are the only entries a human or bot decides: `Session.move`.

The floor is set in one place, `_floor_after` (the table of §5). Claims, votes, resignations and
stand-ins (§10) are decided by the session's `Standing` (`standing.py`), which reads the log
through a typed view (`standing.Log`) and never writes to it: the session appends every entry.
The genesis and the shape of every body are read in `bodies.py`.

`Session` is one class in parts: this module holds its construction, `receive`, `take_outgoing`,
`move`, `_accept` and the floor; `Dealing` (dealing.py) the fair deal's entries (commit, open,
moves and their reveal chains, seed, result); `Claiming` (claiming.py) clocks, claims,
resignations, stand-ins and play-on (§10); `SessionBase` (session_base.py) the state and the
checks every part uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.bodies import (
    ON_LEAVE_END,
    ON_LEAVE_PLAY_ON,
    ON_LEAVE_RULES,
    SHAPES,
    Genesis,
    open_genesis,
)
from zoo_p2p.protocol.claiming import Claiming
from zoo_p2p.protocol.crypto import public_key_bytes, sha256, verify_signature
from zoo_p2p.protocol.deal import NONCE_SIZE, SEED_SIZE, SeatTables, n_tables, nonce_from_seed
from zoo_p2p.protocol.dealing import Dealing
from zoo_p2p.protocol.encoding import ZERO_HASH, Entry, Kind, decode_entry, make_entry
from zoo_p2p.protocol.events import (
    CheatDetected,
    EntryAccepted,
    Event,
    Floor,
    Gap,
    SeatInfo,
    SeedsOpened,
)
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.moves import decode_move, encode_move
from zoo_p2p.protocol.redeal import RedealRound
from zoo_p2p.protocol.session_base import Question
from zoo_p2p.protocol.standing import Standing
from zoo_p2p.rules import Move, State, Variant

MAX_NAME_LEN = 32


class Session(Claiming, Dealing):
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
        on_leave: str = ON_LEAVE_END,
    ) -> bytes:
        """Build and sign the genesis entry (host = seat 0); LocalProtocolError on bad input.

        `clocks` (§10) default to `Clocks()`: 300 s a move, 15 s for what software computes.
        `hints` (§3.2): every seat may ask the expert; a seat that joins agrees to it.
        `on_leave` (§10.7): `play-on` (3–4 seats) or `end`, what a claim does."""
        if on_leave not in ON_LEAVE_RULES:
            raise LocalProtocolError(f"on_leave is {on_leave!r}, not one of {ON_LEAVE_RULES}")
        if on_leave == ON_LEAVE_PLAY_ON and len(seats) < 3:
            raise LocalProtocolError("a 2-seat game always ends with a claim (on_leave play-on)")
        g = Genesis(
            nonce, Variant(variant), tuple(seats), first_player, clocks or Clocks(), hints, on_leave
        )
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
        e, g, keys = open_genesis(genesis)
        self.genesis = g
        self.n: int = len(g.seats)
        self.game_id: bytes = sha256(genesis)
        self.variant: Variant = g.variant
        self.general: bool = g.variant is Variant.GENERAL
        self._n_tables = n_tables(self.general)
        self._entries: list[bytes] = [genesis]
        self._authors: list[int] = [0]
        self._head: bytes = self.game_id
        self._floor: Floor | None = self._floor_after(e)  # (seat 0, commit)
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
        self._seat_tables: dict[int, SeatTables] = {}  # seat -> tables of its opened seed
        self._seeds: dict[int, bytes] = {}  # seat -> its `seed` entry's seed
        self._seed_seqs: dict[int, int] = {}
        # re-deal rounds (§10.7), in log order; reveals use the last complete one's tables
        self.redeals: list[RedealRound] = []
        self.finished: bool = False
        self.replaced_at: int | None = None  # our seat was put out by the claim at this index
        # clocks, claims and resignations (§10)
        self.clocks: Clocks = g.clocks
        self._turn_done = False  # set when a turn resolves: the totals must be recomputed
        self._standing = Standing(self, keys, self._floor)
        self._standing.play_on = g.play_on
        # local seat
        self.seat: int | None = None
        self._tables: SeatTables | None = None
        self._my_commits: list[bytes] = []
        self._seed: bytes | None = None
        self._nonce: bytes | None = None
        self._key = key
        if key is not None:
            self._take_seat(key, seed, nonce, tables)

    def _take_seat(
        self,
        key: Ed25519PrivateKey,
        seed: bytes | None,
        nonce: bytes | None,
        tables: SeatTables | None,
    ) -> None:
        """We play the seat whose genesis key is `key`, from `seed` (`__init__`)."""
        pk = public_key_bytes(key)
        mine = [i for i, s in enumerate(self.seats) if s.public_key == pk]
        if not mine:
            raise LocalProtocolError("our key is not one of the seats of this game")
        if seed is None or len(seed) != SEED_SIZE:
            raise LocalProtocolError("a playing seat needs a 32-byte secret seed")
        self.seat = mine[0]
        self._seed = seed
        self._tables = tables or SeatTables.from_seed(seed, self.game_id, general=self.general)
        self._my_commits = self._tables.commitments(self.game_id, self.seat)
        self._nonce = nonce if nonce is not None else nonce_from_seed(seed, self.game_id)
        if len(self._nonce) != NONCE_SIZE:
            raise LocalProtocolError("the first-player nonce must be 32 bytes")

    # ------------------------------------------------------------------ public surface
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
        own = self._standing.stand_in_resignation_of(e)
        play_on = None if own is not None else self._standing.play_on_claim_of(e)
        if play_on is not None:
            if e.raw != play_on:  # (its key is public: only the computed bytes stand, §10.7.2)
                raise RemoteProtocolError(
                    f"not the play-on claim against {self.who(e.seat)} that every peer computes "
                    "(signed with the key of its stand-in, §10.7.2)",
                    entry=e.raw,
                )
        elif own is None:
            self._verify(e, e.seat)
        elif e.raw != self._standing.stand_in_resignation(own):
            # the one entry exempt from the genesis-key check (§6) stands only byte for byte
            raise RemoteProtocolError(
                f"not the resign entry of {self.who(e.seat)}'s stand-in that every peer computes "
                "(signed with the key derived from its opened seed, §10.4)",
                entry=e.raw,
            )
        if self._standing.bound_against(e):
            raise RemoteProtocolError(
                f"{self.who(e.seat)}'s {e.kind!r} came after we signed a claim at entry {n_held}",
                entry=e.raw,
                seat=e.seat,
            )
        if e.seq < n_held and self._standing.replaced(e.seat) and self._authors[e.seq] == e.seat:
            raise RemoteProtocolError(
                f"seq {e.seq} is already taken by the stand-in of {self.who(e.seat)}; another "
                "entry under its public key proves nothing (anyone can sign it, §10.4)",
                entry=e.raw,
            )
        if e.seq < n_held:
            return self._at_held_seq(e, computed=play_on is not None)
        if e.seq > n_held:
            return [Gap(n_held)]
        if self._standing.replaced(e.seat):
            self._check_stand_in(e)
        return self._accept(e, local=False)

    def _at_held_seq(self, e: Entry, *, computed: bool = False) -> list[Event]:
        """A signed entry `e` for a seq we hold another entry at: a fork (a cheat), another
        seat's claim (`_claim_conflict`), or refused. `computed`: `e` is the play-on claim
        every peer computes against its seat (§10.7.2), signed with a public key: no fork."""
        held = self._entries[e.seq]
        # A fork is equivocation inside this chain: same seat, same seq, same predecessor.
        # An entry whose prev is not our entry seq-1 belongs to another chain (another game
        # between the same keys, say): rejected, never a cheat verdict against its signer.
        same_chain = e.seq > 0 and e.prev == sha256(self._entries[e.seq - 1])
        if same_chain and self._authors[e.seq] == e.seat and not computed:
            self._cheat(
                e, e.seat, f"fork: two different entries signed for seq {e.seq}", (e.raw, held)
            )
        if e.kind == Kind.CLAIM and e.seq > 0:  # (another seat's claim at a held seq)
            return self._claim_conflict(e)
        if e.seq == 0:
            what = "another game's genesis"
        elif not same_chain:
            what = "an entry of another game or chain (its prev is not our previous entry)"
        else:
            what = "a conflicting entry"
        raise RemoteProtocolError(
            f"seq {e.seq} is already taken; this is {what}", entry=e.raw, seat=e.seat
        )

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
        if e.seat >= self.n or self._standing.replaced(e.seat):
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
        if not verify_signature(self._standing.key(e.seat), e.sig, e.payload):
            return None
        return e.seat

    def take_outgoing(self) -> list[bytes]:
        """Entries this seat owes right now (commit, reveals, seed, result), already appended."""
        out: list[bytes] = []
        if self.seat is None or self._stopped is not None or self._standing.left:
            return out
        while True:
            adopted = self._owed_adoption()  # a claim against us, after our late answers
            if adopted:
                return out + adopted
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

    def move(self, move: Move) -> bytes:
        """Play a move for the local seat; returns the entry (already appended) to broadcast."""
        if self._stopped is not None or self._standing.left:
            raise LocalProtocolError(
                "the session is stopped" if not self._standing.left else "we resigned"
            )
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
    def _accept(self, e: Entry, *, local: bool) -> list[Event]:
        """Check an entry at the head of the log (signature already checked), apply, append."""
        if self._floor is None:
            if self.ending is not None:
                raise self._reject(e, "the game is over: nothing may follow its end")
            raise self._reject(
                e,
                "the game is finished (every result is signed): nothing may follow the last "
                "result, a claim neither",
            )
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
        shape = SHAPES.get(e.kind)
        why = None if shape is None else shape(e.body, self.n, self.general)
        if why is not None:
            if local:
                raise LocalProtocolError(f"our own {e.kind} body is malformed: {why}")
            raise self._reject(e, f"{e.kind} body: {why}")
        handler = _HANDLERS[e.kind]
        events = handler(self, e, local)
        self._floor = self._floor_after(e)  # the one place the floor moves
        self._entries.append(e.raw)
        self._authors.append(e.seat)
        self._head = sha256(e.raw)
        st = self.state
        totals = self._standing.last_totals()
        if st is None:
            totals = None
        elif totals is None or self._turn_done or e.kind == Kind.MOVE:  # the totals changed
            totals = tuple(x.total for x in st.scores())
        self._standing.record(self._floor, totals)
        self._turn_done = False
        events.insert(0, EntryAccepted(e.seq, e.seat, e.kind))
        return events

    # --- the floor (PROTOCOL.md §5) ------------------------------------------------------
    def _floor_after(self, e: Entry) -> Floor | None:
        """Who speaks next once `e` is accepted and applied: the table of PROTOCOL.md §5, one
        row per line (`claim` and `resign`: §10.3, §10.4). The only place the floor is set."""
        last = e.seat == self.n - 1  # `k = n-1` in the table
        match e.kind:
            case Kind.GENESIS:
                return Floor(0, Kind.COMMIT)
            case Kind.COMMIT:
                return Floor(0, Kind.OPEN) if last else Floor(e.seat + 1, Kind.COMMIT)
            case Kind.OPEN:
                return self._turn_floor() if last else Floor(e.seat + 1, Kind.OPEN)
            case Kind.MOVE:
                asks = self.state is not None and self.state.needs is not None
                # (the chain: every seat, or after a re-deal its dealers, §10.7)
                chain = self.chain_seats()
                return Floor(chain[0], Kind.REVEAL) if asks else self._turn_floor()
            case Kind.REVEAL:  # (by the chain's last seat: the facts took effect, §5.3)
                return _next_in(self.chain_seats(), e.seat, Kind.REVEAL) or self._turn_floor()
            case Kind.SEED:  # (every seat but those claimed out, §10.7)
                ends = self.end_seats()
                return _next_in(ends, e.seat, Kind.SEED) or Floor(ends[0], Kind.RESULT)
            case Kind.RESULT:
                return _next_in(self.end_seats(), e.seat, Kind.RESULT)  # None: log complete
            case Kind.CLAIM:  # the log is complete (§10.3), unless the table plays on (§10.7)
                r = self.redeals[-1] if self.redeals else None
                return (
                    None if r is None or r.claim_seq != e.seq else Floor(r.dealers[0], Kind.REDEAL)
                )
            case Kind.REDEAL:  # the next dealer; after the last, the interrupted floor (§10.7)
                r = self.redeals[-1]
                nxt = r.next_dealer()
                if nxt is not None:
                    return Floor(nxt, Kind.REDEAL)
                if r.restart is not None:
                    return Floor(r.dealers[0], Kind.REVEAL)
                return Floor(r.move_seat, Kind.MOVE)
            case Kind.RESIGN:  # 2 seats: the game ends; 3-4: the floor does not move (§10.4)
                return None if self.n == 2 else self._floor
        raise LocalProtocolError(f"no floor rule for {e.kind!r}")  # pragma: no cover

    def _turn_floor(self) -> Floor:
        """The floor once a turn is resolved (the opening round, or a move and its reveal round):
        the seat to move, or seat 0 for `seed` if that seat cannot act (§5.4)."""
        st = self.state
        assert st is not None
        return (
            Floor(self.end_seats()[0], Kind.SEED)
            if st.is_terminal()
            else Floor(st.to_move, Kind.MOVE)
        )


_HANDLERS: dict[str, Callable[[Session, Entry, bool], list[Event]]] = {
    Kind.CLAIM: Session._on_claim,
    Kind.RESIGN: Session._on_resign,
    Kind.COMMIT: Session._on_commit,
    Kind.OPEN: Session._on_open,
    Kind.MOVE: Session._on_move,
    Kind.REVEAL: Session._on_reveal,
    Kind.SEED: Session._on_seed,
    Kind.RESULT: Session._on_result,
    Kind.REDEAL: Session._on_redeal,
}


def _next_in(seats: tuple[int, ...], seat: int, kind: str) -> Floor | None:
    """The floor of the seat after `seat` in `seats` for `kind`, or None after the last."""
    i = seats.index(seat)
    return Floor(seats[i + 1], kind) if i + 1 < len(seats) else None


__all__ = ["Genesis", "Session", "decode_move", "encode_move"]
