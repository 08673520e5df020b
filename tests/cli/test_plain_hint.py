"""The expert's hint ('x') in the line mode: in `zoo play --local` and `zoo play` (the other
seats our own bots) it says the move and its win chance; a hint whose position changed while
it was searched is dropped; a networked game and a hot-seat table say why hints are off."""

from __future__ import annotations

import io
import random
import re
import select
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tests.cli.test_plain import PROMPT, PROMPT_WITH_HINT, FakeGenesis, FakeLink, FakeSession, _game
from tests.held_hint import HeldHint
from zoo_p2p.bots import analysis, make_bot
from zoo_p2p.cli.app import app
from zoo_p2p.cli.plain import PlainDriver
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.rules import KnownDeal, Team, Variant, parse_move

HINT_LINE = re.compile(r"the expert would play (\S+) — win chance (\d+) %")
WAIT = 30.0  # seconds a search may take at most under load


def _driver(*, networked: bool, agreed: bool = False) -> tuple[PlainDriver, FakeLink, io.StringIO]:
    out = io.StringIO()
    con = Console(file=out, width=100, no_color=True, highlight=False)
    seats = [SeatInfo("you", bytes(32), Team.YELLOW), SeatInfo("bot", bytes(32), Team.BLUE)]
    link = FakeLink(FakeSession(_game().public(), seats=seats, genesis=FakeGenesis(agreed)))
    d = PlainDriver(con, stdin_fd=0, networked=networked)
    d.on_started(link)  # type: ignore[arg-type]
    d.on_turn(link)  # type: ignore[arg-type]
    return d, link, out


def _wait_for_the_search(d: PlainDriver, link: FakeLink) -> None:
    """What the peer loop does: poll the driver's fds (bounded) and hand it the ready one."""
    fds = d.fds()
    assert len(fds) == 2, "no hint pipe to poll"
    ready, _, _ = select.select([fds[1]], [], [], WAIT)
    assert ready, "the expert did not answer in time"
    assert d.on_fd(fds[1], link)  # type: ignore[arg-type]


def test_zoo_play_plain_says_the_experts_move_without_blocking_the_loop() -> None:
    d, link, out = _driver(networked=False)
    state = link.session.state
    d.on_line("x", link)  # type: ignore[arg-type]
    assert "the expert is thinking…" in out.getvalue()
    _wait_for_the_search(d, link)
    text = out.getvalue()
    found = HINT_LINE.search(text)
    assert found is not None, text
    move = parse_move(found.group(1))
    assert move in state.legal_moves() and 0 <= int(found.group(2)) <= 100
    again = analysis.hint(state, networked=False)  # the same seed: the position's own
    assert again is not None and again.move == move
    assert text.endswith(PROMPT_WITH_HINT) and link.played == []  # a hint plays nothing


def test_a_plain_hint_for_a_position_that_changed_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow_hint = HeldHint(WAIT)
    monkeypatch.setattr("zoo_p2p.cli.plain.hint", slow_hint)
    d, link, out = _driver(networked=False)
    d.on_line("x", link)  # type: ignore[arg-type]
    # the player moves before the expert answers; the bot answers too
    full = _game()
    for _ in range(2):
        full.apply(full.legal_moves()[0])
    link.session.state = full.public()
    d.on_turn(link)  # type: ignore[arg-type]
    slow_hint.release.set()
    _wait_for_the_search(d, link)
    assert slow_hint.stop_seen == [True] and d.hints_dropped == 1
    assert "the expert would play" not in out.getvalue()


def test_a_networked_game_says_why_hints_are_off() -> None:
    d, link, out = _driver(networked=True)
    start = len(out.getvalue())
    d.on_line("x", link)  # type: ignore[arg-type]
    said = out.getvalue()[start:]
    assert "hints are off at this table: its host did not allow them (zoo host --hints)" in said
    assert said.endswith(PROMPT) and "thinking" not in said and link.played == []
    assert d.hint_key is None and not d.hint_results  # no search was started


def test_a_networked_game_whose_genesis_allows_hints_offers_them() -> None:
    """`zoo host --hints` (PROTOCOL.md §3.2): every seat agreed, so `x` asks the expert."""
    d, link, out = _driver(networked=True, agreed=True)
    state = link.session.state
    d.on_line("x", link)  # type: ignore[arg-type]
    assert "the expert is thinking…" in out.getvalue()
    _wait_for_the_search(d, link)
    found = HINT_LINE.search(out.getvalue())
    assert found is not None, out.getvalue()
    assert parse_move(found.group(1)) in state.legal_moves()
    assert "hints are off" not in out.getvalue() and link.played == []


def test_zoo_play_local_plain_prints_the_hint() -> None:
    # the same draws as `zoo play --local --seed 11`: the bot's seed, the deal, the first seat
    rng = random.Random(11)
    make_bot("greedy", seed=rng.randrange(2**32))
    deal = KnownDeal.random(rng, Variant.STANDARD)
    first = rng.randrange(2)
    assert first == 0, "this seed must let the person move first"
    state = deal.new_state([Team.YELLOW, Team.BLUE], first_seat=first)
    r = CliRunner().invoke(
        app, ["play", "--local", "--seed", "11", "--team", "yellow"], input="x\nq\ny\n"
    )
    assert r.exit_code == 1, r.output
    assert "the expert is thinking…" in r.output
    found = HINT_LINE.search(r.output)
    assert found is not None, r.output
    expected = analysis.hint(state.public(), networked=False)
    assert expected is not None and parse_move(found.group(1)) == expected.move


def test_a_hot_seat_table_says_why_hints_are_off() -> None:
    r = CliRunner().invoke(
        app, ["play", "--local", "--hotseat", "2", "--seed", "3"], input="x\nq\ny\n"
    )
    assert r.exit_code == 1, r.output
    assert "hints are off when two or more people play at this table" in r.output
    assert "thinking" not in r.output


@pytest.mark.parametrize(
    ("args", "networked"),
    [(["play"], False), (["host", "--players", "2"], True)],
)
def test_only_zoo_play_tells_the_front_end_its_other_seats_are_its_own_bots(
    monkeypatch: pytest.MonkeyPatch, args: list[str], networked: bool
) -> None:
    seen: list[bool] = []

    def fake_run_human(plain: bool, console: Console, start: Any, **kw: bool) -> int:
        seen.append(kw.get("networked", True))
        return 0

    monkeypatch.setattr("zoo_p2p.cli.netcmds.run_human", fake_run_human)
    r = CliRunner().invoke(app, [*args, "--plain"])
    assert r.exit_code == 0, r.output
    assert seen == [networked]


@pytest.mark.parametrize(
    ("args", "hints"),
    [(["play"], True), (["host", "--players", "2"], False), (["host", "--hints"], True)],
)
def test_the_genesis_allows_hints_for_zoo_play_and_zoo_host_hints_only(
    monkeypatch: pytest.MonkeyPatch, args: list[str], hints: bool
) -> None:
    """`zoo play` writes `hints: true` in its genesis (its other seats are its own bots), so a
    `zoo resume` of it, a networked run, still offers hints; `zoo host` only with --hints."""
    asked: list[bool] = []

    def fake_host(plan: Any, driver: Any, console: Any) -> int:
        asked.append(plan.hints)
        return 0

    monkeypatch.setattr("zoo_p2p.cli.runners.run_host", fake_host)
    monkeypatch.setattr(
        "zoo_p2p.cli.netcmds.run_human", lambda plain, console, start, **kw: start(None, console)
    )
    r = CliRunner().invoke(app, [*args, "--plain"])
    assert r.exit_code == 0, r.output
    assert asked == [hints]
