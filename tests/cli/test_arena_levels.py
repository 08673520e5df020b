"""`zoo arena --levels`: a misspelt level is named as such (it was counted first, and the user
read "2 to 4 seats, not 1" for `--levels super`), and one level alone says how to give seats;
a usage error (exit 2, as every wrong value of every command: README, docs/CLI.md; it was 1)."""

from __future__ import annotations

from typer.testing import CliRunner

from zoo_p2p.cli.app import app


def _said(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["arena", "-n", "1", *args])
    return r.exit_code, " ".join(r.output.split())


def test_a_misspelt_level_is_named_not_counted() -> None:
    for levels in ("super", "hard,Super"):
        code, said = _said("--levels", levels)
        assert code == 2, said
        assert "unknown level 'super': choose random, greedy, hard, expert" in said, said
        assert "seats, not" not in said


def test_one_level_alone_says_how_to_give_the_seats() -> None:
    code, said = _said("--levels", "hard")
    assert code == 2 and "hard is one seat" in said and "--players N" in said, said
