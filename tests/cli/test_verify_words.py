"""`zoo verify`'s closing lines in the voice of the game's own ending: scores by name and team
("host (Yellow) 44"), the winner as a seat ("seat 2 (Blue)")."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.protocol.audit import audit
from zoo_p2p.storage import read_log
from zoo_p2p.text import seat_word

LOG = Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog"


def test_scores_and_the_winner_read_as_the_game_says_them() -> None:
    report = audit(read_log(LOG).entries)
    r = CliRunner().invoke(app, ["verify", str(LOG)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert report.scores is not None and report.winners
    parts = [
        f"{s.name} ({s.team.label}) {t}" for s, t in zip(report.seats, report.scores, strict=True)
    ]
    won = ", ".join(seat_word(w, report.seats[w].team.label) for w in report.winners)
    assert f"final scores: {', '.join(parts)}; won by {won}" in r.output
    n = len(report.moves)
    assert re.search(rf"; {n} moves?\n", r.output)


def test_verify_of_a_text_record_says_what_it_is(tmp_path: Path) -> None:
    """A walkthrough exported `--text game.txt` and ran `zoo verify game.txt`: it was told
    only "entry 0: bytes at offset 0 are not an entry (starts with byte 0x5b, not 0x92)"."""
    record = tmp_path / "game.txt"
    r = CliRunner().invoke(app, ["replay", str(LOG), "--text", str(record)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["verify", str(record)], env={"COLUMNS": "200"})
    assert r.exit_code == 5, r.output  # rejected: not a valid log (the code is unchanged)
    assert "text record" in r.output and "no signatures" in r.output, r.output
    assert "verify the .zoolog" in r.output
    r = CliRunner().invoke(app, ["verify", str(LOG)], env={"COLUMNS": "200"})
    assert "text record" not in r.output


def test_verify_of_a_file_that_is_no_log_at_all_says_so(tmp_path: Path) -> None:
    """`zoo verify notes.txt` (a wrong path) said only "bytes at offset 0 are not an entry";
    a log damaged later on is not called a wrong file."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    r = CliRunner().invoke(app, ["verify", str(notes)], env={"COLUMNS": "200"})
    assert r.exit_code == 5, r.output  # rejected, as before
    assert "not a zoo game log at all" in r.output and "text record" not in r.output, r.output
    damaged = tmp_path / "damaged.zoolog"
    damaged.write_bytes(LOG.read_bytes()[:-3] + b"xyz")
    r = CliRunner().invoke(app, ["verify", str(damaged)], env={"COLUMNS": "200"})
    assert r.exit_code != 0 and "not a zoo game log" not in r.output, r.output
