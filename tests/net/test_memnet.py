"""The peer cores in memory (tests/net/memnet.py): the host's and the joiner's tables, a game,
a claim, a resignation and the host's relaying of votes and statements, and the same with the
direct links on (gossip: a game, a claim, a resignation, an entry repaired by `get`), through
the cores' public methods, on a fake clock: no socket, no process, no sleep (issue 19, items 1
and 5)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.net.memnet import MemNet
from zoo_p2p.driver import GameLink
from zoo_p2p.net import wire
from zoo_p2p.net.cards import unpack as mesh_unpack
from zoo_p2p.net.core.lobby import LobbySeat
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.encoding import Kind, decode_entry

STRANGER = b"\x00stranger"


def _kinds(log: list[bytes]) -> list[str]:
    return [decode_entry(raw).kind for raw in log]


def _started(players: int = 3, **kw: object) -> MemNet:
    net = MemNet(players, **kw)  # type: ignore[arg-type]
    net.connect_all()
    net.run_until(lambda: all(j.session is not None for j in net.joiners))
    return net


def test_a_game_in_memory_ends_with_one_log_at_every_seat() -> None:
    net = MemNet(3)
    net.connect_all()
    net.run_until(net.all_stopped)
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    logs = net.logs()
    assert logs[0] == logs[1] == logs[2] and _kinds(logs[0])[-1] == Kind.RESULT
    assert audit(logs[0]).verdict == "ok"
    assert all(c.dropped == 0 for c in net.cores)


# ----- the host's tables -------------------------------------------------------------------
def test_the_host_answers_a_link_without_a_hello_only_with_who_or_farewell() -> None:
    net = _started()
    host = net.host
    host.take_outbox()
    host.receive(STRANGER, [wire.pack("ping")], net.now)
    host.receive(STRANGER, [wire.pack("entries", **{"from": 1, "e": []})], net.now)
    host.receive(STRANGER, [wire.pack("done", have=3)], net.now)
    assert host.take_outbox() == [(STRANGER, wire.pack("who"))] * 2  # done: dropped, unanswered
    host.receive(STRANGER, [wire.pack("leave", reason="bored")], net.now)
    assert host.take_outbox() == [(STRANGER, wire.pack("farewell"))]
    assert STRANGER not in host.conns and host.dropped == 4


def test_the_host_drops_what_is_not_for_it_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    net = _started()
    caplog.set_level(logging.WARNING, logger="zoo_p2p.net")
    before = len(net.host.session or [])
    for frame in (
        wire.pack("lobby", seats=[["h", "AAAA-BBBB-CCCC-DDDD", 0]], need=3),  # a host's message
        wire.pack("who"),
        b"\xc1 not msgpack",
    ):
        net.send_to_host(1, frame)
    assert net.host.dropped == 3
    said = " / ".join(r.getMessage() for r in caplog.records)
    assert "dropped a lobby message sent to the host" in said
    assert "dropped a frame from a peer" in said
    net.host.receive(net.rids[1], [b"a", b"b"], net.now)  # two parts: never one message
    assert net.host.dropped == 4
    # the game goes on
    net.run_until(net.all_stopped)
    assert len(net.logs()[0]) > before and all(c.stopped.finished for c in net.cores)  # type: ignore[union-attr]


def test_a_hello_with_another_seats_signature_takes_no_seat() -> None:
    net = MemNet(3)
    net.connect(1)
    j = net.joiner(1)
    hello = wire.Hello(name="x", team=None, pub=j.pub, curve=bytes(32), game=None, have=0)
    forged = net.keys[2].sign(wire.hello_signed_bytes(bytes(32), hello))  # not j's key
    frame = wire.pack(
        "hello", v=1, name="x", team=None, pub=j.pub, curve=bytes(32), game=None, have=0,
        sig=forged,
    )  # fmt: skip
    net.host.receive(STRANGER, [frame], net.now)
    assert STRANGER not in net.host.conns and net.host.dropped == 1
    assert len(net.host.lobby) == 2  # the host and seat 2 (the joiner's own hello)


# ----- the joiner's tables -----------------------------------------------------------------
def test_before_the_welcome_a_joiner_takes_nothing_from_the_host() -> None:
    net = MemNet(2)
    j = net.joiner(1)
    genesis = net.host.make_genesis([*net.host.lobby, LobbySeat("p1", j.pub, 1)])
    j.receive([wire.pack("entries", **{"from": 0, "e": [genesis]})], net.now)
    j.receive([wire.pack("lobby", seats=[["h", "AAAA-BBBB-CCCC-DDDD", 0]], need=2)], net.now)
    assert j.session is None and j.lobby_seats == [] and j.host_pub is None
    j.receive([wire.pack("reject", reason="go away")], net.now)
    assert j.stopped is not None and j.stopped.reason == "the host said: go away"


def test_a_seated_joiner_drops_a_joiners_message_from_the_host() -> None:
    net = _started(2)
    j = net.joiner(1)
    for kind in ("knock", "done"):
        frame = wire.pack(kind, v=1) if kind == "knock" else wire.pack(kind, have=1)
        j.receive([frame], net.now)
    assert j.dropped == 2 and j.stopped is None


def test_a_welcome_from_another_host_than_the_invites_ends_the_join() -> None:
    net = MemNet(2)
    other = net.keys[1]  # signs a welcome as if it were the host
    pub = other.public_key().public_bytes_raw()
    sig = other.sign(wire.welcome_signed_bytes(bytes(32), bytes(32), pub, False))
    j = net.joiner(1)
    j.receive([wire.pack("welcome", v=1, pub=pub, sig=sig, seat=1)], net.now)
    assert j.stopped is not None and "is not the one in the invite" in j.stopped.reason
    assert j.take_outbox() == [wire.pack("leave", reason="my invite names another host")]


# ----- claims, resignations, and the host's relaying ---------------------------------------
def test_a_seat_that_stalls_is_claimed_by_every_other_seat() -> None:
    net = MemNet(3, stall=(2,))
    net.connect_all()
    net.run_until(net.all_stopped, dt=0.5)
    logs = net.logs()
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    for log in logs:  # (the host and seat 2 each complete the claim: either entry stands)
        assert log[:-1] == logs[0][:-1] and _kinds(log)[-1] == Kind.CLAIM
        assert audit(log).verdict == "ok"
        assert decode_entry(log[-1]).body[0] == 2  # against seat 3, which stalled
    # both voted (seat 2's vote went through the host, which relayed it to seat 3 as well)
    assert all(any("we claim the game" in n for n in net.drivers[i].notices) for i in (0, 1))
    ended = "seat 3 (Green) did not move within 60 s"
    assert all(any(ended in n for n in d.notices) for d in net.drivers)


class _Resigner:
    """Seat 2's driver resigns at its first move instead of playing."""

    def __init__(self, net: MemNet) -> None:
        self.seat = net.drivers[1]
        self.seat.on_turn = self.on_turn  # type: ignore[method-assign]

    def on_turn(self, link: GameLink) -> None:
        link.call_later(0.0, lambda: link.resign_and_leave("q"))


def test_a_resignation_reaches_every_seat_and_a_stand_in_plays_on() -> None:
    net = MemNet(3)
    _Resigner(net)
    net.connect_all()
    net.run_until(net.all_stopped, dt=0.5)
    j = net.joiner(1)
    assert j.resigned_self and j.stopped is not None and not j.stopped.finished
    host_log, resigner_log, other_log = net.logs()
    assert host_log == other_log and _kinds(host_log)[-1] == Kind.RESULT
    assert audit(host_log).verdict == "ok"
    assert any(decode_entry(e).kind == Kind.RESIGN for e in resigner_log)
    assert resigner_log == host_log[: len(resigner_log)]  # its log ends with what it resigned
    assert any("resigned" in n for n in net.drivers[2].notices)  # relayed by the host
    assert net.host.seats_state[1].state == "left"


# ----- with the direct links (TRANSPORT.md §10) in memory too --------------------------------
def _msg(frame: bytes, *, mesh: bool = False) -> dict[str, Any]:
    """A host-link frame (or a direct link's, `mesh`) decoded; {} if it does not decode."""
    try:
        return mesh_unpack(frame) if mesh else wire.unpack(frame)
    except wire.WireError:
        return {}


def _kind(frame: bytes) -> str:
    return str(_msg(frame).get("t", ""))


def _authored_by(frame: bytes, seat: int, *, mesh: bool = False) -> bool:
    """True if `frame` (a host-link `entries`, or a direct link's `ent`) carries an entry of
    `seat`."""
    msg = _msg(frame, mesh=mesh)
    if msg.get("t") not in ("entries", "ent"):
        return False
    return any(decode_entry(e).seat == seat for e in msg["e"])


def test_a_game_with_direct_links_in_memory_ends_with_one_log_and_every_link_up() -> None:
    net = MemNet(3, mesh=True)
    net.connect_all()
    net.run_until(net.all_stopped)
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    logs = net.logs()
    assert logs[0] == logs[1] == logs[2] and _kinds(logs[0])[-1] == Kind.RESULT
    assert audit(logs[0]).verdict == "ok"
    for i, m in enumerate(net.meshes):
        assert m is not None and m.dropped == 0 and m.verdict is None
        assert set(m.links()) == {0, 1, 2} - {i} and all(m.links().values())  # every link up
        assert m.direct_new > 0  # entries that reached it first on a direct link
    assert all(c.dropped == 0 for c in net.cores)


def test_the_direct_links_carry_the_game_when_the_host_relays_nothing_of_a_seat() -> None:
    """The host never relays an entry of seat 2 to seat 3 (nor sends a seat-2 entry any other
    way on its link): seat 3 gets every one of them over its direct link to seat 2."""
    net = MemNet(3, mesh=True)
    net.drop_link = lambda src, dst, frame: src == 0 and dst == 2 and _authored_by(frame, 1)
    net.connect_all()
    net.run_until(net.all_stopped)
    logs = net.logs()
    assert logs[0] == logs[1] == logs[2] and audit(logs[2]).verdict == "ok"
    assert any(decode_entry(e).seat == 1 for e in logs[2][1:])


def test_gossip_repairs_an_entry_lost_on_every_link_that_pushes_it() -> None:
    """Seat 2's entries never reach seat 3 as they are pushed (the host's relay and seat 2's
    own publication are both lost): seat 3 learns from the heads that it is behind, asks seat
    2 for them (`get`, §10.4), and only seat 2's answer gets through; the game ends with one
    log."""
    net = MemNet(3, mesh=True)
    asked: set[int] = set()  # seqs seat 3 asked seat 2 for
    answered: list[int] = []  # seat 2's answers that went through

    def lost_on_mesh(src: int, dst: int, frame: bytes) -> bool:
        msg = _msg(frame, mesh=True)
        if src == 2 and msg.get("t") == "get" and msg["to"] == 1:
            asked.add(int(msg["from"]))
        if src == 1 and dst == 2 and _authored_by(frame, 1, mesh=True):
            if int(msg["from"]) in asked:  # an answer to seat 3's get (once per seq)
                asked.discard(int(msg["from"]))
                answered.append(int(msg["from"]))
                return False
            return True  # a push of seat 2's own entries: lost
        return False

    net.drop_link = lambda src, dst, frame: src == 0 and dst == 2 and _authored_by(frame, 1)
    net.drop_mesh = lost_on_mesh
    net.connect_all()
    net.run_until(net.all_stopped)
    logs = net.logs()
    assert logs[0] == logs[1] == logs[2] and audit(logs[2]).verdict == "ok"
    ours = sum(1 for e in logs[2][1:] if decode_entry(e).seat == 1)
    assert ours and len(answered) >= 1  # every entry of seat 2 came in an answer to a get
    assert all(m is not None and m.verdict is None for m in net.meshes)


def test_a_silent_seat_is_claimed_over_the_direct_links_when_the_host_link_loses_the_votes() -> (
    None
):
    """Seat 3 freezes in the middle of the game; the clock passes its reveal clock; every vote
    sent on a host link is lost, so the claim completes on the direct links alone (§10.3: a
    claim needs no host) and appears in both other logs."""
    net = MemNet(3, mesh=True)
    net.drop_link = lambda src, dst, frame: _kind(frame) == "claim"
    net.connect_all()
    net.run_until(lambda: net.host.session is not None and len(net.host.session) > 30)
    net.silence(2)
    net.run_until(net.others_stopped, dt=0.5)
    host_log, seat2_log, _ = net.logs()
    assert host_log[:-1] == seat2_log[:-1]  # (either seat may complete the claim: both stand)
    for log in (host_log, seat2_log):
        assert _kinds(log)[-1] == Kind.CLAIM and decode_entry(log[-1]).body[0] == 2
        assert audit(log).verdict == "ok"
    ended = "seat 3 (Green) did not reveal within 15 s"
    assert all(any(ended in n for n in net.drivers[i].notices) for i in (0, 1))
    assert net.cores[2].stopped is None  # frozen: it never heard a thing


def test_a_resignation_with_direct_links_reaches_every_seat_and_a_stand_in_plays_on() -> None:
    """As above, with the direct links on and the host relaying no resignation statement:
    the third seat learns of it from the resigner's own publication (or a peer's pass-on)."""
    net = MemNet(3, mesh=True)
    net.drop_link = lambda src, dst, frame: src == 0 and dst == 2 and _kind(frame) == "resign"
    _Resigner(net)
    net.connect_all()
    net.run_until(net.all_stopped, dt=0.5)
    host_log, resigner_log, other_log = net.logs()
    assert host_log == other_log and _kinds(host_log)[-1] == Kind.RESULT
    assert audit(other_log).verdict == "ok"
    assert any(decode_entry(e).kind == Kind.RESIGN for e in other_log)
    assert resigner_log == host_log[: len(resigner_log)]
    assert any("resigned" in n for n in net.drivers[2].notices)


def test_the_cores_and_the_memory_mesh_load_no_zmq() -> None:
    """What the harness runs is the cores with no transport: importing them (and everything
    they import, the mesh's pure part and the liveness component too) loads no zmq, so no
    socket can hide in them (they took `Verdict` and the mesh constants from zoo_p2p.net.mesh,
    the ZeroMQ module, until issue 19)."""
    import subprocess
    import sys

    code = (
        "import sys, zoo_p2p.net.core.host, zoo_p2p.net.core.joiner, zoo_p2p.net.memmesh; "
        "print(sorted(m for m in sys.modules if m == 'zmq' or m.startswith('zmq.') "
        "or m == 'zoo_p2p.net.mesh'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
