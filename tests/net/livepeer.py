"""A fake peer for the claims-and-resignations component (`zoo_p2p.net.liveness.Liveness`):
what `PeerCore` gives it, without a network. What it would send is kept in `sent`; the loop's
clock is what the test passes to `_liveness_tick`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zoo_p2p.driver import Outcome
from zoo_p2p.net.liveness import Liveness


class LivePeer:
    """The peer side of `Liveness`, and the peer methods the tests and drivers call on it."""

    def __init__(self, session: Any, driver: Any = None) -> None:
        self.session = session
        self.driver = driver
        self.dropped = 0
        self.stopped: Outcome | None = None
        self.now = 0.0
        self.mesh: Any = None
        self._leave_reason = ""
        self.sent: list[bytes] = []
        self.live = Liveness(self)  # type: ignore[arg-type]

    # what the component calls
    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        self.sent.append(data)

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        pass

    def may_check(self, seat: int) -> bool:
        return True

    def checked(self, seat: int, n: int = 1) -> None:
        pass

    def _seat_has_left(self, seat: int) -> bool:
        return False

    def stop(self, outcome: Outcome) -> None:
        self.stopped = outcome

    def leave(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = Outcome(False, reason, 0)

    @property
    def my_turn(self) -> bool:
        return False

    def play(self, move: Any) -> None:
        raise AssertionError("no move here")

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        raise AssertionError("no timer here")

    def awaited(self) -> list[tuple[int, str]]:
        return []

    def mesh_log_path(self) -> None:
        return None

    # what the peer forwards to the component (as PeerCore does)
    def _liveness_tick(self, now: float) -> None:
        self.now = now
        self.live.tick(now)

    def _on_vote(self, seat: int | None, data: bytes) -> None:
        self.live.on_vote(seat, data)

    def _on_resign(
        self, seat: int | None, data: bytes, key: bytes = b"", by: int | None = None
    ) -> None:
        self.live.on_resign(seat, data, key, by)

    def mesh_vote(self, seat: int, data: bytes) -> None:
        self._on_vote(seat, data)

    def mesh_resign(self, seat: int, data: bytes) -> None:
        self._on_resign(None, data, b"", by=seat)

    def claim_now(self) -> bool:
        return self.live.claim_now()

    def claim_wait(self) -> bool:
        return self.live.claim_wait()

    def claim_votes(self) -> str:
        return self.live.claim_votes()

    def resign_and_leave(self, reason: str) -> None:
        self.live.resign_and_leave(reason)
