"""The plain line mode: a person at a terminal (or a pipe, a screen reader, a script).

`PlainDriver` implements `zoo_p2p.driver.Driver` with Rich lines on stdout and moves typed on
stdin. `ConsoleDriver` is what it shares with the bot driver: the lobby, presence and notices
printed to a console (or nothing, when quiet).
"""

from __future__ import annotations

import codecs
import logging
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from zoo_p2p.bots.analysis import Hint, HintRefused, hint, hint_refusal
from zoo_p2p.cli.render import (
    describe_move,
    hint_text,
    render_board,
    render_scores,
    seat_label,
)
from zoo_p2p.driver import BaseDriver, ClaimQuestion, GameLink, LobbyRow, SeatPresence
from zoo_p2p.errors import IllegalMoveError, LocalProtocolError, NotationError
from zoo_p2p.protocol.events import CheatDetected, Event
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, State, move_name, parse_move
from zoo_p2p.text import lobby_waiting, out_note, resigned_note, seat_word, shown

TEAMS = ("yellow", "blue", "green", "red")


def seat_name(session: Session, seat: int | None) -> str:
    """'name (Team)' of a seat, or 'an observer'."""
    if seat is None:
        return "an observer"
    info = session.seats[seat]
    return f"{shown(info.name, 40)} ({info.team.label})"


HELP = (
    "Type a move like 5@C3 (send your 5 onto C3) or C3-C4 (step); "
    "'?' lists your legal moves, 'x' asks the expert (where hints are allowed), "
    "'b' shows the board and the legend, 'q' leaves."
)
PROMPT_HINT = "(e.g. 5@C3, C3-C4; ? moves, x hint, b board, q quit): "
PROMPT_NO_HINT = "(e.g. 5@C3, C3-C4; ? moves, b board, q quit): "
"""The prompt where hints are refused (`hint_refusal`): it offers no key that cannot work."""
QUIT_WORDS = ("q", "quit", "exit")
CLAIM_PROMPT = "claim the game now (c), or wait (w)? "
CLAIM_WORDS = ("c", "claim")
WAIT_WORDS = ("w", "wait")


def clock_line(move_seconds: int) -> str:
    """The table's clock, said once when the game starts (the line mode draws no clock)."""
    return (
        f"clock: {move_seconds} s for each move; a seat that takes longer may lose the game "
        "(the others may claim it)"
    )


def prompt_text(who: str | None = None, *, hints: bool = True) -> Text:
    """The one move prompt of the line mode: 'Your move (…): ' or 'NAME, your move (…): ';
    ``x hint`` only where hints are offered (``hints``)."""
    head = "Your move" if who is None else f"{who}, your move"
    return Text.assemble((head, "bold green"), " ", PROMPT_HINT if hints else PROMPT_NO_HINT)


@dataclass
class Line:
    """What a typed line asks for: kind is move, hint, expert, board, quit, empty or error."""

    kind: str
    move: Move | None = None
    error: str = ""


def read_line(text: str, state: State | None) -> Line:
    """Classify one typed line; a move is parsed and checked against `state` (the seat to
    move is the one typing)."""
    t = text.strip()
    low = t.lower()
    if not t:
        return Line("empty")
    if low in QUIT_WORDS:
        return Line("quit")
    if low in ("b", "board"):
        return Line("board")
    if t in ("?", "h", "help"):
        return Line("hint")
    if low in ("x", "expert"):
        return Line("expert")
    if state is None:
        return Line("error", error="the game has not started yet")
    try:
        move = parse_move(t)
        state.check(move)
    except (NotationError, IllegalMoveError) as exc:
        return Line("error", error=str(exc))
    return Line("move", move=move)


QUIT_CONFIRM = "Leave the game? Type y to leave, anything else to stay: "

THINKING = "the expert is thinking\u2026"


def position_key(state: State) -> tuple[int, bytes]:
    """What identifies a position: a hint is for that position only."""
    return len(state.history), state.digest()


def expert_hint(
    state: State, *, networked: bool, people: int, say: Callable[[Text], None]
) -> Hint | None:
    """'x' where waiting is harmless (a local game in this process, the person's own turn):
    the expert's move for the seat to move, said with ``say``, or why hints are off here."""
    try:
        why = hint_refusal(networked=networked, people=people)
        if why is not None:
            raise HintRefused(why)
        say(Text(THINKING, style="dim"))
        got = hint(state, networked=networked, people=people)
    except HintRefused as exc:
        say(Text(str(exc), style="yellow"))
        return None
    if got is not None:
        say(Text(got.describe(), style="bold"))
    return got


class ConsoleDriver(BaseDriver):
    """A driver that shows the lobby, presence and notices on a console, and plays nothing."""

    def __init__(self, console: Console | None) -> None:
        self.console = console
        self._states: list[str] | None = None  # seat presence as last shown (on_seats)
        self._stalled: list[int] = []  # awaited seats that were not connected, as last shown
        self._seen: set[int] = set()  # seats seen connected in this run
        self._resumed = False  # a resumed game: a seat not seen yet has not come back yet
        self.shown_notices: list[str] = []  # the last notices printed (the closing lines
        # do not print an ending again that a notice already showed on this console)

    def fds(self) -> list[int]:
        """No file descriptors by default."""
        return []

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """Unused by default."""
        return False

    def say(self, *parts: str | Text) -> None:
        """Print if we have a console."""
        if self.console is not None:
            self.console.print(*parts)

    def on_lobby(self, seats: list[LobbyRow], need: int) -> None:
        """Show the lobby."""
        if self.console is None:
            return
        t = Table(title=f"lobby: {len(seats)} of {need} seats", show_edge=False)
        t.add_column("seat")
        t.add_column("name")
        t.add_column("fingerprint")
        t.add_column("team")
        for i, (name, fp, team) in enumerate(seats):
            t.add_row(
                str(i + 1),
                Text(shown(name, 40)),
                Text(shown(fp, 40)),
                Text(TEAMS[team % 4].capitalize(), style=TEAMS[team % 4]),
            )
        self.console.print(t)
        self.console.print(lobby_waiting(len(seats), need))

    def on_started(self, link: GameLink) -> None:
        """Nothing."""

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """Nothing."""

    def on_turn(self, link: GameLink) -> None:
        """Nothing."""

    def on_seats(self, seats: list[SeatPresence], link: GameLink) -> None:
        """Say when a seat is lost, has left or is back, and what the game waits for from whom
        (a move, a reveal, a reconnect…). Only state changes are shown, not the ticking count."""
        s = link.session
        states = [st.state for st in seats]
        # a seat lost while others still had moves to make: say so again when the game reaches it
        awaited = link.awaited()
        stalled = [i for i, _ in awaited if i < len(seats) and seats[i].state != "connected"]
        if s is None or self.console is None or (states, stalled) == (self._states, self._stalled):
            return
        if s.ending is not None:  # claimed or resigned: nobody is awaited
            return
        self._states, self._stalled = states, stalled
        self._seen |= {i for i, st in enumerate(seats) if st.state == "connected"}
        gone = [
            f"{seat_name(s, i)} {self._away_words(i, st.state)}"
            for i, st in enumerate(seats)
            if st.state != "connected" and i < len(s.seats)
        ]
        if not gone:
            self.say(Text("everyone is connected", style="green"))
            return
        waits = [  # never "waiting for you": the prompt says whose move it is (as in the app)
            f"waiting for {seat_name(s, i)}: {what}" for i, what in awaited if i != s.seat
        ]
        self.say(Text("; ".join(gone + waits), style="yellow"))

    def _away_words(self, seat: int, state: str) -> str:
        """Why a seat is not here: it left, it was here and its link went, or (a resumed game)
        it has not come back yet: never "lost the connection" for a seat that never had one."""
        if state == "left":
            return "has left"
        if self._resumed and seat not in self._seen:
            return "is not connected yet"
        return "lost the connection"

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Say who is missing when it changes (unless on_seats already said it better)."""
        s = link.session
        if s is None or self.console is None or self._states is not None:
            return
        missing = [i for i, u in enumerate(up) if not u]
        if missing:
            names = ", ".join(seat_name(s, i) for i in missing)
            self.say(Text(f"waiting for {names}", style="yellow"))
        else:
            self.say(Text("everyone is connected", style="green"))

    def on_notice(self, text: str) -> None:
        """Print a notice."""
        self.say(Text(shown(text, 500), style="cyan"))
        if self.console is not None:
            self.shown_notices = [*self.shown_notices[-19:], text]


MAX_LINE = 1024  # characters in one typed line; a longer one is dropped with a message


class PlainDriver(ConsoleDriver):
    """A person at the terminal: board after every change, moves typed on stdin.

    A message that arrives while the prompt waits starts on a line of its own, and the prompt
    comes back after it; every command (`?`, `b`, a refused move) ends with the prompt again
    when it is our turn; `q` asks before it leaves.
    """

    def __init__(
        self,
        console: Console,
        stdin_fd: int | None = None,
        *,
        networked: bool = True,
        ask_claims: bool | None = None,
    ) -> None:
        """``networked``: a game with other people over the network (no hints); False for
        ``zoo play``, where every other seat is a bot this command started. ``ask_claims``:
        ask before claiming a game whose floor holder's clock ran out (PROTOCOL.md §10); by
        default only a person at a terminal is asked (a pipe, a script or --quiet claims at
        once, as bots do)."""
        super().__init__(console)
        self.con = console
        self.stdin_fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        if ask_claims is None:
            ask_claims = os.isatty(self.stdin_fd) and not console.quiet
        self.ask_claims = ask_claims
        self.claim_asked = False  # the claim question is open: c claims, w waits
        self.shadow: State | None = None
        self.shown_moves = 0
        self.at_prompt = False  # the cursor sits after a prompt: a message needs a new line
        self.confirming = False  # 'q' was typed: the next line says whether to leave
        self.recap: list[Text] = []
        self.have_moved = False  # our seat has moved (the recap says "since your last move")
        self.late_for: int | None = None  # the log length our move clock's timer was set at
        self.clock_runs = 0  # timers set so far: only the newest may speak
        self.pending = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.skipping = False  # inside a line longer than MAX_LINE: dropped up to its newline
        self.quit = False
        self.link: GameLink | None = None
        self.networked = networked
        self.agreed = False  # the genesis allows hints (PROTOCOL.md §3.2), set when it starts
        # the expert's hint ('x'): searched in a thread, its result announced through a pipe
        # the loop polls, so the loop (and the game, the clocks, the bots) never waits for it
        self.hint_pipe: tuple[int, int] | None = None
        self.hint_key: tuple[int, bytes] | None = None
        self.hint_stop = threading.Event()
        self.hint_results: dict[tuple[int, bytes], Hint | str | None] = {}  # set by searches
        self.hint_said: Hint | None = None
        self.hints_dropped = 0

    def fds(self) -> list[int]:
        """Poll stdin and the pipe a finished hint writes to (a networked game learns from its
        genesis, later, whether hints are offered)."""
        if self.hint_pipe is None:
            self.hint_pipe = os.pipe()
        return [self.stdin_fd, self.hint_pipe[0]]

    # ----- output: never on the prompt line --------------------------------------------
    def out(self, *parts: str | Text | RenderableType) -> None:
        """Print on a line of our own (after a prompt, a new line first)."""
        if self.at_prompt:
            self.con.print()
            self.at_prompt = False
        self.con.print(*parts)

    def end_prompt(self) -> None:
        """The run is over: what follows (the closing lines) starts on a line of its own."""
        if self.at_prompt:
            self.con.print()
            self.at_prompt = False

    def say(self, *parts: str | Text) -> None:
        """A message from the transport: on its own line, then the prompt again if it was up."""
        was_up = self.at_prompt
        self.out(*parts)
        if was_up and self.link is not None:
            self.prompt(self.link)

    def prompt(self, link: GameLink) -> None:
        """Show the move prompt when it is our turn (or the leave question)."""
        if self.at_prompt:
            return
        if self.confirming:
            self.con.print(Text(QUIT_CONFIRM, style="bold"), end="")
            self.at_prompt = True
        elif self.claim_asked and not link.my_turn:
            self.con.print(Text(CLAIM_PROMPT, style="bold yellow"), end="")
            self.at_prompt = True
        elif link.my_turn:
            hints = hint_refusal(networked=self.networked, agreed=self.agreed) is None
            self.con.print(prompt_text(hints=hints), end="")
            self.at_prompt = True

    @staticmethod
    def names(session: Session) -> list[str]:
        """Seat names from the genesis (shown literally)."""
        return [shown(s.name, 40) for s in session.seats]

    # ----- driver calls ------------------------------------------------------------------
    def on_started(self, link: GameLink) -> None:
        """Announce our seat and the first player, show the board with its legend."""
        self.link = link
        s = link.session
        assert s is not None and s.state is not None
        self.agreed = s.genesis.hints
        self.shadow = s.state.clone()
        self.shown_moves = len(s.state.history)
        self.have_moved = self.shown_moves > 0  # resumed: most likely we moved before
        self._resumed = self.shown_moves > 0
        me = seat_name(s, s.seat)
        if s.seat is not None and s.seats[s.seat].name == "you":  # zoo play: not "You are you"
            me = seat_word(s.seat, s.seats[s.seat].team.label)
        self.out(Text(f"You are {me}. {HELP}", style="bold"))
        if s.genesis.has_clocks:  # PROTOCOL.md §10: the line mode shows no clock, so say it once
            self.out(clock_line(s.genesis.clocks.move))
        self.out(render_board(s.state, self.names(s), me=s.seat, legend=True))
        who = seat_label(s.state, s.state.to_move, self.names(s))
        played = len(s.state.history)
        if played:  # resumed (or a rematch's catch-up): the first mover is long past
            self.out(
                Text.assemble(f"{played} move{'' if played == 1 else 's'} played; to move: ", who)
            )
        else:
            self.out(Text.assemble("first to move: ", who))

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """Narrate new moves and reveals, redraw, and end with the breakdown."""
        self.link = link
        s = link.session
        if s is None or s.state is None:
            return
        for ev in events:
            if isinstance(ev, CheatDetected):
                self.out(
                    Text(
                        f"CHEATING by {seat_name(s, ev.seat)}: {shown(ev.reason)}",
                        style="bold red",
                    )
                )
        for p in s.played_on_in(events):  # a claim that played on (PROTOCOL.md §10.7)
            self.out(Text(shown(p.describe(s.seats), 300), style="bold yellow"))
        self.refresh(link)

    def refresh(self, link: GameLink) -> None:
        """Show what changed since the last time (state-based, so our own entries count too)."""
        s = link.session
        assert s is not None and s.state is not None
        st = s.state
        if self.shadow is None or st.needs is not None or len(st.history) == self.shown_moves:
            return
        names = self.names(s)
        new = st.history[self.shown_moves :]
        mover = self.shadow.to_move
        if len(new) == 1:
            lines = describe_move(self.shadow, st, new[0], names, me=s.seat)
            for line in lines:
                self.out(line)
            if mover != s.seat:
                self.recap.append(Text(" · ").append_text(Text("; ").join(lines)))
            else:
                self.have_moved = True
        else:
            self.out("moves: " + ", ".join(move_name(m) for m in new))
            self.recap.append(Text(" · moves: " + ", ".join(move_name(m) for m in new)))
        self.shown_moves = len(st.history)
        self.shadow = st.clone()
        self.forget_hint()
        self.out(render_board(st, names, me=s.seat, last=new[-1]))
        if st.is_terminal():
            self.out(Text.assemble("Game over: ", seat_name(s, st.to_move), " cannot act."))
            self.out(render_scores(st, names))
            self.out("signing the result with the other peers…")
            return
        if not link.my_turn:
            if st.to_move in s.out:  # its stand-in moves by the frozen rule (§10.7.6)
                self.out(
                    Text(
                        f"{seat_name(s, st.to_move)} to move ({out_note(s.out[st.to_move])})…",
                        style="dim",
                    )
                )
            elif st.to_move in s.resigned:  # 3–4 seats: its stand-in moves (§10.4)
                note = resigned_note(s.resigned[st.to_move])
                self.out(Text(f"{seat_name(s, st.to_move)} to move ({note})…", style="dim"))
            else:
                self.out(Text(f"{seat_name(s, st.to_move)} to move…", style="dim"))

    def on_turn(self, link: GameLink) -> None:
        """Recap the others' moves since ours (when several), then prompt."""
        self.link = link
        self.refresh(link)
        if len(self.recap) > 1:
            since = "since your last move:" if self.have_moved else "before your first move:"
            self.out(Text(since, style="bold"))
            for line in self.recap:
                self.out(line)
        self.recap = []
        self.prompt(link)
        self.arm_clock(link)

    def all_connected(self) -> bool:
        """Every seat is connected, as last shown (nobody can claim while a seat is away)."""
        return self._states is not None and all(x == "connected" for x in self._states)

    def arm_clock(self, link: GameLink, *, again: bool = False) -> None:
        """On our turn to move, a timer for our move clock (once per turn; ``again``: restart
        it, every seat being back)."""
        s = link.session
        f = None if s is None else s.floor
        if s is None or f is None or f.seat != s.seat or str(f.kind) != "move":
            return
        allowed = s.time_allowed()
        at = len(s.entries)
        if allowed is None or (self.late_for == at and not again):
            return
        self.late_for = at  # on_turn may come again for the same turn (presence…)
        self.clock_runs += 1
        run = self.clock_runs
        link.call_later(allowed, lambda: self.time_up(link, at, run))

    def time_up(self, link: GameLink, at: int, run: int) -> None:
        """Our move clock ran out and we have not moved: say what that means, once."""
        s = link.session
        if s is None or s.finished or len(s.entries) != at or not link.my_turn:
            return
        if run != self.clock_runs or not self.all_connected():  # restarted, or nobody to claim
            return
        self.say(
            Text(
                "your time for this move is up: the other seats may now claim the game "
                "(you lose it); move now to go on",
                style="bold yellow",
            )
        )

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Say who is missing (on its own line; the prompt comes back)."""
        self.link = link
        super().on_presence(up, link)

    def on_seats(self, seats: list[SeatPresence], link: GameLink) -> None:
        """Say who is lost or has left and what we wait for (the prompt comes back); once every
        seat is back (a resumed game: the host came), our move clock starts again."""
        self.link = link
        was = self.all_connected()
        super().on_seats(seats, link)
        if self.all_connected() and not was and link.my_turn:
            self.arm_clock(link, again=True)

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """Read what was typed (unbuffered, so pasted lines all count) and handle each line."""
        self.link = link
        if self.hint_pipe is not None and fd == self.hint_pipe[0]:
            os.read(fd, 64)
            self.hint_arrived(link)
            return True
        data = os.read(fd, 4096)
        if not data:
            self.quit = True
            link.leave("you left (end of input)")
            return False
        # linear in what is typed or pasted: what is kept never exceeds one bounded line
        self.pending += self.decoder.decode(data)
        while link.stopped is None:
            nl = self.pending.find("\n")
            if nl < 0:
                if len(self.pending) > MAX_LINE:
                    self.pending = ""
                    if not self.skipping:
                        self.skipping = True
                        self.out(f"a line longer than {MAX_LINE} characters is ignored")
                break
            line, self.pending = self.pending[:nl], self.pending[nl + 1 :]
            if self.skipping or len(line) > MAX_LINE:
                if not self.skipping:
                    self.out(f"a line longer than {MAX_LINE} characters is ignored")
                self.skipping = False
                self.prompt(link)
                continue
            self.on_line(line, link)
        return True

    def on_claim_offer(self, question: ClaimQuestion, link: GameLink) -> bool:
        """The floor holder's clock ran out: ask (c claims, w waits), or claim at once when
        nobody is at a terminal to answer."""
        if not self.ask_claims:
            return True
        self.link = link
        self.claim_asked = True
        self.out(Text(shown(question.text(), 400), style="bold yellow"))
        self.prompt(link)
        return False

    def on_claim_closed(self, text: str, link: GameLink) -> None:
        """The question is gone: the late seat answered, or nobody did and the link claims."""
        self.claim_asked = False
        self.out(Text(shown(text, 300), style="cyan"))
        self.prompt(link)

    def on_claim_votes(self, question: ClaimQuestion, link: GameLink) -> None:
        """A seat's claim vote came: one line says whose, how many the claim has of how many it
        needs, and (while we are asked) the seconds left before it is claimed for us; the
        prompt comes back after it. Our own vote was said by the claim's own line."""
        self.link = link
        if not question.came:
            return
        self.say(Text(shown(question.update_text(), 400), style="cyan"))

    def on_line(self, line: str, link: GameLink) -> None:
        """One typed line (its Enter ended the prompt line)."""
        self.at_prompt = False
        s = link.session
        answer = line.strip().lower()
        if self.claim_asked and not self.confirming and answer in CLAIM_WORDS + WAIT_WORDS:
            self.claim_asked = False
            (link.claim_now if answer in CLAIM_WORDS else link.claim_wait)()
            self.prompt(link)
            return
        if self.confirming:
            self.confirming = False
            if line.strip().lower() in ("y", "yes", *QUIT_WORDS):
                link.resign_and_leave("you left the game")
                return
            self.out("staying in the game")
            self.prompt(link)
            return
        cmd = read_line(line, s.state if s is not None else None)
        if cmd.kind == "quit":
            self.confirming = True
            self.prompt(link)
            return
        if s is None or s.state is None:
            self.out("the game has not started yet")
            return
        if cmd.kind == "board":
            self.out(render_board(s.state, self.names(s), me=s.seat, legend=True))
        elif cmd.kind == "hint":
            if link.my_turn:
                self.out(hint_text(s.state))
            else:
                self.out(HELP)
        elif cmd.kind == "expert":
            self.ask_expert(s.state, link)
        elif cmd.kind == "empty":
            pass
        elif not link.my_turn:
            who = seat_name(s, s.floor.seat) if s.floor is not None else "the others"
            self.out(Text(f"not your turn — waiting for {who}", style="yellow"))
        elif cmd.kind == "error":
            self.out(Text(cmd.error, style="red"))
        else:
            assert cmd.move is not None
            try:
                link.play(cmd.move)
            except (IllegalMoveError, LocalProtocolError) as exc:
                self.out(Text(str(exc), style="red"))
            else:
                self.refresh(link)
        self.prompt(link)

    # ----- the expert's hint ---------------------------------------------------------------
    def ask_expert(self, state: State, link: GameLink) -> None:
        """'x': start the expert's search for our position (or say why hints are off)."""
        why = hint_refusal(networked=self.networked, agreed=self.agreed)
        if why is not None:
            self.out(Text(why, style="yellow"))
            return
        if not link.my_turn:
            self.out(Text("a hint is for your own turn", style="yellow"))
            return
        key = position_key(state)
        if key == self.hint_key:
            said = self.hint_said
            self.out(Text(THINKING, style="dim") if said is None else self.hint_line(said))
            return
        if self.hint_pipe is None:
            self.fds()
        assert self.hint_pipe is not None
        self.forget_hint()
        self.hint_key = key
        stop = self.hint_stop = threading.Event()
        wfd = self.hint_pipe[1]
        pub = state.public()
        networked, agreed = self.networked, self.agreed
        results = self.hint_results

        def search() -> None:
            result: Hint | str | None
            try:
                result = hint(pub, networked=networked, agreed=agreed, stop=stop.is_set)
            except HintRefused as exc:
                result = str(exc)
            except Exception as exc:  # pragma: no cover - a bug in the search: say it
                result = f"the expert failed: {exc}"
            results[key] = result
            os.write(wfd, b"h")

        threading.Thread(target=search, name="expert-hint", daemon=True).start()
        self.out(Text(THINKING, style="dim"))

    def hint_arrived(self, link: GameLink) -> None:
        """In the loop thread: searches ended; say the move if the position is still ours."""
        s = link.session
        here = None if s is None or s.state is None else position_key(s.state)
        for key in list(self.hint_results):
            result = self.hint_results.pop(key)
            if key != self.hint_key or key != here or result is None or not link.my_turn:
                self.hints_dropped += 1
            elif isinstance(result, str):
                self.hint_key = None
                self.out(Text(result, style="yellow"))
                self.prompt(link)
            else:
                self.hint_said = result
                self.out(self.hint_line(result))
                self.prompt(link)

    @staticmethod
    def hint_line(got: Hint) -> Text:
        """The expert's move as the line mode says it."""
        return Text(got.describe(), style="bold")

    def forget_hint(self) -> None:
        """The position changed: a search still running stops, its result will be dropped."""
        self.hint_stop.set()
        self.hint_key = None
        self.hint_said = None


class SayHandler(logging.Handler):
    """Log records shown through a driver's `say` (so a warning never lands on the prompt
    line): for the line mode when stdout and stderr are one terminal."""

    def __init__(self, driver: ConsoleDriver) -> None:
        super().__init__()
        self.driver = driver
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        """Show one record, literally, dimmed."""
        try:
            self.driver.say(Text(shown(self.format(record), 500), style="dim"))
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)
