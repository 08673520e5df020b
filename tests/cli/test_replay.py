"""`zoo replay`: one step per move, file strings shown literally, `--analyse` on sample logs."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.cli.replay import load_replay
from zoo_p2p.protocol import simulate
from zoo_p2p.rules import Variant
from zoo_p2p.storage import read_log, write_log

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parents[2] / "replays"


def test_steps_are_moves_not_entries() -> None:
    log = SAMPLES / "2p-standard.zoolog"
    rp = load_replay(log)
    assert rp.scenes[0].kind == "start" and rp.scenes[0].state is not None
    moves = [s for s in rp.scenes if s.kind == "move"]
    assert [s.number for s in moves] == list(range(1, rp.moves + 1))
    assert rp.scenes[-1].kind == "end"
    assert len(rp.scenes) == rp.moves + 2 < len(read_log(log).entries)
    # every step after the first shows a board that differs from the one before
    assert all(s.move is not None and s.lines for s in moves)
    # the start already shows the dealt board: no "entry 1 of 107" with nothing on it
    r = runner.invoke(app, ["replay", str(log)], input="q\n")
    assert "the start (before move 1 of" in r.output and "│ A │" not in r.output.split("\n")[0]


def test_b_goes_back_one_move_and_n_forward(tmp_path: Path) -> None:
    log = SAMPLES / "2p-standard.zoolog"
    r = runner.invoke(app, ["replay", str(log)], input="n\nn\nn\nb\nb\ns\nq\n")
    assert r.exit_code == 0, r.output
    titles = re.findall(r"^(the start|move \d+) [(o]", r.output, flags=re.M)
    assert titles == ["the start", "move 1", "move 2", "move 3", "move 2", "move 1", "the start"]


@pytest.fixture()
def hostile_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(simulate, "DEFAULT_NAMES", ("[/]", "[bold red]x[/bold red"))
    game = simulate.play_game(2, Variant.STANDARD, random.Random(8))
    path = tmp_path / "[red]evil[red].zoolog"
    write_log(path, game.entries)
    return path


def test_file_strings_are_shown_literally(hostile_log: Path) -> None:
    r = runner.invoke(app, ["replay", str(hostile_log), "--dump"])
    assert r.exit_code == 0, r.output
    assert "[/] (" in r.output
    assert "[bold red]x[/bold red (" in r.output
    r = runner.invoke(app, ["replay", str(hostile_log), "--at", "999"])
    assert r.exit_code == 2 and "'--at': 999" in r.output  # a wrong value (docs/CLI.md)
    missing = hostile_log.with_name("[bold]gone[bold].zoolog")
    r = runner.invoke(app, ["replay", str(missing)])
    assert r.exit_code == 2 and "[bold]gone[bold]" in r.output.replace("\n", "")
    r = runner.invoke(app, ["replay", str(hostile_log)], input="[/]\nq\n")
    assert r.exit_code == 0 and "'[/]'" in r.output


@pytest.mark.parametrize("name", ["2p-standard", "3p-general"])
def test_analyse_the_sample_logs(name: str) -> None:
    log = SAMPLES / f"{name}.zoolog"
    rp = load_replay(log)
    r = runner.invoke(app, ["replay", str(log), "--dump", "--analyse", "--plies", "300"])
    assert r.exit_code == 0, r.output
    # one analysis line per move, and the summary per seat
    lines = [
        ln
        for ln in r.output.splitlines()
        if re.match(r"\s+(analysis|inaccuracy|mistake|blunder):", ln)
    ]
    assert len(lines) == rp.moves
    assert "Analysis: expected final margin lost" in r.output
    for seat in rp.names:
        assert seat in r.output


def test_a_bad_move_number_names_the_moves_as_verify_counts_them() -> None:
    """`zoo replay LOG --at 999` said "the log has moves 0 (the start) to 37" for a game that
    `zoo verify` says has 36 moves (step 37 is the end)."""
    log = SAMPLES / "2p-standard.zoolog"
    moves = load_replay(log).moves
    r = runner.invoke(app, ["replay", str(log), "--at", "999", "--plain"], env={"COLUMNS": "200"})
    assert r.exit_code == 2, r.output  # a wrong value (docs/CLI.md)
    assert f"moves 0 (the start) to {moves}, and {moves + 1}: the end" in r.output, r.output
    r = runner.invoke(
        app, ["replay", str(log), "--plain"], input="j999\nq\n", env={"COLUMNS": "200"}
    )
    assert f"to {moves}, and {moves + 1}: the end" in r.output, r.output
