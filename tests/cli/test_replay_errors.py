"""`zoo replay` of a log it cannot read says why in one line, naming the file once."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from zoo_p2p.cli.app import app


def test_a_missing_or_bad_log_is_named_once(tmp_path: Path) -> None:
    missing = tmp_path / "nope.zoolog"
    bad = tmp_path / "bad.zoolog"
    bad.write_bytes(b"garbage")
    for path, why, code in (
        (missing, "no such file", 2),  # a named file that does not exist: usage (docs/CLI.md)
        (tmp_path, "not a regular file", 1),
        (bad, "entry 0", 5),  # not a valid log: rejected, as `zoo verify` says (exits.py)
    ):
        r = CliRunner().invoke(app, ["replay", str(path), "--plain"], env={"COLUMNS": "300"})
        assert r.exit_code == code, r.output
        assert r.output.count(str(path)) == 1 and why in r.output, r.output


def test_a_file_that_is_no_log_is_said_so_in_the_app_path_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal `zoo replay` opens the app: a text file given by mistake gave "entry 0:
    bytes at offset 0 are not an entry …" with no file named (the last-defence line)."""
    import zoo_p2p.cli.screen as screen

    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    for plain in (True, False):  # the line mode, and the app's path (as on a terminal)
        monkeypatch.setattr(screen, "use_plain", lambda asked, p=plain: p)
        r = CliRunner().invoke(app, ["replay", str(notes)], env={"COLUMNS": "300"})
        said = " ".join(r.output.split())
        assert r.exit_code == 5, said  # rejected, as by `zoo verify` (docs/CLI.md)
        assert f"cannot replay {notes}: it is not a zoo game log (entry 0:" in said, (plain, said)
        assert said.count(str(notes)) == 1 and "Traceback" not in said
