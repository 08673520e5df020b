"""Headless full games: each peer a separate process on 127.0.0.1, every log identical, valid."""

from __future__ import annotations

import pytest

from tests.net.harness import Procs, audit_file


@pytest.mark.parametrize("players", [2, 3, 4])
def test_headless_game(procs: Procs, players: int) -> None:
    """Host (bot seat) and players-1 bot peers play to the end; logs byte-identical, audit ok."""
    host, invite = procs.host(
        "--players",
        str(players),
        "--bot",
        "greedy",
        "--variant",
        "standard" if players != 3 else "general",
    )
    bots = [
        procs.bot(invite, f"bot{i}", "--level", "random" if i % 2 else "greedy")
        for i in range(1, players)
    ]
    for i, b in enumerate(bots, 1):
        assert procs.wait(b, f"bot{i}") == 0, procs.text(f"bot{i}")
    assert procs.wait(host, "host") == 0, procs.text("host")
    ref = procs.log("host")
    for i in range(1, players):
        assert procs.log(f"bot{i}") == ref
    report = audit_file(procs.tmp / "host.zoolog")
    assert report.ok, report  # type: ignore[attr-defined]
    assert len(report.seats) == players  # type: ignore[attr-defined]
