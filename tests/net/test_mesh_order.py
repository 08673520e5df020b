"""What keeps a fast game from doing its work twice (issue: 4-peer move latency), in one
process on 127.0.0.1: an entry that overtakes its predecessor is kept, not fetched again; a
missing entry is asked for only if it stays missing; a change in whom we hear directly is
told at once; and reports that a seat hears us are trusted at once only when no other process
can have published for our seat before."""

from __future__ import annotations

import random
import time

import msgpack
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.test_mesh_cards import Owner, _owners, _pump
from zoo_p2p.driver import NullDriver
from zoo_p2p.net import mesh
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import AHEAD, Joiner, JoinOptions
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import setup_game, step
from zoo_p2p.rules import Variant


def _watcher(genesis: bytes) -> Joiner:
    """A joiner that watches a game (no seat): its socket connects nowhere."""
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    return Joiner(
        inv, key=Ed25519PrivateKey.generate(), driver=NullDriver(), make_session=Session,
        open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        fingerprint=lambda pub: "x", options=JoinOptions(curve=False), session=Session(genesis),
    )  # fmt: skip


def _log(steps: int) -> list[bytes]:
    rng = random.Random("zoo-p2p mesh order")
    game = setup_game(3, Variant.STANDARD, rng)
    for _ in range(steps):
        assert step(game, rng)
    return game.entries


def test_an_entry_that_overtakes_its_predecessor_is_kept_until_it_comes() -> None:
    log = _log(12)
    j = _watcher(log[0])
    try:
        s = j.session
        assert s is not None
        assert j.deliver(1, log[1:5], "the host") is None and len(s) == 5
        assert j.deliver(6, [log[6]], "seat 3") == 5  # a gap: nothing appended
        assert len(s) == 5
        assert j.deliver(5, [log[5]], "seat 2") is None  # the kept one follows at once
        assert s.entries == log[:7]
        # one that does not verify is not kept: its predecessor brings nothing more
        bad = bytearray(log[8])
        bad[-1] ^= 1
        assert j.deliver(8, [bytes(bad)], "seat 3") is None and len(s) == 7
        assert j.deliver(7, [log[7]], "seat 2") is None
        assert s.entries == log[:8]
        # bounded: an entry further ahead than AHEAD is dropped (fetched again if it matters)
        j._hold_ahead(len(s) + AHEAD + 1, log[-1])
        assert not j._ahead
        j._hold_ahead(len(s) + AHEAD, log[-1])
        assert list(j._ahead) == [len(s) + AHEAD]
    finally:
        j.close()


def _linked() -> tuple[Owner, Owner, mesh.Mesh, mesh.Mesh]:
    """Seat 0's mesh A and seat 1's mesh B, B subscribed to A and A's first message read."""
    oa, ob = _owners()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    b.on_tunnel(0, a.card_msg)

    def linked() -> bool:
        a._last_heads = 0.0  # A publishes a head on every tick until B has read one
        return b.links()[0] is not None

    _pump(b, ob, a, linked, "the direct link to A")
    return oa, ob, a, b


def _kinds(sent: list[bytes]) -> list[str]:
    return [str(msgpack.unpackb(m)["t"]) for m in sent]


def test_whom_we_hear_is_told_at_once_and_a_gap_is_asked_for_only_if_it_stays() -> None:
    oa, ob, a, b = _linked()
    sent: list[bytes] = []
    b.outgoing = lambda data: sent.append(data) or data  # type: ignore[method-assign]
    try:
        now = time.monotonic()
        b._last_heads = now  # the 0.5 s head is not due: only the change can send one
        b._told_up = [False, True]  # as if our last head said we heard nobody
        b.tick(now)
        heads = [msgpack.unpackb(m) for m in sent if msgpack.unpackb(m)["t"] == "head"]
        assert heads and heads[-1]["up"] == [True, True]  # we hear seat 0 now: said at once
        sent.clear()
        b.tick(now)
        assert "head" not in _kinds(sent)  # nothing changed: nothing more before 0.5 s
        # an entry from the future: the missing one is usually on its way; no `get` yet
        ob.deliver = lambda start, entries, source, by=None: 1  # type: ignore[method-assign]
        b._on_entries(0, 2, [b"x"], now)
        assert "get" not in _kinds(sent)
        b.tick(now + mesh.GAP_GRACE / 2)
        assert "get" not in _kinds(sent)
        assert b.due() <= now + mesh.GAP_GRACE  # the loop wakes for it
        b.tick(now + 2 * mesh.GAP_GRACE)
        gets = [msgpack.unpackb(m) for m in sent if msgpack.unpackb(m)["t"] == "get"]
        assert [(g["from"], g["to"]) for g in gets] == [(1, 0)]
        # one that arrives within the grace is not asked for
        sent.clear()
        b._on_entries(0, 2, [b"x"], now + 1)
        assert oa.session is not None and ob.session is not None
        (commit,) = oa.session.take_outgoing()
        ob.session.receive(commit)  # seq 1 came meanwhile
        b.tick(now + 1 + 2 * mesh.GAP_GRACE)
        assert "get" not in _kinds(sent)
    finally:
        a.close()
        b.close()


def test_a_report_that_a_seat_hears_us_is_trusted_at_once_only_when_fresh() -> None:
    _, _, a, b = _linked()
    try:
        now = time.monotonic()
        b.peers[0].up, b.peers[0].up_at = (True, True), now  # seat 0 says it hears us
        assert not b.fresh  # the default: it may be about a publisher of ours before a restart
        assert not b.hears(0, 1, now)
        later = b.started + 2 * mesh.LIVE
        b.peers[0].up_at = later
        assert b.hears(0, 1, later)  # a report made once any such report has expired
        b.peers[0].up_at = now
        b.fresh = True  # nobody else published for our seat in this game
        assert b.hears(0, 1, now)
        b.peers[0].up = (True, False)
        assert not b.hears(0, 1, now)  # and a report that it does not hear us still counts
    finally:
        a.close()
        b.close()


def test_a_mesh_on_its_owners_context_leaves_it_to_the_owner() -> None:
    oa, _ = _owners()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx)
    assert a.ctx is ctx  # one I/O thread for the host link and the mesh
    a.close()
    assert not ctx.closed  # the owner's sockets live on until the owner closes them
    ctx.socket(zmq.DEALER).close(linger=0)
    ctx.destroy(linger=0)
    b = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    b.close()
    assert b.ctx.closed  # its own context goes with it


def test_who_sent_an_entry_before_its_predecessor_counts_once_it_is_appended() -> None:
    """Else its author, whose copy the owner kept, would be named for not sending it when a
    later copy comes from someone else (TRANSPORT.md §10.4, "Who holds the game up")."""
    oa, ob, a, b = _linked()
    try:
        assert oa.session is not None and ob.session is not None
        (commit,) = oa.session.take_outgoing()
        now = time.monotonic()
        b.heard(0, 1, [commit])  # from seat 0 itself, before we hold seq 0's successor
        b.heard(2, 1, [commit + b"x"])  # another copy for that seq, not the one appended
        ob.session.receive(commit)
        b._note_accepted(1, now)
        assert b._sources[1] == {0}
        b.heard(3, 1, [commit])  # a later copy from elsewhere adds to it
        assert b._sources[1] == {0, 3}
        assert not b._early
    finally:
        a.close()
        b.close()


def test_a_seat_asked_before_it_heard_us_is_not_said_to_hold_back() -> None:
    """A `get` published before a seat's subscription reached us is lost: if that seat says it
    hears us only later, it is not named for holding back what it never heard asked (a joiner
    just in named an honest seat so, on a busy machine). Asked once it hears us, it is."""
    _, ob, a, b = _linked()
    try:
        now = time.monotonic()
        b.fresh = True
        p = b.peers[0]
        p.head = (5, b"h" * 32)  # seat 0 advertises entries up to seq 5
        p.up, p.up_at = (True, False), now  # and says it does not hear us (yet)
        b._ask(0, 3, now)
        p.up, p.up_at = (True, True), now + mesh.HOLD_BACK  # now it does
        b.tick(now + 2 * mesh.HOLD_BACK)
        assert not [n for n in ob.notices if "holds back" in n], ob.notices
        b._ask(0, 4, now + 3 * mesh.HOLD_BACK)  # asked while it hears us: the get reached it
        p.up_at = now + 4 * mesh.HOLD_BACK
        b.tick(now + 5 * mesh.HOLD_BACK)
        assert [n for n in ob.notices if "holds back" in n], ob.notices
    finally:
        a.close()
        b.close()


def test_a_new_subscriber_hears_our_head_at_once_not_at_the_next_periodic_head() -> None:
    """A link's first message decides it is up (§10.1); without entries to push it was the next
    periodic head, up to HEAD_EVERY after the handshake (a wait of whole round trips on a
    wide-area network, bench/bench_wan.py). Our publisher (an XPUB) hears the subscription
    arrive and the next tick sends our head and cards at once."""
    oa, ob = _owners()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    sent: list[bytes] = []
    a.outgoing = lambda data: sent.append(data) or data  # type: ignore[method-assign]
    try:
        b.on_tunnel(0, a.card_msg)
        a.tick(time.monotonic())  # (its first head, before anyone subscribed: lost)
        sent.clear()
        deadline = time.monotonic() + 5
        while b.links()[0] is None:
            assert time.monotonic() < deadline, "seat 1 never heard seat 0 directly"
            now = time.monotonic()
            a._last_heads = now + 3600  # no periodic head is due, whatever the time
            for owner, m in ((oa, a), (ob, b)):
                for sock, _ in owner.poller.poll(20):
                    m.on_socket(sock)
            a.tick(time.monotonic())
            b.tick(time.monotonic())
        assert "head" in _kinds(sent) and "card" in _kinds(sent)  # the greeting: head and cards
    finally:
        a.close()
        b.close()
