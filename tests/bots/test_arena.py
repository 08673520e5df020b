"""Arena: match planning, statistics (Wilson intervals, shared wins) and the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from zoo_p2p.bots.arena import (
    ArenaError,
    ArenaReport,
    GameResult,
    plan_games,
    play_game,
    wilson_interval,
)
from zoo_p2p.cli.app import app
from zoo_p2p.rules import Variant


@pytest.mark.parametrize(
    ("wins", "n", "lo", "hi"),
    [
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (150, 200, 0.6857, 0.8049),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_known_values(wins: float, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(wins, n)
    assert got[0] == pytest.approx(lo, abs=1e-4)
    assert got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_empty() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_plan_rotates_seats_on_each_deal() -> None:
    specs = plan_games(["hard", "greedy", "random"], 6, variant="both", seed=1)
    assert [s.levels for s in specs[:3]] == [
        ("hard", "greedy", "random"),
        ("random", "hard", "greedy"),
        ("greedy", "random", "hard"),
    ]
    assert len({s.deal_seed for s in specs[:3]}) == 1
    assert specs[0].variant is Variant.STANDARD and specs[3].variant is Variant.GENERAL


@pytest.mark.parametrize(
    ("levels", "games", "variant"),
    [(["hard"], 2, "standard"), (["hard", "wizard"], 2, "standard"), (["hard", "greedy"], 0, "x")],
)
def test_plan_rejects_bad_settings(levels: list[str], games: int, variant: str) -> None:
    with pytest.raises(ArenaError):
        plan_games(levels, games, variant=variant)


def _result(levels: tuple[str, ...], totals: tuple[int, ...]) -> GameResult:
    best = max(totals)
    winners = tuple(i for i, t in enumerate(totals) if t == best)
    n = len(levels)
    return GameResult(
        0, levels, Variant.STANDARD, totals, winners, 40, (1.0,) * n, (20,) * n, (0.1,) * n
    )


def test_report_shares_ties() -> None:
    report = ArenaReport()
    report.add(_result(("hard", "greedy"), (50, 40)))
    report.add(_result(("greedy", "hard"), (45, 45)))
    report.add(_result(("greedy", "hard"), (60, 30)))
    hard = report.by_level["hard"]
    assert hard.seats == 3 and hard.wins == 1.5
    assert hard.sole_wins == 1 and hard.shared_wins == 1
    assert hard.win_rate == pytest.approx(0.5)
    assert hard.mean_margin == pytest.approx((10 + 0 - 30) / 3)
    assert hard.ms_per_move == pytest.approx(50.0)
    assert report.to_json()["games"] == 3


def test_play_game_is_reproducible() -> None:
    spec = plan_games(["greedy", "random", "greedy"], 1, seed=3)[0]
    a, b = play_game(spec), play_game(spec)
    assert a.totals == b.totals and a.plies == b.plies
    assert sum(a.moves) == a.plies


def test_cli_json() -> None:
    result = CliRunner().invoke(
        app, ["arena", "--games", "4", "--levels", "greedy,random", "--seed", "5", "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["games"] == 4
    assert out["levels"]["greedy"]["seats"] == 4
    lo, hi = out["levels"]["greedy"]["ci95"]
    assert lo <= out["levels"]["greedy"]["win_rate"] <= hi


def test_cli_table_and_bad_level() -> None:
    # --jobs 1: the games in this process (test_cli_json plays through the pool of processes,
    # each of which imports the package: 2 s for what the table does not depend on)
    ok = CliRunner().invoke(
        app, ["arena", "--games", "3", "--levels", "greedy", "--players", "3", "--jobs", "1"]
    )
    assert ok.exit_code == 0, ok.output
    assert "greedy" in ok.stdout and "Wilson" in ok.stdout
    bad = CliRunner().invoke(app, ["arena", "--games", "1", "--levels", "hard,wizard"])
    assert bad.exit_code == 2  # a wrong value: a usage error (docs/CLI.md)
