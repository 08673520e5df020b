"""The plain line mode: a person at a terminal (or a pipe, a screen reader, a script).

`PlainDriver` implements `zoo_p2p.driver.Driver` with Rich lines on stdout and moves typed on
stdin. `ConsoleDriver` is what it shares with the bot driver: the lobby, presence and notices
printed to a console (or nothing, when quiet).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from zoo_p2p.cli.render import describe_move, render_board, render_scores, seat_label
from zoo_p2p.driver import GameLink, LobbyRow
from zoo_p2p.errors import IllegalMoveError, LocalProtocolError, NotationError
from zoo_p2p.protocol.events import CheatDetected, Event
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, Send, State, parse_move, square_name

TEAMS = ("yellow", "blue", "green", "red")


def seat_name(session: Session, seat: int | None) -> str:
    """'name (Team)' of a seat, or 'an observer'."""
    if seat is None:
        return "an observer"
    info = session.seats[seat]
    return f"{info.name} ({info.team.label})"


class ConsoleDriver:
    """A driver that shows the lobby, presence and notices on a console, and plays nothing."""

    def __init__(self, console: Console | None) -> None:
        self.console = console

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
            t.add_row(str(i + 1), name, fp, Text(TEAMS[team], style=TEAMS[team]))
        self.console.print(t)

    def on_started(self, link: GameLink) -> None:
        """Nothing."""

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """Nothing."""

    def on_turn(self, link: GameLink) -> None:
        """Nothing."""

    def on_presence(self, up: list[bool], link: GameLink) -> None:
        """Say who is missing when it changes."""
        s = link.session
        if s is None or self.console is None:
            return
        missing = [i for i, u in enumerate(up) if not u]
        if missing:
            names = ", ".join(seat_name(s, i) for i in missing)
            self.say(Text(f"waiting for {names}", style="yellow"))
        else:
            self.say(Text("everyone is connected", style="green"))

    def on_notice(self, text: str) -> None:
        """Print a notice."""
        self.say(Text(text, style="cyan"))


def hint_text(moves: Sequence[Move]) -> str:
    """Legal moves, compact: sends grouped by the squares they may go to, then the steps."""
    by_value: dict[int, list[str]] = {}
    steps: list[str] = []
    for m in moves:
        if isinstance(m, Send):
            by_value.setdefault(m.value, []).append(square_name(m.to))
        else:
            steps.append(str(m))
    lines: list[str] = []
    groups: dict[tuple[str, ...], list[int]] = {}
    for value, squares in by_value.items():
        groups.setdefault(tuple(squares), []).append(value)
    for group, values in groups.items():
        vals = "/".join(str(v) for v in values)
        where = "any square showing a zoo card" if len(group) >= 20 else " ".join(group)
        lines.append(f"send {vals} onto {where} (e.g. {values[0]}@{group[0]})")
    if steps:
        lines.append("steps: " + " ".join(steps))
    return "legal: " + ("\n       ".join(lines) if lines else "none")


class PlainDriver(ConsoleDriver):
    """A person at the terminal: board after every change, moves typed on stdin."""

    def __init__(self, console: Console, stdin_fd: int | None = None) -> None:
        super().__init__(console)
        self.con = console
        self.stdin_fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        self.shadow: State | None = None
        self.shown_moves = 0
        self.prompted = False
        self.recap: list[Text] = []
        self.pending = ""
        self.quit = False

    def fds(self) -> list[int]:
        """Poll stdin."""
        return [self.stdin_fd]

    @staticmethod
    def names(session: Session) -> list[str]:
        """Seat names from the genesis."""
        return [s.name for s in session.seats]

    def on_started(self, link: GameLink) -> None:
        """Announce the first player and show the board."""
        s = link.session
        assert s is not None and s.state is not None
        self.shadow = s.state.clone()
        self.shown_moves = len(s.state.history)
        self.con.print(
            Text(
                f"You are {seat_name(s, s.seat)}. Type a move like 5@C3 or C3-C4, "
                "'?' for hints, 'b' for the board, 'q' to quit.",
                style="bold",
            )
        )
        self.con.print(render_board(s.state, self.names(s), me=s.seat))
        self.con.print("first to move: ", seat_label(s.state, s.state.to_move, self.names(s)))

    def on_events(self, events: list[Event], link: GameLink) -> None:
        """Narrate new moves and reveals, redraw, and end with the breakdown."""
        s = link.session
        if s is None or s.state is None:
            return
        for ev in events:
            if isinstance(ev, CheatDetected):
                self.con.print(
                    Text(f"CHEATING by {seat_name(s, ev.seat)}: {ev.reason}", style="bold red")
                )
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
            lines = describe_move(self.shadow, st, new[0], names)
            for line in lines:
                self.con.print(line)
            if mover != s.seat:
                self.recap.append(Text(" · ").append_text(Text("; ").join(lines)))
        else:
            self.con.print("moves: " + ", ".join(str(m) for m in new))
            self.recap.append(Text(" · moves: " + ", ".join(str(m) for m in new)))
        self.shown_moves = len(st.history)
        self.shadow = st.clone()
        self.prompted = False
        if st.is_terminal():
            self.con.print(render_board(st, names, me=s.seat, last=new[-1]))
            self.con.print(Text.assemble("Game over: ", seat_name(s, st.to_move), " cannot act."))
            self.con.print(render_scores(st, names))
            self.con.print("signing the result with the other peers…")
            return
        self.con.print(render_board(st, names, me=s.seat, last=new[-1]))
        if not link.my_turn:
            self.con.print(Text(f"{seat_name(s, st.to_move)} to move…", style="dim"))

    def on_turn(self, link: GameLink) -> None:
        """Recap the others' moves since ours (when several), then prompt."""
        self.refresh(link)
        if len(self.recap) > 1:
            self.con.print(Text("since your last move:", style="bold"))
            for line in self.recap:
                self.con.print(line)
        self.recap = []
        self.con.print(
            Text("Your move", style="bold green"), "(e.g. 5@C3, C3-C4; ? for hints): ", end=""
        )
        self.prompted = True

    def on_fd(self, fd: int, link: GameLink) -> bool:
        """Read what was typed (unbuffered, so pasted lines all count) and handle each line."""
        data = os.read(fd, 4096)
        if not data:
            self.quit = True
            link.leave("you left (end of input)")
            return False
        self.pending += data.decode(errors="replace")
        while "\n" in self.pending and link.stopped is None:
            line, self.pending = self.pending.split("\n", 1)
            self.on_line(line, link)
        return True

    def on_line(self, line: str, link: GameLink) -> bool:
        """One typed line."""
        text = line.strip()
        s = link.session
        if text.lower() in ("q", "quit", "exit"):
            link.leave("you left the game")
            return True
        if s is None or s.state is None:
            self.con.print("the game has not started yet")
            return True
        if text.lower() in ("b", "board"):
            self.con.print(render_board(s.state, self.names(s), me=s.seat))
            return True
        if text in ("?", "h", "help"):
            if link.my_turn:
                self.con.print(hint_text(s.state.legal_moves()))
            else:
                self.con.print(
                    "moves: send '5@C3' (a character from your hand onto C3) or step 'C3-C4'"
                )
            self._reprompt(link)
            return True
        if not text:
            self._reprompt(link)
            return True
        if not link.my_turn:
            who = seat_name(s, s.floor.seat) if s.floor is not None else "the others"
            self.con.print(Text(f"not your turn — waiting for {who}", style="yellow"))
            return True
        try:
            move = parse_move(text)
            s.state.check(move)
            link.play(move)
            self.refresh(link)
        except (NotationError, IllegalMoveError, LocalProtocolError) as exc:
            self.con.print(Text(str(exc), style="red"))
            self._reprompt(link)
        return True

    def _reprompt(self, link: GameLink) -> None:
        if link.my_turn:
            self.con.print(Text("Your move: ", style="bold green"), end="")
