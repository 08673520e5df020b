"""What a peer's core is made of (`LinkParts`): its key, its driver, how it opens a session and
its log file (`EntrySink`), where it marks what bench/bench_net.py measures (`Trace`), and
what it uses of its direct links (`PeerMesh`) and of a seat's own watch port (`WatchRelay`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, Protocol, TypedDict

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.driver import DirectLinks, Driver, SeatPresence
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net.links import Verdict

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session


class EntrySink(Protocol):
    """Where a peer's own copy of the log goes (an fsync'd file in practice:
    `zoo_p2p.storage.LogWriter`)."""

    @property
    def path(self) -> Path:
        """The log file (proofs are kept beside it)."""
        ...

    def append(self, entry: bytes) -> None:
        """Write one entry (the kernel has it on return)."""
        ...

    def sync(self, wait: bool = True) -> None:
        """Make what was written durable now (`wait=False`: soon)."""
        ...

    def close(self) -> None:
        """Make the rest durable and close the file."""
        ...


class Trace(Protocol):
    """Where a peer marks the moments bench/bench_net.py measures (`ZOO_NET_TRACE`)."""

    on: bool

    def mark(self, event: str, n: int) -> None: ...

    def close(self) -> None: ...


class NoTrace:
    """No trace (the default): nothing is marked."""

    on = False

    def mark(self, event: str, n: int) -> None:
        """Nothing."""

    def close(self) -> None:
        """Nothing."""


def raw_private(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw private bytes of an Ed25519 key."""
    return key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def raw_public(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw public bytes of an Ed25519 key."""
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class LinkParts(TypedDict):
    """What every peer is made with (host and joiner take these keywords, and their own)."""

    key: Ed25519PrivateKey
    driver: Driver
    make_session: Callable[[bytes], Session]  # a new session from the genesis entry
    open_log: Callable[[Session], EntrySink]  # the log file of a new game
    session: NotRequired[Session | None]  # resuming: the game read back from our log
    sink: NotRequired[EntrySink | None]  # ... and that log, open for appending
    now: NotRequired[float]  # when the peer starts (the transport's clock; 0.0 by default)


class PeerMesh(DirectLinks, Protocol):
    """What a core uses of its direct links (`zoo_p2p.net.gossip.MeshCore`: over ZeroMQ
    `zoo_p2p.net.mesh.Mesh`, in memory `zoo_p2p.net.memmesh.MemoryMesh`). Every call that
    needs the time is given the core's `now`."""

    fresh: bool
    verdict: Verdict | None

    def hears(self, seat: int, author: int, now: float | None = None) -> bool: ...
    def relay_needed(self, seat: int, entries: list[bytes], now: float | None = None) -> bool: ...
    def on_tunnel(self, seat: int | None, data: bytes, now: float | None = None) -> None: ...
    def heard(self, seat: int, start: int, entries: list[bytes]) -> None: ...
    def relinked(self, seat: int) -> None: ...
    def cards_for(self) -> list[bytes]: ...
    def publish(self, data: bytes) -> bool: ...
    def push_own(self, start: int, entries: list[bytes]) -> None: ...
    def publish_statement(self, kind: str, data: bytes) -> None: ...
    def on_cheat(self, offending: bytes) -> Verdict | None: ...
    def on_rejected(self, raw: bytes, exc: RemoteProtocolError) -> None: ...
    def cut(self, seat: int) -> None: ...


class WatchRelay(Protocol):
    """What a joiner's core hands its own watch port (TRANSPORT.md §12.6;
    `zoo_p2p.net.seatwatch.SeatWatchCore`): what its session accepted, and the seats' states."""

    def relay_entries(self, start: int, entries: list[bytes]) -> None: ...
    def relay_seats(self, states: list[SeatPresence]) -> None: ...
