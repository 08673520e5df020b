"""The real sample logs of `replays/` with the keys that made them, for forging (issue 18).

Every sample log is regenerated from its deterministic labels (`protocol/samples.py`,
`protocol/liveness_samples.py`), which gives back the seats' private keys and seeds; the bytes are
checked against the file, so the forgeries start from the very logs that ship. A `Sample` signs
entries, claim votes and resignation statements with those keys, as a cheating seat (or a
coalition) holding them could; `Forgery` is a forged log (and stored proofs) with the seats whose
keys signed it, and `refuse` runs the auditor on it and asserts what every forgery must give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.protocol.helpers import assert_convicts_only_signer
from zoo_p2p.protocol.audit import OK, AuditReport, audit
from zoo_p2p.protocol.crypto import public_key_bytes, sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.liveness import Resignation, sign_resignation, vote_bytes
from zoo_p2p.protocol.liveness_samples import (
    claimed_game,
    claimed_move_game,
    resigned_game,
)
from zoo_p2p.protocol.playon_samples import (
    host_dropout_game,
    joiner_dropout_game,
    twice_game,
)
from zoo_p2p.protocol.samples import hints_game, sample_game
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import Variant
from zoo_p2p.storage import read_log

REPLAYS = Path(__file__).resolve().parents[2] / "replays"

DERIVED = b"derived"  # `Sample.statement(stand_in=DERIVED)`: the key §10.4 derives from the seed


def _claimed(late: bool) -> tuple[LocalGame, list[bytes]]:
    game, staller, _ = claimed_game()
    return game, game.sessions[staller if late else 0].entries


def _first(game: LocalGame) -> tuple[LocalGame, list[bytes]]:
    return game, game.sessions[0].entries


def _played_on(made: tuple[LocalGame, Any, list[int]]) -> tuple[LocalGame, list[bytes]]:
    game, _, rest = made
    return game, game.sessions[rest[0]].entries


# file name -> how it is made (the game with its keys, and the log as written)
_MAKERS: dict[str, Callable[[], tuple[LocalGame, list[bytes]]]] = {
    "2p-standard.zoolog": lambda: _first(sample_game(2, Variant.STANDARD)),
    "3p-standard.zoolog": lambda: _first(sample_game(3, Variant.STANDARD)),
    "4p-standard.zoolog": lambda: _first(sample_game(4, Variant.STANDARD)),
    "3p-general.zoolog": lambda: _first(sample_game(3, Variant.GENERAL)),
    "2p-standard-hints.zoolog": lambda: _first(hints_game()),
    "3p-standard-claimed-reveal.zoolog": lambda: _claimed(False),
    "3p-standard-claimed-reveal-late.zoolog": lambda: _claimed(True),
    "2p-standard-claimed-move.zoolog": lambda: _first(claimed_move_game()[0]),
    "2p-standard-resigned.zoolog": lambda: _first(resigned_game(2)[0]),
    "3p-standard-resigned.zoolog": lambda: _first(resigned_game(3)[0]),
    "4p-standard-play-on.zoolog": lambda: _played_on(joiner_dropout_game()),
    "4p-standard-play-on-host.zoolog": lambda: _played_on(host_dropout_game()),
    "3p-standard-play-on-twice.zoolog": lambda: _played_on(twice_game()),
}
SAMPLE_NAMES = tuple(_MAKERS)


@dataclass(frozen=True)
class Sample:
    """A sample log of `replays/` and the private keys and seeds of its seats."""

    name: str
    log: tuple[bytes, ...]
    keys: tuple[Ed25519PrivateKey, ...]
    seeds: tuple[bytes, ...]

    @property
    def n(self) -> int:
        """The number of seats."""
        return len(self.keys)

    @property
    def game_id(self) -> bytes:
        """The hash of the genesis."""
        return sha256(self.log[0])

    def session(self, k: int) -> Session:
        """An observer that has read the first `k` entries."""
        s = Session(self.log[0])
        for raw in self.log[1:k]:
            s.receive(raw)
        return s

    def kinds(self) -> list[tuple[int, int, str]]:
        """(index, author, kind) of every entry."""
        return [(i, (e := decode_entry(raw)).seat, e.kind) for i, raw in enumerate(self.log)]

    def find(self, kind: str, *, seat: int | None = None, after: int = 0) -> int:
        """The index of the first entry of `kind` (by `seat`) at or after `after`."""
        return next(
            i
            for i, s, k in self.kinds()
            if i >= after and k == kind and (seat is None or s == seat)
        )

    def sign(
        self,
        seat: int,
        k: int,
        kind: str,
        body: Any,
        *,
        key: Ed25519PrivateKey | None = None,
        on: Sequence[bytes] | None = None,
    ) -> bytes:
        """An entry at seq `k` chained on entry k-1 of `on` (default: this log), authored by
        `seat` and signed with its genesis key (or `key`)."""
        log = self.log if on is None else on
        return make_entry(key or self.keys[seat], k, sha256(log[k - 1]), seat, kind, body)

    def vote(
        self,
        voter: int,
        at: int,
        claimed: int,
        *,
        key: Ed25519PrivateKey | None = None,
        head: bytes | None = None,
        game_id: bytes | None = None,
    ) -> list[Any]:
        """`[voter, sig]` as a claim carries it: `voter`'s vote (§10.2) against `claimed` at
        log length `at` of this log (head = hash of entry at-1 unless given)."""
        h = sha256(self.log[at - 1]) if head is None else head
        msg = vote_bytes(game_id or self.game_id, at, h, claimed)
        return [voter, (key or self.keys[voter]).sign(msg)]

    def stand_in_key(self, seat: int) -> Ed25519PrivateKey:
        """The public stand-in key of `seat` once its seed is open (§10.4)."""
        return stand_in_private_key(self.game_id, seat, self.seeds[seat])

    def statement(
        self,
        seat: int,
        at: int,
        *,
        seed: bytes | None = None,
        stand_in: bytes | None = DERIVED,
        key: Ed25519PrivateKey | None = None,
        game_id: bytes | None = None,
    ) -> Resignation:
        """`seat`'s signed resignation at log length `at` (its real seed and derived stand-in
        key unless told otherwise; nil stand-in with 2 seats)."""
        gid = game_id or self.game_id
        s = self.seeds[seat] if seed is None else seed
        new_key = stand_in
        if stand_in == DERIVED:
            new_key = None if self.n == 2 else stand_in_public_key(gid, seat, s)
        return sign_resignation(key or self.keys[seat], gid, seat, at, s, new_key)


@cache
def sample(name: str) -> Sample:
    """The sample log `replays/<name>` with its keys (regenerated; checked against the file)."""
    game, log = _MAKERS[name]()
    on_disk = list(read_log(REPLAYS / name).entries)
    assert on_disk == log, f"replays/{name} is not the sample its generator makes"
    return Sample(name, tuple(log), tuple(game.keys), tuple(game.seeds))


def other_key(label: str) -> Ed25519PrivateKey:
    """A key of no seat of any sample (an outsider's)."""
    return Ed25519PrivateKey.from_private_bytes(sha256(b"forged outsider " + label.encode()))


@dataclass(frozen=True)
class Forgery:
    """A forged log and stored proofs.

    `signers`: the seats whose genesis keys signed forged bytes (entries, votes, statements);
    every other seat is honest. `forged_at`: the index of the first forged (or misplaced) entry
    of `log`, which must not be accepted; None when the log itself is honest (only the proofs are
    forged: then `ok` is the right verdict unless a proof really convicts one of `signers`).
    `convicts`: the verdicts allowed, as the seat convicted (None: nobody)."""

    log: tuple[bytes, ...]
    signers: frozenset[int]
    forged_at: int | None
    convicts: tuple[int | None, ...] = (None,)
    proofs: tuple[bytes, ...] = field(default=())


def forgery(
    log: Sequence[bytes],
    signers: Sequence[int],
    forged_at: int | None,
    *convicts: int | None,
    proofs: Sequence[bytes] = (),
) -> Forgery:
    """A `Forgery` (convicts defaults to nobody)."""
    return Forgery(tuple(log), frozenset(signers), forged_at, convicts or (None,), tuple(proofs))


def refuse(f: Forgery) -> AuditReport:
    """Audit a forgery and assert: no false ok, the forged entry never accepted, and nobody
    convicted but the signer of the offending entry (one of `convicts`)."""
    report = audit(f.log, proofs=f.proofs)
    if f.forged_at is not None:
        assert report.verdict != OK, f"a forged log verifies ok (entry {f.forged_at} forged)"
        assert report.checked <= f.forged_at, (
            f"the forged entry {f.forged_at} was accepted ({report.checked} entries checked; "
            f"verdict {report.verdict}, {report.fault_reason})"
        )
    assert_convicts_only_signer(report, f.log, signers=f.signers, proofs=f.proofs)
    convicted = {report.fault_seat} if report.fault_seat is not None else set()
    convicted |= {c.seat for c in report.convictions}
    assert len(convicted) <= 1, convicted
    got = next(iter(convicted), None)
    assert got in f.convicts, (
        f"convicted {got}, expected one of {f.convicts}: {report.verdict} "
        f"{report.fault_index} {report.fault_reason} {[c.reason for c in report.convictions]}"
    )
    return report


def key_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw public key of `key`."""
    return public_key_bytes(key)


__all__ = [
    "DERIVED",
    "REPLAYS",
    "SAMPLE_NAMES",
    "Forgery",
    "Kind",
    "Sample",
    "forgery",
    "key_bytes",
    "other_key",
    "refuse",
    "sample",
]
