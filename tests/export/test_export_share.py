"""Exports are pages for others (issue 20, item 10): a seat signed as "you" (what `zoo play`
signs for the person at the terminal) is not "you" on them ("you (Yellow) moves their 3"), and
they get the mode a plain file gets under the umask (keys and logs keep theirs)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

import zoo_p2p.protocol.simulate as simulate
from zoo_p2p.cli.app import app
from zoo_p2p.export import from_text
from zoo_p2p.rules import Variant
from zoo_p2p.storage import write_log

runner = CliRunner()


def _log_with_you(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import random

    monkeypatch.setattr(simulate, "DEFAULT_NAMES", ["you", "greedy bot 1"])
    game = simulate.play_game(2, Variant.STANDARD, random.Random(5))
    log = tmp_path / "g.zoolog"
    write_log(log, game.entries)
    return log


def test_exports_never_say_you(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log_with_you(tmp_path, monkeypatch)
    html, text = tmp_path / "g.html", tmp_path / "g.txt"
    r = runner.invoke(app, ["replay", str(log), "--html", str(html), "--text", str(text)])
    assert r.exit_code == 0, r.output
    page = html.read_text()
    assert "you (" not in page and ">you<" not in page
    assert "seat 1 (Yellow)" in page and "greedy bot 1 (" in page
    record = from_text(text.read_bytes())
    assert record.names == ("seat 1", "greedy bot 1")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_exports_get_the_mode_of_a_plain_file(
    tmp_path: Path, umask: int, mode: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _log_with_you(tmp_path, monkeypatch)
    html, text = tmp_path / "g.html", tmp_path / "g.txt"
    old = os.umask(umask)
    try:
        r = runner.invoke(app, ["replay", str(log), "--html", str(html), "--text", str(text)])
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    for out in (html, text):
        assert stat.S_IMODE(out.stat().st_mode) == mode, (out, oct(out.stat().st_mode))
