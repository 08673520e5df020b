"""What every part of `Session` shares: its state, the checks and reads they all use.

`Session` (session.py) is one class made of parts: `SessionBase` here, `Dealing` (dealing.py:
the fair deal's entries: commit, open, moves and their reveal chains, seed, result) and
`Claiming` (claiming.py: clocks, claims, resignations, stand-ins and play-on, §10). Each part
reads and writes the attributes declared here, which `Session.__init__` sets; a method one part
calls in another is declared here too (`_accept`, `_start_round`, `_links_of`, `_redeal_body`),
so mypy checks every call across the parts.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.bodies import Genesis
from zoo_p2p.protocol.crypto import verify_signature
from zoo_p2p.protocol.deal import SeatTables
from zoo_p2p.protocol.encoding import Entry
from zoo_p2p.protocol.events import CheatDetected, Event, Floor, SeatInfo, SeedsOpened
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.redeal import RedealRound
from zoo_p2p.protocol.standing import Standing
from zoo_p2p.rules import State, Variant
from zoo_p2p.text import seat_word

Question = tuple[int, int]  # (table id, index in the composed table)


class SessionBase:
    """The state of one `Session` and what all its parts use of it."""

    # set by `Session.__init__` (and `_take_seat` for the local seat), read by every part
    genesis: Genesis
    n: int
    game_id: bytes
    variant: Variant
    general: bool
    _n_tables: int
    _entries: list[bytes]
    _authors: list[int]
    _head: bytes
    _floor: Floor | None
    _stopped: CheatDetected | None
    _nonce_commits: list[bytes]
    _commits: list[list[bytes]]
    _commit_seq: list[int]
    _nonces: list[bytes]
    _images: list[list[dict[int, tuple[int, int]]]]
    _questions: list[Question]
    _inputs: list[int]
    _needs_seat: int
    known_tokens: dict[int, int]
    mutant_reveals: dict[tuple[int, int], bool]
    first_seat: int | None
    state: State | None
    final_scores: tuple[int, ...] | None
    opened_deal: SeedsOpened | None
    _seat_tables: dict[int, SeatTables]
    _seeds: dict[int, bytes]
    _seed_seqs: dict[int, int]
    redeals: list[RedealRound]
    finished: bool
    replaced_at: int | None
    clocks: Clocks
    _turn_done: bool
    _standing: Standing
    seat: int | None
    _tables: SeatTables | None
    _my_commits: list[bytes]
    _seed: bytes | None
    _nonce: bytes | None
    _key: Ed25519PrivateKey | None

    # ------------------------------------------------------------------ views
    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        """The seats as the genesis lists them."""
        return self.genesis.seats

    @property
    def floor(self) -> Floor | None:
        """Who may speak next and with which kind (None when finished or stopped)."""
        return None if self._stopped is not None else self._floor

    @property
    def opened_seeds(self) -> dict[int, bytes]:
        """Resigned seat -> the seed its resignation opened."""
        return self._standing.opened_seeds

    # ------------------------------------------------------------------ internals
    def _key_or_fail(self) -> Ed25519PrivateKey:
        if self._key is None:
            raise LocalProtocolError("an observer cannot write entries")
        return self._key

    def _verify(self, e: Entry, seat: int) -> None:
        if not verify_signature(self._standing.key(seat), e.sig, e.payload):
            raise RemoteProtocolError(
                f"bad signature: not {self.who(seat)}'s key", entry=e.raw, seat=seat
            )

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

    # --- the chain's seats and tables (PROTOCOL.md §5, §10.7) -----------------------------
    def chain_seats(self) -> tuple[int, ...]:
        """The seats of a reveal chain now: every seat, or the dealers of the last re-deal."""
        for r in reversed(self.redeals):
            if r.complete:
                return r.dealers
        return tuple(range(self.n))

    def end_seats(self) -> tuple[int, ...]:
        """The seats of the `seed` and `result` rounds: every seat but those claimed out."""
        return tuple(i for i in range(self.n) if i not in self._standing.claimed_out)

    def _round(self) -> RedealRound | None:
        """The re-deal whose tables reveals use now (the last complete one), or None."""
        for r in reversed(self.redeals):
            if r.complete:
                return r
        return None

    # --- what one part calls in another ------------------------------------------------
    def _accept(self, e: Entry, *, local: bool) -> list[Event]:
        """Check, apply and append an entry at the head (`Session`)."""
        raise NotImplementedError

    def _start_round(self, questions: list[Question]) -> None:
        """Ask the questions of a reveal round (`Dealing`)."""
        raise NotImplementedError

    def _links_of(self, seat: int, tables: SeatTables) -> list[list[Any]]:
        """`seat`'s links of the current round (`Dealing`)."""
        raise NotImplementedError

    def _redeal_body(self, seat: int, seed: bytes) -> list[Any]:
        """The `redeal` body `seat` owes in the current round (`Dealing`)."""
        raise NotImplementedError
