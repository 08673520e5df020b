"""Cards with several endpoints (TRANSPORT.md §10.2), in one process on 127.0.0.1: a subscriber
connects to every endpoint of a card, keeps the first whose CURVE handshake completes (never
one where another key answers), and reads each message once."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net import mesh
from zoo_p2p.net.peer import raw_public
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant


class Owner:
    """The least a Mesh needs from its peer; it keeps what the mesh tells it."""

    def __init__(self, key: Ed25519PrivateKey, session: Session) -> None:
        self.key = key
        self.session: Session | None = session
        self.poller = zmq.Poller()
        self.tunnelled: list[bytes] = []
        self.notices: list[str] = []
        self.stopped: Any = None

    def deliver(self, start: int, entries: list[bytes], source: str) -> int | None:
        return None

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        self.tunnelled.append(data)

    def mesh_notice(self, text: str) -> None:
        self.notices.append(text)

    def mesh_log_path(self) -> Path | None:
        return None

    def mesh_stop(self, verdict: mesh.Verdict) -> None:
        self.stopped = verdict


class Counting(mesh.Mesh):
    """A mesh that counts the `get` messages it reads from each seat."""

    gets: int = 0

    def _on_msg(self, seat: int, msg: dict[str, Any], now: float) -> None:
        if msg["t"] == "get":
            self.gets += 1
        super()._on_msg(seat, msg, now)


def _owners() -> list[Owner]:
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    seats = [SeatInfo(f"p{i}", raw_public(k), Team(i)) for i, k in enumerate(keys)]
    genesis = Session.create_genesis(keys[0], seats, Variant.STANDARD, 0, os.urandom(32))
    return [Owner(k, Session(genesis, key=k, seed=os.urandom(32))) for k in keys]


def _pump(b: mesh.Mesh, owner: Owner, a: mesh.Mesh, until: Any, what: str) -> None:
    """Run both meshes' loops (A publishes, B reads) until `until()`, for at most 5 s."""
    deadline = time.monotonic() + 5
    while not until():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        now = time.monotonic()
        a.tick(now)
        b.tick(now)
        for sock, _ in owner.poller.poll(50):
            b.on_socket(sock)


def _dead_port() -> int:
    return mesh.free_port("127.0.0.1")


def test_the_first_endpoint_that_completes_is_kept_and_read_once() -> None:
    oa, ob = _owners()
    decoy_ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    decoy = decoy_ctx.socket(zmq.PUB)  # another publisher, another key: its handshake fails
    dpub, dsec = zmq.curve_keypair()
    decoy.curve_secretkey, decoy.curve_publickey, decoy.curve_server = dsec, dpub, True
    dport = decoy.bind_to_random_port("tcp://127.0.0.1")
    a = mesh.Mesh(
        oa,
        bind=["127.0.0.1", "127.0.0.2"],
        advertise=["127.0.0.1", "127.0.0.2"],
        more=mesh.FixedEndpoints((("127.0.0.1", dport), ("127.0.0.1", _dead_port()))),
    )
    b = Counting(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        assert a.card is not None and len(a.card.endpoints) == 4  # two live, a decoy, a dead one
        assert oa.tunnelled[0] == a.card_msg
        b.on_tunnel(0, a.card_msg)  # as the host passes it on
        assert len(b.peers[0].subs) == 4 and b.links() == {0: None}
        for _ in range(50):  # the decoy publishes too, but nobody can read it with A's key
            decoy.send(mesh.pack("get", **{"from": 1, "n": 1, "to": 1}))
        _pump(b, ob, a, lambda: b.links()[0] is not None, "the direct link to A")
        via = b.links()[0]
        assert via in (f"tcp://127.0.0.1:{a.port}", f"tcp://127.0.0.2:{a.port}"), via
        assert list(b.peers[0].subs) == [via]  # the others of the race are closed
        before = b.gets
        for seq in range(1, 6):  # five messages (to a third seat: B only counts them)
            a.publish(mesh.pack("get", **{"from": seq, "n": 1, "to": 3}))
        _pump(b, ob, a, lambda: b.gets >= before + 5, "A's five messages")
        end = time.monotonic() + 0.3  # anything duplicated would be queued by now
        while time.monotonic() < end:
            for sock, _ in ob.poller.poll(50):
                b.on_socket(sock)
        assert b.gets == before + 5  # each once, though two endpoints reach A's publisher
    finally:
        a.close()
        b.close()
        decoy.close(linger=0)
        decoy_ctx.term()


class Later:
    """A mapping that answers when the test says so (`zoo join --upnp` maps in the background)."""

    def __init__(self) -> None:
        self.done = False
        self.eps: list[tuple[str, int]] = []
        self.lines: list[str] = []

    def ready(self) -> bool:
        return self.done

    def endpoints(self) -> list[tuple[str, int]]:
        return self.eps

    def note(self) -> list[str]:
        return self.lines


def test_a_card_stays_the_same_when_the_router_maps_nothing() -> None:
    """The mesh only takes the endpoints; why there are none is the link's to say, as soon as
    the router answers, in the lobby too (`Link.tell_mapping`, tests/net/test_netns_nat.py)."""
    (oa, _) = _owners()
    later = Later()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1", more=later)
    try:
        first = a.card_msg
        assert a.card is not None and a.card.endpoints == (f"tcp://127.0.0.1:{a.port}",)
        assert oa.tunnelled == [first]  # sent at once: joining never waits for the router
        a.tick(time.monotonic())
        assert a.card_msg == first  # the router has not answered yet
        later.done, later.lines = True, ["could not map: no UPnP router answered", "advice"]
        a.tick(time.monotonic())
        assert a.card_msg == first and a.card.endpoints == (f"tcp://127.0.0.1:{a.port}",)
        assert not oa.notices  # not said twice: the link says it
    finally:
        a.close()


def test_a_card_that_grows_joins_the_race_and_a_replay_of_the_old_one_is_ignored() -> None:
    oa, ob = _owners()
    later = Later()
    # A advertises an address it does not listen on; only the mapping reaches it
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.3", more=later)
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        small = a.card_msg
        b.on_tunnel(0, small)
        assert list(b.peers[0].subs) == [f"tcp://127.0.0.3:{a.port}"]
        later.done, later.eps = True, [("127.0.0.1", a.port)]
        a.tick(time.monotonic())
        assert a.card is not None and len(a.card.endpoints) == 2 and a.card_msg != small
        b.on_tunnel(0, a.card_msg)
        assert len(b.peers[0].subs) == 2  # the new endpoint joined the race
        _pump(b, ob, a, lambda: b.links()[0] is not None, "the link at the mapped endpoint")
        assert b.links() == {0: f"tcp://127.0.0.1:{a.port}"}
        b.on_tunnel(0, small)  # an old card replayed by a relay takes nothing away
        assert b.peers[0].card == a.card and b.cards[0] == a.card_msg
        assert b.links() == {0: f"tcp://127.0.0.1:{a.port}"}
    finally:
        a.close()
        b.close()


def test_a_mapped_endpoint_joins_the_card_and_a_taken_port_drops_it() -> None:
    (oa, _) = _owners()
    later = Later()
    later.done, later.eps = True, [("11.88.2.1", 40123)]
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1", more=later)
    try:
        assert a.card is not None
        assert a.card.endpoints == (f"tcp://127.0.0.1:{a.port}", "tcp://11.88.2.1:40123")
        # the port the router forwards is taken: listening elsewhere, the mapping is useless
        busy = mesh.Mesh(
            oa,
            bind="127.0.0.1",
            advertise="127.0.0.1",
            port=a.port,
            more=later,
        )
        try:
            assert busy.port != a.port and busy.card is not None
            assert busy.card.endpoints == (f"tcp://127.0.0.1:{busy.port}",)
        finally:
            busy.close()
    finally:
        a.close()


def test_a_card_keeps_room_for_the_mapped_endpoint() -> None:
    """Five addresses of our own and a mapping on its way: the first card carries three, so
    that the card made with the mapped endpoint holds everything the first did (a superset)."""
    (oa, _) = _owners()
    later = Later()
    mine = [f"127.0.0.{i}" for i in range(1, 6)]
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise=mine, more=later)
    try:
        assert a.card is not None
        first = a.card.endpoints
        assert first == tuple(f"tcp://{h}:{a.port}" for h in mine[:3])
        later.done, later.eps = True, [("11.88.2.1", 40123)]
        a.tick(time.monotonic())
        assert a.card.endpoints == (*first, "tcp://11.88.2.1:40123")
    finally:
        a.close()
    plain = mesh.Mesh(oa, bind="127.0.0.1", advertise=mine)  # no mapping: the first four
    try:
        assert plain.card is not None and len(plain.card.endpoints) == mesh.MAX_EPS
    finally:
        plain.close()
