"""`zoo verify` on forged logs (issue 18): the exit code, the JSON report (§8.3) and the text.

A representative sample of the forgery catalogue (`tests/protocol/test_forgeries.py`) is
written to files, with its stored proofs in the sidecar `LOG.proofs` (§9.3), and verified by
the command: the exit code is the verdict's (§8.1), the JSON report agrees with the library's,
nobody is convicted but a signer, and the text names the same seat. Also forged sidecars (bytes
that are no proof, records cut short, a flood of proofs), and two logs of one game that fork.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.protocol.forged import Forgery, refuse, sample
from tests.protocol.helpers import assert_json_convicts_only_signer
from tests.protocol.test_forgeries import CATALOGUE, _move_floor, _other_legal_move
from zoo_p2p.cli.app import app
from zoo_p2p.cli.verify import EXIT_CODES
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.evidence import make_proof
from zoo_p2p.protocol.moves import decode_move
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import MAX_PROOFS, proofs_path

SAMPLED = (
    "floor/move-out-of-turn-4p",
    "end/move-after-the-last-result",
    "end/second-claim",
    "claim/missing-a-vote",
    "claim/by-an-outsider-key",
    "claim/after-the-last-result-2p",
    "claim/with-no-votes-when-the-others-resigned",
    "resign/appended-by-a-seat-without-the-floor",
    "resign/stand-in-resign-entry-badly-signed",
    "resign/seed-that-misses-the-commitments",
    "stand-in/reveal-with-a-wrong-salt",
    "order/two-entries-swapped",
    "order/the-claim-twice",
    "fork/seat-signs-two-moves-for-one-seq",
    "proof/a-real-fork-convicts-its-signer",
    "proof/a-wrong-stand-in-entry",
    "proof/the-same-fork-twice-counts-once",
)

_LEN = struct.Struct(">I")


def _write(tmp_path: Path, f: Forgery, sidecar: bytes | None = None) -> Path:
    log = tmp_path / "forged.zoolog"
    log.write_bytes(b"".join(f.log))
    records = b"".join(_LEN.pack(len(p)) + p for p in f.proofs)
    if sidecar is not None:
        records += sidecar
    if records:
        proofs_path(log).write_bytes(records)
    return log


def _verify(*paths: Path) -> tuple[int, list[dict[str, object]], str]:
    runner = CliRunner()
    args = [str(p) for p in paths]
    as_json = runner.invoke(app, ["verify", "--json", *args])
    text = runner.invoke(app, ["verify", *args], env={"COLUMNS": "300"})
    assert as_json.exit_code == text.exit_code, (as_json.output, text.output)
    assert as_json.exception is None or isinstance(as_json.exception, SystemExit)
    return as_json.exit_code, json.loads(as_json.stdout), " ".join(text.output.split())


@pytest.mark.parametrize("name", SAMPLED)
def test_zoo_verify_of_a_forgery(tmp_path: Path, name: str) -> None:
    f = CATALOGUE[name]()
    report = refuse(f)  # the library's verdict, checked as in the catalogue
    code, (got,), text = _verify(_write(tmp_path, f))
    assert code == EXIT_CODES[report.verdict], (code, got)
    assert code != 0 or f.forged_at is None  # no false ok
    assert got["verdict"] == report.verdict
    assert_json_convicts_only_signer(got, f.log, signers=f.signers)
    expected = report.to_json()
    for key in ("entries", "checked", "fault", "proofs", "winners", "scores"):
        assert got[key] == expected[key], key
    convicted = [c.seat for c in report.convictions]
    if report.fault_seat is not None:
        convicted.append(report.fault_seat)
    for seat in set(convicted):
        assert f"cheat: seat {seat + 1} (" in text, text
    assert text.count("cheat: seat") == len(convicted), text
    if report.verdict == "rejected":
        assert f"rejected: entry {report.fault_index}:" in text
        assert "(no seat is proven at fault)" in text


def _real_proof() -> tuple[Forgery, bytes]:
    f = CATALOGUE["proof/a-real-fork-convicts-its-signer"]()
    (proof,) = f.proofs
    return f, proof


@pytest.mark.parametrize(
    "junk",
    [
        pytest.param(b"\x00\x00\x00", id="a-torn-length"),
        pytest.param(_LEN.pack(10) + b"\x93\x01", id="a-record-cut-short"),
        pytest.param(_LEN.pack(0xFFFFFFFF) + b"\x00" * 64, id="a-length-over-the-limit"),
        pytest.param(_LEN.pack(5) + b"\x93\x01\xc4\x00\x90", id="bytes-that-are-no-proof"),
    ],
)
def test_a_damaged_sidecar_after_a_real_proof_keeps_it_and_convicts_no_one_else(
    tmp_path: Path, junk: bytes
) -> None:
    f, _ = _real_proof()
    code, (got,), _ = _verify(_write(tmp_path, f, sidecar=junk))
    assert code == EXIT_CODES["cheat"]
    assert [p["seat"] for p in got["proofs"]] == sorted(f.signers)
    assert_json_convicts_only_signer(got, f.log, signers=f.signers)


def test_a_sidecar_of_honest_chains_convicts_nobody(tmp_path: Path) -> None:
    """Sixteen stored "proofs" that are honest chains, and a real proof as the 17th: readers
    stop at 16 (§9.3), so the real one is lost (evidence can be lost), but nobody is framed."""
    f, proof = _real_proof()
    s = sample("3p-standard.zoolog")
    honest = [make_proof(s.log[:k], s.log[k]) for k in range(20, 20 + MAX_PROOFS)]
    flooded = Forgery(f.log, frozenset(), None, (None,), (*honest, proof))
    code, (got,), text = _verify(_write(tmp_path, flooded))
    assert code == EXIT_CODES["ok"], text
    assert got["proofs"] == [] and got["verdict"] == "ok"
    assert sum("proves nothing" in n for n in got["notes"]) == MAX_PROOFS


def test_two_logs_of_one_game_that_fork_name_only_the_signer(tmp_path: Path) -> None:
    """`zoo verify a b` with two logs of one game: the seat that signed two entries for one seq
    is named (exit 4); two honest logs of one game (the claim and the staller's late log) fork
    nowhere and convict nobody (exit 0)."""
    s = sample("2p-standard.zoolog")
    k, mover = _move_floor(s, after=10)
    alt = s.sign(mover, k, Kind.MOVE, _other_legal_move(s, k))
    honest, forked = tmp_path / "honest.zoolog", tmp_path / "forked.zoolog"
    honest.write_bytes(b"".join(s.log))
    forked.write_bytes(b"".join([*s.log[:k], alt]))
    code, got, text = _verify(honest, forked)
    assert code == EXIT_CODES["cheat"]
    forks = [r for r in got if "fork" in r]
    assert [r["fork"]["seat"] for r in forks] == [mover]  # type: ignore[index]
    assert f"cheat: seat {mover + 1} (" in text and "(a fork)" in text
    a = sample("3p-standard-claimed-reveal.zoolog")
    b = sample("3p-standard-claimed-reveal-late.zoolog")
    pa, pb = tmp_path / "claim.zoolog", tmp_path / "late.zoolog"
    pa.write_bytes(b"".join(a.log))
    pb.write_bytes(b"".join(b.log))
    code, got, text = _verify(pa, pb)
    assert code == 0, text
    assert [r["verdict"] for r in got] == ["ok", "ok"] and "cheat" not in text


def test_a_forged_net_sidecar_changes_no_verdict(tmp_path: Path) -> None:
    """The `.net` sidecar (peers and addresses) is not evidence: a forged one beside a forged
    log, claiming whatever it likes, leaves the report as the log and its proofs give it."""
    f = CATALOGUE["fork/seat-signs-two-moves-for-one-seq"]()
    log = _write(tmp_path, f)
    _, before, _ = _verify(log)
    net = log.with_name(log.name + ".net")
    net.write_text(json.dumps({"role": "host", "verdict": "ok", "cheater": 1, "proofs": []}))
    code, after, _ = _verify(log)
    assert after == before and code == EXIT_CODES["cheat"]
    net.write_bytes(b"\x00\xff not json")
    assert _verify(log)[1] == before


def test_a_coalition_that_rewrites_history_is_named_by_the_honest_log(tmp_path: Path) -> None:
    """The known limit of §10.6, played by the coalition of all seats but one: seats 1 and 2
    (indices 0 and 1) replay the 3-seat game to a move of theirs, sign another move there, play
    on between themselves to the honest seat's floor, and claim against it. Their log alone
    verifies ok (an auditor of one log cannot tell: every seat but the claimed one signed). Next
    to the honest seat's log, `zoo verify` names the seat that signed two entries for one seq,
    and only that seat: never the honest one."""
    s = sample("3p-standard.zoolog")
    honest_seat = 2
    coalition = [0, 1]
    k = next(
        i
        for i, a, kind in s.kinds()
        if i > 40 and kind == Kind.MOVE and a in coalition and s.session(i).floor is not None
    )
    sessions = {v: Session(s.log[0], key=s.keys[v], seed=s.seeds[v]) for v in coalition}
    for raw in s.log[1:k]:
        for sess in sessions.values():
            sess.receive(raw)
    forker = decode_entry(s.log[k]).seat
    alt = _other_legal_move(s, k)
    out = [sessions[forker].move(decode_move(alt))]
    while True:
        for raw in out:
            for sess in sessions.values():
                if raw not in sess.entries:
                    sess.receive(raw)
        floor = sessions[forker].floor
        assert floor is not None
        if floor.seat == honest_seat:
            break
        holder = sessions[floor.seat]
        if floor.kind == Kind.MOVE:
            assert holder.state is not None
            out = [holder.move(holder.state.legal_moves()[0])]
        else:
            out = holder.take_outgoing()
    votes = [sessions[v].vote_claim() for v in coalition]
    for sess in sessions.values():
        for vote in votes:
            sess.add_vote(vote)
    (claim,) = sessions[coalition[0]].take_outgoing()
    assert decode_entry(claim).kind == Kind.CLAIM
    forged_log = sessions[coalition[0]].entries
    honest, forged = tmp_path / "honest.zoolog", tmp_path / "rewritten.zoolog"
    honest.write_bytes(b"".join(s.log))
    forged.write_bytes(b"".join(forged_log))
    code, (alone,), _ = _verify(forged)
    assert code == 0 and alone["ending"]["kind"] == "claimed"  # the known limit, one log
    assert alone["ending"]["seat"] == honest_seat
    code, got, text = _verify(honest, forged)
    assert code == EXIT_CODES["cheat"]
    forks = [r["fork"] for r in got if "fork" in r]
    assert [f["seat"] for f in forks] == [forker] and forks[0]["seq"] == k  # type: ignore[index]
    reports = [r for r in got if "fork" not in r]
    assert [r["verdict"] for r in reports] == ["ok", "ok"]  # each log alone convicts nobody
    assert text.count("cheat: ") == 1 and f"cheat: seat {forker + 1} (" in text
