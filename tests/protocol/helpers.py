"""Helpers for the protocol tests: forging entries as a (cheating) seat would."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.audit import AuditReport
from zoo_p2p.protocol.crypto import public_key_from_bytes, sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, strict_unpack
from zoo_p2p.protocol.evidence import ProofError, check
from zoo_p2p.protocol.liveness import parse_resignation, resign_bytes, signature_ok
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame


def forge(game: LocalGame, seat: int, kind: str, body: Any, *, on: Session | None = None) -> bytes:
    """An entry signed by `seat` with the right seq and prev for the head of `on` (or seat 0)."""
    s = on or game.sessions[0]
    entries = s.entries
    return make_entry(game.keys[seat], len(entries), sha256(entries[-1]), seat, kind, body)


def deliver(game: LocalGame, sender: int, raw: bytes) -> None:
    """Deliver an entry to every other seat."""
    for i, s in enumerate(game.sessions):
        if i != sender:
            s.receive(raw)


def _signed_by(raw: bytes, seat: int, genesis: Session) -> bool:
    """True if `raw` carries `seat`'s own genesis-key signature: the entry's (authored by `seat`)
    or, for a `resign` entry, the statement it carries (signed by the resigner, §10.4)."""
    pub = public_key_from_bytes(genesis.seats[seat].public_key)
    try:
        e = decode_entry(raw)
    except RemoteProtocolError:
        return _statement_signed_by(raw, seat, pub, genesis)
    if e.seat == seat and signature_ok(pub, e.sig, e.payload):
        return True
    if e.kind != Kind.RESIGN:
        return False
    try:
        r = parse_resignation(e.body)
    except RemoteProtocolError:
        return False
    signed = resign_bytes(genesis.game_id, r.seat, r.at, r.seed, r.new_key)
    return r.seat == seat and signature_ok(pub, r.sig, signed)


def _statement_signed_by(raw: bytes, seat: int, pub: Any, genesis: Session) -> bool:
    """True if `raw` is a bare resignation statement (the last element of a §9 proof) that
    carries `seat`'s genesis-key signature."""
    try:
        r = parse_resignation(strict_unpack(raw, "a resignation", types_checked=True))
    except RemoteProtocolError:
        return False
    signed = resign_bytes(genesis.game_id, r.seat, r.at, r.seed, r.new_key)
    return r.seat == seat and signature_ok(pub, r.sig, signed)


def assert_convicts_only_signer(
    report: AuditReport,
    log: Sequence[bytes],
    *,
    signers: Collection[int],
    proofs: Sequence[bytes] = (),
) -> None:
    """Nobody is convicted but by their own signature (PROTOCOL.md §8.2, §9.2).

    `report` is the audit of `log` (genesis first) with the stored `proofs`; `signers` are the
    seats whose keys the test used to sign forged bytes (every other seat is honest). Every seat
    the report convicts — the log's own fault and each stored proof that checks — must be one of
    `signers`, and must have its own genesis-key signature (`_signed_by`) on the offending entry
    and on every entry cited as evidence: a stand-in's key, a forged or missing signature, an
    honest seat's genuine entry out of its context convict nobody. Also checks that every proof
    the report counts re-checks (`evidence.check`) to the same conviction.
    """
    genesis = Session(log[0])
    allowed = set(signers)
    if report.fault_seat is not None:
        seat = report.fault_seat
        assert seat in allowed, f"honest seat {seat} convicted by the log: {report.fault_reason}"
        assert report.fault_index is not None and report.fault_index < len(log)
        cited = report.fault_entries or (report.fault_index,)
        assert report.fault_index in cited
        for i in cited:
            assert 0 < i < len(log) and _signed_by(log[i], seat, genesis), (
                f"seat {seat} convicted by entry {i}, which does not carry its signature: "
                f"{report.fault_reason}"
            )
    checked = []
    for p in proofs:
        try:
            checked.append(check(p, log[0]))
        except ProofError:
            continue
    for c in report.convictions:
        assert c.seat in allowed, f"honest seat {c.seat} convicted by a stored proof: {c.reason}"
        assert any(x.seat == c.seat and x.seqs == c.seqs for x in checked), c
        assert c.evidence, c
        for raw in c.evidence:
            assert _signed_by(raw, c.seat, genesis), (
                f"seat {c.seat} convicted by a proof entry that does not carry its signature: "
                f"{c.reason}"
            )
    assert (report.verdict == "cheat") == (report.cheater is not None), report.verdict


def assert_json_convicts_only_signer(
    report: dict[str, Any], log: Sequence[bytes], *, signers: Collection[int]
) -> None:
    """The same for one object of `zoo verify --json` (§8.3): `fault.seat` and every
    `proofs[].seat` among `signers`, the fault's cited entries signed by its seat, and the
    verdict `cheat` exactly when someone is convicted."""
    genesis = Session(log[0])
    convicted = [p["seat"] for p in report["proofs"]]
    fault = report["fault"]
    if fault is not None and fault["seat"] is not None:
        convicted.append(fault["seat"])
        for i in fault["entries"]:
            assert 0 < i < len(log) and _signed_by(log[i], fault["seat"], genesis), fault
    assert set(convicted) <= set(signers), report
    assert (report["verdict"] == "cheat") == bool(convicted), report
