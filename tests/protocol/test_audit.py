"""The auditor and `zoo verify`: verdicts, byte flips, truncation, JSON output."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tests.protocol.conftest import finished_game
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.audit import INCOMPLETE, OK, REJECTED, audit
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Variant
from zoo_p2p.storage import write_log


def test_complete_logs_verify(tmp_path: Path) -> None:
    for n in (2, 3, 4):
        report = audit(finished_game(n).entries)
        assert report.verdict == OK and report.fault_index is None
        assert report.checked == report.entries
        assert len(report.moves) > 0 and report.scores is not None and report.winners


def test_every_byte_flip_of_sampled_entries_is_rejected_on_arrival() -> None:
    """Exhaustive over every byte of a sample of entries (one of each kind), on a live observer."""
    entries = finished_game(2, Variant.STANDARD).entries
    kinds_seen: set[str] = set()
    obs = Session(entries[0])
    for i, raw in enumerate(entries[1:], start=1):
        kind = decode_entry(raw).kind
        exhaustive = kind not in kinds_seen  # the first entry of each kind: every byte
        kinds_seen.add(kind)
        positions = range(len(raw)) if exhaustive else range(i % 13, len(raw), 97)
        for pos in positions:
            flipped = bytearray(raw)
            flipped[pos] ^= 0x01 << (pos % 8)
            with pytest.raises(RemoteProtocolError):
                obs.receive(bytes(flipped))
        assert obs.stopped is None
        obs.receive(raw)
    assert obs.finished and len(kinds_seen) == 6


def test_byte_flips_in_a_whole_log_make_the_auditor_name_the_entry() -> None:
    entries = finished_game(2, Variant.GENERAL).entries
    rng = random.Random(42)
    offsets = []
    total = 0
    for raw in entries:
        offsets.append(total)
        total += len(raw)
    for _ in range(40):
        i = rng.randrange(len(entries))
        pos = rng.randrange(len(entries[i]))
        bad = bytearray(entries[i])
        bad[pos] ^= 1 << rng.randrange(8)
        report = audit([*entries[:i], bytes(bad), *entries[i + 1 :]])
        assert report.verdict == REJECTED and report.fault_index == i, (i, pos, report.fault_reason)
        assert report.fault_seat is None  # a broken signature convicts nobody


def test_truncated_log_is_incomplete_and_says_who_holds_the_floor() -> None:
    entries = finished_game(3).entries
    for cut in (1, 2, 5, len(entries) // 2, len(entries) - 1):
        report = audit(entries[:cut])
        assert report.verdict == INCOMPLETE and report.waiting_for is not None
        assert report.notes and report.checked == cut


def test_reordered_duplicated_or_missing_entries_are_faults() -> None:
    e = finished_game(2).entries
    assert audit([e[0], e[2], e[1], *e[3:]]).fault_index == 1
    assert audit([*e[:5], e[4], *e[5:]]).fault_index == 5
    assert audit([*e[:5], *e[6:]]).fault_index == 5
    assert audit([]).verdict == REJECTED
    assert audit([b"garbage"]).fault_index == 0


def _app() -> typer.Typer:
    from zoo_p2p.cli.verify import verify_command

    app = typer.Typer()

    @app.command()
    def verify(logs: list[Path], json: bool = typer.Option(False, "--json")) -> None:
        verify_command(logs, json=json)

    return app


def test_verify_command_ok_fault_and_json(tmp_path: Path) -> None:
    entries = finished_game(2).entries
    good = tmp_path / "good.zoo"
    write_log(good, entries)
    runner = CliRunner()
    res = runner.invoke(_app(), [str(good)])
    assert res.exit_code == 0, res.output
    assert "OK" in res.output and "the deal" in res.output

    bad = tmp_path / "bad.zoo"
    data = bytearray(good.read_bytes())
    data[len(entries[0]) + 40] ^= 0xFF
    bad.write_bytes(bytes(data))
    res = runner.invoke(_app(), [str(bad)])
    assert res.exit_code == 5 and "REJECTED" in res.output and "entry 1" in res.output

    torn = tmp_path / "torn.zoo"
    torn.write_bytes(good.read_bytes()[:-10])
    res = runner.invoke(_app(), ["--json", str(good), str(torn)])
    assert res.exit_code == 3  # the last result entry is torn: incomplete
    out = json.loads(res.output)
    assert [r["verdict"] for r in out] == [OK, INCOMPLETE]
    assert out[1]["torn"] and out[0]["deal"] is not None and len(out[0]["deal"]) == 50

    # a path that names no file is a usage error, in the words of every command (exits.py)
    from zoo_p2p.cli.app import app

    missing = tmp_path / "missing.zoo"
    res = runner.invoke(app, ["verify", str(good), str(missing)])
    assert res.exit_code == 2 and f"cannot read {missing}: no such file" in res.output


def test_registered_zoo_verify_command(tmp_path: Path) -> None:
    from zoo_p2p.cli.app import app

    good = tmp_path / "good.zoo"
    write_log(good, finished_game(3).entries)
    res = CliRunner().invoke(app, ["verify", "--json", str(good)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)[0]["verdict"] == OK
