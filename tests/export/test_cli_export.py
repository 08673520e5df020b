"""`zoo replay LOG --html/--text` and `zoo replay RECORD.txt`, through the real command."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

import zoo_p2p.protocol.simulate as simulate
from zoo_p2p.cli.app import app
from zoo_p2p.export import from_text
from zoo_p2p.rules import Variant
from zoo_p2p.storage import write_log

LOG = Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog"
runner = CliRunner()


def test_export_both_then_view_the_text_record(tmp_path: Path) -> None:
    # a long path, whole on its line to copy: it was wrapped at 80 columns, so this test failed
    # wherever the temporary directory's name was long (pytest-xdist's popen-gw1/ was enough)
    out = tmp_path / ("exports-" * 8)
    out.mkdir()
    html, text = out / "g.html", out / "g.txt"
    r = runner.invoke(app, ["replay", str(LOG), "--html", str(html), "--text", str(text)])
    assert r.exit_code == 0, r.output
    assert f"wrote {html}" in r.output and f"wrote {text}" in r.output
    assert html.read_text().startswith("<!doctype html>")
    record = from_text(text.read_bytes())
    r = runner.invoke(app, ["replay", str(text), "--dump"])
    assert r.exit_code == 0, r.output
    assert f"{len(record.moves)}. " in r.output
    assert "Final score" in r.output
    r = runner.invoke(app, ["replay", str(text), "--at", "999"])  # a wrong value: exit 2
    assert r.exit_code == 2 and "'--at': 999: the record has moves 0 to" in r.output, r.output


def test_a_text_record_steps_through_like_a_log(tmp_path: Path) -> None:
    """`zoo replay game.txt` printed the whole game at once: it steps now, as a log does (the
    start, then one move per Enter, a move number jumps, `e` the end with the scores, q)."""
    text = tmp_path / "g.txt"
    assert runner.invoke(app, ["replay", str(LOG), "--text", str(text)]).exit_code == 0
    record = from_text(text.read_bytes())
    total = len(record.moves)
    r = runner.invoke(app, ["replay", str(text)], input="\n\n5\nb\ne\nq\n")
    assert r.exit_code == 0, r.output
    shown = [line for line in r.output.splitlines() if line.startswith(("the start", "move "))]
    assert shown == [
        f"the start (before move 1 of {total})",
        f"move 1 of {total}",
        f"move 2 of {total}",
        f"move 5 of {total}",
        f"move 4 of {total}",
        f"move {total} of {total}",
    ]
    assert r.output.count("replay> ") == 6 and r.output.count("Final score") == 1
    assert "  3. " not in r.output  # only the moves stepped to, never the whole list


def test_export_never_overwrites_the_log(tmp_path: Path) -> None:
    log = tmp_path / "g.zoolog"
    log.write_bytes(LOG.read_bytes())
    r = runner.invoke(app, ["replay", str(log), "--html", str(log)])
    assert r.exit_code == 1 and "refusing to overwrite the log" in r.output
    assert log.read_bytes() == LOG.read_bytes()


def test_a_broken_text_record_is_one_red_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Format "zoo-p2p-text 1"]\n[Variant "[/]"]\n')
    r = runner.invoke(app, ["replay", str(bad)])
    assert r.exit_code == 1
    assert "line 2: unknown variant '[/]'" in r.output
    assert "Traceback" not in r.output


def test_hostile_names_are_shown_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulate, "DEFAULT_NAMES", ["[/]", "[link=http://x]a[/link]"])
    game = simulate.play_game(2, Variant.STANDARD, random.Random(3))
    log = tmp_path / "h.zoolog"
    write_log(log, game.entries)
    text = tmp_path / "h.txt"
    r = runner.invoke(app, ["replay", str(log), "--text", str(text)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["replay", str(text)])
    assert r.exit_code == 0, r.output
    assert "[/]" in r.output and "[link=http://x]a[/link]" in r.output


def test_exports_carry_the_analysis_marks(tmp_path: Path) -> None:
    html, text = tmp_path / "g.html", tmp_path / "g.txt"
    args = ["replay", str(LOG), "--html", str(html), "--text", str(text)]
    r = runner.invoke(app, [*args, "--analyse", "--plies", "200"])
    assert r.exit_code == 0, r.output
    marked = [line for line in text.read_text().splitlines() if " mark=" in line]
    assert marked, "a 200-ply analysis of a random-ish game finds some inaccuracy"
    kind = marked[0].split(" mark=")[1].split()[0]
    assert kind in ("inaccuracy", "mistake", "blunder")
    assert 'class="mark"' in html.read_text()
    assert from_text(text.read_bytes()).moves  # the marks do not break reading it back


def test_one_move_is_one_move(tmp_path: Path) -> None:
    """`zoo replay replays/3p-standard-claimed-reveal.zoolog --text r.txt` said "1 moves"."""
    log = Path(__file__).resolve().parents[2] / "replays" / "3p-standard-claimed-reveal.zoolog"
    html, text = tmp_path / "r.html", tmp_path / "r.txt"
    r = CliRunner().invoke(app, ["replay", str(log), "--html", str(html), "--text", str(text)])
    assert r.exit_code == 0, r.output
    assert ": 1 move, one page" in r.output and ": 1 move\n" in r.output, r.output
    assert "1 moves" not in r.output
