"""The closing lines that carry a path (where the log is, the `zoo resume` command) are never
cut by the console's wrapping: a person copies them whole, on a terminal of any width."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from zoo_p2p.cli.runners import finish
from zoo_p2p.driver import Outcome
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
    link: Any = SimpleNamespace(session=s, sink=None, mesh=None)
    code = finish(link, Outcome(False, "interrupted", len(s)), path, Console(file=buf, width=60))
    lines = buf.getvalue().splitlines()
    assert code == 130
    assert f"log saved: {path}" in lines
    assert f"to continue this game: zoo resume {path}" in lines
