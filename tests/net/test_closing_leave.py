"""The `leave` a joiner says as it closes (TRANSPORT.md §6) is owed only before the end: once
its log holds how the game ended, nobody is left to tell. A person who resigned a two-seat
game used to say one after the entry that ended it; the host, done, had said `bye` and gone
meanwhile, and the person read "the host did not confirm our leave within 1.5 s: the others may
show this seat as lost" after the game their own resignation had ended (1 run in 3 of
tests/net/test_resign_log.py's two-seat game, and test_clocks.py's resigner under load)."""

from __future__ import annotations

from tests.net.memnet import MemNet
from zoo_p2p.driver import GameLink
from zoo_p2p.net import wire


def _leaves_said(net: MemNet) -> dict[int, bytes | None]:
    """What each joiner's closing says, as the transport's close would say it (seat -> leave)."""
    said: dict[int, bytes | None] = {}
    closed = net._closed

    def record(seat: int) -> None:
        if seat not in said:
            said[seat] = net.joiner(seat).closing_leave()
        closed(seat)

    net._closed = record  # type: ignore[method-assign]
    return said


def test_a_resignation_that_ended_a_two_seat_game_owes_no_leave() -> None:
    net = MemNet(2)
    resigner = net.drivers[1]

    def on_turn(link: GameLink) -> None:
        link.call_later(0.0, lambda: link.resign_and_leave("you left the game"))

    resigner.on_turn = on_turn  # type: ignore[method-assign]
    said = _leaves_said(net)
    net.connect_all()
    net.run_until(net.all_stopped, dt=0.5)
    j = net.joiner(1)
    assert j.resigned_self and j.stopped is not None and not j.stopped.finished
    assert j.session is not None and j.session.ending is not None  # its log says how it ended
    assert said == {1: None}


def test_a_joiner_that_stops_mid_game_still_says_leave() -> None:
    """The other side: a seat that stops while the game goes on says why (the others show it as
    left, not lost)."""
    net = MemNet(2)
    net.drivers[1].on_turn = lambda link: link.call_later(  # type: ignore[method-assign]
        0.0, lambda: link.leave("gone for dinner")
    )
    said = _leaves_said(net)
    net.connect_all()
    net.run_until(lambda: net.joiner(1).stopped is not None, dt=0.5)
    leave = said[1]
    assert leave is not None and wire.unpack(leave) == {"t": "leave", "reason": "gone for dinner"}
