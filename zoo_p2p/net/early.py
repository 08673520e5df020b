"""Direct links started in the lobby (TRANSPORT.md §10.10), and the socket set-up they share
with `zoo_p2p.net.mesh.Mesh`: a joiner's publisher bound before the genesis, and subscriptions to
the publishers the host says the other joiners hinted. A hint is never an authority: `Mesh`
adopts a hinted socket only for the seat whose signed card names that endpoint and key."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence

import zmq
from zmq.utils import z85

from zoo_p2p.net import wire
from zoo_p2p.net.links import MeshSetup
from zoo_p2p.net.messages import MAX_HINTS, endpoint, endpoint_ok
from zoo_p2p.text import shown

__all__ = [
    "HINT_BUFFER",
    "HINT_BYTES",
    "HINT_TTL",
    "MESH_HWM",
    "EarlyLinks",
    "limits",
    "lobby_links",
    "lobby_wanted",
    "publisher",
    "subscriber",
]

log = logging.getLogger("zoo_p2p.net.mesh")

MESH_HWM = 1000  # messages queued per direct link (then new ones are dropped)


def limits(sock: zmq.Socket[bytes]) -> None:
    sock.setsockopt(zmq.LINGER, 500)
    sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_FRAME)
    sock.setsockopt(zmq.SNDHWM, MESH_HWM)
    sock.setsockopt(zmq.RCVHWM, MESH_HWM)
    sock.setsockopt(zmq.HEARTBEAT_IVL, 1000)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3000)
    sock.setsockopt(zmq.HEARTBEAT_TTL, 6000)


def subscriber(
    ctx: zmq.Context[zmq.Socket[bytes]],
    skey: bytes,
    client: tuple[bytes, bytes] | None,
    setup: Callable[[zmq.Socket[bytes]], None] = limits,
) -> zmq.Socket[bytes]:
    """A SUB for a seat's publisher whose CURVE server key is `skey`, not connected yet: its
    limits set by `setup`, reconnecting within 100 ms to 1 s, over IPv6 too (a card may carry
    an [IPv6] endpoint, issue 11), subscribed to everything. With `client` (our CURVE keys;
    None: plain) only the holder of the card's secret key can complete its handshake: all the
    socket receives comes from that seat (TRANSPORT.md §10.1)."""
    sub = ctx.socket(zmq.SUB)
    setup(sub)
    sub.setsockopt(zmq.RECONNECT_IVL, 100)
    sub.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
    sub.setsockopt(zmq.IPV6, 1)
    if client is not None:
        sub.curve_publickey, sub.curve_secretkey = client
        sub.curve_serverkey = z85.encode(skey)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    return sub


def publisher(
    ctx: zmq.Context[zmq.Socket[bytes]], curve: bool, ipv6: bool
) -> tuple[zmq.Socket[bytes], bytes]:
    """A publisher (not bound yet) and its CURVE public key (z85). An XPUB: it sends as a
    PUB does, and tells us when a subscriber's subscription arrives (every one: verbose),
    so that a new link hears our head and cards at once, not at the next head up to
    HEAD_EVERY later (§10.1)."""
    pub = ctx.socket(zmq.XPUB)
    limits(pub)
    pub.setsockopt(zmq.XPUB_VERBOSE, 1)
    spub, ssec = zmq.curve_keypair()
    if curve:
        pub.curve_secretkey = ssec
        pub.curve_publickey = spub
        pub.curve_server = True
    if ipv6:
        pub.setsockopt(zmq.IPV6, 1)
    return pub, spub


HINT_BUFFER = 64  # frames a hinted subscription may deliver before its seat's card is taken
HINT_BYTES = 256 * 1024  # and their bytes
HINT_TTL = 10.0  # s after the genesis: a hint no card has matched by then is closed


class EarlyLinks:
    """Direct links started in the lobby (TRANSPORT.md §10.10): a joiner's publisher, bound when
    the host's welcome proved it (before the genesis, so before its card), and `SUB` sockets to
    the publishers that the host says the other joiners hinted, connected at once (their TCP,
    ZMTP and CURVE handshakes happen in the lobby). All of it is a hint: nothing is read from a
    hinted socket before the genesis, and at the genesis `Mesh` adopts a hinted socket only for
    the seat whose signed card names that endpoint and that key; the rest is closed."""

    def __init__(
        self, ctx: zmq.Context[zmq.Socket[bytes]], bind: str, advertise: str, curve: bool
    ) -> None:
        self.ctx = ctx
        self.curve = curve
        self.bind, self.advertise = bind, advertise
        self.pub, self.spub = publisher(ctx, curve, bind.startswith("["))
        self.port = self.pub.bind_to_random_port(f"tcp://{bind}")
        self.client = zmq.curve_keypair()  # what our subscribers authenticate with
        self.subs: dict[tuple[str, bytes], zmq.Socket[bytes]] = {}
        self.adopted = False  # a Mesh took the sockets over

    def hint(self) -> tuple[str, bytes]:
        """(endpoint, publisher key) of ours, as our card will say them."""
        return endpoint(self.advertise, self.port), z85.decode(self.spub)

    def connect(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """Connect a `SUB` to each hinted publisher we have none to yet (not ours; at most
        MAX_HINTS in all, whatever the host sends): a connect attempt each, nothing read."""
        own = self.hint()
        for ep, skey in pairs:
            key = (ep, skey)
            if key in self.subs or key == own or len(self.subs) >= MAX_HINTS:
                continue
            if not endpoint_ok(ep) or len(skey) != 32:
                continue
            sub = subscriber(self.ctx, skey, self.client if self.curve else None)
            try:
                sub.connect(ep)
            except zmq.ZMQError as exc:
                log.info("no early link to %s: %s", shown(ep), exc)
                sub.close(linger=0)
                continue
            self.subs[key] = sub
            log.info("early link: connecting to %s (a hint)", shown(ep))

    def close(self) -> None:
        """Close everything (a game that never started, or a Mesh that did not adopt us)."""
        if self.adopted:
            return
        for sub in self.subs.values():
            sub.close(linger=0)
        self.subs.clear()
        self.pub.close(linger=0)


def lobby_links(
    ctx: zmq.Context[zmq.Socket[bytes]], bind: str, advertise: str, curve: bool
) -> EarlyLinks | None:
    """Our publisher, bound now in the lobby, or None if it cannot be (said in the log)."""
    early: EarlyLinks | None = None
    try:
        early = EarlyLinks(ctx, bind, advertise, curve)
        early.hint()  # (ValueError: an address no card can carry)
        return early
    except (zmq.ZMQError, ValueError) as exc:
        log.info("no early links: %s", exc)
        if early is not None:
            early.close()
        return None


def lobby_wanted(setup: MeshSetup, mesh_on: bool) -> bool:
    """Whether a joiner binds its publisher in the lobby and hints where it is: not over Tor or
    a SOCKS path (a dial would tell our address), not with a port mapped beforehand (its card
    comes later), not with the mesh off or `ZOO_LOBBY_HINTS=0` (for measurements)."""
    return not (
        not mesh_on
        or setup.hidden
        or setup.socks is not None
        or setup.more is not None
        or setup.port
        or os.environ.get("ZOO_LOBBY_HINTS", "1") == "0"
    )
