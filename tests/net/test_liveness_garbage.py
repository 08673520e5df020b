"""A claim vote or resignation that is not msgpack is dropped, counted and logged, never a crash
(and ignored without a word before the game has a session)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.net.livepeer import LivePeer


class _Link(LivePeer):
    def __init__(self, session: Any) -> None:
        super().__init__(session)


@pytest.mark.parametrize("what", ["vote", "resign"])
def test_garbage_is_dropped_and_said(what: str, caplog: pytest.LogCaptureFixture) -> None:
    link = _Link(object())  # any session: garbage never reaches it
    with caplog.at_level(logging.WARNING, logger="zoo_p2p.net"):
        if what == "vote":
            link._on_vote(1, b"\xc1 not msgpack")
        else:
            link._on_resign(1, b"\xc1 not msgpack", b"")
    assert link.dropped == 1
    word = "a claim vote" if what == "vote" else "a resignation"
    assert f"dropped {word}: not msgpack" in caplog.text


def test_before_the_game_nothing_is_parsed() -> None:
    link = _Link(None)
    link._on_vote(1, b"\xc1")
    link._on_resign(1, b"\xc1", b"")
    assert link.dropped == 0
