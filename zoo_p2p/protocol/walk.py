"""A log read through an observer session, one entry at a time: the one walk shared by the
replay (`zoo_p2p.cli.replay`), the export (`zoo_p2p.export.record`) and the analysis
(`zoo_p2p.bots.analysis`). Each caller makes the session from the genesis its own way (its own
error for a log that is not a game) and decides what a step means to it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.events import Event
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import State


@dataclass(frozen=True)
class Step:
    """What one entry of the log did to the session."""

    index: int  # the entry's place in the log (the genesis is 0)
    events: list[Event]  # what it caused (none when refused)
    before: State | None  # the public state just before it (only when the walk keeps states)
    appended: bool  # it became entry `index` (not: an exact duplicate, or an entry from later)
    refused: RemoteProtocolError | None = None  # why the session refused it: the walk ends


def walk(session: Session, rest: Iterable[bytes], *, states: bool = False) -> Iterator[Step]:
    """Feed `rest`, the entries after the genesis `session` was made from, to `session`: a Step
    per entry, the last one the first entry the session refuses. With `states`, each Step holds
    a copy of the public state before its entry. Errors of `rest` itself (a log file that
    turns to garbage) reach the caller as they are raised."""
    for i, raw in enumerate(rest, 1):
        before = session.state.clone() if states and session.state is not None else None
        try:
            events = session.receive(raw)
        except RemoteProtocolError as exc:
            yield Step(i, [], before, False, exc)
            return
        yield Step(i, events, before, len(session) == i + 1)
