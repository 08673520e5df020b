"""No trusted relay (TRANSPORT.md §10) in memory: the peer cores of tests/net/memnet.py with
their direct links in memory (`MemNet(mesh=True)`), on a fake clock, against the same lying
host as the real-process tests (tests/net/evil.py: its `Evil` mixin, here on the in-memory host
core). A host that equivocates, or withholds an entry from one seat, is caught; what
tests/net/test_mesh.py ran as processes over sockets for these two cases runs here in
milliseconds (it keeps the cheating joiners' cases, whose proofs `zoo verify` reads from disk).
"""

from __future__ import annotations

from tests.net import evil
from tests.net.memnet import MemHost, MemNet
from zoo_p2p.net import evidence
from zoo_p2p.protocol.audit import audit


class MemEvil(evil.Evil, MemHost):
    """The lying host, as an in-memory core."""


def _evil_game(mode: str, dt: float) -> MemNet:
    """A lying host (`mode`) and two honest joiners, with direct links, to the end (the seats
    play one move a loop turn, `dt` s of fake clock apart)."""
    host_cls = type("Host", (MemEvil,), {"mode": mode})
    net = MemNet(3, seed=f"evil {mode}", mesh=True, host_cls=host_cls)
    net.connect_all()
    net.run_until(net.all_stopped, dt=dt)
    return net


def _convicted(net: MemNet, seat: int) -> set[int]:
    """The seats that the proofs `seat` kept convict, each checked from scratch (its direct
    links keep them: beside the log over sockets, in `kept` in memory)."""
    mesh = net.meshes[seat]
    assert mesh is not None
    genesis = net.logs()[seat][0]
    return {evidence.check(p, genesis).seat for p in mesh.kept}


def _told(net: MemNet, seat: int) -> str:
    return " / ".join(net.drivers[seat].notices)  # type: ignore[attr-defined]


def test_an_equivocating_host_is_caught_by_both_joiners() -> None:
    """The host signs two moves for one seq, one per joiner: the joiners compare heads over
    their direct link, fetch each other's entry, and both keep the fork proof naming seat 1."""
    net = _evil_game("equivocate", dt=0.05)
    host = net.host
    assert isinstance(host, evil.Evil) and len(host.swap) == 1  # it did lie, once
    for seat in (1, 2):
        assert _convicted(net, seat) == {0}, _told(net, seat)
        assert "seat 1 (Yellow) cheated" in _told(net, seat), _told(net, seat)
        stopped = net.cores[seat].stopped
        assert stopped is not None and not stopped.finished


def test_a_withheld_reveal_comes_from_the_other_joiner_and_the_host_is_named() -> None:
    """The host withholds one of its reveals from seat 3: seat 3 gets it from seat 2 directly,
    the game completes everywhere, and seat 3 names the host, never the other joiner."""
    net = _evil_game("withhold", dt=0.12)
    host = net.host
    assert isinstance(host, evil.Evil) and host.withheld is not None  # it did withhold one
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    logs = net.logs()
    assert logs[1] == logs[2] and host.withheld in logs[2]
    assert audit(logs[2]).ok
    victim, other = _told(net, 2), _told(net, 1)
    assert "seat 1 (Yellow) did not send us its own entry" in victim, victim
    assert "seat 2 (Blue) did not send" not in victim
    assert "seat 2 (Blue) holds back" not in victim
    assert "holds back" not in other and "did not send" not in other
