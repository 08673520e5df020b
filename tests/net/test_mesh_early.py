"""Direct links started in the lobby (TRANSPORT.md §10.10): a joiner's publisher is bound and
hinted before the genesis, the other joiners connect to it at once, and at the genesis a hinted
socket is adopted only for the seat whose signed card names that endpoint and key. A wrong hint
(another key at the right endpoint, another publisher at another endpoint, a forged card on it)
costs a connect attempt: the card's endpoint wins, nobody is convicted. In one process on
127.0.0.1 (the sockets), and in memory (the host's side: who is told which hints, when)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from zmq.utils import z85

from tests.net.memnet import MemJoiner, MemNet
from tests.net.test_mesh_cards import Owner, _owners
from zoo_p2p.net import mesh, wire
from zoo_p2p.net.cards import CardBook, check_card
from zoo_p2p.net.messages import MeshCard, encode
from zoo_p2p.protocol.session import Session

Ctx = zmq.Context[zmq.Socket[bytes]]


def _pump(pairs: list[tuple[mesh.Mesh, Owner]], until: Callable[[], bool], what: str) -> None:
    """Run every mesh's loop (ticks, and the sockets its owner's poller names) until
    `until()`, for at most 5 s."""
    deadline = time.monotonic() + 5
    while not until():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        for m, owner in pairs:
            now = time.monotonic()
            m.tick(now)
            for sock, _ in owner.poller.poll(20):
                m.on_readable(sock, time.monotonic())


def _early(ctx: Ctx) -> mesh.EarlyLinks:
    return mesh.EarlyLinks(ctx, "127.0.0.1", "127.0.0.1", curve=True)


def _subscribed(pub: zmq.Socket[bytes]) -> None:
    """Wait (at most 5 s) until a subscription reached `pub`, without reading it: the
    handshakes of a hinted link are over, as they are in a lobby that lasts a few seconds."""
    assert pub.poll(5000), "no subscription reached the early publisher"


def test_a_hinted_link_is_adopted_by_the_card_it_matches_and_carries_that_card() -> None:
    oa, ob = _owners()
    ctx: Ctx = zmq.Context()
    ea, eb = _early(ctx), _early(ctx)
    try:
        hint = ea.hint()
        eb.connect([hint, eb.hint()])  # (its own hint, as a host might echo it: skipped)
        assert list(eb.subs) == [hint]
        _subscribed(ea.pub)  # in the lobby: no session, no card, nothing read
        hinted = eb.subs[hint]
        a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx, early=ea)
        b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx, early=eb)
        assert a.card is not None and a.card.endpoints == (hint[0],) and a.card.skey == hint[1]
        assert a.port == ea.port and a.pub is ea.pub  # the hinted publisher is the card's
        # the host passes no card at all: A's card reaches B over the hinted link itself,
        # and adopts it
        _pump([(a, oa), (b, ob)], lambda: b.links().get(0) is not None, "the link to A")
        assert b.links() == {0: hint[0]}
        assert b.peers[0].sub is hinted  # adopted, not a new socket
        assert b.card_n[0] == a.card.n
        assert b.dropped == 0 and ob.stopped is None and oa.stopped is None
        a.close()
        b.close()
    finally:
        ctx.destroy(linger=0)


def _decoy(ctx: Ctx) -> tuple[zmq.Socket[bytes], str, bytes]:
    """Another publisher, another key, listening on 127.0.0.1: what a false hint may name."""
    pub = ctx.socket(zmq.XPUB)
    dpub, dsec = zmq.curve_keypair()
    pub.curve_secretkey, pub.curve_publickey, pub.curve_server = dsec, dpub, True
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    return pub, f"tcp://127.0.0.1:{port}", z85.decode(dpub)


def _forged_card(session: Session, ep: str, skey: bytes) -> bytes:
    """A card for seat 0 naming the decoy, signed with a key that is not seat 0's."""
    book = CardBook(session.game_id, [], 0, check_card)
    assert book.sign(Ed25519PrivateKey.generate(), [ep], skey, time.time())
    return book.card_msg


def test_a_false_hint_costs_a_connect_attempt_and_the_card_wins() -> None:
    oa, ob = _owners()
    ctx: Ctx = zmq.Context()
    ea, eb = _early(ctx), _early(ctx)
    decoy, decoy_ep, decoy_key = _decoy(ctx)
    try:
        good_ep, good_key = ea.hint()
        # a hostile host (or joiner) hints A's endpoint with another key, and a publisher of
        # its own, which then sends a forged card of seat 0 naming itself, and junk
        eb.connect([(good_ep, decoy_key), (decoy_ep, decoy_key)])
        assert len(eb.subs) == 2
        assert decoy.poll(5000)  # the decoy's handshake completed (its key is the hinted one)
        a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx, early=ea)
        b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx, early=eb)
        assert ob.session is not None and a.card is not None
        decoy.send(_forged_card(ob.session, decoy_ep, decoy_key))
        for _ in range(5):
            decoy.send(mesh.pack("get", **{"from": 1, "n": 1, "to": 1}))
        _pump([(b, ob)], lambda: b.dropped > 0, "the forged card to be read and dropped")
        assert b.links() == {} and 0 not in b.card_n  # the forgery took nothing
        b.on_tunnel(0, a.card_msg)  # the host passes A's real card
        _pump([(a, oa), (b, ob)], lambda: b.links().get(0) is not None, "the link to A")
        assert b.links() == {0: good_ep}
        assert all(b.peers[0].sub is not s for s in eb.subs.values())  # a new socket, per card
        _pump([(a, oa), (b, ob)], lambda: not b._hinted, "the false hints to be closed")
        assert b.dropped == 1  # the forged card, and only it: nobody is convicted
        assert ob.stopped is None and oa.stopped is None
        assert good_key != decoy_key
        a.close()
        b.close()
    finally:
        decoy.close(linger=0)
        ctx.destroy(linger=0)


def test_a_hinted_socket_that_says_too_much_before_a_card_is_closed() -> None:
    _, ob = _owners()
    ctx: Ctx = zmq.Context()
    eb = _early(ctx)
    decoy, decoy_ep, decoy_key = _decoy(ctx)
    try:
        eb.connect([(decoy_ep, decoy_key)])
        assert decoy.poll(5000)
        b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1", ctx=ctx, early=eb)
        for _ in range(mesh.HINT_BUFFER + 1):
            decoy.send(mesh.pack("get", **{"from": 1, "n": 1, "to": 1}))
        _pump([(b, ob)], lambda: not b._hinted, "the chatty hinted socket to be closed")
        assert b.links() == {} and not b._held and b.dropped == 0
        b.close()
    finally:
        decoy.close(linger=0)
        ctx.destroy(linger=0)


# ----- the host's side, in memory ------------------------------------------------------------
def _hints(monkeypatch: pytest.MonkeyPatch, hinting: dict[int, tuple[str, bytes]]) -> list[Any]:
    """Joiners of `hinting` (seat -> hint) hint in their lobby; returns what each is told:
    (seat, pairs, whether it was before the genesis)."""
    told: list[Any] = []

    def lobby_hint(self: MemJoiner) -> tuple[str, bytes] | None:
        return hinting.get(self.seat_index)

    def on_link_hints(self: MemJoiner, pairs: list[tuple[str, bytes]]) -> None:
        told.append((self.seat_index, pairs, self.session is None))

    monkeypatch.setattr(MemJoiner, "_lobby_hint", lobby_hint)
    monkeypatch.setattr(MemJoiner, "_on_link_hints", on_link_hints)
    return told


def test_the_host_tells_each_hinting_joiner_the_others_hints_before_the_genesis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one = ("tcp://10.0.0.1:4001", os.urandom(32))
    three = ("tcp://10.0.0.3:4003", os.urandom(32))
    told = _hints(monkeypatch, {1: one, 3: three})  # seat 2 hints nothing (an older joiner)
    net = MemNet(4)
    net.connect_all()
    net.run_until(net.all_stopped)
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    logs = net.logs()
    assert logs[0] == logs[1] == logs[2] == logs[3]
    assert {seat for seat, _, _ in told} == {1, 3}  # seat 2 is never sent a `links`
    assert (1, [three], True) in told and (3, [one], True) in told  # before the genesis
    assert all(before for _, _, before in told)
    assert all(c.dropped == 0 for c in net.cores)


def test_the_host_drops_a_links_message_after_the_genesis_or_with_several_publishers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    told = _hints(monkeypatch, {})
    net = MemNet(3)
    net.connect_all()
    net.run_until(lambda: net.host.session is not None)
    pair = ["tcp://10.0.0.9:9", os.urandom(32)]
    net.send_to_host(1, wire.pack("links", l=[pair]))  # the game is on: a hint is moot
    net.send_to_host(2, wire.pack("links", l=[pair, ["tcp://10.0.0.8:8", os.urandom(32)]]))
    net.deliver()
    assert net.host.dropped == 2
    net.run_until(net.all_stopped)
    assert all(c.stopped is not None and c.stopped.finished for c in net.cores)
    assert told == [] and net.logs()[0] == net.logs()[1] == net.logs()[2]


def test_a_links_frame_round_trips_and_bad_ones_are_refused() -> None:
    from zoo_p2p.net.messages import Links, WireError, decode

    good = Links(l=(("tcp://127.0.0.1:5000", bytes(32)), ("tcp://[::1]:5001", bytes(range(32)))))
    assert decode(encode(good)) == good
    for bad in (
        [["tcp://0.0.0.0:5000", bytes(32)]],  # a wildcard address: no card may name it
        [["tcp://127.0.0.1:5000", bytes(31)]],  # a key of another size
        [["tcp://127.0.0.1:5000", bytes(32)], ["tcp://127.0.0.1:5000", bytes(range(32))]],
        [[f"tcp://127.0.0.{i}:5000", bytes(32)] for i in range(1, 5)],  # more than 3
        [["tcp://127.0.0.1:5000"]],
    ):
        with pytest.raises(WireError):
            decode(wire.pack("links", l=bad))
    assert MeshCard  # (the card type a hinted link must carry to be adopted)
