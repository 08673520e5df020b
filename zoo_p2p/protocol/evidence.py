"""Proofs of cheating that anyone can re-check from the genesis alone (PROTOCOL.md §9).

A **proof** is the msgpack array `[1, game_id: bin(32), chain: [entry: bin, …]]`: the game's
entries from seq 1 on, in order, ending with the **offending entry**. Checking replays the chain
through a fresh observer session built on the genesis: every entry but the last must be accepted,
and the last must be rejected although it carries its author's valid signature and was signed onto
this very chain (at the head, or at a held seq with the same predecessor: a fork). Because the
author signed the hash of the entry before it, it vouched for the whole history that makes its
entry wrong; so the verdict convicts that author, and only that author, by its own signature.

    proof = make_proof(session.entries, offending)      # after session.receive(offending) raised
    conviction = check(proof, genesis)                  # ProofError unless it proves a cheat

Pure: no file I/O here (the sidecar file `<log>.proofs` is read and written by `zoo_p2p.storage`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from zoo_p2p.errors import CheatError, RemoteProtocolError, StatementCheatError
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import (
    HASH_SIZE,
    MAX_ENTRY_SIZE,
    MAX_LOG_BYTES,
    MAX_LOG_ENTRIES,
    decode_entry,
    pack,
    strict_unpack,
)
from zoo_p2p.protocol.liveness import Resignation, parse_resignation
from zoo_p2p.protocol.session import Session

__all__ = [
    "MAX_PROOF_SIZE",
    "PROOF_VERSION",
    "Conviction",
    "Proof",
    "ProofError",
    "bare_reason",
    "check",
    "convicted_by",
    "decode_proof",
    "find_fork",
    "make_proof",
]

PROOF_VERSION = 1
# A proof holds at most a whole log (MAX_LOG_BYTES) plus its framing.
MAX_PROOF_SIZE = MAX_LOG_BYTES + 64 + 5 * MAX_LOG_ENTRIES


class ProofError(RemoteProtocolError):
    """A proof that proves nothing (malformed, another game, a bad chain, or no fault at all)."""


@dataclass(frozen=True, slots=True)
class Proof:
    """A decoded proof: the game it is about and the chain from seq 1 to the offending entry."""

    game_id: bytes
    chain: tuple[bytes, ...]

    @property
    def offending(self) -> bytes:
        """The last entry of the chain: the one its author signed wrongly."""
        return self.chain[-1]


@dataclass(frozen=True, slots=True)
class Conviction:
    """Who a proof convicts (0-based seat), why, and the seqs of the signed entries that show it.

    `seqs` lists the offending entry's seq first, then the seqs of the earlier entries the
    session cites as evidence (for a fork: the same seq twice — two entries signed for it; for a
    wrong reveal: the seat's own commitment).
    """

    seat: int
    reason: str
    seqs: tuple[int, ...]
    evidence: tuple[bytes, ...]


def make_proof(held: Sequence[bytes], offending: bytes) -> bytes:
    """Build the proof that `offending` convicts its author, from a log `held` (genesis first).

    `held` is the log of the session that rejected `offending` (`Session.entries`). The chain
    keeps what is needed: for an entry at the head, every held entry after the genesis; for an
    entry at a held seq (a fork), the held entries up to and including that seq; for a
    resignation statement (§10.4) that `Session.add_resignation` proved wrong, every held entry
    after the genesis. Raises ValueError if `offending` does not decode or cannot follow `held`.
    """
    if not held:
        raise ValueError("the log is empty: no genesis")
    if _statement(offending) is not None:
        return pack([PROOF_VERSION, sha256(held[0]), [*held[1:], offending]])
    try:
        e = decode_entry(offending)
    except RemoteProtocolError as exc:
        raise ValueError(f"the offending entry does not decode: {exc.reason}") from None
    if not 1 <= e.seq <= len(held):
        raise ValueError(f"the offending entry's seq {e.seq} does not follow a log of {len(held)}")
    if e.seq < len(held) and decode_entry(held[e.seq]).seat == e.seat:
        chain = list(held[1 : e.seq + 1])  # a fork: keep the other entry signed for that seq
    else:
        chain = list(held[1 : e.seq])
    chain.append(offending)
    return pack([PROOF_VERSION, sha256(held[0]), chain])


def decode_proof(data: bytes) -> Proof:
    """Decode a proof strictly (canonical msgpack, sizes bounded); ProofError if malformed."""
    if type(data) is not bytes:
        raise ProofError("a proof is not bytes")
    if len(data) > MAX_PROOF_SIZE:
        raise ProofError(f"proof too large ({len(data)} > {MAX_PROOF_SIZE} bytes)")
    try:
        obj: Any = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            timestamp=0,
            max_str_len=0,
            max_bin_len=MAX_ENTRY_SIZE,
            max_array_len=MAX_LOG_ENTRIES,
            max_map_len=0,
            max_ext_len=0,
        )
        canonical = pack(obj)
    except Exception as exc:  # msgpack raises many kinds (ValueError, ExtraData, StackError…)
        raise ProofError(f"proof is not valid msgpack: {type(exc).__name__}") from None
    if canonical != data:
        raise ProofError("proof is not in canonical msgpack form")
    if not (isinstance(obj, list) and len(obj) == 3):
        raise ProofError("proof is not [version, game_id, chain]")
    version, game_id, chain = obj
    if type(version) is not int or version != PROOF_VERSION:
        raise ProofError(f"unsupported proof version {version!r}")
    if type(game_id) is not bytes or len(game_id) != HASH_SIZE:
        raise ProofError("proof game_id is not 32 bytes")
    if not (isinstance(chain, list) and 1 <= len(chain) <= MAX_LOG_ENTRIES):
        raise ProofError(f"proof chain is not 1..{MAX_LOG_ENTRIES} entries")
    if not all(type(x) is bytes and 1 <= len(x) <= MAX_ENTRY_SIZE for x in chain):
        raise ProofError(f"a proof entry is not 1..{MAX_ENTRY_SIZE} bytes")
    return Proof(game_id, tuple(chain))


def _statement(data: bytes) -> Resignation | None:
    """`data` as a resignation statement (strict msgpack `[seat, at, seed, key|nil, sig]`, first
    byte 0x95), or None. An entry (first byte 0x92) is never one."""
    if not data.startswith(b"\x95"):
        return None
    try:
        return parse_resignation(strict_unpack(data, "a resignation", types_checked=True))
    except RemoteProtocolError:
        return None


def convicted_by(session: Session, raw: bytes, exc: RemoteProtocolError) -> int | None:
    """The seat that `session` rejecting `raw` with `exc` proves guilty, or None.

    A seat is named only when `raw` carries its own valid signature on this session's chain
    (`Session.signer_at`) and the rejection is about that seat's entry; or when the rejection
    is about the resignation statement that `raw` carries (or is) and that statement carries
    its seat's genesis-key signature (§10.4): then that seat, whoever appended the entry.
    """
    if isinstance(exc, StatementCheatError):
        signer = session.statement_signer(exc.statement)
        return signer if signer is not None and signer == exc.seat else None
    seat = session.signer_at(raw)
    if seat is None or exc.seat != seat:
        return None
    return seat


def bare_reason(session: Session, exc: RemoteProtocolError) -> str:
    """The reason of a rejection without the `seat N (Team) cheated:` prefix of a CheatError."""
    stopped = session.stopped
    if isinstance(exc, CheatError) and stopped is not None:
        return stopped.reason
    return exc.reason


def check(proof: bytes, genesis: bytes) -> Conviction:
    """Re-verify a proof from the genesis alone; return whom it convicts, or raise ProofError.

    Replays the chain through a fresh observer session: each entry but the last must be
    accepted in order (seq 1, 2, …); the last must be rejected, and must carry its author's valid
    signature on this chain (`convicted_by`). Nothing else is trusted.
    """
    p = decode_proof(proof)
    if sha256(genesis) != p.game_id:
        raise ProofError("the proof is about another game")
    try:
        session = Session(genesis)
    except RemoteProtocolError as exc:
        raise ProofError(f"the genesis does not parse: {exc.reason}") from None
    for i, raw in enumerate(p.chain[:-1]):
        try:
            session.receive(raw)
        except RemoteProtocolError as exc:
            raise ProofError(f"proof entry {i + 1} does not check: {exc.reason}") from None
        if len(session) != i + 2:
            raise ProofError(f"proof entry {i + 1} is not the next entry of the chain")
    last = p.offending
    try:
        statement = _statement(last)
        if statement is not None:
            session.add_resignation(statement)
            raise ProofError("the resignation statement at the end of the proof proves nothing")
        session.receive(last)
    except ProofError:
        raise
    except RemoteProtocolError as exc:
        seat = convicted_by(session, last, exc)
        if seat is None:
            raise ProofError(
                f"the last entry is rejected ({exc.reason}) but its author's signature does "
                "not prove it"
            ) from None
        evidence = getattr(exc, "evidence", ()) or (last,)
        if evidence[0] != last:
            evidence = (last, *evidence)
        # (a statement is no entry: the seqs cite the entries beside it, its seat's commit)
        seqs = tuple(decode_entry(x).seq for x in evidence if x != last or statement is None)
        reason = bare_reason(session, exc)
        if statement is not None:  # (the cited seqs are the entries beside it)
            reason = f"its signed resignation statement: {reason}"
        return Conviction(seat, reason, seqs, tuple(evidence))
    raise ProofError("the last entry of the proof is valid: it proves nothing")


def find_fork(a: Sequence[bytes], b: Sequence[bytes]) -> bytes | None:
    """A fork proof from two logs of one game (genesis first), or None if they do not fork.

    Two logs fork when, at the first seq where they differ, both hold an entry signed by the
    same seat onto the same predecessor. The returned proof has passed `check`.
    """
    if not a or not b or a[0] != b[0]:
        return None
    for s in range(1, min(len(a), len(b))):
        if a[s] == b[s]:
            continue
        try:
            proof = make_proof(list(a[: s + 1]), b[s])
            check(proof, a[0])
        except (ValueError, ProofError):
            return None
        return proof
    return None
