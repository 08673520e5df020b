"""A spectator's stalled source (TRANSPORT.md §12.6): the game's clocks bound how long its log
can stand still, so a source that keeps pinging while no entry comes for longer is hiding it.

Sans-I/O: `StallWatch.check(session, now)` takes the loop turn's time; it reads no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

__all__ = ["STALL_CEILING", "STALL_FLOOR", "STALL_MARGIN", "StallWatch", "Stalled", "stall_bound"]

STALL_MARGIN = 10.0  # seconds for the network: the silence bound (a reconnect and a resync)
STALL_FLOOR = 20.0  # never less: 1-second clocks do not leave a source over a hiccup
STALL_CEILING = 900.0  # never more: clocks of a day do not let a host hide the game for two


def stall_bound(clock: int) -> float:
    """Seconds the log may stand still on a floor whose clock is `clock`: the floor holder's
    clock, one more for a person asked whether to claim (PROTOCOL.md §10.2), the margin;
    bounded from below and above."""
    return min(STALL_CEILING, max(STALL_FLOOR, 2 * clock + STALL_MARGIN))


@dataclass(frozen=True, slots=True)
class Stalled:
    """No entry came for `waited` s, though entry `entry` (seat `seat`'s `kind`) was due
    within `bound` s."""

    entry: int
    seat: int
    kind: str
    waited: float
    bound: float

    def line(self, source: str, seat: str) -> str:
        """The one line that says it: which source, what it awaited, for how long."""
        return (
            f"{source} sent no new entry for {self.waited:.1f} s, though entry {self.entry} "
            f"({seat}'s {self.kind}) was due within {self.bound:.0f} s by the game's clocks"
        )


class StallWatch:
    """The stall of one source: the time since our log last grew, or since we began watching
    through that source, whichever is later (growth is seen at each check)."""

    def __init__(self, now: float, held: int) -> None:
        self._len = held
        self._since = now
        self._told = False

    def check(self, session: Session | None, now: float) -> Stalled | None:
        """The stall, the first time it exceeds the bound at this head (else None). None too
        in the lobby (no genesis: no clock yet) and once the game is over."""
        held = len(session) if session is not None else 0
        if held != self._len:
            self._len, self._since, self._told = held, now, False
            return None
        if session is None or session.finished or self._told:
            return None
        floor = session.floor
        if floor is None:  # over, or stopped on a cheat
            return None
        bound = stall_bound(session.clocks.for_kind(floor.kind))
        waited = now - self._since
        if waited <= bound:
            return None
        self._told = True
        return Stalled(held, floor.seat, floor.kind, waited, bound)
