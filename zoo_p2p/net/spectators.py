"""The host's side of spectators (protocol/TRANSPORT.md §12): who is admitted, what each is
sent, what it may send, and its bounds.

`Spectators` is held by the host and called from three places of its loop: a frame on a
spectator's routing id (or a `watch`) goes to `on_msg`, everything the host relays or broadcasts
goes through `relay` after the seats have been served, and `tick` forgets the silent ones. What
it needs of the host is the small `SpectatorHost` protocol, so the admission rules are tested
without sockets (tests/net/test_spectators.py).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from zoo_p2p import defaults
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net import evidence, messages, wire
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.messages import MAX_SPECTATORS, MeshHead, MeshProof, Message, WireError

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

__all__ = [
    "DEFAULT_SPECTATORS",
    "MAX_SPECTATORS",
    "SPECTATOR_MSGS_BURST",
    "SPECTATOR_MSGS_PER_S",
    "SpectatorHost",
    "Spectators",
]

log = logging.getLogger("zoo_p2p.net.spectators")

DEFAULT_SPECTATORS = defaults.SPECTATORS  # `zoo host --spectators` when not given
SPECTATOR_MSGS_PER_S = 50.0  # messages a spectator may send a second (an honest one: about 4)
SPECTATOR_MSGS_BURST = 100.0
SYNC_RATE, SYNC_BURST = 2.0, 6  # resyncs, as a seat's link (TRANSPORT.md §11)
PROOFS_PER_S = 1.0  # proofs checked per spectator and second (burst 2)
SILENT = 10.0  # a spectator not heard from this long is forgotten (its place freed)

NO_SPECTATORS = "this table admits no spectators"
OTHER_GAME = "you watch another game"


def _full(n: int) -> str:
    return f"{n} spectators watch already, at most {n}"


class SpectatorHost(Protocol):
    """What `Spectators` needs from the host (or seat, zoo_p2p.net.seatwatch) that holds it."""

    @property
    def session(self) -> Session | None: ...

    def send_to(self, rid: bytes, data: bytes) -> bool: ...
    def send_log(self, rid: bytes, start: int) -> None: ...
    def shut(self, fd: int, why: str) -> None: ...
    def bind_fd(self, fd: int) -> None: ...
    def notice_once(self, what: str, text: str) -> None: ...
    def greeting(self) -> Sequence[bytes]: ...
    def proven(self, proof: bytes, seat: int, reason: str) -> None: ...


@dataclass
class _Watcher:
    """One admitted spectator's link: bound to its CURVE key and connection, as a seat's."""

    rid: bytes
    curve: bytes
    fd: int
    last_seen: float
    msgs: Bucket
    sync: Bucket
    proofs: Bucket
    told: set[int] = field(default_factory=set)  # seqs where its head differed from ours
    done: bool = False  # it said it holds the whole log (the host waits for it, bounded)


class Spectators:
    """The spectators of one host: at most `most` (0: none admitted)."""

    def __init__(self, host: SpectatorHost, most: int, *, curve: bool = True) -> None:
        if not 0 <= most <= MAX_SPECTATORS:
            raise ValueError(f"spectators: 0..{MAX_SPECTATORS}")
        self.host = host
        self.most = most
        self.curve = curve
        self.watchers: dict[bytes, _Watcher] = {}
        self.dropped = 0  # frames from spectators dropped (tests read it)
        self.kicked = 0  # spectators shut for their rate or their garbage
        self.admitted = 0  # admissions in all

    def __len__(self) -> int:
        return len(self.watchers)

    def owns(self, rid: bytes) -> bool:
        """True if `rid` is an admitted spectator's link."""
        return rid in self.watchers

    # ----- receiving -----------------------------------------------------------------------
    def allowed(self, rid: bytes, now: float) -> bool:
        """Before a spectator's frame is even decoded: within its message rate? Beyond it the
        spectator is dropped (its connection shut, its place freed)."""
        w = self.watchers.get(rid)
        if w is None or w.msgs.take(now):
            return True
        self._kick(w, f"more than {SPECTATOR_MSGS_PER_S:g} messages a second")
        return False

    def on_msg(self, rid: bytes, curve: bytes, msg: Message, now: float, fd: int) -> bool:
        """A frame on a spectator's link, or a `watch`: handled here (True), else the host's."""
        w = self.watchers.get(rid)
        if w is None:
            if not isinstance(msg, messages.Watch):
                return False
            self._on_watch(rid, curve, msg, now, fd)
            return True
        if w.curve != curve or (not self.curve and fd >= 0 and w.fd not in (fd, -1)):
            self.dropped += 1  # its routing id on another key (or connection): never its link
            return True
        if fd >= 0 and w.fd != fd:  # its own DEALER reconnected (only it holds the key)
            w.fd = fd
            self.host.bind_fd(fd)
        w.last_seen = now
        self._table(w, msg, now)
        return True

    def _table(self, w: _Watcher, msg: Message, now: float) -> None:
        """What a spectator may send (TRANSPORT.md §12.3); anything else is dropped."""
        s = self.host.session
        match msg:
            case messages.Watch():  # again on its link: answered like a resync
                if w.sync.take(now):
                    self._greet(w, msg.have)
                else:
                    self.dropped += 1
            case messages.Sync():
                if s is not None and w.sync.take(now):
                    self.host.send_log(w.rid, msg.start)
                else:
                    self.dropped += 1
            case messages.Tunnel():
                self._on_mesh(w, msg.m, now)
            case messages.Leave():
                self.host.send_to(w.rid, wire.pack("farewell"))
                self.watchers.pop(w.rid, None)
            case messages.Bye():
                self.watchers.pop(w.rid, None)
            case messages.Done():
                w.done = True  # the host closes the game once everyone has it (or 3 s after)
            case messages.Ping() | messages.Knock():
                pass  # liveness; a knock after a reconnect
            case _:  # entries, hello, claim, resign, …: a spectator adds nothing to the game
                self.dropped += 1
                self.host.notice_once(
                    "spectator-odd",
                    f"dropped a {msg.T} message from a spectator: it may not send it",
                )

    def _on_watch(self, rid: bytes, curve: bytes, msg: messages.Watch, now: float, fd: int) -> None:
        s = self.host.session
        if self.most == 0:
            self.host.send_to(rid, wire.pack("reject", reason=NO_SPECTATORS))
            return
        if msg.game is not None and (s is None or msg.game != s.game_id):
            self.host.send_to(rid, wire.pack("reject", reason=OTHER_GAME))
            return
        if len(self.watchers) >= self.most:
            self.host.send_to(rid, wire.pack("reject", reason=_full(self.most)))
            return
        w = _Watcher(
            rid,
            curve,
            fd,
            now,
            Bucket(SPECTATOR_MSGS_PER_S, SPECTATOR_MSGS_BURST, now),
            Bucket(SYNC_RATE, SYNC_BURST, now),
            Bucket(PROOFS_PER_S, 2, now),
        )
        self.watchers[rid] = w
        self.admitted += 1
        if fd >= 0:
            self.host.bind_fd(fd)
        log.info("a spectator watches (%d of at most %d)", len(self.watchers), self.most)
        self._greet(w, msg.have)

    def _greet(self, w: _Watcher, have: int) -> None:
        """`watching`, the log from `have`, the cards and the seats (or the lobby)."""
        n = len(self.watchers)
        self.host.send_to(w.rid, messages.encode(messages.Watching(n=n, most=self.most)))
        s = self.host.session
        if s is not None:
            self.host.send_log(w.rid, min(have, len(s)))
        for data in self.host.greeting():
            self.host.send_to(w.rid, data)

    def _on_mesh(self, w: _Watcher, data: bytes, now: float) -> None:
        """Its head (a witness's gossip) or a proof; nothing else."""
        try:
            msg = messages.decode_mesh(data)
        except WireError:
            self.dropped += 1
            return
        s = self.host.session
        match msg:
            case MeshHead() if s is not None:
                seq, digest = msg.h
                held = seq < len(s) and seq not in w.told
                if held and hashlib.sha256(s.entries[seq]).digest() != digest:
                    w.told.add(seq)
                    log.warning("a spectator holds another entry %d than ours", seq)
            case MeshProof() if s is not None:
                self._on_proof(w, msg.p, now)
            case _:
                self.dropped += 1

    def _on_proof(self, w: _Watcher, proof: bytes, now: float) -> None:
        s = self.host.session
        if s is None or not w.proofs.take(now):
            self.dropped += 1
            return
        try:
            conviction = evidence.check(proof, s.entries[0])
        except RemoteProtocolError as exc:
            self._kick(w, f"a proof that proves nothing ({exc.reason})")
            return
        self.host.proven(proof, conviction.seat, conviction.reason)

    def all_done(self) -> bool:
        """Every spectator said it holds the whole log (the host then closes without waiting
        out its linger: a spectator that never says so costs at most that linger)."""
        return all(w.done for w in self.watchers.values())

    # ----- sending -------------------------------------------------------------------------
    def relay(self, data: bytes) -> None:
        """Send `data` to every spectator (after the seats: they never wait for us)."""
        for rid in list(self.watchers):
            if not self.host.send_to(rid, data):
                self.watchers.pop(rid, None)

    # ----- periodic ------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Forget the spectators not heard from for SILENT seconds."""
        for w in list(self.watchers.values()):
            if now - w.last_seen > SILENT:
                self.watchers.pop(w.rid, None)
                if w.fd >= 0:
                    self.host.shut(w.fd, "a spectator silent for too long")

    def _kick(self, w: _Watcher, why: str) -> None:
        self.watchers.pop(w.rid, None)
        self.kicked += 1
        self.dropped += 1
        if w.fd >= 0:
            self.host.shut(w.fd, f"a spectator: {why}")
        self.host.notice_once("spectator-kick", f"dropped a spectator: {why}")
