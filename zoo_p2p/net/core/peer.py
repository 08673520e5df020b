"""The peer's core, without I/O: the session, our log file kept in step with it, entries that
came early, delivery, our own moves, the budget of signature checks (TRANSPORT.md §11), and
the claims and resignations (`zoo_p2p.net.core.liveness`, a component it holds).

`PeerCore` never touches a socket or the clock. The transport (`zoo_p2p.net.peer`) reads the
clock once per loop turn and sets `now`; every method reads the time from there. What the core
sends goes through `_send` (the host core: `_send(rid, data)`; the joiner core: `_send(data)`),
which by default queues it in `outbox`; the zmq transport sends it at once instead. The
in-memory harness (tests/net/memnet.py) moves the queued bytes between cores.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from zoo_p2p.driver import Outcome, SeatPresence
from zoo_p2p.errors import CheatError, RemoteProtocolError, ZooError
from zoo_p2p.net import evidence
from zoo_p2p.net.core.budget import (
    CHECKS_BURST,
    CHECKS_PER_S,
    COPY_COST,
    CUT_TOLD_EVERY,
    DROP_COST,
    CheckBudget,
)
from zoo_p2p.net.core.entries import AHEAD, unchecked_drop
from zoo_p2p.net.core.parts import (
    EntrySink,
    LinkParts,
    NoTrace,
    PeerMesh,
    Trace,
    raw_private,
    raw_public,
)
from zoo_p2p.net.links import Verdict
from zoo_p2p.net.liveness import Liveness
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.events import EntryAccepted, Gap
from zoo_p2p.protocol.liveness import Resignation
from zoo_p2p.text import HINTS_ALLOWED, on_leave_notice, seat_word, shown

if TYPE_CHECKING:
    from zoo_p2p.protocol.session import Session

__all__ = [
    "AHEAD",
    "CHECKS_BURST",
    "CHECKS_PER_S",
    "CUT_TOLD_EVERY",
    "DROP_COST",
    "EntrySink",
    "LinkParts",
    "PeerCore",
    "raw_private",
    "raw_public",
]

log = logging.getLogger("zoo_p2p.net")


def _ours(events: list[Any], seat: int) -> bool:
    """True if `events` (of one received entry) say it was signed for `seat`."""
    return any(isinstance(ev, EntryAccepted) and ev.seat == seat for ev in events)


def _is_move_floor(floor: Any, seat: int | None) -> bool:
    return floor is not None and seat is not None and floor.seat == seat and floor.kind == "move"


class PeerCore:
    """What host and joiner share: the session, the log file kept in step, timers, delivery.

    `now` is the time of the transport's loop turn (monotonic seconds); nothing here reads a
    clock. `now` given to the constructor is the time the peer starts."""

    def __init__(self, **parts: Unpack[LinkParts]) -> None:
        self.now = parts.get("now", 0.0)
        self.key = parts["key"]
        self.pub = raw_public(self.key)
        self.driver = parts["driver"]
        self.make_session = parts["make_session"]
        self.open_log = parts["open_log"]
        session = parts.get("session")
        self.session: Session | None = session
        self.sink: EntrySink | None = parts.get("sink")
        self.written = len(session) if session is not None else 0
        self.up: list[bool] = []
        self.seats_state: list[SeatPresence] = []
        self.stopped: Outcome | None = None
        self._timers: list[tuple[float, Callable[[], None]]] = []
        self._turn_at: int | None = None  # log length at which we last asked the driver to move
        self._started = False
        self._sync_asked: tuple[int, float] = (-1, 0.0)
        self.dropped = 0  # frames dropped as garbage (tests read it)
        self.trace: Trace = NoTrace()  # bench/bench_net.py's marks (the transport sets one)
        self._settled = -1
        self._ahead: dict[int, bytes] = {}  # seq -> an entry that came before its predecessor
        self.budget = CheckBudget()  # every seat's wasted signature checks
        self._warned: dict[str, float] = {}  # what -> when we last logged it (`_warn`)
        # no other process signed for our seat in this game (not resumed from a log, and no
        # entry of our seat reached us from outside): the mesh may trust reports about us
        self._fresh = session is None
        self._own_move = False
        # the direct links (no trusted relay, TRANSPORT.md §10): the transport makes them
        self.mesh: PeerMesh | None = None
        self._mesh_on = False  # the transport turns them on (ZOO_MESH=0 keeps them off)
        self._leave_reason = ""  # what our `leave` says, when not the outcome's reason
        self.live = Liveness(self)  # clocks, claims and resignations (zoo_p2p.net.liveness)

    def _trace(self, event: str, n: int) -> None:
        self.trace.mark(event, n)

    def _trace_own(self, event: str, start: int) -> None:
        """Trace every entry of ours from `start` (the first send of them has returned)."""
        if self.trace.on and self.session is not None:
            for seq in range(start, len(self.session)):
                self._trace(event, seq)

    # ----- session plumbing -------------------------------------------------------------
    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        """Run `fn` from the loop after `delay` seconds (no threads, no sleeps)."""
        self._timers.append((self.now + delay, fn))

    def run_timers(self, now: float) -> bool:
        """Run the timers due at `now`; True if any was."""
        due = [t for t in self._timers if t[0] <= now]
        if due:
            self._timers = [t for t in self._timers if t[0] > now]
            for _, fn in due:
                fn()
        return bool(due)

    def next_timer(self) -> float | None:
        """When the next timer is due (None: no timer)."""
        return min((t[0] for t in self._timers), default=None)

    @property
    def my_turn(self) -> bool:
        """True when we hold the floor for a move right now."""
        s = self.session
        return s is not None and not s.finished and not s.left and _is_move_floor(s.floor, s.seat)

    def play(self, move: Any) -> None:
        """Make our move (raises the rules' IllegalMoveError / LocalProtocolError if wrong)."""
        if self.session is None:
            raise NetError("no game yet")
        before = len(self.session)
        self._own_move = True
        if self.trace.on and self.session.state is not None:
            self._trace("sent", len(self.session.state.history) + 1)
            self._trace("mk", before)
        self.session.move(move)
        self._advance(before)

    def _start_mesh(self) -> None:
        """Make the direct links (the transport's: they are sockets); none without one."""
        self._mesh_on = False

    def _start_session(self, genesis: bytes) -> bool:
        try:
            self.session = self.make_session(genesis)
        except (ZooError, ValueError) as exc:
            log.warning("dropped a genesis that does not open: %s", shown(exc))
            self.dropped += 1
            return False
        if not self._genesis_ok(self.session):
            log.warning("dropped a genesis not written by the invite's host")
            self.dropped += 1
            self.session = None
            return False
        if self.session.genesis.hints and self._refuses_hints():
            self.session = None  # nothing signed, no log: we never took the seat
            return False
        if self.session.n > 2:  # the table rule, before we sign anything (PROTOCOL.md §10.7.1)
            self.driver.on_notice(on_leave_notice(self.session.genesis.play_on))
        self.sink = self.open_log(self.session)
        self.written = 0
        self._flush_log()
        return True

    def _genesis_ok(self, session: Session) -> bool:
        return True

    def _refuses_hints(self) -> bool:
        """The genesis allows hints (PROTOCOL.md §3.2): tell our seat before it signs anything
        in this game; True when we will not play at such a table (then we have left)."""
        self.driver.on_notice(HINTS_ALLOWED)
        return False

    def _flush_log(self) -> None:
        """Write every entry the session holds beyond the file, then make them durable at once."""
        s = self.session
        if s is None or self.sink is None or self.written >= len(s):
            return
        entries = s.entries
        while self.written < len(entries):
            self.sink.append(entries[self.written])
            self.written += 1
        self.sink.sync(wait=self._own_move)

    def deliver(
        self, start: int, entries: list[bytes], source: str, by: int | None = None
    ) -> int | None:
        """Feed entries numbered from `start` to the session; return a seq to resync from.

        `by` is the seat whose link brought them (None: our own, kept from before). An entry
        costs a signature check only if it can add something: a copy of an entry we hold is a
        compare, and at a seq we hold only a fork (same author, same predecessor) or a claim
        can matter; anything else there is dropped unchecked. One message ends at the first
        entry that adds nothing (nothing after it can chain onto our log), and every check
        that added nothing is taken from `by`'s budget (TRANSPORT.md §11)."""
        s = self.session
        assert s is not None
        if by is not None and self.dry(by):
            self.dropped += len(entries)  # out of checks: nothing of it is read (§11)
            self.may_check(by)  # (cut off again, if it linked again)
            return None
        self.live.release_if_moved_on(start, entries)
        before = len(s)
        gap: int | None = None
        seen: list[Any] = []
        cost = 0.0  # what the entries that needed no check cost us, in checks
        for i, entry in enumerate(entries):
            seq = start + i
            if self.live._resigned_seat in s.resigned:
                break  # we resigned and are leaving: our log ends with the entry that says so
            held = s.entries
            if seq < len(held) and held[seq] == entry:
                cost += COPY_COST
                continue  # already have it (a relay echo or an overlapping resync)
            why = self._unchecked_drop(seq, entry)
            if why is not None:
                cost += DROP_COST
                if why:  # (empty: a gap we know of already, nothing to say)
                    self.dropped += len(entries) - i
                    self._warn(source, f"dropped entry {seq} from {shown(source)}: {why}")
                elif seq > len(held):
                    gap = len(held)
                break  # nothing after it can chain onto our log
            if by is not None and not self.may_check(by):
                self.dropped += len(entries) - i
                break
            go_on, found = self._check_one(seq, entry, len(entries) - i - 1, source, by, seen)
            gap = found if found is not None else gap
            if not go_on:
                break
        if by is not None and cost:
            self._spend(by, cost)
        if self.stopped is not None:
            return None
        self._advance(before, seen)
        nxt = self._ahead.pop(len(s), None) if self._ahead else None
        if nxt is not None and self.stopped is None:
            # the entry that came before its predecessor: its turn now (checked again)
            self._ahead = {k: v for k, v in self._ahead.items() if k > len(s)}
            return self.deliver(len(s), [nxt], source)
        return gap if gap is not None and gap >= len(s) else None

    def _check_one(
        self, seq: int, entry: bytes, rest: int, source: str, by: int | None, seen: list[Any]
    ) -> tuple[bool, int | None]:
        """Entry `seq` of a message through the session's checks (`rest` entries follow it):
        (go on with the next entry?, the seq to resync from if a gap showed); its events are
        added to `seen`."""
        s = self.session
        assert s is not None
        if self.trace.on and seq == len(s):
            self._trace("rx", seq)
        n_before = len(s)
        try:
            events = s.receive(entry)
        except RemoteProtocolError as exc:
            self.dropped += 1
            self._warn(source, f"dropped entry {seq} from {shown(source)}: {shown(exc.reason)}")
            if not isinstance(exc, CheatError):
                self._refused(entry, exc)  # signed by its author: a proof?
            if self.stopped is not None or s.stopped is not None:
                return False, None
            if by is not None:
                self.checked(by)
            # nothing after a refused entry can chain onto our log: one signature check
            # per message at most, however many entries a hostile peer packs into it
            self.dropped += rest
            return False, None
        gaps = [ev for ev in events if isinstance(ev, Gap)]
        if gaps:
            if not self._hold_ahead(seq, entry) and by is not None:
                self.checked(by)  # checked, and neither appended nor kept
            return False, gaps[0].expected_seq
        if len(s) == n_before and not events:
            if by is not None:
                self.checked(by)  # checked for nothing (a second copy of a claim)
            return False, None
        if self.trace.on and events:
            self._trace("ok", seq)
        if self._fresh and s.seat is not None and _ours(events, s.seat):
            self._fresh = False  # an earlier run of our seat (or a resigner) signed it
            if self.mesh is not None:
                self.mesh.fresh = False
        seen.extend(events)
        return True, None

    def _unchecked_drop(self, seq: int, entry: bytes) -> str | None:
        """Why `entry` (at `seq`, not a copy of ours) is dropped unchecked (`unchecked_drop`)."""
        assert self.session is not None
        return unchecked_drop(self.session.entries, self._ahead, seq, entry)

    def _hold_ahead(self, seq: int, entry: bytes) -> bool:
        """Keep a signed entry that came before its predecessor (its author's direct link can
        overtake the one that brings the predecessor), to be fed again as soon as that arrives
        instead of being fetched once more. Bounded: AHEAD seqs, one entry each, first kept.
        True if this call kept it."""
        s = self.session
        if s is not None and seq - len(s) <= AHEAD and len(self._ahead) < AHEAD:
            return self._ahead.setdefault(seq, entry) is entry
        return False

    # ----- the budget of signature checks (TRANSPORT.md §11, zoo_p2p.net.core.budget) ------
    def may_check(self, seat: int) -> bool:
        """True if `seat` may cost us a signature check now; else it is cut off (once)."""
        if self.budget.has(seat, self.now):
            return True
        self.dropped += 1
        self._over_budget(seat)
        return False

    def dry(self, seat: int) -> bool:
        """True while `seat` has no check left: what it sends is dropped unread."""
        return not self.budget.has(seat, self.now)

    def checked(self, seat: int, n: int = 1) -> None:
        """`seat` made us do `n` signature checks that added nothing to our log."""
        self.budget.checked(seat, n, self.now)

    def _spend(self, seat: int, n: float) -> None:
        self.budget.spend(seat, n, self.now)

    @property
    def wasted(self) -> dict[int, int]:
        """seat -> signature checks it cost us for nothing."""
        return self.budget.wasted

    @property
    def cut(self) -> dict[int, int]:
        """seat -> times we dropped it for exceeding its budget."""
        return self.budget.cut

    def _warn(self, key: str, text: str) -> None:
        """A warning about a peer's data, at most one line per 2 s for each `key` (a flood
        must not cost us a log line per message); the others go to the debug log."""
        now = self.now
        if now - self._warned.get(key, -2.0) >= 2.0:
            self._warned[key] = now
            log.warning("%s", text)
        else:
            log.debug("%s", text)

    def _seat_label(self, seat: int) -> str:
        s = self.session
        if s is not None and 0 <= seat < len(s.seats):
            return seat_word(seat, s.seats[seat].team.label)
        return seat_word(seat)

    def _over_budget(self, seat: int) -> None:
        """`seat` ran its budget of wasted checks dry: drop its link(s), and say so at most
        every CUT_TOLD_EVERY seconds."""
        tell = self.budget.cut_off(seat, self.now)
        self._cut_link(seat)
        if not tell:
            return
        text = (
            f"{self._seat_label(seat)} sent more than {CHECKS_BURST:g} signatures to check that "
            f"added nothing (at most {CHECKS_PER_S:g} a second): {self._cut_words(seat)}"
        )
        log.warning("%s", text)
        self.driver.on_notice(text)

    def _cut_link(self, seat: int) -> None:
        if self.mesh is not None:
            self.mesh.cut(seat)

    def _cut_words(self, seat: int) -> str:
        return "dropped its direct link; what it sends that needs a check is dropped unread"

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        """After any change: send what we owe, keep the log in step, tell the driver, ask for
        our move. Entries we write ourselves return no events, so drivers read the state."""
        s = self.session
        assert s is not None
        if self.mesh is None and self._mesh_on and s.seat is not None and s.stopped is None:
            self._start_mesh()
        own_from = before if self._own_move else len(s)  # entries from here on are ours
        while s.take_outgoing():
            pass
        if len(s) > before:
            # Our own move is made durable before it leaves (a crash must not let us sign a
            # different move for the same seq). Everything else goes out first and is synced
            # right after: relayed entries live on in the other logs, and our commits, reveals,
            # seed and result are re-derived byte for byte from the seed after a crash.
            if self._own_move:
                self._flush_log()
                if s.state is not None:
                    self._trace("onwire", len(s.state.history))
            if self.mesh is not None and len(s) > own_from:  # ours, to every seat directly
                self.mesh.push_own(own_from, s.entries[own_from:])
                self._trace_own("tx", own_from)
            self.publish(before, s.entries[before:], own_from)
            if self.mesh is None:
                self._trace_own("tx", own_from)
        self._own_move = False
        self._flush_log()
        if not self._started and s.state is not None:
            self._started = True
            self._trace("started", 0)
            self.driver.on_started(self)
        if self.trace.on and s.state is not None and s.state.needs is None:
            h = len(s.state.history)
            if h != self._settled:
                self._settled = h
                self._trace("settled", h)
        if len(s) > before or events:
            self.driver.on_events(events or [], self)
        if s.stopped is not None and self.stopped is None:
            c = s.stopped
            verdict = None
            if c.evidence:  # the proof is kept (and, with direct links, sent) either way
                first = c.evidence[0]
                verdict = self.mesh.on_cheat(first) if self.mesh else self._keep_proof(first)
            self.mesh_stop(verdict or Verdict(c.seat, c.reason, None))
            return
        if self.my_turn and self._turn_at != len(s):
            self._turn_at = len(s)
            self.driver.on_turn(self)

    def _refused(self, entry: bytes, exc: RemoteProtocolError) -> None:
        """Our session refused `entry` without stopping (an illegal move, an entry out of
        turn…): the mesh makes it a proof if its author's signature proves the fault (a
        spectator, which has no mesh, does it itself: `zoo_p2p.net.spectate`)."""
        if self.mesh is not None:
            self.mesh.on_rejected(entry, exc)

    def _keep_proof(self, offending: bytes) -> Verdict | None:
        """Without direct links: the proof of the cheat that stopped our session, checked as
        anyone would and kept next to our log (PROTOCOL.md §9.3)."""
        s = self.session
        assert s is not None
        try:
            proof = evidence.make_proof(s.entries, offending)
            conviction = evidence.check(proof, s.entries[0])
        except (ValueError, RemoteProtocolError) as exc:
            log.warning("our own proof does not check: %s", exc)
            return None
        saved = evidence.keep_beside(self.mesh_log_path(), proof, self.mesh_notice)
        return Verdict(conviction.seat, conviction.reason, saved)

    # ----- the mesh (zoo_p2p.net.mesh) ---------------------------------------------------
    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        """Send a mesh message over the host link (host: to seat `to`, or every seat)."""

    def mesh_notice(self, text: str) -> None:
        """Tell the player something the mesh found out (and log it)."""
        log.warning("%s", text)
        self.driver.on_notice(text)

    def mesh_log_path(self) -> Path | None:
        """Where our log file is (proofs are kept beside it)."""
        return None if self.sink is None else self.sink.path

    def mesh_stop(self, verdict: Verdict) -> None:
        """Stop the game with a proven verdict (ours or a peer's proof that we checked)."""
        if self.stopped is not None or self.session is None:
            return
        s = self.session
        who = seat_word(verdict.seat, s.seats[verdict.seat].team.label)
        why = shown(verdict.reason)
        text = f"the game is stopped: {who} cheated ({why})"
        if verdict.saved is not None:
            text += f"; the proof is kept in {verdict.saved}"
        self.driver.on_notice(text)
        self.stopped = Outcome(False, f"{who} cheated: {why}", len(s))

    def publish(self, start: int, entries: list[bytes], own_from: int) -> None:
        """Send newly appended entries to whoever needs them (host: everyone; joiner: the host,
        ours only: those from `own_from` on)."""
        raise NotImplementedError

    # ----- claims and resignations (the `live` component, zoo_p2p.net.liveness) -------------
    def _liveness_tick(self, now: float) -> None:
        """The claim clocks' work at the loop turn of time `now`."""
        self.live.tick(now)

    def _on_vote(self, seat: int | None, data: bytes) -> None:
        """A claim vote from a peer (`seat`: its link's; None: the host link of a joiner)."""
        self.live.on_vote(seat, data)

    def _on_resign(
        self, seat: int | None, data: bytes, key: bytes = b"", by: int | None = None
    ) -> None:
        """A resignation statement from a peer (`by`: the seat whose link brought it)."""
        self.live.on_resign(seat, data, key, by)

    def mesh_vote(self, seat: int, data: bytes) -> None:
        """A claim vote that came on a direct link (zoo_p2p.net.mesh): only the voter's own."""
        self._on_vote(seat, data)

    def mesh_resign(self, seat: int, data: bytes) -> None:
        """A resignation statement that came on a direct link: the resigner's own or one that
        another peer passes on (its signature says whose it is)."""
        self._on_resign(None, data, b"", by=seat)

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        """Send a claim or resign message on (host: every seat but `skip_seat`; joiner: host)."""
        raise NotImplementedError

    def _seat_has_left(self, seat: int) -> bool:
        """The seat said it leaves (its last link sent `leave`); the host knows, joiners do not."""
        return False

    def stop(self, outcome: Outcome) -> None:
        """Stop the run with `outcome`."""
        self.stopped = outcome

    def floor_clock(self, now: float | None = None) -> tuple[int, float, int] | None:
        """(floor seat, seconds it has held the floor as we saw it, seconds allowed), or None."""
        return self.live.floor_clock(now)

    def claim(self) -> bool:
        """Sign our vote against the floor holder whose time ran out (False: nothing to claim)."""
        return self.live.claim()

    def claim_now(self) -> bool:
        """The person answered the claim question with "claim"."""
        return self.live.claim_now()

    def claim_wait(self) -> bool:
        """The person answered "wait": one more clock period, then the question comes again."""
        return self.live.claim_wait()

    def claim_votes(self) -> str:
        """The pending claim's votes, for the "waiting for" line ("" when no seat voted)."""
        return self.live.claim_votes()

    def resign(self) -> Resignation:
        """Sign our resignation and send it to every seat."""
        return self.live.resign()

    def resign_and_leave(self, reason: str) -> None:
        """A person leaves for good: resign first when we hold a seat in a game being played."""
        self.live.resign_and_leave(reason)

    @property
    def resigned_self(self) -> bool:
        """We signed our resignation (the exit says so, not "resume")."""
        return self.live.resigned_self

    # ----- ending -----------------------------------------------------------------------
    def _have(self) -> int:
        return len(self.session) if self.session is not None else 0

    def leave(self, reason: str) -> None:
        """Stop the run now, unfinished, saying why (the driver's way out)."""
        if self.stopped is None:
            self.stopped = Outcome(False, reason, self._have())

    def catch_up(self) -> None:
        """After resuming from a log: tell the driver where the game stands, ask for our move."""
        if self.session is not None:
            self._advance(len(self.session))

    def tick(self, now: float) -> None:
        """Periodic work at the loop turn of time `now`: pings, liveness, finishing."""

    def close(self) -> None:
        """Close the log file and the trace (the transport closes its sockets first)."""
        if self.sink is not None:
            self.sink.close()
        self.trace.close()

    def _set_up(self, up: list[bool]) -> None:
        if up != self.up:
            self.up = up
            self.driver.on_presence(list(up), self)

    def _set_seats(self, states: list[SeatPresence]) -> None:
        if states != self.seats_state:
            self.seats_state = list(states)
            self.driver.on_seats(list(states), self)
        self._set_up([st.state == "connected" for st in states])

    def awaited(self) -> list[tuple[int, str]]:
        """What the game waits for, from whom: [(seat index, "a move" | "a reveal" | …)]."""
        return self.live.awaited(self.seats_state)
