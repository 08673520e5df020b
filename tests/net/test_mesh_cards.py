"""Cards with several endpoints (TRANSPORT.md §10.2), in one process on 127.0.0.1: a subscriber
connects to every endpoint of a card, keeps the first whose CURVE handshake completes (never
one where another key answers), and reads each message once."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net import mesh
from zoo_p2p.net.messages import MeshCard, MeshGet, MeshMessage
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

    def deliver(
        self, start: int, entries: list[bytes], source: str, by: int | None = None
    ) -> int | None:
        return None

    def may_check(self, seat: int) -> bool:
        return True

    def checked(self, seat: int, n: int = 1) -> None:
        pass

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

    def _on_msg(self, seat: int, msg: MeshMessage, now: float) -> None:
        if isinstance(msg, MeshGet):
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


# ----- which card of a seat is held (TRANSPORT.md §10.2: a greater counter, never a replay) -----


class Wired(mesh.Mesh):
    """A mesh whose direct links are the test's hands: what it publishes is kept in `out` (no
    socket is read), and every subscription it opens is counted."""

    def __init__(self, owner: Owner, wall: float, clock: Any = time.monotonic) -> None:
        self.out: list[bytes] = []
        self.subscribed = 0
        super().__init__(
            owner, bind="127.0.0.1", advertise="127.0.0.1", wall=lambda: wall, clock=clock
        )

    def outgoing(self, data: bytes) -> bytes:
        self.out.append(data)
        return b""

    def _subscribe(self, seat: int, ep: str, skey: bytes) -> zmq.Socket[bytes] | None:
        self.subscribed += 1
        return super()._subscribe(seat, ep, skey)


def _three() -> list[Owner]:
    """The peers of a 3-seat game (seat 0 hosts)."""
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    seats = [SeatInfo(f"p{i}", raw_public(k), Team(i)) for i, k in enumerate(keys)]
    genesis = Session.create_genesis(keys[0], seats, Variant.STANDARD, 0, os.urandom(32))
    return [Owner(k, Session(genesis, key=k, seed=os.urandom(32))) for k in keys]


def _run(owner: Owner, wall: float) -> mesh.Mesh:
    """One run of a seat's peer (its publisher, its card) that started at `wall`."""
    return mesh.Mesh(owner, bind="127.0.0.1", advertise="127.0.0.1", wall=lambda: wall)


def _exchange(peers: list[Wired]) -> int:
    """Every card that each peer published so far reaches every other peer at once (as over
    their direct links, all sent before any is read); how many were handed over."""
    outs = [(m, [d for d in m.out if mesh.unpack(d)["t"] == "card"]) for m in peers]
    for m in peers:
        m.out.clear()
    for sender, cards in outs:
        for other in peers:
            if other is not sender:
                for data in cards:
                    other.on_tunnel(None, data)
    return sum(len(c) for _, c in outs)


def test_two_peers_holding_different_cards_for_a_seat_do_not_swap_them_without_end() -> None:
    """The host (seat 0) restarted: an attacker holding the cards of both its runs hands one to
    each joiner, then the other, five times. Once it stops, the joiners' own gossip settles:
    both hold the newer card and open at most one more subscription each, however many rounds
    of heads and gossip follow (the old rule, "another key replaces", swapped the two cards at
    every round: two re-subscriptions a round, without end)."""
    oc, oa, ob = _three()
    old, new = _run(oc, 1000.0), _run(oc, 1001.0)  # the second run started a second later
    a, b = Wired(oa, 5000.0), Wired(ob, 5000.0)
    try:
        now = 0.0
        for i in range(5):  # the attacker: alternating cards, each valid
            first, second = (old, new) if i % 2 == 0 else (new, old)
            a.on_tunnel(None, first.card_msg)
            b.on_tunnel(None, second.card_msg)
            now += mesh.HEAD_EVERY
            a.tick(now)
            b.tick(now)
            _exchange([a, b])
        before = a.subscribed + b.subscribed
        gossiped = 0
        for _ in range(40):  # it stopped: heads and gossip go on
            now += mesh.HEAD_EVERY
            a.tick(now)
            b.tick(now)
            gossiped += _exchange([a, b])
        assert a.subscribed + b.subscribed - before <= 2
        assert a.cards[0] == b.cards[0] == new.card_msg  # both hold the newer run's card
        assert a.peers[0].card.skey == b.peers[0].card.skey == new.card.skey  # type: ignore[union-attr]
        assert gossiped <= 4  # each tells the other once what it holds, and then nothing
    finally:
        for m in (old, new, a, b):
            m.close()


def test_a_replayed_card_from_before_a_restart_never_takes_a_live_link_away() -> None:
    """A seat restarted: its new card replaces the old one and its link comes up. Five replays
    of the card from before the restart, through the host and from another seat's publisher,
    change nothing: no re-subscription, nothing passed on, the live link stays and reads on."""
    oc, _, ob = _three()
    old, new = _run(oc, 1000.0), _run(oc, 1001.0)
    b = Counting(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        b.on_tunnel(0, old.card_msg)
        assert b.cards[0] == old.card_msg
        b.on_tunnel(0, new.card_msg)  # the restart: a newer card, another key
        assert b.cards[0] == new.card_msg and b.peers[0].card == new.card
        _pump(b, ob, new, lambda: b.links()[0] is not None, "the link to the new run")
        via, sub = b.links()[0], b.peers[0].sub
        told = len(ob.tunnelled)
        for _ in range(5):
            b.on_tunnel(0, old.card_msg)  # as a relay would
            b.on_tunnel(None, old.card_msg)  # as another seat's gossip would
        assert b.cards[0] == new.card_msg and b.peers[0].card == new.card
        assert b.links()[0] == via and b.peers[0].sub is sub and list(b.peers[0].subs) == [via]
        # a replay is not passed on; the seat itself (the host link is seat 0's) is shown
        # the card we hold, once (in case it is a run of it with its clock behind)
        assert ob.tunnelled[told:] == [new.card_msg]
        before = b.gets
        new.publish(mesh.pack("get", **{"from": 1, "n": 1, "to": 2}))
        _pump(b, ob, new, lambda: b.gets > before, "a message on the live link")
    finally:
        for m in (old, new, b):
            m.close()


def test_equal_or_older_cards_cost_no_signature_check_and_a_newer_one_under_the_key_keeps_the_link(
    monkeypatch: Any,
) -> None:
    """Gossip echoes the card we hold many times a second: it is dropped on its counter before
    any Ed25519 check, as is an older card with a forged signature (no 'bad signature', nothing
    counted). A newer card with the same publisher key (the seat learned another address) is
    taken, and the link that is up stays."""
    oc, _, ob = _three()
    later = Later()
    c = mesh.Mesh(oc, bind="127.0.0.1", advertise="127.0.0.1", more=later, wall=lambda: 1000.0)
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    checks: list[int] = []
    real = mesh.check_card

    def counted(pub: Any, game_id: bytes, msg: MeshCard) -> mesh.Card | None:
        checks.append(msg.n)
        return real(pub, game_id, msg)

    monkeypatch.setattr(mesh, "check_card", counted)
    try:
        first = c.card_msg
        b.on_tunnel(0, first)
        _pump(b, ob, c, lambda: b.links()[0] is not None, "the link to seat 0")
        assert len(checks) == 1
        forged = mesh.unpack(first)
        forged.pop("t")
        forged["sig"] = bytes(64)
        for _ in range(100):
            b.on_tunnel(0, first)
            b.on_tunnel(None, mesh.pack("card", **forged))
        assert len(checks) == 1 and b.dropped == 0 and b.cards[0] == first
        via, sub = b.links()[0], b.peers[0].sub
        # The router answered with another port (not a fixed one: ours may be it, and then the
        # card would not change).
        mapped = c.port + 1 if c.port < 65535 else c.port - 1
        later.done, later.eps = True, [("127.0.0.1", mapped)]
        c.tick(time.monotonic())
        assert c.card is not None and c.card.n == 1_000_001 and len(c.card.endpoints) == 2
        b.on_tunnel(0, c.card_msg)
        assert b.cards[0] == c.card_msg and b.peers[0].card == c.card
        assert b.links()[0] == via and b.peers[0].sub is sub  # the live link stays
    finally:
        c.close()
        b.close()


def test_a_run_whose_clock_went_back_signs_its_card_again_above_the_earlier_runs_once() -> None:
    """The host restarted with its clock behind the earlier run's: a joiner holding the earlier
    card drops the new one as older. Since the host itself sent it, the joiner shows it the card
    it holds, once; the host signs its card again above that one and the joiner takes it. A
    card of yet another run of our seat does not make us outbid it again (once a run: two live
    processes of one seat must not outbid each other without end)."""
    oc, _, ob = _three()
    ahead, back = _run(oc, 2000.0), _run(oc, 1000.0)
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        assert ahead.card is not None and back.card is not None
        b.on_tunnel(0, ahead.card_msg)
        told = len(ob.tunnelled)
        b.on_tunnel(None, back.card_msg)  # from another seat's gossip: dropped, nothing said
        assert b.cards[0] == ahead.card_msg and len(ob.tunnelled) == told
        mine = back.card_msg
        back.on_tunnel(1, mine)  # our own card echoed back: nothing to do
        assert back.card_msg == mine
        for _ in range(5):  # the host sends its card with every head
            b.on_tunnel(0, back.card_msg)
        assert b.cards[0] == ahead.card_msg  # ours looks older
        assert ob.tunnelled[told:] == [ahead.card_msg]  # shown to the host, once
        back.on_tunnel(1, ahead.card_msg)  # the earlier run's card, as the joiner sends it
        assert back.card.n == ahead.card.n + 1 and back.card_msg != mine
        assert back.card.skey != ahead.card.skey  # still this run's publisher
        b.on_tunnel(0, back.card_msg)
        assert b.cards[0] == back.card_msg and b.peers[0].card == back.card
        third = _run(oc, 3000.0)
        try:
            healed = back.card_msg
            back.on_tunnel(1, third.card_msg)
            assert back.card_msg == healed  # once a run
        finally:
            third.close()
    finally:
        for m in (ahead, back, b):
            m.close()


def test_a_seat_that_signs_new_cards_without_end_makes_us_relink_once_a_second_at_most() -> None:
    """A hostile seat signs 50 ever newer cards, each with another key and address. We would
    close and open a link (and connect to whatever it names) for each: we take CARDS_BURST at
    once and then one a second, the newest, which waits for its turn (the older ones are
    dropped); an honest run signs one to three."""
    oc, _, ob = _three()
    clock = [100.0]
    b = Wired(ob, 5000.0, clock=lambda: clock[0])
    try:
        game = ob.session.game_id  # type: ignore[union-attr]
        cards = []
        for i in range(50):
            ep, skey = f"tcp://127.0.0.1:{20000 + i}", os.urandom(32)
            n = 1000 + i
            sig = oc.key.sign(mesh.card_signed_bytes(game, 0, n, ep, skey))
            cards.append(mesh.pack("card", seat=0, n=n, ep=ep, skey=skey, sig=sig))
        for data in cards:
            b.on_tunnel(0, data)
        assert b.subscribed == mesh.CARDS_BURST
        assert b.cards[0] == cards[3]
        for _ in range(20):
            b.tick(clock[0])  # no token yet: the newest card waits
        assert b.subscribed == mesh.CARDS_BURST
        clock[0] += 1 / mesh.CARDS_PER_S
        b.tick(clock[0])
        assert b.subscribed == mesh.CARDS_BURST + 1 and b.cards[0] == cards[-1]
        b.on_tunnel(0, cards[10])  # older than the one taken: nothing
        clock[0] += 10
        b.tick(clock[0])
        assert b.subscribed == mesh.CARDS_BURST + 1
    finally:
        b.close()


def test_the_host_links_table_drops_what_only_direct_links_carry_and_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Through the host link only cards, heads and proofs travel (TRANSPORT.md §10.3): an `ent`,
    a `get`, a vote or a resignation tunnelled there is dropped, named in the log, and reaches
    neither the session nor the statements (before: dropped without a word)."""
    oa, _ = _owners()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        head = [0, bytes(32)]
        sent = len(oa.tunnelled)
        with caplog.at_level(logging.INFO, logger="zoo_p2p.net.mesh"):
            for kind, fields in (
                ("ent", {"from": 1, "e": [b"x"], "h": head}),
                ("get", {"from": 0, "n": 1, "to": 0}),
                ("vote", {"v": b"x"}),
                ("resign", {"r": b"x"}),
            ):
                a.on_tunnel(1, mesh.pack(kind, **fields))
                assert f"dropped a tunnelled mesh {kind}: only cards, heads and proofs" in (
                    caplog.text
                )
        # (Owner has no mesh_vote / mesh_resign: a statement let through would raise)
        assert len(oa.tunnelled) == sent and oa.session is not None and len(oa.session) == 1
    finally:
        a.close()
