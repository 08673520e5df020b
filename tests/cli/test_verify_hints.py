"""`zoo verify` and `zoo replay` say "hints: allowed" for a game whose genesis allows hints
(PROTOCOL.md §3.2), and nothing of the kind for one that does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.protocol.audit import audit
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_ALLOWED_LINE
from zoo_p2p.tui.replay import verdict_text

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


@pytest.mark.parametrize(("name", "hints"), [("2p-standard-hints", True), ("2p-standard", False)])
def test_verify_replay_and_the_app_say_hints_allowed_only_for_such_a_game(
    name: str, hints: bool
) -> None:
    log = str(REPLAYS / f"{name}.zoolog")
    runner = CliRunner()
    verify = runner.invoke(app, ["verify", log])
    assert verify.exit_code == 0, verify.output
    assert (HINTS_ALLOWED_LINE in verify.output) is hints
    as_json = runner.invoke(app, ["verify", "--json", log])
    assert json.loads(as_json.output)[0]["hints"] is hints
    replay = runner.invoke(app, ["replay", log, "--plain"])
    assert replay.exit_code == 0, replay.output
    assert (HINTS_ALLOWED_LINE in replay.output) is hints
    shown = verdict_text(audit(read_log(Path(log)).entries)).plain  # the full-screen replay
    assert shown.startswith("verified") and (HINTS_ALLOWED_LINE in shown) is hints
