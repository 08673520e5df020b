"""Direct links over Tor (TRANSPORT.md §10.9), in one process on 127.0.0.1 without Tor: a
scripted SOCKS5 proxy (tests/net/test_socks_abort.py) stands in for the Tor client.

- a peer over Tor has no card until its onion is published, and then a card naming the onion
  alone (nothing of its machine);
- it dials an onion endpoint through its own forwarder (the name reaches the proxy unresolved),
  a loopback one as it is, and no other address (it would learn ours);
- a peer without a Tor client never dials an onion (no DNS look-up of the name).
"""

from __future__ import annotations

import time

from tests.net.test_mesh_cards import Later, Owner, _owners, _pump
from tests.net.test_socks_abort import ScriptedProxy
from zoo_p2p.net import mesh
from zoo_p2p.net.messages import MeshCard
from zoo_p2p.net.torlink import REFUSALS_SAID, dial_route, first_refusal

ONION = "zoo" * 18 + "qd.onion"
OTHER = "b" * 54 + "qd.onion"
SHORT = "b" * 16 + ".onion"  # an old v2 name: no Tor reaches it any more, and DNS must not


def _card_of(owner: Owner, m: mesh.Mesh, eps: list[str]) -> bytes:
    """A card for seat `m.seat` signed with its key, naming `eps` (with m's publisher key)."""
    ep: str | list[str] = eps[0] if len(eps) == 1 else eps
    n = int(time.time() * 1000) + 1000
    sig = owner.key.sign(mesh.card_signed_bytes(m.game_id, m.seat, n, ep, m._skey))
    return mesh.pack("card", seat=m.seat, n=n, ep=ep, skey=m._skey, sig=sig)


def test_no_card_until_the_onion_is_published_then_the_onion_alone() -> None:
    (oa, _) = _owners()
    later = Later()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise=[], more=later, hidden=True)
    try:
        assert a.card is None and oa.tunnelled == []  # nobody can dial us yet
        a.tick(time.monotonic())
        assert b"" not in oa.tunnelled  # no empty card sent to the host with the heads
        later.done, later.eps = True, [(ONION, a.port)]
        a.tick(time.monotonic() + 1)
        assert a.card is not None and a.card.endpoints == (f"tcp://{ONION}:{a.port}",)
        assert a.card_msg in oa.tunnelled
        assert mesh.check_card(a._pubs[a.seat], a.game_id, _decode_card(a.card_msg)) == a.card
    finally:
        a.close()


def test_an_onion_never_published_leaves_us_without_a_card() -> None:
    (oa, _) = _owners()
    later = Later()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise=[], more=later, hidden=True)
    try:
        later.done = True  # given up: no endpoint
        a.tick(time.monotonic())
        assert a.card is None and a.card_msg == b""
    finally:
        a.close()


def test_over_tor_we_dial_onions_through_the_proxy_and_loopback_only() -> None:
    oa, ob = _owners()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    proxy = ScriptedProxy(target=a.port, refuse=1)  # refuses once, as Tor does at first
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise=[], hidden=True, socks=("127.0.0.1", proxy.port))
    try:
        card = _card_of(
            oa, a, ["tcp://192.0.2.7:4000", f"tcp://{SHORT}:4000", f"tcp://{ONION}:{a.port}"]
        )
        b.on_tunnel(0, card)
        # the documentation address would learn ours: not dialled; the onion is, via a forwarder
        assert list(b.peers[0].subs) == [f"tcp://{ONION}:{a.port}"]
        _pump(b, ob, a, lambda: b.links().get(0) is not None, "the link through the proxy")
        assert b.links() == {0: f"tcp://{ONION}:{a.port}"}
        assert proxy.requests and all(r == (3, ONION.encode(), a.port) for r in proxy.requests)
        assert len(b._fwds) == 1
    finally:
        b.close()
        a.close()
        proxy.close()
    assert b._fwds == {}  # closed with the mesh


def test_without_tor_an_onion_is_not_dialled_and_an_address_is() -> None:
    oa, ob = _owners()
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        eps = [f"tcp://{OTHER}:4000", f"tcp://{SHORT}:4000", f"tcp://127.0.0.1:{a.port}"]
        b.on_tunnel(0, _card_of(oa, a, eps))
        assert list(b.peers[0].subs) == [f"tcp://127.0.0.1:{a.port}"]
        assert b._fwds == {}
    finally:
        b.close()
        a.close()


def test_the_dial_rule_that_the_mesh_and_the_spectator_share() -> None:
    """`dial_route` is the one rule both follow (TRANSPORT.md §10.9); each case its answer."""
    away, loop = "tcp://192.0.2.7:4000", "tcp://127.0.0.1:4000"
    assert dial_route(away, None, False) == (away, None)
    assert dial_route(loop, None, True) == (loop, None)
    assert dial_route(away, None, True) == (
        "over Tor we dial onions only: that address would learn ours"
    )
    assert dial_route(f"tcp://{ONION}:4000", None, False) == "an onion, and we have no Tor client"
    assert dial_route(f"tcp://{SHORT}:4000", ("127.0.0.1", 9), False) == "not a v3 onion name"
    # the forwarder only listens until libzmq connects to it: no proxy is reached here
    route = dial_route(f"tcp://{ONION}:4000", ("127.0.0.1", 9), True)
    assert not isinstance(route, str), route
    target, fwd = route
    assert fwd is not None
    fwd.close()
    assert target == fwd.endpoint and target.startswith("tcp://127.0.0.1:")
    said: set[str] = set()
    assert first_refusal(said, "tcp://a:1") and not first_refusal(said, "tcp://a:1")
    for i in range(2, REFUSALS_SAID + 1):
        assert first_refusal(said, f"tcp://a:{i}")
    assert not first_refusal(said, "tcp://a:0") and len(said) == REFUSALS_SAID


def _decode_card(data: bytes) -> MeshCard:
    from zoo_p2p.net.messages import decode_mesh

    msg = decode_mesh(data)
    assert isinstance(msg, MeshCard)
    return msg
