"""`zoo verify` of forged claims (PROTOCOL.md §10.3, issue 18 B, D) and of entries of an unknown
kind or version (§6 step 1): never ok, and only the signer of the refused entry is named, in
the log itself or as a §9 proof in `LOG.proofs` beside the honest log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.protocol.claim_samples import FORGERIES
from zoo_p2p.protocol.evidence import make_proof
from zoo_p2p.storage import append_proof, write_log


def _verify(path: Path) -> tuple[int, dict[str, Any], str]:
    runner = CliRunner()
    js = runner.invoke(app, ["verify", "--json", str(path)])
    text = runner.invoke(app, ["verify", str(path)], env={"COLUMNS": "300"})
    assert js.exit_code == text.exit_code, (js.output, text.output)
    return js.exit_code, json.loads(js.output)[0], " ".join(text.output.split())


@pytest.mark.parametrize("name", list(FORGERIES))
def test_verify_names_only_the_signer_of_a_forged_entry(name: str, tmp_path: Path) -> None:
    f = FORGERIES[name]()
    log = tmp_path / "forged.zoolog"
    log.write_bytes(b"".join(f.log))
    code, report, said = _verify(log)
    if f.seat is None:
        assert code == 5 and report["verdict"] == "rejected", said
        assert report["fault"]["seat"] is None
        assert f"rejected: entry {f.index}" in said and "cheat" not in said
    else:
        assert code == 4 and report["verdict"] == "cheat", said
        assert report["fault"]["seat"] == f.seat and report["fault"]["entries"] == [f.index]
    assert report["fault"]["index"] == f.index and report["proofs"] == []
    assert report["ending"] is None


@pytest.mark.parametrize("name", ["claim_after_result_3p_by_2", "claim_after_result_2p_by_1"])
def test_a_claim_after_the_last_result_stored_as_a_proof_convicts_its_author(
    name: str, tmp_path: Path
) -> None:
    """The honest, finished log verifies ok; beside it, in `LOG.proofs`, the claim that would
    overturn it is a proof against the seat that signed that claim, and only that seat."""
    f = FORGERIES[name]()
    honest = f.log[:-1]
    log = tmp_path / "game.zoolog"
    write_log(log, honest)
    code, report, _ = _verify(log)
    assert code == 0 and report["verdict"] == "ok" and report["ending"]["kind"] == "finished"
    assert append_proof(log, make_proof(honest, f.log[-1]))
    code, report, said = _verify(log)
    assert code == 4 and report["verdict"] == "cheat", said
    assert [p["seat"] for p in report["proofs"]] == [f.seat]
    assert report["proofs"][0]["entries"] == [f.index]
