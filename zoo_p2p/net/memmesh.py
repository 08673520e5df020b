"""The mesh with no transport (`zoo_p2p.net.gossip.MeshCore` kept in memory): what it would
publish comes back from each call, its subscriptions are the endpoints it names, and the clock is
whatever `now` the caller passes. For pure tests of the mesh on a fake clock (milliseconds, no
socket), and for whoever gossips heads without sockets of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zoo_p2p.net.gossip import MeshCore, MeshOwner, MoreEndpoints

__all__ = ["MemoryMesh"]


class MemoryMesh(MeshCore[str]):
    """A mesh with no transport: what it would publish is kept and handed back by `receive`
    and `tick`, a subscription is the endpoint it names, and a proof is kept in `kept`. For
    pure tests on a fake clock, and for whoever gossips heads without sockets of its own."""

    def __init__(
        self,
        owner: MeshOwner,
        *,
        now: float,
        skey: bytes = bytes(32),
        port: int = 4000,
        advertise: list[str] | None = None,
        more: MoreEndpoints | None = None,
        fresh: bool = False,
        wall: Callable[[], float] = lambda: 0.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._clock = clock or (lambda: now)  # the time of a call given no `now`
        self.sent: list[bytes] = []
        self.opened: list[tuple[int, str]] = []
        self.closed: list[str] = []
        self.kept: list[bytes] = []
        super().__init__(
            owner,
            now=now,
            port=port,
            skey=skey,
            advertise=advertise or ["127.0.0.1"],
            more=more,
            fresh=fresh,
            wall=wall,
        )

    def _emit(self, data: bytes) -> bool:
        self.sent.append(data)
        return True

    def _subscribe(self, seat: int, ep: str, skey: bytes) -> str | None:
        self.opened.append((seat, ep))
        return ep

    def _drop_sub(self, sub: str) -> None:
        self.closed.append(sub)

    def _keep(self, proof: bytes) -> Path | None:
        self.kept.append(proof)
        return None

    @property
    def over_tor(self) -> bool:
        """Never: nothing goes anywhere."""
        return False

    def hears(self, seat: int, author: int, now: float | None = None) -> bool:
        """True when `seat` told us lately that it hears `author` directly."""
        return super().hears(seat, author, self._clock() if now is None else now)

    def relay_needed(self, seat: int, entries: list[bytes], now: float | None = None) -> bool:
        """Whether a relay must still pass `entries` on to `seat` (`MeshCore.relay_needed`)."""
        return super().relay_needed(seat, entries, self._clock() if now is None else now)

    def on_tunnel(self, seat: int | None, data: bytes, now: float | None = None) -> None:
        """A mesh message that came through the host link (`MeshCore.on_tunnel`)."""
        super().on_tunnel(seat, data, self._clock() if now is None else now)

    def take(self) -> list[bytes]:
        """What it published since the last call."""
        out, self.sent = self.sent, []
        return out

    def receive(self, seat: int, data: bytes, now: float, via: str | None = None) -> list[bytes]:
        """One frame from `seat`'s publisher (reached at `via`, else its card's first endpoint
        still open), at `now`: what we publish in answer. Nothing from a seat we hold no card
        of (nobody could have subscribed to it)."""
        p = self.peers.get(seat)
        if p is not None and p.sub is None and p.subs:
            self._won(p, p.subs[via] if via in p.subs else next(iter(p.subs.values())))
        if p is not None and p.sub is not None:
            self.on_frame(seat, data, now)
        return self.take()

    def tunnel(self, seat: int | None, data: bytes, now: float) -> list[bytes]:
        """A mesh message over the host link (`on_tunnel`): what we publish in answer."""
        self.on_tunnel(seat, data, now)
        return self.take()

    def turn(self, now: float) -> list[bytes]:
        """`tick` at `now`: what we publish."""
        self.tick(now)
        return self.take()
