"""A hint search a test holds until it releases it (both front ends' stale-hint tests)."""

from __future__ import annotations

import threading
from typing import Any

from zoo_p2p.bots import analysis
from zoo_p2p.rules import State


class HeldHint:
    """Stands in for `analysis.hint`: waits for `release` (at most `wait` seconds), records
    whether the front end had told it to stop meanwhile, then answers the first legal move."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.release = threading.Event()
        self.stop_seen: list[bool] = []

    def __call__(self, state: State, **kw: Any) -> analysis.Hint:
        self.release.wait(self.wait)
        self.stop_seen.append(kw["stop"]())
        return analysis.Hint(state.legal_moves()[0], 0.5, 0.0)
