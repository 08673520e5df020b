"""The plain line mode's defects of issue 10, each held by a test: prompts, `b`, `q`, wording,
the legend, hints that mark captures and mutant risk, peer-supplied names shown literally."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from typer.testing import CliRunner

from zoo_p2p.cli.app import app
from zoo_p2p.cli.plain import ConsoleDriver, PlainDriver
from zoo_p2p.cli.render import describe_move, hint_text, render_board
from zoo_p2p.driver import SeatPresence
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.rules import KnownDeal, Move, State, Step, Team, Variant, move_name

# a networked game whose genesis does not allow hints: the prompt offers no `x` (it cannot work)
PROMPT = "Your move (e.g. 5@C3, C3-C4; ? moves, b board, q quit): "
PROMPT_WITH_HINT = "Your move (e.g. 5@C3, C3-C4; ? moves, x hint, b board, q quit): "


@dataclass
class FakeGenesis:
    hints: bool = False  # the genesis allows hints (PROTOCOL.md §3.2)
    has_clocks: bool = False  # the genesis carries the seats' clocks (PROTOCOL.md §10)
    clocks: Clocks = field(default_factory=Clocks)


@dataclass
class FakeSession:
    state: State
    seat: int = 0
    floor: None = None
    ending: object | None = None  # the game ended without a final position (claimed, resigned)
    seats: list[SeatInfo] = field(default_factory=list)
    genesis: FakeGenesis = field(default_factory=FakeGenesis)
    out: dict[int, int] = field(default_factory=dict)  # no seat was claimed out (§10.7)
    resigned: dict[int, int] = field(default_factory=dict)  # no seat resigned (§10.4)

    def played_on_in(self, events: list[object]) -> list[object]:
        return []


@dataclass
class FakeLink:
    session: FakeSession
    my_turn: bool = True
    stopped: str | None = None
    played: list[Move] = field(default_factory=list)
    waits: list[tuple[int, str]] = field(default_factory=list)

    def play(self, move: Move) -> None:
        self.played.append(move)
        self.my_turn = False

    def leave(self, reason: str) -> None:
        self.stopped = reason

    def resign_and_leave(self, reason: str) -> None:
        self.stopped = reason  # no game being played here: nothing to resign

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        fn()

    def awaited(self) -> list[tuple[int, str]]:
        return list(self.waits)


def _game(seed: int = 1) -> State:
    deal = KnownDeal.random(random.Random(seed), Variant.STANDARD)
    return deal.new_state([Team.YELLOW, Team.BLUE], first_seat=0)


def _driver() -> tuple[PlainDriver, FakeLink, io.StringIO]:
    out = io.StringIO()
    con = Console(file=out, width=100, no_color=True, highlight=False)
    state = _game()
    seats = [SeatInfo("you", bytes(32), Team.YELLOW), SeatInfo("[/]\x1b[31m", bytes(32), Team.BLUE)]
    link = FakeLink(FakeSession(state.public(), seats=seats))
    d = PlainDriver(con, stdin_fd=0)
    d.on_started(link)  # type: ignore[arg-type]
    d.on_turn(link)  # type: ignore[arg-type]
    return d, link, out


def test_a_message_never_lands_on_the_prompt_line_and_the_prompt_comes_back() -> None:
    d, link, out = _driver()
    assert out.getvalue().endswith(PROMPT)
    d.on_notice("everyone is connected")
    d.on_presence([True, False], link)  # type: ignore[arg-type]
    text = out.getvalue()
    assert PROMPT + "\neveryone is connected\n" + PROMPT in text
    assert "waiting for [/]\\u001b[31m (Blue)\n" + PROMPT in text  # literal, no markup, no ESC
    assert text.endswith(PROMPT)


def test_a_logged_warning_also_keeps_off_the_prompt_line() -> None:
    import logging

    from zoo_p2p.cli.plain import SayHandler

    d, _link, out = _driver()
    log = logging.getLogger("zoo_p2p.test_plain")
    log.propagate = False
    log.addHandler(SayHandler(d))
    log.warning("dropped entry 7 from [host]")
    assert out.getvalue().endswith(
        PROMPT + "\nWARNING zoo_p2p.test_plain: dropped entry 7 from [host]\n" + PROMPT
    )


def test_b_and_question_mark_end_with_the_prompt_and_the_legend_explains_the_columns() -> None:
    d, link, out = _driver()
    for line in ("b", "?", "Z9", ""):
        start = len(out.getvalue())
        d.on_line(line, link)  # type: ignore[arg-type]
        assert out.getvalue().endswith(PROMPT), line
        assert out.getvalue()[start:].count(PROMPT) == 1, line
    text = " ".join(out.getvalue().split())
    assert "'*' you" in text and "23 points from 7 Zoo cards taken" in text
    assert "'Z9' is not a move" in text


def test_q_asks_before_leaving() -> None:
    d, link, out = _driver()
    d.on_line("q", link)  # type: ignore[arg-type]
    assert link.stopped is None and out.getvalue().endswith("anything else to stay: ")
    d.on_line("n", link)  # type: ignore[arg-type]
    assert link.stopped is None and out.getvalue().endswith(PROMPT)
    d.on_line("q", link)  # type: ignore[arg-type]
    d.on_line("y", link)  # type: ignore[arg-type]
    assert link.stopped == "you left the game"


def test_lobby_names_are_shown_literally() -> None:
    out = io.StringIO()
    d = ConsoleDriver(Console(file=out, width=120, no_color=True))
    d.on_lobby([("[/]", "AB-CD", 0), ("[link=http://x]host[/link]", "EF", 1)], 3)
    assert "[/]" in out.getvalue() and "[link=http://x]host[/link]" in out.getvalue()
    assert "Yellow" in out.getvalue() and "Blue" in out.getvalue()  # teams as every screen says
    assert "yellow" not in out.getvalue()


def _plain(r: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, no_color=True).print(r)
    return out.getvalue()


def test_wording_of_moves_mutants_and_the_mutant_count() -> None:
    """'You send 5@C3', 'your 5 is lost', 'Blue's 4' / 'your 4', never 'you (Yellow) sends'."""
    rng = random.Random(7)
    names = ["you", "bot"]
    seen_mutant = seen_you_lose = False
    for game in range(30):
        state = KnownDeal.random(rng, Variant.STANDARD).new_state(
            [Team.YELLOW, Team.BLUE], first_seat=game % 2
        )
        while not state.is_terminal():
            move = rng.choice(state.legal_moves())
            before = state.clone()
            state.apply(move)
            text = " ".join(
                _plain(t) for t in describe_move(before, state, move, names, me=0)
            ).replace("\n", " ")
            assert "you (Yellow)" not in text and "sends your" not in text, text
            if before.to_move == 0:
                assert re.match(r"You (send \d@[A-E]\d|move your \d [A-E]\d-[A-E]\d)", text), text
            if "MUTANT" in text:
                seen_mutant = True
                if before.to_move == 0:
                    seen_you_lose = True
                    assert re.search(r"was a MUTANT: your \d is lost", text), text
                else:
                    assert re.search(r"was a MUTANT: their \d is lost", text), text
        board = _plain(render_board(state, names, me=0))
        found = len(state.mutants_found)
        assert (f"mutants: {found} of 4 found (the " in board) or (
            found == 0 and "none of the 4 found yet" in board
        ), board
        if seen_you_lose:
            break
    assert seen_mutant and seen_you_lose


def test_hints_mark_character_captures_and_mutant_risk() -> None:
    state = _game(3)
    assert "mutant risk when you take a 0: 1 in 10" in hint_text(state)
    rng = random.Random(3)
    for _ in range(20):
        state = KnownDeal.random(rng, Variant.STANDARD).new_state([Team.YELLOW, Team.BLUE])
        while not state.is_terminal():
            takes = [
                m
                for m in state.legal_moves()
                if isinstance(m, Step) and state.top(m.to).kind == "character"
            ]
            if takes:
                victim = state.teams[state.top(takes[0].to).seat or 0].label
                assert f"{takes[0]} (takes {victim}'s " in hint_text(state)
                return
            state.apply(rng.choice(state.legal_moves()))
    raise AssertionError("no position with a character capture found")


def test_hotseat_has_the_same_prompt_b_and_q() -> None:
    r = CliRunner().invoke(
        app, ["play", "--local", "--hotseat", "2", "--seed", "3"], input="b\nq\nn\nq\ny\n"
    )
    out = r.output
    assert r.exit_code == 1, out
    assert re.search(r"player [12] \((Yellow|Blue)\), your move \(e\.g\. 5@C3", out), out
    assert "'*' you" in " ".join(out.split())  # the board with its legend after 'b'
    assert "staying in the game" in out and "You left the game." in out


def test_the_prompt_offers_x_hint_only_where_a_hint_can_be_had() -> None:
    # a networked game: only when its genesis allows hints
    for allowed, prompt in ((False, PROMPT), (True, PROMPT_WITH_HINT)):
        out = io.StringIO()
        seats = [SeatInfo("you", bytes(32), Team.YELLOW), SeatInfo("bo", bytes(32), Team.BLUE)]
        session = FakeSession(_game().public(), seats=seats, genesis=FakeGenesis(hints=allowed))
        link = FakeLink(session)
        d = PlainDriver(Console(file=out, width=100, no_color=True), stdin_fd=0)
        d.on_started(link)  # type: ignore[arg-type]
        d.on_turn(link)  # type: ignore[arg-type]
        assert out.getvalue().endswith(prompt), (allowed, out.getvalue()[-200:])
    # one person against bots: offered; two people at one terminal: not
    solo = CliRunner().invoke(app, ["play", "--local", "--seed", "3"], input="q\ny\n")
    assert "x hint" in solo.output, solo.output
    hotseat = CliRunner().invoke(
        app, ["play", "--local", "--hotseat", "2", "--seed", "3"], input="q\ny\n"
    )
    assert "your move (e.g. 5@C3" in hotseat.output and "x hint" not in hotseat.output


def test_a_huge_pasted_line_is_dropped_in_linear_time_and_the_next_line_counts() -> None:
    """16 MB without a newline once cost 49 s of CPU (the buffer grew and was rescanned); now
    the driver never holds more than one bounded line, and the next line is a move."""
    import os

    from zoo_p2p.cli.plain import MAX_LINE

    d, link, out = _driver()
    r, w = os.pipe()
    d.stdin_fd = r
    move = link.session.state.legal_moves()[0]
    junk = b"x" * (16 * 1024 * 1024)
    fed = 0
    longest = 0
    os.set_blocking(w, False)
    while fed < len(junk):
        fed += os.write(w, junk[fed : fed + 65536])
        while True:
            try:
                os.set_blocking(r, False)
                d.on_fd(r, link)  # type: ignore[arg-type]
            except BlockingIOError:
                break
            longest = max(longest, len(d.pending))
    os.write(w, b"\n" + f"{move}\n".encode())
    os.set_blocking(r, True)
    d.on_fd(r, link)  # type: ignore[arg-type]
    os.close(w)
    os.close(r)
    assert longest <= MAX_LINE + 4096
    assert f"a line longer than {MAX_LINE} characters is ignored" in out.getvalue()
    assert out.getvalue().count("is ignored") == 1
    assert link.played == [move]


def test_a_resumed_game_says_who_moves_now_not_who_moved_first() -> None:
    state = _game()
    first = state.to_move
    state.apply(state.legal_moves()[0])
    out = io.StringIO()
    seats = [SeatInfo("host", bytes(32), Team.YELLOW), SeatInfo("player", bytes(32), Team.BLUE)]
    link = FakeLink(FakeSession(state.public(), seat=1 - first, seats=seats))
    PlainDriver(Console(file=out, width=100, no_color=True), stdin_fd=0).on_started(link)  # type: ignore[arg-type]
    text = out.getvalue()
    assert "first to move" not in text
    assert f"1 move played; to move: {['host', 'player'][1 - first]}" in text


def test_after_a_resignation_ended_the_game_a_link_going_away_is_not_news() -> None:
    """The host heard 'seat 2 (Blue) resigned', then 'player (Blue) lost the connection'."""
    from zoo_p2p.driver import SeatPresence

    d, link, out = _driver()
    lost = [SeatPresence("connected"), SeatPresence("lost", 1)]
    d.on_seats(lost, link)  # type: ignore[arg-type]
    assert "lost the connection" in out.getvalue()  # while the game runs, it is news
    d2, link2, out2 = _driver()
    link2.session.ending = object()  # resigned: the game is over
    d2.on_seats(lost, link2)  # type: ignore[arg-type]
    assert "lost the connection" not in out2.getvalue()


def test_a_seat_lost_before_its_turn_is_named_again_when_the_game_waits_for_it() -> None:
    """CI saw this: the host noticed the loss while another seat was to move ("waiting for you"),
    then the game reached the lost seat and nothing more was said, since no seat changed state."""
    from zoo_p2p.driver import SeatPresence

    d, link, out = _driver()
    link.waits = [(0, "a move")]
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 1)], link)  # type: ignore[arg-type]
    assert "(Blue) lost the connection\n" in out.getvalue()
    assert "waiting for you" not in out.getvalue()  # our own move: the prompt says so (as the app)
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 2)], link)  # type: ignore[arg-type]
    assert out.getvalue().count("lost the connection") == 1  # the ticking count is not news
    link.waits = [(1, "a reconnect")]  # the game has come to the lost seat
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 3)], link)  # type: ignore[arg-type]
    assert out.getvalue().count("lost the connection") == 2
    assert "waiting for" in out.getvalue().rsplit("lost the connection", 1)[1]
    assert ": a reconnect" in out.getvalue()
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 4)], link)  # type: ignore[arg-type]
    assert out.getvalue().count("lost the connection") == 2


def test_zoo_play_names_your_seat_not_you_are_you() -> None:
    """`zoo play` names the person's seat "you": the line mode said "You are you (Yellow)."."""
    out = io.StringIO()
    seats = [
        SeatInfo("you", bytes(32), Team.YELLOW),
        SeatInfo("greedy bot 1", bytes(32), Team.BLUE),
    ]
    link = FakeLink(FakeSession(_game().public(), seats=seats))
    PlainDriver(Console(file=out, width=200, no_color=True), stdin_fd=0).on_started(link)  # type: ignore[arg-type]
    assert "You are seat 1 (Yellow)." in out.getvalue() and "You are you" not in out.getvalue()
    out2 = io.StringIO()
    seats[0] = SeatInfo("ann", bytes(32), Team.YELLOW)
    link2 = FakeLink(FakeSession(_game().public(), seats=seats))
    PlainDriver(Console(file=out2, width=200, no_color=True), stdin_fd=0).on_started(link2)  # type: ignore[arg-type]
    assert "You are ann (Yellow)." in out2.getvalue()


def test_the_lobby_says_how_many_players_it_still_waits_for() -> None:
    """A joiner's lobby said only "2 of 3 seats": nothing said that the game waits for one
    more player and starts by itself when every seat is taken."""
    out = io.StringIO()
    d = ConsoleDriver(Console(file=out, width=120, no_color=True))
    d.on_lobby([("alice", "AB-CD", 0), ("bob", "EF-GH", 1)], 3)
    assert "waiting for 1 more player to join" in out.getvalue()
    d.on_lobby([("alice", "AB-CD", 0)], 4)
    assert "waiting for 3 more players to join" in out.getvalue()
    d.on_lobby([("alice", "AB-CD", 0), ("bob", "EF-GH", 1)], 2)
    assert out.getvalue().rstrip().endswith("every seat is taken: the game is starting")


def test_the_line_mode_says_the_move_clock_once_at_the_start() -> None:
    """The line mode draws no clock: a joiner at a `--move-time 10` table sat at its prompt with
    nothing saying that after 10 s the others may claim the game from it."""
    out = io.StringIO()
    con = Console(file=out, width=120, no_color=True, highlight=False)
    seats = [SeatInfo("you", bytes(32), Team.YELLOW), SeatInfo("bo", bytes(32), Team.BLUE)]
    genesis = FakeGenesis(has_clocks=True, clocks=Clocks(10, 15))
    link = FakeLink(FakeSession(_game().public(), seats=seats, genesis=genesis))
    PlainDriver(con, stdin_fd=0).on_started(link)  # type: ignore[arg-type]
    assert out.getvalue().count("clock: 10 s for each move") == 1
    assert "may claim it" in out.getvalue()
    old = io.StringIO()  # a genesis without clocks (from before §10) says nothing of a clock
    d = PlainDriver(Console(file=old, width=120, no_color=True), stdin_fd=0)
    d.on_started(FakeLink(FakeSession(_game().public(), seats=seats)))  # type: ignore[arg-type]
    assert "clock:" not in old.getvalue()


def test_the_recap_before_our_first_move_does_not_say_since_our_last_move() -> None:
    """`zoo play --plain --bots 2`: both bots moved first and the recap began "since your last
    move:" before we had moved at all."""
    out = io.StringIO()
    con = Console(file=out, width=120, no_color=True, highlight=False)
    deal = KnownDeal.random(random.Random(3), Variant.STANDARD)
    st = deal.new_state([Team.YELLOW, Team.BLUE, Team.GREEN], first_seat=1)
    seats = [SeatInfo(n, bytes(32), t) for n, t in zip("abc", st.teams, strict=True)]
    link = FakeLink(FakeSession(st, seats=seats), my_turn=False)
    d = PlainDriver(con, stdin_fd=0)
    d.on_started(link)  # type: ignore[arg-type]

    def others_then_us() -> str:
        start = len(out.getvalue())
        for _ in range(2):  # the other two seats move
            link.my_turn = False
            st.apply(st.legal_moves()[0])
            d.on_events([], link)  # type: ignore[arg-type]
        link.my_turn = True
        d.on_turn(link)  # type: ignore[arg-type]
        return out.getvalue()[start:]

    first = others_then_us()
    assert "before your first move:" in first and "since your last move" not in first, first
    ours = st.legal_moves()[0]
    d.on_line(move_name(ours), link)  # type: ignore[arg-type]
    assert link.played == [ours]
    st.apply(ours)
    d.on_events([], link)  # type: ignore[arg-type]
    later = others_then_us()
    assert "since your last move:" in later and "before your first move" not in later, later


@dataclass
class _Floor:
    seat: int
    kind: str


@dataclass
class _ClockSession(FakeSession):
    entries: list[bytes] = field(default_factory=lambda: [b""] * 5)
    finished: bool = False

    def time_allowed(self) -> int:
        return 20


@dataclass
class _TimerLink(FakeLink):
    timers: list[tuple[float, Callable[[], None]]] = field(default_factory=list)

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        self.timers.append((delay, fn))  # run by the test: "later", without sleeping


def test_the_line_mode_says_when_our_own_move_clock_ran_out() -> None:
    """The line mode draws no clock: a joiner's prompt sat there while the others were asked
    to claim the game from it."""
    for moved in (False, True):
        out = io.StringIO()
        con = Console(file=out, width=160, no_color=True, highlight=False)
        seats = [SeatInfo("me", bytes(32), Team.YELLOW), SeatInfo("bo", bytes(32), Team.BLUE)]
        session = _ClockSession(_game().public(), seats=seats)
        session.floor = _Floor(0, "move")  # type: ignore[assignment]
        link = _TimerLink(session)  # type: ignore[arg-type]
        d = PlainDriver(con, stdin_fd=0)
        d.on_started(link)  # type: ignore[arg-type]
        d.on_seats([SeatPresence("connected")] * 2, link)  # type: ignore[arg-type]
        d.on_turn(link)  # type: ignore[arg-type]
        d.on_turn(link)  # type: ignore[arg-type]  # again (a presence change): one timer
        assert [delay for delay, _ in link.timers] == [20]
        if moved:
            session.entries.append(b"")  # our move went out meanwhile
        link.timers[0][1]()
        told = "your time for this move is up" in out.getvalue()
        assert told is not moved, out.getvalue()
        if not moved:
            assert out.getvalue().endswith(PROMPT)  # and the prompt comes back


def test_no_time_is_up_while_a_seat_is_away() -> None:
    """`zoo resume` of a joiner while the host is not back: nobody can claim, yet the line mode
    said "your time for this move is up"; once every seat is back the clock starts again."""
    out = io.StringIO()
    con = Console(file=out, width=160, no_color=True, highlight=False)
    seats = [SeatInfo("me", bytes(32), Team.YELLOW), SeatInfo("bo", bytes(32), Team.BLUE)]
    session = _ClockSession(_game().public(), seats=seats, seat=1)
    session.floor = _Floor(1, "move")  # type: ignore[assignment]
    link = _TimerLink(session)  # type: ignore[arg-type]
    d = PlainDriver(con, stdin_fd=0)
    d.on_started(link)  # type: ignore[arg-type]
    d.on_seats([SeatPresence("lost", 3), SeatPresence("connected")], link)  # type: ignore[arg-type]
    d.on_turn(link)  # type: ignore[arg-type]
    link.timers[-1][1]()  # the 20 s passed with the host away
    assert "your time for this move is up" not in out.getvalue()
    d.on_seats([SeatPresence("connected")] * 2, link)  # type: ignore[arg-type]  # it is back
    assert len(link.timers) == 2
    link.timers[0][1]()  # the first timer is superseded: silent
    assert "your time for this move is up" not in out.getvalue()
    link.timers[1][1]()
    assert out.getvalue().count("your time for this move is up") == 1


def test_a_resumed_game_says_a_seat_is_not_back_yet_not_that_it_lost_the_connection() -> None:
    """A walkthrough resumed a game and read "greedy bot 1 (Blue) lost the connection" before
    its bot had even started: in a resumed game a seat not seen yet is not connected *yet*."""
    from zoo_p2p.driver import SeatPresence

    state = _game()
    state.apply(state.legal_moves()[0])  # a move played: this run resumes the game
    seats = [SeatInfo("host", bytes(32), Team.YELLOW), SeatInfo("bot", bytes(32), Team.BLUE)]
    link = FakeLink(FakeSession(state.public(), seat=0, seats=seats))
    out = io.StringIO()
    d = PlainDriver(Console(file=out, width=100, no_color=True), stdin_fd=0)
    d.on_started(link)  # type: ignore[arg-type]
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 1)], link)  # type: ignore[arg-type]
    assert "bot (Blue) is not connected yet" in out.getvalue(), out.getvalue()
    assert "lost the connection" not in out.getvalue()
    d.on_seats([SeatPresence("connected"), SeatPresence("connected")], link)  # type: ignore[arg-type]
    d.on_seats([SeatPresence("connected"), SeatPresence("lost", 1)], link)  # type: ignore[arg-type]
    assert "bot (Blue) lost the connection" in out.getvalue()  # it was here: now it is news
