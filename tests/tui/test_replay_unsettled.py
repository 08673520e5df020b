"""The app's replay counts a move whose reveal never came, as `zoo verify` and the line mode
do: `zoo replay replays/3p-standard-claimed-reveal.zoolog` opened on "move 0 of 0" with an
empty move list, while `--plain` showed "move 1 of 1: Brice (Green) sends 6@D1…"."""

from __future__ import annotations

from pathlib import Path

from zoo_p2p.cli.replay import load_replay
from zoo_p2p.storage import audit_file
from zoo_p2p.tui.replay import load

SAMPLE = Path(__file__).parents[2] / "replays" / "3p-standard-claimed-reveal.zoolog"


def test_a_move_whose_reveal_never_came_is_a_step_of_the_replay() -> None:
    data = load(SAMPLE)
    moves = len(audit_file(SAMPLE).moves)
    assert moves == load_replay(SAMPLE).moves == 1
    assert len(data.frames) - 1 == moves  # the start, then every move
    last = data.frames[-1]
    assert last.move is not None and "6@D1" in last.line.plain
    assert "never revealed" in last.line.plain and "was not a mutant" not in last.line.plain
    assert not last.reveal and not last.mutant


def test_a_settled_game_is_unchanged() -> None:
    whole = Path(__file__).parents[2] / "replays" / "2p-standard.zoolog"
    data = load(whole)
    assert len(data.frames) - 1 == len(audit_file(whole).moves)
    assert all("never revealed" not in f.line.plain for f in data.frames)
