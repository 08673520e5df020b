"""Network games in the app: a `zoo_p2p.driver.Driver` whose peer loop runs in a worker thread.

The loop thread calls the driver; the driver copies what the screen needs (a public clone of the
state, the seat names made safe, the opened deal, the audit once finished) and hands it to the app
with ``App.call_from_thread``. Moves go the other way as one line of notation written to a pipe
whose read end the driver lists in ``fds()``; the loop reads it and calls ``link.play``. The app
never touches the session or the link.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from zoo_p2p.driver import BaseDriver
from zoo_p2p.errors import ZooError
from zoo_p2p.protocol.audit import report_for
from zoo_p2p.protocol.events import CheatDetected, Event
from zoo_p2p.rules import Move, State, move_name, parse_move
from zoo_p2p.text import seat_word, shown
from zoo_p2p.tui.table import DealView, Ending, Table

INTERRUPT = "\x03"
"""The line the app hands the loop for Ctrl-C (never a move, never typed: Input drops it)."""

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from zoo_p2p.driver import ClaimQuestion, GameLink, LobbyRow, SeatPresence


class NetScreen(Protocol):
    """What the driver tells the app (on the app's thread, through ``call_from_thread``): the
    app implements it; the driver needs nothing else of it, so net.py does not import the app."""

    @property
    def is_running(self) -> bool: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...
    def net_notice(self, text: Text) -> None: ...
    def net_update(self, snap: Snapshot) -> None: ...
    def net_lobby(self, rows: list[tuple[str, str, int]], need: int) -> None: ...
    def net_started(self, snap: Snapshot) -> None: ...
    def net_presence(self, up: list[bool]) -> None: ...
    def net_seats(self, notes: list[str], awaiting: str | None) -> None: ...
    def net_claim(self, question: ClaimQuestion | None) -> None: ...
    def net_claim_votes(self, question: ClaimQuestion) -> None: ...


@dataclass(frozen=True)
class Snapshot:
    """What the screen may know of the game at one moment (copied in the loop thread)."""

    state: State | None
    names: list[str]
    seat: int | None
    finished: bool
    deal: DealView | None
    verdict: Text | None
    log_path: str | None
    floor: tuple[int, str, int] | None = None  # (seat, kind, log length) of who owes an entry
    allowed: int | None = None  # seconds the floor holder has for it (§10)
    hints: bool = False  # the genesis allows hints: every seat agreed (PROTOCOL.md §3.2)
    links: tuple[str, ...] | None = None  # per seat: "direct", "via host", "host link" or ""
    ended: str | None = None  # how a game ended without a final position (a claim, resigned)
    entries: tuple[bytes, ...] = ()  # the log so far: to narrate moves not seen one by one
    over_tor: bool = False  # our links go through Tor (TRANSPORT.md §3.5, §10.9)
    out: tuple[tuple[int, int], ...] = ()  # (seat, entry) put out by a claim that played on
    replaced_at: int | None = None  # our seat was put out at this entry (§10.7): we watch
    resigned: tuple[tuple[int, int], ...] = ()  # (seat, entry) of a resignation a stand-in plays


def play_on_words(link: GameLink, events: list[Event]) -> list[str]:
    """For each claim among ``events`` that played on (PROTOCOL.md §10.7), what happened in
    words: "seat 3 (Red) stopped answering at entry 48; a stand-in plays on; the 12 cards…"."""
    s = link.session
    if s is None:
        return []
    return [shown(p.describe(s.seats), 300) for p in s.played_on_in(events)]


def seat_links(link: GameLink) -> tuple[str, ...] | None:
    """How we and every other seat hear each other, named the same from both ends of the link
    (the mesh, TRANSPORT.md §10): "direct" when the link is direct both ways, that is we hear
    the seat directly and its heads say it hears us directly ("direct, Tor" at an onion,
    §10.9); otherwise "host link" for the host's seat (or every seat, if we are the host), else
    "via host" (at least one way goes through the host). A seat we hear directly but that does
    not hear us is not "direct": the other end, which does not hear us, could not say so.
    "" for our own seat or a seat whose card has not come yet. None when there is no mesh
    (call in the loop thread)."""
    mesh = link.mesh
    s = link.session
    if mesh is None or s is None:
        return None
    heard = mesh.links()
    me = s.seat
    words = []
    for seat in range(len(s.seats)):
        via = heard.get(seat)
        if seat == me or seat not in heard:
            words.append("")
        elif via and me is not None and mesh.hears(seat, me):
            words.append("direct, Tor" if ".onion:" in via else "direct")
        else:
            words.append("host link" if 0 in (seat, me) else "via host")
    return tuple(words)


def snapshot(link: GameLink) -> Snapshot:
    """Copy the public part of the link's session (call in the loop thread)."""
    s = link.session
    if s is None:
        return Snapshot(None, [], None, False, None, None, None)
    st = s.state.public() if s.state is not None else None
    names = [shown(i.name, 40) for i in s.seats]
    opened = s.opened_deal
    deal = None if opened is None else DealView(opened.slot_tokens, opened.mutant_copies)
    verdict = None
    ended = None
    if s.finished:
        from zoo_p2p.protocol.liveness import FINISHED
        from zoo_p2p.tui.replay import verdict_text

        report = report_for(s)
        verdict = verdict_text(report)
        if report.ending is not None and report.ending.kind != FINISHED and report.ending_text:
            ended = shown(report.ending_text, 300)
    path = link.mesh_log_path()
    f = s.floor
    floor = None if f is None else (f.seat, str(f.kind), len(s.entries))
    allowed = s.time_allowed() if f is not None else None
    return Snapshot(
        st,
        names,
        s.seat,
        s.finished,
        deal,
        verdict,
        None if path is None else str(path),
        floor,
        allowed,
        s.genesis.hints,
        seat_links(link),
        ended,
        tuple(s.entries),
        over_tor=link.mesh is not None and link.mesh.over_tor,
        out=tuple(sorted(s.out.items())),
        replaced_at=s.replaced_at,
        resigned=tuple(sorted(s.resigned.items())),  # 3–4 seats only: at 2 it ends the game
    )


def settled_states(entries: Sequence[bytes]) -> list[State]:
    """The public position before the first move and after each settled move (its reveals
    in): item i is the position before move i. Replayed from a copy of the log's entries in a
    seatless session of our own, as `zoo replay` reads a log (the link's session is never
    touched); as far as they replay, [] for none."""
    from zoo_p2p.protocol.session import Session

    out: list[State] = []
    if not entries:
        return out
    try:
        session = Session(entries[0])
        for raw in entries[1:]:
            session.receive(raw)
            st = session.state
            if st is not None and st.needs is None and len(st.history) == len(out):
                out.append(st.public())
    except ZooError:  # our own log, checked as it came: not expected; narrate what replayed
        log.warning("the moves panel could not replay the log past %d moves", len(out))
    return out


def _shielded(fn: Callable[..., Any], *args: Any) -> None:
    """Run a screen update on the app's thread; if the screen fails, log it and go on.

    `call_from_thread` hands an exception back to the peer's loop, which would end the network
    game (and its log) over a drawing bug: the game and the log matter more than one frame."""
    try:
        fn(*args)
    except Exception:
        log.exception("the screen could not show an update (%s); the game goes on", fn.__name__)


class AppDriver(BaseDriver):
    """The person at this terminal, through the app (implements `zoo_p2p.driver.Driver`)."""

    def __init__(self, app: NetScreen) -> None:
        self.app = app
        self._r, self._w = os.pipe()
        self._pending = b""
        self._notes: list[str] | None = None  # the seats' presence notes, once known

    # --------------------------------------------------------------- app thread
    def send(self, line: str) -> None:
        """Hand a line (a move in notation, or ``q``) to the loop."""
        with contextlib.suppress(OSError):  # the loop has gone: nothing left to tell it
            os.write(self._w, (line.strip() + "\n").encode())

    def close(self) -> None:
        """Close our end of the pipe."""
        for fd in (self._w, self._r):
            with contextlib.suppress(OSError):
                os.close(fd)

    # --------------------------------------------------------------- loop thread
    def _post(self, fn: Callable[..., Any], *args: Any) -> None:
        if not self.app.is_running:
            return
        with contextlib.suppress(RuntimeError):  # the app is shutting down
            self.app.call_from_thread(_shielded, fn, *args)

    def fds(self) -> list[int]:
        """The pipe the app writes moves into."""
        return [self._r]

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """Play the lines the app wrote."""
        try:
            data = os.read(fd, 4096)
        except OSError:
            return False
        if not data:
            return False
        self._pending += data
        while b"\n" in self._pending:
            raw, self._pending = self._pending.split(b"\n", 1)
            line = raw.decode(errors="replace").strip()
            if line == INTERRUPT:  # Ctrl-C: stop as --plain does, resumable, no resignation
                link.leave("interrupted")
                return False
            if line in ("claim", "wait"):  # the answer to the claim question (on_claim_offer)
                (link.claim_now if line == "claim" else link.claim_wait)()
                continue
            if line == "q":
                link.resign_and_leave("you left the game")
                return False
            try:
                link.play(parse_move(line))
            except ZooError as exc:
                self._post(self.app.net_notice, Text(f"{line}: {exc}", style="red"))
            self._post(self.app.net_update, snapshot(link))
        return True

    def on_lobby(self, seats: list[LobbyRow], need: int) -> None:
        """The lobby changed."""
        rows = [(shown(name, 40), shown(fp, 40), team) for name, fp, team in seats]
        self._post(self.app.net_lobby, rows, need)

    def on_started(self, link: GameLink) -> None:
        """The game has started."""
        self._post(self.app.net_started, snapshot(link))

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """The log grew."""
        for ev in events:
            if isinstance(ev, CheatDetected):
                self._post(
                    self.app.net_notice,
                    Text(f"CHEATING by seat {ev.seat + 1}: {shown(ev.reason)}", style="bold red"),
                )
        for words in play_on_words(link, events):
            self._post(self.app.net_notice, Text(words, style="bold yellow"))
        self._post(self.app.net_update, snapshot(link))
        self._post_seats(link)

    def on_turn(self, link: GameLink) -> None:
        """Our move."""
        self._post(self.app.net_update, snapshot(link))
        self._post_seats(link)

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Who is connected."""
        self._post(self.app.net_presence, list(up))

    def on_seats(self, seats: list[SeatPresence], link: GameLink) -> None:
        """Every seat connected, lost (for N s) or left, and what the game waits for."""
        self._notes = [
            ""
            if p.state == "connected"
            else (f"lost {p.lost_for} s" if p.state == "lost" else "left")
            for p in seats
        ]
        self._post(self.app.net_presence, [p.state == "connected" for p in seats])
        self._post_seats(link)

    def _post_seats(self, link: GameLink) -> None:
        """The seat notes with what the game waits for *now* (it changes with every entry,
        not only when a seat's presence does); our own turn is not a wait."""
        if self._notes is None:
            return
        s = link.session
        infos = s.seats if s is not None else ()
        mine = None if s is None else s.seat
        waits = []
        for seat, what in link.awaited():
            if seat == mine and not what.startswith("a reconnect"):
                continue
            who = seat_word(seat)
            if 0 <= seat < len(infos):
                who = f"{shown(infos[seat].name, 32)} ({infos[seat].team.label})"
            waits.append(f"{who}: {what}")
        awaiting = ("waiting for " + "; ".join(waits)) if waits else None
        self._post(self.app.net_seats, list(self._notes), awaiting)

    def on_notice(self, text: str) -> None:
        """A sentence from the transport."""
        self._post(self.app.net_notice, Text(shown(text, 300), style="cyan"))

    def on_claim_offer(self, question: ClaimQuestion, link: GameLink) -> bool:
        """The floor holder's clock ran out: ask the person (c claims, w waits; the link claims
        by itself when nobody answers within one more clock period). True (claim at once)
        only when there is no screen to ask on any more."""
        if not self.app.is_running:
            return True
        self._post(self.app.net_claim, question)
        return False

    def on_claim_closed(self, text: str, link: GameLink) -> None:
        """The question is gone (the late seat answered, or nobody answered and we claimed)."""
        self._post(self.app.net_claim, None)
        self._post(self.app.net_notice, Text(shown(text, 300), style="cyan"))

    def on_claim_votes(self, question: ClaimQuestion, link: GameLink) -> None:
        """A claim vote came (or we signed ours): the open question shows it in place, with its
        count-down, and so does the "waiting for" line; with no question open, a notice too."""
        self._post(self.app.net_claim_votes, question)
        self._post_seats(link)


class NoticeFile(io.TextIOBase):
    """A file for the runner's console: every line it prints becomes a message in the app."""

    def __init__(self, post: Callable[[Text], None]) -> None:
        super().__init__()
        self.post = post
        self.buf = ""

    def write(self, s: str) -> int:
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            if line.strip():
                self.post(Text(shown(line, 400)))
        return len(s)

    def flush(self) -> None:
        if self.buf.strip():
            self.post(Text(shown(self.buf, 400)))
        self.buf = ""


class NetTable(Table):
    """A network game as the game screen sees it."""

    def __init__(
        self,
        driver: AppDriver,
        snap: Snapshot,
        *,
        networked: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``networked=False`` for ``zoo play``: the other seats are bots this machine started
        (the game still runs over loopback), so hints are offered. ``clock``: the monotonic
        seconds the clocks and the claim question count down on (a test's fake clock)."""
        super().__init__(
            names=snap.names,
            human=set() if snap.seat is None else {snap.seat},
            title=(
                (
                    "network game over Tor (your address is hidden)"
                    if snap.over_tor
                    else "network game"
                )
                if networked
                else "game against your bots"
            ),
            networked=networked,
            agreed=snap.hints,
        )
        self.driver = driver
        self.clock = clock
        self.snap = snap
        self.seat_links = None if snap.links is None else list(snap.links)
        self.shadow: State | None = snap.state
        self.presence = None
        self.floor_since = self.clock()
        self.run_over = False  # the peer's run has ended (the log is signed, saved, audited)
        self.leaving = False  # the person left (q, confirmed): the peer is stopping
        self.ended_said = False  # the ending without a final position is in the moves panel
        self.late_said: tuple[int, str, int] | None = None  # the floor our late notice was for

    def log_path(self) -> str | None:
        """Where the peer writes this game's log."""
        return self.snap.log_path

    @property
    def can_rematch(self) -> bool:
        """Once the run is over, the same command can run again: a new game, the same seats
        when they come back (bots spawned here always do; people join the new invite)."""
        return self.run_over

    def start(self) -> None:
        """Moves already played when the screen opened (a resumed game, a quick first mover, a
        joiner whose screen opened late): narrated as they would have been one by one, from
        the positions replayed from the log. A last move whose reveals are still coming is
        narrated when they came (`update`)."""
        st = self.snap.state
        if st is None or self.ui is None:
            return
        before = self.shadow
        past = settled_states(self.snap.entries)
        n = len(st.history)
        pending = st.needs is not None and n > 0 and len(past) >= n
        for i in range(n - 1 if pending else n):
            m = st.history[i]
            if i + 1 < len(past):
                self.ui.moved(past[i], past[i + 1], m)
            elif before is not None and len(before.history) == i == n - 1 and st.needs is None:
                self.ui.moved(before, st, m)  # no log to replay: the position we saw last
            else:
                self.ui.log_line(Text(move_name(m)))
        self.shadow = past[n - 1] if pending else st
        self._say_ending()

    def ended(self) -> str | None:
        """How the game ended when no final position says it (a claim, a resignation)."""
        return self.snap.ended

    def out_seats(self) -> dict[int, int]:
        """Seat -> the entry of the claim that played on and put it out (PROTOCOL.md §10.7)."""
        return dict(self.snap.out)

    def resigned_seats(self) -> dict[int, int]:
        """Seat -> the entry of its resignation, whose stand-in plays on (3–4 seats, §10.4)."""
        return dict(self.snap.resigned)

    def replaced_at(self) -> int | None:
        """The entry of the claim that put our seat out, or None."""
        return self.snap.replaced_at

    def _say_ending(self) -> None:
        if self.snap.ended is not None and not self.ended_said and self.ui is not None:
            self.ended_said = True
            self.ui.log_line(Text(self.snap.ended, style="bold"))

    def tick(self) -> bool:
        """Recompute the clocks and the claim question's count-down (once a second); True when
        they changed."""
        now = self.clock()
        asked = self.claim_tick(now)
        f, allowed = self.snap.floor, self.snap.allowed
        closed = self.run_over or self.leaving
        if f is None or allowed is None or self.snap.state is None or closed:
            changed = self.clocks is not None
            self.clocks = None
            return changed or asked
        left = max(0, int(allowed - (now - self.floor_since)))
        everyone = self.presence is not None and all(self.presence)  # else nobody can claim
        if (
            left == 0
            and f[0] == self.snap.seat
            and f[1] == "move"
            and self.late_said != f
            and everyone
        ):
            self.late_said = f  # once per floor: our own clock ran out (PROTOCOL.md §10)
            if self.ui is not None:
                self.ui.notice(
                    Text(
                        "your time for this move is up: the other seats may now claim the game "
                        "(you lose it); move now to go on",
                        style="bold yellow",
                    )
                )
        clocks = ["" for _ in self.names]
        clocks[f[0]] = f"{left // 60}:{left % 60:02d}"
        changed = clocks != self.clocks
        self.clocks = clocks
        return changed or asked

    @property
    def state(self) -> State:
        assert self.snap.state is not None
        return self.snap.state

    def update(self, snap: Snapshot) -> None:
        """New facts from the loop: narrate settled moves, then redraw."""
        if snap.floor != self.snap.floor:
            self.floor_since = self.clock()
        self.snap = snap
        if snap.links is not None:
            self.seat_links = list(snap.links)
        self.tick()
        st = snap.state
        if st is None or self.ui is None:
            return
        before = self.shadow
        if st.needs is None and before is not None and len(st.history) > len(before.history):
            new = st.history[len(before.history) :]
            if len(new) == 1:
                self.ui.moved(before, st, new[0])
            else:  # several at once (catching up): the positions between, from the log
                past = settled_states(snap.entries)
                for i, m in enumerate(new, len(before.history)):
                    if i + 1 < len(past):
                        self.ui.moved(past[i], past[i + 1], m)
                    else:
                        self.ui.log_line(Text(move_name(m)))
                self.ui.refresh_table()
            self.shadow = st
        else:
            self.ui.refresh_table()
        self._say_ending()

    def my_turn(self) -> bool:
        """Our move, unless we have left: a resigner waits (up to 2 s) for the entry with its
        resignation, and the seat's next move is its stand-in's."""
        return not self.leaving and super().my_turn()

    def submit(self, move: Move) -> str | None:
        if not self.my_turn():
            return "it is not your turn"
        from zoo_p2p.errors import IllegalMoveError

        try:
            self.state.check(move)
        except IllegalMoveError as exc:
            return str(exc)
        self.driver.send(move_name(move))
        return None

    def ending(self) -> Ending:
        verdict = self.snap.verdict or Text(
            "waiting for every seat to open its seed and sign the result…", style="yellow"
        )
        return Ending(deal=self.snap.deal, verdict=verdict, log_path=self.snap.log_path)

    def answer_claim(self, claim: bool) -> None:
        """c or w to the claim question: the loop calls the link's claim_now or claim_wait."""
        super().answer_claim(claim)
        self.driver.send("claim" if claim else "wait")

    def close(self) -> None:
        self.leaving = True
        self.driver.send("q")
