"""The host's core, without I/O: the lobby, the links of the seats, and the host's tables of a
joiner's messages (TRANSPORT.md §4-§6, §9, §11).

`HostCore.receive(rid, parts, now, curve=, fd=)` takes one message as it came off a link (its
routing id, its frames, the CURVE key that authenticated it, libzmq's connection number) and
acts on it by the tables: `_on_msg` (any link: knock, hello), `_unlinked` (a link without a
hello) and `_linked` (a seated link); whatever a table does not name is dropped, and the reason
logged. What the host sends goes through `_send(rid, data)` (queued in `outbox` unless the
transport sends it); a connection the host wants shut goes through `_shut(fd)`. The hello
itself, the lobby and presence are its base, `zoo_p2p.net.core.lobby.Seating`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Unpack

from zoo_p2p.driver import Outcome
from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net import evidence, messages, wire
from zoo_p2p.net.cards import pack as mesh_pack
from zoo_p2p.net.core.conns import _Fd
from zoo_p2p.net.core.lobby import HostOptions, LobbySeat, Seating, _Conn
from zoo_p2p.net.core.peer import LinkParts
from zoo_p2p.net.links import Verdict
from zoo_p2p.net.messages import Message
from zoo_p2p.net.spectators import Spectators
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.text import shown

log = logging.getLogger("zoo_p2p.net")

PING_EVERY = 0.5  # seconds between application pings on an idle link
FAREWELL = wire.pack("farewell")
HINTS_REFUSED = (
    "this table allows hints (every seat may ask the expert) and --no-hints refuses them: "
    "left before taking a seat, nothing signed"
)
"""Why a `zoo join --no-hints` left (PROTOCOL.md §3.2)."""
HINTS_DECLINED = "declined: the table allows hints (--no-hints)"
"""The reason in the `leave` of a joiner that refused hints after the welcome, before its hello."""
HOST_DECLINED = "a joiner declined: the table allows hints (it refuses them); the seat stays open"
"""What the host says when a joiner leaves for that reason (TRANSPORT.md §5)."""


def leave_reason(outcome: Outcome | None) -> str:
    """What our closing `leave` says: the outcome's reason, as short as the wire allows."""
    reason = outcome.reason if outcome is not None else "closed"
    return shown(reason, wire.MAX_REASON - 1)


class HostCore(Seating):
    """The host: runs the lobby, writes genesis, relays and serves resyncs (no sockets)."""

    def __init__(
        self,
        *,
        make_genesis: Callable[[list[LobbySeat]], bytes],
        fingerprint: Callable[[bytes], str],
        options: HostOptions,
        server_pub: bytes,
        **parts: Unpack[LinkParts],
    ) -> None:
        super().__init__(fingerprint=fingerprint, options=options, server_pub=server_pub, **parts)
        self.spectators = Spectators(self, options.spectators, curve=options.curve)
        self.make_genesis = make_genesis
        self._early = -1
        self._head_cache: tuple[int, bytes] = (-1, b"")
        self._last_ping = 0.0
        self._done_since: float | None = None

    # ----- sending ----------------------------------------------------------------------
    def _relay_early(self, start: int, entries: list[bytes], by: int) -> None:
        """Relay the next entry before checking its signature, if its header fits the floor.

        Saves a signature check per hop on the critical path. Safe: every peer checks every
        entry itself, and an entry the session then refuses is only noise the peers drop too.
        """
        s = self.session
        if s is None or len(entries) != 1 or start != len(s) or s.floor is None:
            return
        if by in self.wasted:
            return  # what that seat's links sent once failed our check: never again unchecked
        try:
            e = decode_entry(entries[0])
        except RemoteProtocolError:
            return
        if (
            e.seq == start
            and e.seat == s.floor.seat
            and e.kind == s.floor.kind
            and e.prev == self._head()
        ):
            self.publish(start, entries, skip_seat=e.seat)  # its author has it already
            self._early = start

    def _head(self) -> bytes:
        s = self.session
        assert s is not None
        if self._head_cache[0] != len(s):
            self._head_cache = (len(s), hashlib.sha256(s.entries[-1]).digest())
        return self._head_cache[1]

    def publish(
        self, start: int, entries: list[bytes], own_from: int = -1, skip_seat: int | None = None
    ) -> None:
        """Relay new entries to every connected seat but `skip_seat` (minus one relayed early)."""
        if self._early == start:
            self._early = -1
            start, entries = start + 1, entries[1:]
        for first, batch in wire.batches(entries, start):
            data = wire.pack("entries", **{"from": first, "e": batch})
            for rid, conn in list(self.conns.items()):  # every live link of a seat
                if conn.seat is not None and conn.seat != skip_seat:
                    mesh = self.mesh
                    if mesh is not None and not mesh.relay_needed(conn.seat, batch, self.now):
                        continue  # that seat hears every author directly
                    self._send(rid, data)
            self.spectators.relay(data)  # after every seat (TRANSPORT.md §12.2)

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Pass a mesh message to one seat or to every seat over the host link."""
        msg = wire.pack("mesh", m=data)
        for rid, conn in list(self.conns.items()):
            if conn.seat is not None and conn.seat != 0 and (to is None or conn.seat == to):
                self._send(rid, msg)
        if to is None:
            self.spectators.relay(msg)

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Claim votes and resignations go to every seat but the one they came from."""
        for rid, conn in list(self.conns.items()):
            if conn.seat is not None and conn.seat != skip_seat:
                self._send(rid, data)

    # ----- spectators (zoo_p2p.net.spectators, TRANSPORT.md §12) --------------------------
    def send_to(self, rid: bytes, data: bytes) -> bool:
        """One message to one link (a spectator's)."""
        return self._send(rid, data)

    def send_log(self, rid: bytes, start: int) -> None:
        """Our log from `start` to one link."""
        self._send_entries(rid, start)

    def notice_once(self, what: str, text: str) -> None:
        """A notice at most every 10 s for one kind of event."""
        self._once(what, text)

    def greeting(self) -> list[bytes]:
        """What a new spectator gets after the log: the lobby, or every card and the seats."""
        if self.session is None:
            return [self._lobby_msg()]
        out = [wire.pack("mesh", m=c) for c in self.mesh.cards_for()] if self.mesh else []
        if self.seats_state:
            states = self.seats_state
            out.append(
                wire.pack(
                    "seats", state=[x.state for x in states], lost=[x.lost_for for x in states]
                )
            )
        return out

    def proven(self, proof: bytes, seat: int, reason: str) -> None:
        """A spectator's proof that we checked: keep it, pass it to every seat, stop."""
        if self.stopped is not None:
            return
        saved = evidence.keep_beside(self.mesh_log_path(), proof, self.mesh_notice)
        verdict = Verdict(seat, reason, saved)
        try:
            data = mesh_pack("proof", p=proof)
        except wire.WireError:
            data = b""
        if data and self.mesh is not None and self.mesh.verdict is None:
            self.mesh.verdict = verdict
            self.mesh.publish(data)
        if data:
            self.mesh_tunnel(data, None)
        self.mesh_stop(verdict)

    # ----- receiving --------------------------------------------------------------------
    def receive(
        self, rid: bytes, parts: list[bytes], now: float, *, curve: bytes | None = b"", fd: int = -1
    ) -> None:
        """One message from the link `rid`: its frames (one, or it is dropped), the CURVE key
        that authenticated it (None: the transport could not read one) and libzmq's connection
        `fd` (-1: unknown). A bug must not let one peer's message stop the game."""
        self.now = now
        try:
            self._receive(rid, parts, now, curve, fd)
        except Exception:
            self.dropped += 1
            log.exception("dropped a message that made us fail")

    def _receive(
        self, rid: bytes, parts: list[bytes], now: float, curve: bytes | None, fd: int
    ) -> None:
        info, one = self._frames_in(rid, parts, fd)
        if not one:
            return
        bound = self.conns.get(rid)  # (libzmq gives one routing id to one connection only)
        if bound is not None and not bound.msgs.take(now):
            self.dropped += 1  # beyond its seat's rate: dropped unread (TRANSPORT.md §11)
            self._once("rate", "dropped messages beyond the rate limit of a seat", every=5.0)
            return
        if bound is not None and bound.seat is not None and self.dry(bound.seat):
            self.dropped += 1  # it has no signature check left: dropped unread
            return
        if not self.spectators.allowed(rid, now):
            self.dropped += 1  # a spectator beyond its rate: dropped, and so is it (§12.5)
            return
        try:
            msg = messages.decode(parts[0])
        except wire.WireError as exc:
            self.dropped += 1
            self._once("garbage", f"dropped a frame from a peer: {shown(exc.reason)}", every=2.0)
            return
        if not self.options.curve:
            curve = b""
        elif curve is None:  # no ZAP metadata: cannot bind the hello
            self.dropped += 1
            log.warning("dropped a frame without a CURVE identity")
            return
        self._on_msg(rid, curve, msg, now, fd, info)

    def _said_multipart(self, parts: int) -> None:
        self._once("parts", f"dropped a {parts}-part message", every=5.0)

    def _on_msg(
        self, rid: bytes, curve: bytes, msg: Message, now: float, fd: int, info: _Fd | None
    ) -> None:
        """A joiner's message, by the host's tables: any link (knock, hello), a link that has
        not said hello (`_unlinked`) and a link that has (`_linked`)."""
        match msg:
            case messages.Knock():
                if self._knocked(info, fd):
                    self._welcome(rid, curve, None)
                return
            case messages.Hello():
                self.on_hello(rid, curve, msg, now, fd)
                return
            case messages.Links():
                self.on_link_hint(rid, curve, msg)
                return
        if self.spectators.on_msg(rid, curve, msg, now, fd):
            return  # a `watch`, or a spectator's link (TRANSPORT.md §12)
        conn = self.conns.get(rid)
        if conn is not None and not self._same_link(conn, curve, fd):
            # the same routing id on another connection or key: never the seated link
            self.dropped += 1
            self._once("stolen", "dropped a message whose routing id belongs to another link")
            return
        if conn is None:
            self._unlinked(rid, curve, msg)
            return
        conn.last_seen = now
        self._last_heard = now
        if conn.seat is not None:
            self._seat_seen[conn.seat] = now
        self._linked(rid, conn, msg, now)

    def _unlinked(self, rid: bytes, curve: bytes, msg: Message) -> None:
        """A link without a hello: only its leave counts (§6); a ping, entries or sync is
        answered with `who` (a peer we lost track of); anything else is dropped."""
        if isinstance(msg, messages.Leave) and self._late_leave(curve, msg.reason):
            self._send(rid, FAREWELL)
            return
        self.dropped += 1
        if isinstance(msg, messages.Leave):
            self._send(rid, FAREWELL)  # heard: it need not wait for us (§6)
            if msg.reason == HINTS_DECLINED:
                self._once("declined", HOST_DECLINED, every=2.0)
            else:
                why = f"a joiner gave up before its hello: {shown(msg.reason)}"
                self._once("leave", why, every=2.0)
            return
        log.debug("dropped %s from %s: no hello on this link", msg.T, rid.hex()[:8])
        if isinstance(msg, messages.Ping | messages.Entries | messages.Sync):
            self._send(rid, wire.pack("who"))  # a peer we lost track of: ask who it is

    def _linked(self, rid: bytes, conn: _Conn, msg: Message, now: float) -> None:
        """A link that said hello: the host's table of a joiner's messages (TRANSPORT.md §4)."""
        seat = conn.seat
        match msg:
            case messages.Entries():
                self._on_joiner_entries(rid, seat, msg)
            case messages.Sync():
                if self.session is not None and self._sync_allowed(conn, now):
                    self._send_entries(rid, msg.start)
            case messages.Tunnel() if self.mesh is not None and seat is not None:
                self.mesh.on_tunnel(seat, msg.m, now)
            case messages.Claim() if seat is not None:
                self._on_vote(seat, msg.vote)
            case messages.Resign() if seat is not None:
                self._on_resign(seat, msg.r, msg.key)
            case messages.Done():
                conn.done = True
            case messages.Bye():
                self._on_leave(rid, conn, "bye", "")
            case messages.Leave():
                self._on_leave(rid, conn, "leave", msg.reason)
            case messages.Ping() | messages.Tunnel() | messages.Claim() | messages.Resign():
                pass  # liveness only; or a seat's message from a link without a seat
            case _:  # welcome, lobby, presence, who, … are not for the host
                self.dropped += 1
                self._once("odd", f"dropped a {msg.T} message sent to the host", every=5.0)

    def _on_joiner_entries(self, rid: bytes, seat: int | None, msg: messages.Entries) -> None:
        if seat is None or self.session is None:
            self.dropped += 1
            log.warning("dropped entries from a peer without a seat")
            return
        entries = list(msg.e)
        self._relay_early(msg.start, entries, seat)
        gap = self.deliver(msg.start, entries, self._name(seat), seat)
        self._early = -1
        if gap is not None:
            self._send(rid, wire.pack("sync", **{"from": gap}))

    def _cut_link(self, seat: int) -> None:
        """Drop every link of `seat` (it may say hello again; its budget stays as it is)."""
        super()._cut_link(seat)
        for rid, conn in list(self.conns.items()):
            if conn.seat == seat:
                if conn.fd >= 0:
                    self._kick(conn.fd, "too many signatures to check that added nothing")
                self._drop(rid)

    def _cut_words(self, seat: int) -> str:
        return "dropped its links (it may reconnect; its budget does not refill sooner)"

    def _late_leave(self, curve: bytes, reason: str) -> bool:
        """A leave on a link we had already forgotten (a joiner that was away long enough for
        us to drop it, interrupted just as it came back): its CURVE key, which only that joiner
        holds, still names its seat. True if it did (the seat has left)."""
        seat = next((i for i, st in enumerate(self.lobby) if curve and st.curve == curve), None)
        if seat is None or self.session is None:
            return False
        self._seat_left(seat, reason)
        return True

    def _on_leave(self, rid: bytes, conn: _Conn, kind: str, reason: str) -> None:
        """An authenticated bye: the link goes; during the game its seat is shown as left.
        A `leave` is answered with `farewell`, so the joiner knows it was heard (§6)."""
        if kind == "leave":
            self._send(rid, FAREWELL)
        self._drop(rid)
        if conn.seat is not None:
            self._seat_left(conn.seat, reason)

    def _seat_has_left(self, seat: int) -> bool:
        return seat in self._left

    def _seat_left(self, seat: int, reason: str) -> None:
        if self.session is None or self.session.finished:
            return
        if any(c.seat == seat for c in self.conns.values()):
            return  # another live link of that seat is still here
        if seat not in self._left:
            self._left.add(seat)
            why = f": {shown(reason)}" if reason else ""
            self.driver.on_notice(f"{self._who(seat)} left{why}")
            self.presence(self.now, force=True)

    def _start_game(self) -> None:
        if self.options.lobby is not None:
            self.options.lobby.game_started()
        self._trace("genesis", 0)
        genesis = self.make_genesis(self.lobby)
        if not self._start_session(genesis):
            raise NetError("could not open our own genesis")
        self.publish(0, [genesis])
        self._advance(1)

    def start_if_ready(self) -> None:
        """Start now if the lobby is already full (a one-seat test game) or we resumed a log."""
        if self.session is None and len(self.lobby) == self.options.players:
            self._start_game()
        elif self.session is None:  # the lobby as it stands: our own seat (the app shows it)
            self._show_lobby()
        elif self.session is not None:
            self._advance(len(self.session.entries))

    # ----- periodic ---------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Ping everyone, update presence, finish when every seat has the whole log."""
        if self.session is None:
            self.prune_lobby(now)
        self._watch_fds(now)
        if now - self._last_ping >= PING_EVERY:
            self._last_ping = now
            ping = wire.pack("ping")
            for rid in list(self.conns):
                self._send(rid, ping)
            self.spectators.relay(ping)
        self.spectators.tick(now)
        self.presence(now)
        s = self.session
        if s is not None and s.finished:
            if self._done_since is None:
                self._done_since = now
            done = {c.seat for c in self.conns.values() if c.done}
            if (
                all(i in done for i in range(1, len(self.lobby))) and self.spectators.all_done()
            ) or now - self._done_since > self.options.linger_done:
                bye = wire.pack("bye")
                for rid in list(self.conns):
                    self._send(rid, bye)
                self.spectators.relay(bye)
                self.stopped = Outcome(True, "game over", len(s.entries))
        elif (
            self.options.give_up is not None
            and now - self._last_heard > self.options.give_up
            and len(self.lobby) > 1
        ):
            self.stopped = Outcome(False, "every other peer is gone", self._have())

    def goodbye(self) -> None:
        """Closing before the end: say `leave` to every link (why we stop)."""
        if not (self.stopped and self.stopped.finished):
            bye = wire.pack("leave", reason=leave_reason(self.stopped))  # leaving early
            for rid in list(self.conns):
                self._send(rid, bye)
            self.spectators.relay(bye)
