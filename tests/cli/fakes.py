"""Fakes shared by the CLI tests."""

from __future__ import annotations


class WatchLink:
    """Just enough of a peer for `spawn.watch_bots`: a timer is kept (run it by calling
    `pending`), `leave` is recorded."""

    session = None
    stopped: str | None = None

    def leave(self, reason: str) -> None:
        self.stopped = reason

    def call_later(self, delay: float, fn: object) -> None:
        self.pending = fn
