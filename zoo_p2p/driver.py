"""The driver interface: who sits at our seat and sees the game, whatever the front-end.

A peer (`zoo_p2p.net.peer.Host` or `Joiner`) runs one single-threaded loop that moves signed
entries between our protocol session and the others. It knows nothing about screens. Everything
a person or a bot sees and does goes through one object that implements `Driver`:

- the plain line mode (`zoo_p2p.cli.plain.PlainDriver`: Rich lines on stdout, moves on stdin),
- the full-screen app (`zoo_p2p.tui`),
- a bot (`zoo_p2p.cli.botdriver.BotDriver`), and `NullDriver` for observers and tests.

**Calls.** The peer calls every `on_*` method from its loop, in the loop's thread, with the link
(`GameLink`) as the way back: read `link.session` (the protocol session: `seats`, `seat`,
`state`, `floor`, `entries`), then `link.play(move)` when `link.my_turn`, `link.leave(reason)` to
stop (`link.resign_and_leave(reason)` when a person leaves for good), `link.call_later(delay,
fn)` for a timer in the loop; `link.mesh` (the direct links, or None) and `link.mesh_log_path()`
(the log file) for what a screen shows of them. A driver never blocks: the loop also relays the
other peers' entries.

- `on_lobby(seats, need)`: the lobby changed; `seats` are `(name, fingerprint, team 0..3)` rows,
  `need` the seat count. Names come from peers: show them through `zoo_p2p.text.shown()`.
- `on_started(link)`: the genesis is accepted and `link.session.state` exists.
- `on_events(events, link)`: the log grew (`events` are the protocol's `Event`s for entries from
  others; our own entries bring none, so read the state rather than count events).
- `on_turn(link)`: it is our move now (called once per turn).
- `on_presence(up, link)`: who is connected changed (`up[seat]`).
- `on_seats(seats, link)`: every seat's `SeatPresence` (connected, lost for N s, left), on
  every change and once a second while a seat is lost; `link.awaited()` then says what the game
  waits for and from whom.
- `on_notice(text)`: one sentence from the transport (a peer joined, the host is not answering…).
- `on_claim_offer(question, link) -> bool`: the floor holder's clock ran out (PROTOCOL.md
  §10). True: sign our claim vote now (`BaseDriver` does, so bots claim at once). False: the
  driver asks the person (`question.text()`), who answers with `link.claim_now()` or
  `link.claim_wait()` (one more clock period, then the question comes again); with no answer
  within one more clock period the link claims by itself.
- `on_claim_closed(text, link)`: the question is gone (the late seat answered, or nobody
  answered and the link claimed); `text` says why (`BaseDriver`: a notice).
- `on_claim_votes(question, link)`: the votes of a pending claim changed (a seat's
  vote came: `question.came`; or we signed ours: `came` empty). While the person is asked,
  `question.claims_in` is the time left before the link claims by itself: the front end
  updates its question in place; else it is None. `BaseDriver` gives a notice when a vote came.

**Every hook is part of `Driver`**, and every driver derives from `BaseDriver`, whose hooks do
nothing (or the default just said), so a driver writes only the hooks it cares about and the
peer calls each hook directly: strict mypy checks every call at this seam.

**The lobby's listener.** What else follows a hosted lobby (the LAN advert) is not a driver
but a `LobbyListener` the host is given (`HostOptions.lobby`): told the seats taken as the
lobby changes, and that the table is full before the genesis is written.

**Input.** `fds()` lists file descriptors the loop should poll for the driver (the terminal's
stdin for the plain mode); when one is readable the loop calls `on_fd(fd, link)`, which reads it
and may call `link.play(...)`. Returning False unregisters the fd (end of input).

**A front-end in another thread** (the Textual app): run the peer's loop (`link.run()`) in a
worker thread. The driver forwards each `on_*` call to the app (`App.call_from_thread`, copying
what it needs from `link.session.state` while still in the loop thread), and `fds()` returns the
read end of an `os.pipe()`. The app writes a move as one line of notation (e.g. ``5@C3\\n``, or
``q\\n`` to leave) to the write end; `on_fd` reads it in the loop thread and calls `link.play`.
The app never touches the session or the link itself. This module imports neither zmq nor any
front-end, so every front-end can implement it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from zoo_p2p.protocol.events import Event
    from zoo_p2p.protocol.session import Session
    from zoo_p2p.rules import Move

__all__ = [
    "BaseDriver",
    "ClaimQuestion",
    "DirectLinks",
    "Driver",
    "GameLink",
    "LobbyListener",
    "LobbyRow",
    "NullDriver",
    "Outcome",
    "SeatPresence",
]

log = logging.getLogger("zoo_p2p.driver")

LobbyRow = tuple[str, str, int]
"""One lobby seat as a driver sees it: (name as sent by the peer, fingerprint, team 0..3)."""


@dataclass
class Outcome:
    """How a peer's run ended: `finished` (the game reached its signed end), why, entries held;
    `never_started`: we stopped because a seat that signed nothing let its first commit's clock run
    out or left (PROTOCOL.md §3.2): no result, and nothing to resume."""

    finished: bool
    reason: str
    entries: int
    never_started: bool = False


@dataclass(frozen=True)
class SeatPresence:
    """One seat as every screen shows it: `connected`, `lost` (for `lost_for` whole seconds)
    or `left` (it said so before it went)."""

    state: str
    lost_for: int = 0


@dataclass(frozen=True)
class ClaimQuestion:
    """The question a person's front end asks when the floor holder's clock ran out: claim the
    game now, or wait. Every string is ours (seat words, never a peer's name)."""

    seat: int  # the late seat (0-based)
    who: str  # its seat word: "seat 3 (Red)"
    what: str  # what it owes: "its move", "its reveal"…
    waited: int  # whole seconds it has held the floor
    voted: tuple[str, ...] = ()  # seat words of the seats that already voted to claim
    missing: tuple[str, ...] = ()  # seat words whose vote the claim still lacks ("you" first)
    claims_in: int | None = None  # seconds before the link claims by itself (while asked)
    came: tuple[str, ...] = ()  # seat words whose vote just came (on_claim_votes)

    @property
    def needs(self) -> int:
        """How many votes the claim needs: every seat's but the late seat's."""
        return len(self.voted) + len(self.missing)

    @property
    def count(self) -> str:
        """How far the claim has come, the one count every line about its votes says: ``1 of
        2``."""
        return f"{len(self.voted)} of {self.needs}"

    @property
    def still_needed(self) -> str:
        """Whose votes the claim still lacks: ``still needed: you, seat 4 (Yellow)``."""
        return f"still needed: {', '.join(self.missing)}"

    def votes_text(self, *, capital: bool = False) -> str:
        """``claim votes 1 of 2: seat 2 (Green); still needed: you`` (``Claim …`` to begin a
        sentence); "" with no vote yet."""
        if not self.voted:
            return ""
        head = "Claim" if capital else "claim"
        return f"{head} votes {self.count}: {', '.join(self.voted)}; {self.still_needed}"

    def update_text(self) -> str:
        """One line when a vote came: ``seat 2 (Green) voted to claim the game from seat 3
        (Red): 1 of 2 votes; still needed: you`` (and, while asked, the seconds left)."""
        line = (
            f"{', '.join(self.came) or 'a seat'} voted to claim the game from {self.who}: "
            f"{self.count} votes; {self.still_needed}"
        )
        if self.claims_in is not None:
            line += f"; without an answer the game is claimed for you in {self.claims_in} s"
        return line

    def text(self, claims_in: int | None = None) -> str:
        """The whole question, with the pending claim's votes when a seat voted and the time
        left before the link claims by itself (``claims_in``: a count-down the front end keeps;
        by default the question's own)."""
        q = (
            f"{self.who} has not answered for {self.waited} s ({self.what}): "
            "claim the game now (c), or wait (w)?"
        )
        if self.voted:
            q += f" {self.votes_text(capital=True)}."
        left = self.claims_in if claims_in is None else claims_in
        if left is not None:
            q += f" Without an answer the game is claimed for you in {max(0, left)} s."
        return q


class DirectLinks(Protocol):
    """What a front end reads of a peer's direct links (`zoo_p2p.net.mesh.Mesh`)."""

    def links(self) -> dict[int, str | None]:
        """Per seat whose card came: the address of its direct link when it is up, else None."""
        ...

    def hears(self, seat: int, author: int) -> bool:
        """True when `seat`'s heads (heard on its direct link) said lately that it hears
        `author` directly."""
        ...

    def name(self, seat: int) -> str:
        """How people read a seat: `seat 2 (Blue)`."""
        ...

    @property
    def over_tor(self) -> bool:
        """True when every link goes through Tor (TRANSPORT.md §10.9)."""
        ...


class GameLink(Protocol):
    """What a driver may use of the peer that calls it (the host or a joiner)."""

    @property
    def session(self) -> Session | None:
        """Our protocol session (None until the genesis is accepted)."""
        ...

    @property
    def my_turn(self) -> bool:
        """True when we hold the floor for a move right now."""
        ...

    @property
    def stopped(self) -> Outcome | None:
        """How the run ended, once it has (the loop then stops)."""
        ...

    def play(self, move: Move) -> None:
        """Make our move (raises IllegalMoveError / LocalProtocolError if it is wrong)."""
        ...

    def leave(self, reason: str) -> None:
        """Stop the run now, unfinished, saying why."""
        ...

    def resign_and_leave(self, reason: str) -> None:
        """A person leaves for good (`q`, confirmed): resign our seat if the game is being
        played (our stand-in plays on, PROTOCOL.md §10), then leave."""
        ...

    @property
    def mesh(self) -> DirectLinks | None:
        """Our direct links to the other seats (TRANSPORT.md §10), when this peer has them."""
        ...

    def mesh_log_path(self) -> Path | None:
        """Where our log file is (None until the game has one)."""
        ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        """Run `fn` from the loop after `delay` seconds."""
        ...

    def awaited(self) -> list[tuple[int, str]]:
        """What the game waits for, from whom: [(seat index, "a move" | "a reveal" | …)]."""
        ...

    def claim_now(self) -> bool:
        """The person answered the claim question with "claim" (False: it is gone meanwhile)."""
        ...

    def claim_wait(self) -> bool:
        """The person answered "wait": one more clock period, then the question comes again."""
        ...


class Driver(Protocol):
    """Who sits at our seat and sees the game: a bot, a person (plain or full screen), a test."""

    def fds(self) -> list[int]:
        """File descriptors the loop polls for us."""
        ...

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """`fd` is readable; False to stop polling it."""
        ...

    def on_lobby(self, seats: list[LobbyRow], need: int) -> None:
        """The lobby changed."""
        ...

    def on_started(self, link: GameLink) -> None:
        """The game has started."""
        ...

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """The log grew."""
        ...

    def on_turn(self, link: GameLink) -> None:
        """It is our move."""
        ...

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Who is connected changed."""
        ...

    def on_notice(self, text: str) -> None:
        """A sentence from the transport."""
        ...

    def on_seats(self, seats: list[SeatPresence], link: GameLink) -> None:
        """Every seat's presence changed (or a lost seat's count of seconds grew)."""
        ...

    def on_claim_offer(self, question: ClaimQuestion, link: GameLink) -> bool:
        """The floor holder's clock ran out: True to sign our claim vote now, False to ask."""
        ...

    def on_claim_closed(self, text: str, link: GameLink) -> None:
        """The claim question is gone; `text` says why."""
        ...

    def on_claim_votes(self, question: ClaimQuestion, link: GameLink) -> None:
        """The votes of a pending claim changed."""
        ...


class LobbyListener(Protocol):
    """Told of a hosted table's lobby besides the driver (`HostOptions.lobby`): the LAN advert
    (`zoo_p2p.cli.lan.LanAdvert`) keeps its seat count current and goes once the table is full
    (or, when the host admits spectators, once the game is over)."""

    def lobby_changed(self, taken: int, need: int) -> None:
        """`taken` of the `need` seats are taken now."""
        ...

    def game_started(self) -> None:
        """The table is full and the host writes the genesis: nobody else can join."""
        ...


class BaseDriver:
    """Every `Driver` hook, doing nothing (or the documented default): the class every driver
    derives from, so one that lacks a hook still works and mypy sees the whole interface."""

    def fds(self) -> list[int]:
        """No extra file descriptors."""
        return []

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """Never called (no fds): stop polling."""
        return False

    def on_lobby(self, seats: list[LobbyRow], need: int) -> None:
        """Ignore the lobby."""

    def on_started(self, link: GameLink) -> None:
        """Ignore the start."""

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """Ignore events."""

    def on_turn(self, link: GameLink) -> None:
        """Play nothing."""

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Ignore presence."""

    def on_notice(self, text: str) -> None:
        """Ignore notices."""

    def on_seats(self, seats: list[SeatPresence], link: GameLink) -> None:
        """Ignore seat presence."""

    def on_claim_offer(self, question: ClaimQuestion, link: GameLink) -> bool:
        """Claim at once (bots and tests): True."""
        return True

    def on_claim_closed(self, text: str, link: GameLink) -> None:
        """Say why the question went, as a notice."""
        self.on_notice(text)

    def on_claim_votes(self, question: ClaimQuestion, link: GameLink) -> None:
        """When a seat's vote came: a notice of who voted and whose votes the claim lacks."""
        if question.came and question.missing:
            self.on_notice(
                f"{', '.join(question.came)} voted to claim the game from {question.who}; the "
                f"claim still lacks the votes of {', '.join(question.missing)}"
            )


class NullDriver(BaseDriver):
    """A driver that sees nothing and plays nothing (observers, tests); notices are logged."""

    def on_notice(self, text: str) -> None:
        """Log notices."""
        log.info("%s", text)
