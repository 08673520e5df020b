"""Presence (issue 9) in memory: the host's core on the fake clock of tests/net/memnet.py, with
a CURVE key per joiner (`MemNet(curve=True)`: the host's core is told the key of every frame's
link, as ZAP tells the transport). What tests/net/test_presence.py waited 10 s of real time for
(the host forgetting a silent link) takes a few milliseconds here."""

from __future__ import annotations

from tests.net.memnet import MemNet
from zoo_p2p.net import wire
from zoo_p2p.net.core.lobby import LIVE_TIMEOUT
from zoo_p2p.protocol.liveness import Clocks

NEW_LINK = b"\x00new link"
FAREWELL = wire.pack("farewell")


def _silent_seat() -> MemNet:
    """Two seats, the game under way, then seat 2 freezes until the host forgets its link
    (long clocks: nobody claims meanwhile)."""
    net = MemNet(2, curve=True, clocks=Clocks(600, 600))
    net.connect_all()
    net.run_until(lambda: net.host.session is not None and len(net.host.session) >= 3)
    net.silence(1)
    turns = net.run_until(lambda: net.rids[1] not in net.host.conns, dt=0.1)
    # forgotten once silent for 4 x LIVE_TIMEOUT (10 s), and shown lost meanwhile
    assert 4 * LIVE_TIMEOUT <= turns * 0.1 <= 4 * LIVE_TIMEOUT + 0.3, turns
    assert net.host.seats_state[1].state == "lost"
    net.host.take_outbox()
    return net


def test_a_leave_on_a_link_the_host_had_dropped_still_says_left() -> None:
    """A seated joiner stays silent until the host drops its link, then says `leave` on a new
    connection, with no new hello (a peer interrupted as it comes back). Its CURVE key, which
    only it holds, still names its seat: the host shows the seat as left, not lost, and
    answers `farewell`."""
    net = _silent_seat()
    dropped = net.host.dropped
    leave = wire.pack("leave", reason="back and gone")
    net.host.receive(NEW_LINK, [leave], net.now, curve=net.curves[1], fd=-1)
    assert net.host.take_outbox() == [(NEW_LINK, FAREWELL)]
    assert net.host.seats_state[1].state == "left"
    assert "p1, seat 2 (Blue), left: back and gone" in net.drivers[0].notices  # type: ignore[attr-defined]
    assert net.host.dropped == dropped  # (not "a joiner gave up before its hello")


def test_a_leave_with_a_key_that_names_no_seat_leaves_the_seat_lost() -> None:
    """The same leave from a link whose CURVE key is nobody's: a joiner that gave up before its
    hello. It is answered (it need not wait), and the silent seat stays lost."""
    net = _silent_seat()
    leave = wire.pack("leave", reason="back and gone")
    net.host.receive(NEW_LINK, [leave], net.now, curve=bytes(range(32)), fd=-1)
    assert net.host.take_outbox() == [(NEW_LINK, FAREWELL)]
    assert net.host.seats_state[1].state == "lost"
    assert not any("left" in n for n in net.drivers[0].notices)  # type: ignore[attr-defined]
