"""`zoo replay` of a log it cannot read says why in one line, naming the file once."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from zoo_p2p.cli.app import app


def test_a_missing_or_bad_log_is_named_once(tmp_path: Path) -> None:
    missing = tmp_path / "nope.zoolog"
    bad = tmp_path / "bad.zoolog"
    bad.write_bytes(b"garbage")
    for path, why in (
        (missing, "no such file"),
        (tmp_path, "not a regular file"),
        (bad, "entry 0"),
    ):
        r = CliRunner().invoke(app, ["replay", str(path), "--plain"], env={"COLUMNS": "300"})
        assert r.exit_code == 1, r.output
        assert r.output.count(str(path)) == 1 and why in r.output, r.output
