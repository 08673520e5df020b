"""The local game, the replay viewer and verify, driven through the real CLI (CliRunner)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zoo_p2p.bots import make_bot
from zoo_p2p.cli.app import app
from zoo_p2p.cli.local import run_game
from zoo_p2p.protocol.simulate import play_game
from zoo_p2p.rules import KnownDeal, Move, State, Team, Variant
from zoo_p2p.storage import read_log, write_log

runner = CliRunner()


def test_local_game_against_a_bot_to_the_end() -> None:
    """A human who always types the first legal move, plus some bad input, finishes a game."""
    lines = ["7@C3", "C3-D4", "hello", "?"]  # each must be refused with a reason, then go on
    # A dry run with the same seed as `zoo play --local --seed 11` (same draws in the same
    # order: the bot's seed, the deal, the first seat) records the moves the human will type.
    rng = random.Random(11)
    bot = make_bot("greedy", seed=rng.randrange(2**32))
    deal = KnownDeal.random(rng, Variant.STANDARD)
    state = deal.new_state([Team.YELLOW, Team.BLUE], first_seat=rng.randrange(2))
    moves: list[str] = []

    def human(s: State) -> Move:
        m = s.legal_moves()[0]
        moves.append(str(m))
        return m

    final = run_game(state, [human, bot.choose])
    assert final.is_terminal()
    result = runner.invoke(
        app,
        ["play", "--local", "--seed", "11", "--team", "yellow"],
        input="\n".join(lines + moves) + "\n",
    )
    out = result.output
    assert result.exit_code == 0, out
    assert "characters are worth 3, 4, 5 or 6, not 7" in out
    assert "not one square up, down, left or right" in out
    assert "'hello' is not a move" in out
    assert "legal: send 3/4/5/6 onto" in out
    assert "Final score" in out
    totals = [s.total for s in final.scores()]
    for t in totals:
        assert re.search(rf"│\s+{t} │", out), (t, out[-1500:])


def test_local_game_rejects_bad_options() -> None:
    r = runner.invoke(app, ["play", "--local", "--team", "purple"])
    assert r.exit_code != 0 and "unknown team 'purple'" in r.output
    r = runner.invoke(app, ["play", "--local", "--variant", "chess"])
    assert r.exit_code != 0 and "unknown variant" in r.output


@pytest.fixture(scope="module")
def log3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = play_game(3, Variant.STANDARD, random.Random(5))
    path = tmp_path_factory.mktemp("logs") / "g3.zoolog"
    write_log(path, game.entries)
    return path


def test_replay_dump_tells_the_whole_story(log3: Path) -> None:
    r = runner.invoke(app, ["replay", str(log3), "--dump"])
    assert r.exit_code == 0, r.output
    assert "first to play" in r.output
    assert "under it: " in r.output  # a bottom card uncovered (text.uncovered)
    assert "every seat signed the result" in r.output
    assert "Final score" in r.output
    assert "the deal (top / bottom, * = mutant)" in r.output


def test_replay_at_shows_the_board_after_that_move(log3: Path) -> None:
    r = runner.invoke(app, ["replay", str(log3), "--at", "12"])
    assert r.exit_code == 0, r.output
    assert "move 12 of" in r.output and "│ 5 │" in r.output
    r = runner.invoke(app, ["replay", str(log3), "--at", "100000"])
    assert r.exit_code == 2 and "the log has moves 0 (the start) to" in r.output


def test_replay_interactive_navigation(log3: Path) -> None:
    r = runner.invoke(app, ["replay", str(log3)], input="n\nn\nb\nj 14\nx\ne\nq\n")
    assert r.exit_code == 0, r.output
    assert "move 14 of" in r.output
    assert "'x':" in r.output  # an unknown key is explained
    assert "Final score" in r.output


def test_replay_of_a_cut_log_says_the_game_did_not_finish(log3: Path, tmp_path: Path) -> None:
    data = log3.read_bytes()
    cut = tmp_path / "cut.zoolog"
    entries = read_log(log3).entries
    cut.write_bytes(data[: sum(map(len, entries[:60])) + 9])  # 60 entries and a torn 61st
    r = runner.invoke(app, ["replay", str(cut), "--dump"])
    assert r.exit_code == 0, r.output
    assert "dropped a torn last entry" in r.output
    assert "did not finish" in r.output


def test_replay_of_garbage_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zoolog"
    bad.write_bytes(b"\xc1not a log at all")
    r = runner.invoke(app, ["replay", str(bad)])
    assert r.exit_code == 5 and "cannot replay" in r.output  # rejected, as by `zoo verify`
