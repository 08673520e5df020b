"""The closing lines that carry a path (where the log is, the `zoo resume` command) are never
cut by the console's wrapping: a person copies them whole, on a terminal of any width."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from zoo_p2p.cli.runners import finish
from zoo_p2p.driver import NullDriver, Outcome
from zoo_p2p.protocol.liveness_samples import _game
from zoo_p2p.protocol.simulate import broadcast
from zoo_p2p.storage import write_log


def test_the_log_path_and_the_resume_command_stay_on_one_line(tmp_path: Path) -> None:
    game, _ = _game(3, "stops")
    (c,) = game.sessions[0].take_outgoing()
    broadcast(game, 0, c)
    s = game.sessions[0]
    path = tmp_path / ("a-rather-long-folder-name-" * 3) / "20261130-130851-8ec4ce85.zoolog"
    path.parent.mkdir()
    write_log(path, s.entries)
    buf = io.StringIO()
    link: Any = SimpleNamespace(
        session=s, sink=None, mesh=None, driver=NullDriver(), resigned_self=False
    )
    code = finish(link, Outcome(False, "interrupted", len(s)), path, Console(file=buf, width=60))
    lines = buf.getvalue().splitlines()
    assert code == 130
    assert f"log saved: {path}" in lines
    assert f"to continue this game: zoo resume {path}" in lines


def test_the_closing_lines_start_below_a_waiting_prompt(tmp_path: Path) -> None:
    """The host left while the prompt waited for our move: 'the host left…' on a line of its own."""
    from zoo_p2p.cli.plain import PROMPT_HINT, PlainDriver

    game, _ = _game(3, "stops")
    s = game.sessions[0]
    buf = io.StringIO()
    console = Console(file=buf, width=100)
    driver = PlainDriver(console, stdin_fd=0)
    driver.con.print("Your move " + PROMPT_HINT, end="")
    driver.at_prompt = True
    link: Any = SimpleNamespace(session=s, sink=None, mesh=None, driver=driver, resigned_self=False)
    finish(
        link,
        Outcome(False, "the host left (it said: interrupted)", len(s)),
        tmp_path / "x",
        console,
    )
    assert "\nthe host left (it said: interrupted);" in buf.getvalue()


def test_an_ending_a_notice_just_printed_is_not_printed_again(tmp_path: Path) -> None:
    """The line mode printed 'resigned: … wins' (or a claim's line) twice: as the link's notice
    and again in the closing lines. Once on a console that showed it; the full screen's runner
    console (whose notices went to the app) still gets it."""
    from zoo_p2p.cli.plain import ConsoleDriver
    from zoo_p2p.protocol.liveness_samples import never_started_game

    game, _ = never_started_game(2)
    s = game.sessions[0]
    ending = s.outcome().describe(s.seats)
    for told in (True, False):
        buf = io.StringIO()
        console = Console(file=buf, width=300)
        driver = ConsoleDriver(console if told else None)
        driver.on_notice(ending)
        link: Any = SimpleNamespace(
            session=s, sink=None, mesh=None, driver=driver, resigned_self=False
        )
        finish(link, Outcome(True, "game over", len(s)), tmp_path / "x", console)
        assert buf.getvalue().count(ending) == 1, buf.getvalue()
