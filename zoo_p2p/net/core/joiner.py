"""The joiner's core, without I/O: the joiner's two tables of the host's messages (before a
welcome proved the host, and once it did; TRANSPORT.md §4-§6), its hello, and its side of the
game: entries from the host, resyncs, presence, the end.

`JoinerCore.receive(parts, now)` takes one message from the host link as it came (its frames);
the transport says when the link's handshake succeeded (`linked`), failed
(`handshake_failed`) or the link went down (`unlinked`). What the joiner sends goes through
`_send(data)` (queued in `outbox` unless the transport sends it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Unpack

from zoo_p2p.driver import Outcome, SeatPresence
from zoo_p2p.net import messages, wire
from zoo_p2p.net.bucket import Bucket
from zoo_p2p.net.core.host import HINTS_DECLINED, HINTS_REFUSED, leave_reason
from zoo_p2p.net.core.lobby import LIVE_TIMEOUT, OTHER_GAME, verify
from zoo_p2p.net.core.parts import WatchRelay
from zoo_p2p.net.core.peer import LinkParts, PeerCore
from zoo_p2p.net.invite import Invite, format_address
from zoo_p2p.net.links import MSGS_PER_S
from zoo_p2p.net.messages import Message
from zoo_p2p.protocol.crypto import check_public_key
from zoo_p2p.text import HINTS_ALLOWED, shown

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

log = logging.getLogger("zoo_p2p.net")

PING_EVERY = 0.5  # seconds between application pings on an idle link
FIRST_STATUS = 2.0  # seconds before a joiner first says it has no answer yet
HOST_MSGS_PER_S = MSGS_PER_S  # messages a joiner reads from its host per second (as a direct link)


def _key_ok(pub: bytes) -> bool:
    try:
        check_public_key(pub)
    except ValueError:
        return False
    return True


@dataclass
class JoinOptions:
    """What a joiner was asked for."""

    name: str = "player"
    team: int | None = None
    give_up: float | None = None  # stop when the host has been silent this long (None: never)
    curve: bool = True
    connect_give_up: float = 60.0  # stop when no host answered at all this long (give_up wins)
    status_every: float = 5.0  # seconds between "no answer yet" notices
    refuse_hints: bool = False  # `--no-hints`: leave a table whose genesis allows hints (§3.2)
    shown_as: str | None = None  # the host's name in messages (the onion, over Tor's forwarder)
    route_phase: Callable[[], str] | None = None  # over Tor: where the circuit stands, in words
    # over Tor: how many connections the forwarder has taken to the onion so far (a failed
    # handshake counts only if one did since the last: TRANSPORT.md §3.5)
    route_reached: Callable[[], int] | None = None


class JoinerCore(PeerCore):
    """A joiner: says hello, plays, keeps its own log (no sockets; the transport reconnects)."""

    def __init__(
        self,
        invite: Invite,
        *,
        fingerprint: Callable[[bytes], str],
        options: JoinOptions,
        curve_pub: bytes,
        **parts: Unpack[LinkParts],
    ) -> None:
        super().__init__(**parts)
        self.invite = invite
        self.options = options
        self.fingerprint = fingerprint
        self.host_pub: bytes | None = None
        self.seat_no: int | None = None
        self.lobby_seats: list[tuple[str, str, int]] = []
        self._hints_told = False  # we said "hints are allowed at this table" (lobby or genesis)
        self.other_game = False  # the host turned us away: our log is of another game
        self._leave_reason = ""  # what our leave says, when not the outcome's reason
        self.curve_pub = curve_pub  # our CURVE key on the host link (the hello names it)
        self.outbox: list[bytes] = []  # messages to the host not sent yet
        self._last_tx = 0.0
        self._finished_at: float | None = None
        self.host_up = False
        self._warned_handshake = False
        self._handshakes = 0  # secure handshakes that succeeded
        self._failed_handshakes = 0
        self._reached_seen = 0  # over Tor: the forwarder's count at the last failed handshake
        self._client_curve = self.curve_pub if options.curve else bytes(32)
        self._host_seats: list[SeatPresence] = []
        self._host_gone = False  # the host said leave, bye or reject: nobody to tell we go
        self._linked = False  # a connection to the host is up (its handshake done)
        self.leave_heard: bool | None = None  # our closing leave: None not sent, else acked?
        self._host_rate = Bucket(HOST_MSGS_PER_S, HOST_MSGS_PER_S, self.now)  # read from the host
        # our own spectators (`--spectators N`, TRANSPORT.md §12.6; the transport opens it)
        self.watchport: WatchRelay | None = None
        self.began(self.now)

    def began(self, now: float) -> None:
        """We started trying to reach the host at `now` (the clocks of "no answer yet")."""
        self._began = now
        self._last_rx = now
        self._status_at = now + FIRST_STATUS - self.options.status_every  # first after 2 s

    def _send(self, data: bytes) -> None:
        """Send `data` to the host (here: queued in `outbox`)."""
        self.outbox.append(data)
        self._last_tx = self.now

    def take_outbox(self) -> list[bytes]:
        """What the joiner sent since the last call, in order."""
        out, self.outbox = self.outbox, []
        return out

    def closing_leave(self) -> bytes | None:
        """The `leave` we say when we stop before the end (None: nobody to tell, or finished;
        or our log holds how the game ended, a claim or our resignation of a two-seat game:
        then the host, done, says `bye` and goes, and a leave would wait for no answer)."""
        if self.host_pub is None or self._host_gone or (self.stopped and self.stopped.finished):
            return None
        if self.session is not None and self.session.ending is not None:
            return None
        return wire.pack("leave", reason=self._leave_reason or leave_reason(self.stopped))

    # ----- the host link -----------------------------------------------------------------
    def linked(self, *, secure: bool = True) -> None:
        """A connection to the host is up (its secure handshake succeeded, or it has none)."""
        self._linked = True
        if secure:
            self._handshakes += 1
            self._failed_handshakes = 0
        self._greet()

    def handshake_failed(self) -> None:
        """The secure handshake with the host failed (3 times before any success: we stop).

        Over Tor's forwarder it counts only if a connection reached the onion since the last
        failure: one that libzmq's handshake timer closed while Tor was still building the
        circuit never carried a byte to the host, so it says nothing about the key (the status
        line says where the circuit stands)."""
        if self.options.route_reached is not None:
            reached = self.options.route_reached()
            if reached == self._reached_seen:
                return
            self._reached_seen = reached
        self._failed_handshakes += 1
        if not self._warned_handshake:
            self._warned_handshake = True
            self.driver.on_notice("secure handshake with the host failed (is the invite right?)")
        if self._handshakes == 0 and self._failed_handshakes >= 3:
            self.stopped = Outcome(
                False,
                f"the host at {self._where()} refused the secure handshake 3 times: "
                "the key in the invite is not this host's (check the invite)",
                self._have(),
            )

    def unlinked(self) -> None:
        """The host link went down (what came before it has been received)."""
        told = self._host_gone or self.stopped is not None
        if not told and (self.host_up or self.host_pub is not None):
            self.driver.on_notice("lost the host; reconnecting…")
        self.host_up = self._linked = False

    def receive(self, parts: list[bytes], now: float) -> None:
        """One message from the host link, as it came (its frames: one, or it is dropped)."""
        self.now = now
        if len(parts) != 1:
            self.dropped += 1
            return
        if not self._host_rate.take(now):
            self.dropped += 1  # beyond the rate limit: dropped unread (TRANSPORT.md §11)
            self._warn("rate", "dropped messages from the host beyond the rate limit")
            return
        if self.dry(0):
            self.dropped += 1  # the host has no signature check left: dropped unread
            return
        try:
            msg = messages.decode(parts[0])
        except wire.WireError as exc:
            self.dropped += 1
            log.warning("dropped a frame from the host: %s", shown(exc.reason))
            return
        self._last_rx = now
        try:
            self._on_msg(msg)
        except Exception:  # a bug must not let the host's message stop our game
            self.dropped += 1
            log.exception("dropped a message that made us fail")

    def _greet(self) -> None:
        """After each handshake: knock until the host's welcome proved it is the invite's
        host, and only then say hello (a joiner that rejects the host never takes a seat)."""
        if self.host_pub is None:
            self._send(wire.pack("knock", v=wire.WIRE_VERSION))
        else:
            self._hello()

    def _hello(self) -> None:
        s = self.session
        hello = wire.Hello(
            name=self.options.name,
            team=self.options.team,
            pub=self.pub,
            curve=self.curve_pub,
            game=s.game_id if s is not None else None,
            have=self._have(),
        )
        sig = self.key.sign(wire.hello_signed_bytes(self.invite.server_key, hello))
        self._send(
            wire.pack(
                "hello",
                v=wire.WIRE_VERSION,
                name=hello.name,
                team=hello.team,
                pub=hello.pub,
                curve=hello.curve,
                game=hello.game,
                have=hello.have,
                sig=sig,
            )
        )

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Send a mesh message to the host."""
        if self.host_pub is not None and to in (None, 0):
            self._send(wire.pack("mesh", m=data))

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Our claim votes and resignation go to the host, which relays them."""
        if skip_seat is None:
            self._send(data)

    def publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        """Send the entries we wrote ourselves to the host (unless it hears us directly); then
        every new entry to our own spectators, if we admit any (§12.6)."""
        self._publish(start, entries, own_from)
        if self.watchport is not None:
            self.watchport.relay_entries(start, entries)

    def _set_seats(self, states: list[SeatPresence]) -> None:
        changed = states != self.seats_state
        super()._set_seats(states)
        if changed and self.watchport is not None:
            self.watchport.relay_seats(states)

    def _publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        s = self.session
        if (
            self.mesh is not None
            and s is not None
            and s.seat is not None
            and self.mesh.hears(0, s.seat, self.now)
        ):
            return  # the host hears us directly: it has our entries already
        mine = entries[max(0, own_from - start) :]
        for f, batch in wire.batches(mine, max(start, own_from)):
            self._send(wire.pack("entries", **{"from": f, "e": batch}))

    def _where(self) -> str:
        if self.options.shown_as is not None:
            return shown(self.options.shown_as, 90)
        return shown(format_address((self.invite.host, self.invite.port)), 90)

    def _on_msg(self, msg: Message) -> None:
        """The host's message, by the joiner's two tables: before a welcome proved the host
        (only `welcome`, `who` and `reject` count) and once it did."""
        if self.host_pub is None:
            self._before_welcome(msg)
        else:
            self._from_host(msg)

    def _before_welcome(self, msg: Message) -> None:
        match msg:
            case messages.Welcome():
                self._on_welcome(msg)
            case messages.Who():
                self._greet()
            case messages.Reject():
                self.stopped = Outcome(False, f"the host said: {shown(msg.reason)}", self._have())
            case messages.Ping():
                pass  # liveness: heard
            case _:  # nothing counts before a welcome that proves the host
                self._warn("unproved", f"ignored '{msg.T}' before the host's welcome")

    def _from_host(self, msg: Message) -> None:
        match msg:
            case messages.Welcome():
                self._on_welcome(msg)
            case messages.Who():
                self._greet()
            case messages.Lobby():
                self._on_lobby(msg)
            case messages.Links():
                if self.session is None:  # a hint is for the lobby only (§10.10)
                    self._on_link_hints([(ep, key) for ep, key in msg.l])
            case messages.Entries():
                self._on_entries(msg.start, list(msg.e))
            case messages.Sync():
                self._on_sync(msg.start)
            case messages.Presence():  # the older form: connected or not
                self._on_presence(msg)
            case messages.Seats():
                self._on_seats(msg)
            case messages.Tunnel():
                if self.mesh is not None:
                    self.mesh.on_tunnel(0, msg.m, self.now)
            case messages.Claim():
                self._on_vote(None, msg.vote)
            case messages.Resign():
                self._on_resign(None, msg.r, b"")
            case messages.Reject() | messages.Leave() | messages.Bye():
                self._host_ends(msg)
            case messages.Ping() | messages.Farewell():
                pass  # liveness (heard already); a farewell after we stopped waiting for it
            case _:  # knock, hello, done: a joiner's messages (TRANSPORT.md §4, direction)
                self.dropped += 1
                self._warn("direction", f"dropped '{msg.T}' from the host: a joiner's message")

    def _on_welcome(self, msg: messages.Welcome) -> None:
        hints = msg.hints is True
        data = wire.welcome_signed_bytes(self.invite.server_key, self._client_curve, msg.pub, hints)
        if not _key_ok(msg.pub) or not verify(msg.pub, msg.sig, data):
            self.dropped += 1
            log.warning("dropped a welcome with a bad signature")
            return
        if self.host_pub is not None and msg.pub != self.host_pub:
            self.dropped += 1
            log.warning("dropped a welcome from another identity than the host's")
            return
        got = self.fingerprint(msg.pub)
        if got != self.invite.fingerprint:
            reason = (
                f"the host at {self._where()} is not the one in the invite: its fingerprint "
                f"is {shown(got, 40)}, the invite says {shown(self.invite.fingerprint, 40)}"
            )
            self._send(wire.pack("leave", reason="my invite names another host"))
            self.stopped = Outcome(False, reason, self._have())
            return
        first = self.host_pub is None
        self.host_pub = msg.pub
        self.host_up = True
        if msg.seat is not None:
            self.seat_no = msg.seat
        if first and self._declines_before_hello(hints):
            return
        if first:
            self._send_link_hint()
            self._hello()

    def _send_link_hint(self) -> None:
        """In the lobby, before our hello: where our publisher will be (TRANSPORT.md §10.10),
        so the other joiners connect to it before the genesis. A hint, never an authority:
        our card, signed at the genesis, is what makes anyone read that link."""
        if self.session is not None:
            return  # resuming: the game has its cards already
        hint = self._lobby_hint()
        if hint is not None:
            self._send(wire.pack("links", l=[list(hint)]))

    def _lobby_hint(self) -> tuple[str, bytes] | None:
        """Our publisher's (endpoint, key), bound now; None: no early links (the transport's)."""
        return None

    def _on_link_hints(self, pairs: list[tuple[str, bytes]]) -> None:
        """The host says where the other joiners' publishers are (the transport connects)."""

    def _on_lobby(self, msg: messages.Lobby) -> None:
        if self.session is not None:  # the lobby is over once the game has started
            self.dropped += 1
            return
        self.lobby_seats = [(n, f, t) for n, f, t in msg.seats]
        self.driver.on_lobby(self.lobby_seats, msg.need)
        if msg.hints is True:  # the genesis will allow hints: leave now if we refuse
            self._refuses_hints()

    def _on_sync(self, start: int) -> None:
        if self.session is not None:
            for f, batch in wire.batches(list(self.session.entries[start:]), start):
                self._send(wire.pack("entries", **{"from": f, "e": batch}))

    def _on_presence(self, msg: messages.Presence) -> None:
        if self.session is not None and len(msg.up) == len(self.session.seats):
            self._set_seats([SeatPresence("connected" if u else "lost") for u in msg.up])
        else:
            self.dropped += 1
            log.warning("dropped a presence message that does not fit the seats")

    def _on_seats(self, msg: messages.Seats) -> None:
        if self.session is not None and len(msg.state) == len(self.session.seats):
            self._host_seats = [
                SeatPresence(st, lost) for st, lost in zip(msg.state, msg.lost, strict=True)
            ]
            self._set_seats(self._host_seats)
        else:
            self.dropped += 1
            log.warning("dropped a seats message that does not fit the seats")

    def _host_ends(self, msg: messages.Reject | messages.Leave | messages.Bye) -> None:
        self._host_gone = True
        done = self.session is not None and self.session.finished
        if isinstance(msg, messages.Reject):
            self.other_game = self.session is not None and msg.reason == OTHER_GAME
            why = f"the host said: {shown(msg.reason)}"
            self.stopped = Outcome(False, why, self._have())
        elif isinstance(msg, messages.Leave):
            why = "game over" if done else f"the host left (it said: {shown(msg.reason)})"
            self.stopped = Outcome(done, why, self._have())
        else:
            self.stopped = Outcome(
                done, "game over" if done else "the host closed the game", self._have()
            )

    def _on_entries(self, start: int, entries: list[bytes]) -> None:
        if self.session is None:
            if start != 0 or not entries:
                self._ask_sync(0)
                return
            genesis = entries[0]
            if not self._start_session(genesis):
                return
            start, entries = 1, entries[1:]
            self.driver.on_notice("the game is set up: dealing…")
        gap = self.deliver(start, entries, "the host", 0)
        if self.mesh is not None:
            self.mesh.heard(0, start, entries)
        if gap is not None:
            self._ask_sync(gap)

    def _genesis_ok(self, session: Session) -> bool:
        return session.seats[0].public_key == self.host_pub

    def _declines_before_hello(self, hints: bool) -> bool:
        """The host's welcome said this table allows hints (TRANSPORT.md §5): say so before we
        take a seat; with `--no-hints`, leave now, before our hello (the host keeps the seat
        open and is told why). A welcome without the field tells nothing: the lobby and the
        genesis still do. Not when resuming: our log's genesis already bound us."""
        if not hints or self.session is not None or not self._refuses_hints():
            return False
        self._leave_reason = HINTS_DECLINED
        return True

    def _refuses_hints(self) -> bool:
        """Told in the lobby (the host says so) or by the genesis (what binds): say it once;
        with `--no-hints`, stop before signing anything (closing sends the host our leave)."""
        if not self._hints_told:
            self._hints_told = True
            self.driver.on_notice(HINTS_ALLOWED)
        if not self.options.refuse_hints:
            return False
        if self.stopped is None:
            self.stopped = Outcome(False, HINTS_REFUSED, 0)
        return True

    def _tick_unanswered(self, now: float) -> None:
        """Before any welcome: say what we are waiting for, and give up after the bound."""
        bound = (
            self.options.give_up
            if self.options.give_up is not None
            else self.options.connect_give_up
        )
        waited = now - self._began
        if waited > bound:
            self.stopped = Outcome(
                False,
                f"no answer from {self._where()} after {bound:g} s — is the host running? "
                "(--give-up changes how long to try)",
                self._have(),
            )
            return
        if now - self._status_at >= self.options.status_every:
            self._status_at = now
            if self._handshakes == 0 and self.options.route_phase is not None:
                self.driver.on_notice(  # over Tor: what Tor is doing, how long, of how long
                    f"connecting through Tor to {self._where()}: {self.options.route_phase()} "
                    f"({waited:.0f} s of {bound:g} s), Ctrl-C to stop"
                )
            elif self._handshakes == 0:
                self.driver.on_notice(  # said again every few seconds: how long, of how long
                    f"no answer from {self._where()} yet — is the host running? still trying "
                    f"({waited:.0f} of {bound:g} s), Ctrl-C to stop"
                )
            else:
                self.driver.on_notice(
                    f"connected to {self._where()}, waiting for the host's welcome… Ctrl-C to stop"
                )

    def _ask_sync(self, seq: int) -> None:
        now = self.now
        if self._sync_asked[0] == seq and now - self._sync_asked[1] < 1.0:
            return
        self._sync_asked = (seq, now)
        self._send(wire.pack("sync", **{"from": seq}))

    def tick(self, now: float) -> None:
        """Ping the host when idle, notice its silence, say we are done at the end."""
        if self.host_pub is None:
            self._tick_unanswered(now)
            return
        if now - self._last_tx >= PING_EVERY:
            self._send(wire.pack("ping"))
        silent = now - self._last_rx
        if self.session is not None and silent > LIVE_TIMEOUT and self._host_seats:
            # the host is our only link: show it lost, and the others as we last heard
            self._set_seats([SeatPresence("lost", int(silent)), *self._host_seats[1:]])
        if self.host_up and silent > LIVE_TIMEOUT:
            self.host_up = False
            self.driver.on_notice("the host is not answering; waiting for it…")
        elif not self.host_up and silent < LIVE_TIMEOUT and self.host_pub is not None:
            self.host_up = True
        if self.options.give_up is not None and silent > self.options.give_up:
            self.stopped = Outcome(False, "the host is gone", self._have())
            return
        s = self.session
        if s is not None and s.finished:
            if self._finished_at is None:
                self._finished_at = now
                self._send(wire.pack("done", have=len(s.entries)))
            elif now - self._finished_at > 3.0:
                self.stopped = Outcome(True, "game over (no bye from the host)", len(s.entries))
