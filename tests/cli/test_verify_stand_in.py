"""`zoo verify` of a log whose stand-in played a move other than the reference policy's
(PROTOCOL.md §10.4): exit 5 (rejected), the entry named, nobody convicted (the stand-in's key is
public); the untouched sample log verifies (exit 0) and says a stand-in played on."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.session import Session, encode_move
from zoo_p2p.protocol.standin import reference_move, stand_in_private_key
from zoo_p2p.storage import read_log

SAMPLE = Path(__file__).resolve().parents[2] / "replays" / "3p-standard-resigned.zoolog"


def test_verify_rejects_a_stand_in_move_that_is_not_the_policys(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", str(SAMPLE)])
    assert ok.exit_code == 0, ok.output
    assert "a stand-in played on" in " ".join(ok.output.split())
    log = list(read_log(SAMPLE).entries)
    watcher = Session(log[0])
    for raw in log[1:]:
        e = decode_entry(raw)
        if e.kind == Kind.MOVE and e.seat in watcher.resigned:
            break
        watcher.receive(raw)
    k = e.seq
    assert watcher.state is not None
    other = next(m for m in watcher.state.legal_moves() if m != reference_move(watcher.state))
    key = stand_in_private_key(watcher.game_id, e.seat, watcher.opened_seeds[e.seat])
    forged = make_entry(key, k, sha256(log[k - 1]), e.seat, Kind.MOVE, encode_move(other))
    bad = tmp_path / "forged.zoolog"
    bad.write_bytes(b"".join([*log[:k], forged, *log[k + 1 :]]))
    out = runner.invoke(app, ["verify", str(bad)])
    assert out.exit_code == 5, out.output
    said = " ".join(out.output.split())
    assert f"rejected: entry {k}: not the entry the stand-in of seat 2" in said, said
    report = json.loads(runner.invoke(app, ["verify", "--json", str(bad)]).output)[0]
    assert report["verdict"] == "rejected" and report["fault"]["index"] == k
    assert report["fault"]["seat"] is None and report["proofs"] == []
