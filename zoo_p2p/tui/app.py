"""The Textual application: one small app class per way ``zoo`` opens the full screen, on a
shared base.

`ZooApp` is what every one of them shares: the look, Ctrl-C, the "terminal too small" screen,
the game's end screen and its rematch, replay and leave (the screens post messages up; the app
calls down). Each mode is its own subclass, chosen once by the entry point that builds it
(zoo_p2p/tui/run.py), and opens its first screen in `open`:

- `TableApp`: a local game (``zoo play --local``), a `LocalTable` on the game screen;
- `ReplayApp`: a log stepped through on the replay screen (``zoo replay``);
- `NetworkApp`: a network game (``zoo host``, ``zoo join``, ``zoo play``): the lobby, the peer's
  loop in a worker thread, then the game screen; it implements `zoo_p2p.tui.net.NetScreen`;
- `PickApp`: ``zoo join`` with no invite: the games on the LAN, then the network game picked.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, ClassVar, cast

from rich.console import Console
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from zoo_p2p.driver import ClaimQuestion, Driver
from zoo_p2p.text import must_prove, shown
from zoo_p2p.tui.facts import ASCII, Glyphs, glyphs_for, locale_utf8
from zoo_p2p.tui.overlays import LeaveAsked, Leaves, TooSmall, too_small
from zoo_p2p.tui.table import Table

if TYPE_CHECKING:  # the screens post messages up to the app and never import it
    from zoo_p2p.tui.game import GameScreen
    from zoo_p2p.tui.lobby import LobbyScreen
    from zoo_p2p.tui.net import AppDriver, Snapshot
    from zoo_p2p.tui.over import GameOverScreen
    from zoo_p2p.tui.pick import Pick
    from zoo_p2p.tui.replay import ReplayData


def terminal_glyphs() -> Glyphs:
    """UTF-8 glyphs when the locale and the terminal's encoding can show them, else ASCII
    (Textual draws on stderr)."""
    if not locale_utf8(os.environ):
        return ASCII
    return glyphs_for(getattr(sys.__stderr__, "encoding", None))


class ZooApp(App[int]):
    """``zoo`` on the full screen, whatever it shows: the base of `TableApp`, `ReplayApp`,
    `NetworkApp` and `PickApp`. The return value is the exit code (130 after Ctrl-C)."""

    CSS_PATH = "zoo.tcss"
    TITLE = "Apocalypse at the Zoo of Carson City"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 - textual's own type
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, *, glyphs: Glyphs | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        # NO_COLOR: strip colours outright (Textual's NoColor filter) rather than turn them into
        # greys, which hide red figures on grey; marks stay as brackets, bold, reverse, underline
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        self.clock = clock  # monotonic seconds: the game's clocks and the claim count-down
        self.glyphs = glyphs or terminal_glyphs()
        self.table: Table | None = None  # the game on screen, when there is one

    def open(self) -> None:
        """Open the first screen (each mode its own)."""
        raise NotImplementedError

    def on_mount(self) -> None:
        self.open()
        self.call_after_refresh(self.check_size)

    def on_resize(self, event: events.Resize) -> None:
        self.check_size(event.size.width, event.size.height)

    def check_size(self, w: int | None = None, h: int | None = None) -> None:
        """Below the minimum size the "make the terminal at least W×H" screen covers the app;
        a resize that makes room again takes it away (nothing below it was lost)."""
        w = self.size.width if w is None else w
        h = self.size.height if h is None else h
        if isinstance(self.screen, TooSmall):
            if too_small(w, h):
                self.screen.show(w, h)
            else:
                self.pop_screen()
        elif too_small(w, h) and len(self.screen_stack) > 1:
            self.push_screen(TooSmall())

    def on_leave_asked(self, message: LeaveAsked) -> None:
        """`q` in an overlay: it has closed, and the screen below asks whether to leave."""
        screen = self.screen
        if isinstance(screen, Leaves):
            screen.action_leave_ask()

    def on_game_screen_leave(self, message: GameScreen.Leave) -> None:
        """The game screen's leave, confirmed (``GameScreen.Leave``)."""
        self.quit_game()

    def on_game_screen_over(self, message: GameScreen.Over) -> None:
        """The game has ended (``GameScreen.Over``): the end screen."""
        self.show_game_over(message.table)

    def on_game_screen_table_changed(self, message: GameScreen.TableChanged) -> None:
        """The table changed besides a move: the end screen, if it is open, follows."""
        from zoo_p2p.tui.over import GameOverScreen

        if isinstance(self.screen, GameOverScreen):
            self.screen.show()

    def on_game_over_screen_replay_asked(self, message: GameOverScreen.ReplayAsked) -> None:
        """v on the end screen: the game's log in the replay, over the end screen."""
        from zoo_p2p.errors import ZooError
        from zoo_p2p.tui.over import GameOverScreen
        from zoo_p2p.tui.replay import ReplayScreen, load

        screen = self.screen
        try:
            data = load(message.path)
        except (ZooError, OSError) as exc:
            if isinstance(screen, GameOverScreen):
                screen.say(Text(f"cannot replay the log: {shown(str(exc), 200)}", style="red"))
            return
        self.push_screen(ReplayScreen(data, self.glyphs, back=True))

    def show_game_over(self, table: Table) -> None:
        """Open the game-over screen; act on what it is dismissed with."""
        from zoo_p2p.tui.over import GameOverScreen

        def after(choice: str | None) -> None:
            if choice == "quit":
                self.quit_game()
            elif choice == "rematch":
                self.rematch(table)

        self.push_screen(GameOverScreen(table, self.glyphs), after)

    def rematch(self, table: Table) -> None:
        """r on the end screen: a new game with the same seats (each mode its own way)."""

    def quit_game(self) -> None:
        """Leave the game (asked for and confirmed)."""
        if self.table is not None:
            self.table.close()
        self.exit(0)

    def say(self, text: Text) -> None:
        """A message from the app itself, on the game screen when one is open."""
        if self.table is not None and self.table.ui is not None:
            self.table.ui.notice(text)

    def interrupted(self) -> None:
        """Ctrl-C is leaving: what this mode does first (a network game tells its peer)."""

    def action_interrupt(self) -> None:
        """Ctrl-C: leave at once with exit code 130. In a network game that is a plain leave,
        as Ctrl-C in ``--plain`` is: the log can be resumed; only a confirmed ``q`` resigns.

        With text selected (the invite, dragged over with the mouse) Ctrl-C is the terminal's
        copy key: it copies, and leaves nothing; pressed again with nothing selected, it leaves."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            said = "copied the selected text (Ctrl-C with nothing selected leaves)"
            self.say(Text(said, style="green"))
            return
        self.interrupted()
        if self.table is not None:
            self.table.close()
        self.exit(130)


class TableApp(ZooApp):
    """A local game (``zoo play --local``): the game screen on ``table``, then the end screen
    and its rematch."""

    def __init__(
        self,
        table: Table,
        *,
        glyphs: Glyphs | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(glyphs=glyphs, clock=clock)
        self.table = table

    def open(self) -> None:
        from zoo_p2p.tui.game import GameScreen

        assert self.table is not None  # given to __init__
        self.push_screen(GameScreen(self.table, self.glyphs))

    def rematch(self, table: Table) -> None:
        """The same seats in a new game, in place of the old one."""
        new = table.rematch()
        if new is not None:
            from zoo_p2p.tui.game import GameScreen

            table.close()
            self.table = new
            self.switch_screen(GameScreen(new, self.glyphs))


class ReplayApp(ZooApp):
    """A log in the replay screen (``zoo replay``; ``analyse``: (plies, seed) to score every
    move with the expert bot)."""

    def __init__(
        self,
        data: ReplayData,
        *,
        analyse: tuple[int, int] | None = None,
        glyphs: Glyphs | None = None,
    ) -> None:
        super().__init__(glyphs=glyphs)
        self.replay_data = data
        self.analyse = analyse

    def open(self) -> None:
        from zoo_p2p.tui.replay import ReplayScreen

        self.push_screen(ReplayScreen(self.replay_data, self.glyphs, self.analyse))


class NetworkApp(ZooApp):
    """A network game: the lobby while the peer's loop (``network(driver, console)``, the CLI's
    runner) runs in a worker thread, then the game screen on a `NetTable`. The driver reports
    through the ``net_*`` methods (`zoo_p2p.tui.net.NetScreen`). With no ``network`` nothing is
    started: the tests drive the ``net_*`` methods themselves."""

    def __init__(
        self,
        network: Callable[[Driver, Console], int] | None = None,
        *,
        networked: bool = True,
        glyphs: Glyphs | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(glyphs=glyphs, clock=clock)
        self.network = network
        self.networked = networked  # False: the network game's other seats are our own bots
        self.net_code: int | None = None
        self.net_driver: AppDriver | None = None  # set when the network run starts
        self.lobby: LobbyScreen | None = None
        self.pending_notes: list[Text] = []
        self.runner_lines: list[Text] = []
        self.started_at = 0
        self.leaving = False
        self.last_presence: list[bool] | None = None
        self.last_seats: tuple[list[str], str | None] | None = None
        self.close_after = 5.0  # seconds the lobby stays once a game that never started ends

    def open(self) -> None:
        if self.network is not None:
            self.start_network(self.network)

    def rematch(self, table: Table) -> None:
        """Run the same command's peer again with a fresh driver: a new game."""
        if self.network is None:
            return
        if self.net_driver is not None:
            self.net_driver.close()
        self.table = None
        self.net_code = None
        self.last_presence = None
        self.last_seats = None
        self.pending_notes = []
        self.runner_lines = []
        self.started_at = 0
        self.leaving = False
        self.start_network(self.network)

    def quit_game(self) -> None:
        """Leave the game (asked for and confirmed): first let the peer stop and save its log
        (bounded: 10 s), then leave with the runner's exit code."""
        if self.table is not None:
            self.table.close()
        if self.net_driver is not None and self.net_code is None:
            self.leaving = True
            self.net_notice(Text("leaving: saving the log…", style="bold"))
            self.set_timer(10, lambda: self.exit(1))
            return
        self.exit(self.net_code if self.net_code is not None else 0)

    def say(self, text: Text) -> None:
        self.net_notice(text)

    def interrupted(self) -> None:
        """Ctrl-C: the peer is told before the table's own "q", which would resign."""
        if self.net_driver is not None:
            from zoo_p2p.tui.net import INTERRUPT

            self.net_driver.send(INTERRUPT)

    def on_lobby_screen_leave(self, message: LobbyScreen.Leave) -> None:
        """Leaving from the lobby (``LobbyScreen.Leave``)."""
        self.leave_network()

    def start_network(self, start: Callable[[Driver, Console], int]) -> None:
        """Show the lobby and run the peer (``start(driver, console)``) in a worker thread."""
        from zoo_p2p.tui.lobby import LobbyScreen
        from zoo_p2p.tui.net import AppDriver, NoticeFile

        driver = AppDriver(self)
        self.net_driver = driver
        self.lobby = LobbyScreen(self.glyphs)
        if self.screen_stack[1:]:
            self.switch_screen(self.lobby)  # a rematch: the lobby takes the old game's place
        else:
            self.push_screen(self.lobby)

        lines = self.runner_lines

        def post(text: Text) -> None:
            lines.append(text)  # shown again on the terminal after the app closes
            if self.is_running:
                with contextlib.suppress(RuntimeError):
                    self.call_from_thread(self.net_notice, text)

        console = Console(
            file=cast(IO[str], NoticeFile(post)), width=100, color_system=None, soft_wrap=True
        )

        def run() -> None:
            code = 1
            try:
                code = start(driver, console)
            except SystemExit as exc:  # typer.Exit / sys.exit from the runner: keep its code
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException as exc:  # the runner's own error: one line, no traceback
                post(Text(f"error: {exc}", style="red"))
            finally:
                console.file.flush()
                if self.is_running:
                    with contextlib.suppress(RuntimeError):
                        self.call_from_thread(self.net_done, code)

        self.run_worker(run, thread=True, name="peer-loop", exit_on_error=False)

    # ------------------------------------------------------------------ NetScreen
    def net_lobby(self, rows: list[tuple[str, str, int]], need: int) -> None:
        """The lobby changed."""
        if self.lobby is not None:
            self.lobby.show_lobby(rows, need)

    def net_started(self, snap: Snapshot) -> None:
        """The game started: the game screen takes over from the lobby."""
        from zoo_p2p.tui.game import GameScreen
        from zoo_p2p.tui.net import NetTable

        if snap.state is None or self.table is not None:
            return
        self.started_at = len(self.runner_lines)
        assert self.net_driver is not None  # the run that posted `snap` set it
        self.table = NetTable(self.net_driver, snap, networked=self.networked, clock=self.clock)
        self.table.presence = self.last_presence
        if self.last_seats is not None:
            self.table.seat_notes, self.table.awaiting = self.last_seats
        screen = GameScreen(self.table, self.glyphs)
        self.switch_screen(screen)
        for note in self.pending_notes[-2:]:
            screen.notice(note)

    def net_update(self, snap: Snapshot) -> None:
        """The log grew, or it is our turn."""
        from zoo_p2p.tui.net import NetTable

        if isinstance(self.table, NetTable):
            self.table.update(snap)
        elif snap.state is not None:
            self.net_started(snap)

    def net_presence(self, up: list[bool]) -> None:
        """Who is connected (kept for the table when it comes before the game starts)."""
        self.last_presence = up
        if self.table is not None:
            self.table.presence = up
            if self.table.ui is not None:
                self.table.ui.refresh_table()

    def net_seats(self, notes: list[str], awaiting: str | None) -> None:
        """Seats lost or gone, and what the game waits for from whom."""
        self.last_seats = (notes, awaiting)
        if self.table is not None:
            self.table.seat_notes, self.table.awaiting = notes, awaiting
            if self.table.ui is not None:
                self.table.ui.refresh_table()

    def net_notice(self, text: Text) -> None:
        """A message from the link or the runner (once: the same words again in a row, as a
        transport notice and its log record say them, are not repeated)."""
        if self.pending_notes and self.pending_notes[-1].plain == text.plain:
            return
        self.pending_notes.append(text)
        if self.table is not None and self.table.ui is not None:
            self.table.ui.notice(text)
        elif self.lobby is not None:
            self.lobby.add_line(text)

    def net_claim(self, question: ClaimQuestion | None) -> None:
        """The claim question comes (c claims, w waits) or goes (None)."""
        if self.table is None:
            return
        self.table.show_claim(question, self.clock())
        if self.table.ui is not None:
            if question is not None:  # once, without the votes and count-down the panel keeps
                self.table.ui.notice(
                    Text(
                        f"{question.who} has not answered for {question.waited} s "
                        f"({question.what}): claim the game now (c), or wait (w)? "
                        "(the seats panel shows the votes and the time left)",
                        style="bold yellow",
                    )
                )
            self.table.ui.refresh_table()

    def net_claim_votes(self, question: ClaimQuestion) -> None:
        """A claim vote came: the open question changes in place (no new message); with no
        question open (the person waits, or has claimed), one message says whose vote came."""
        if self.table is None:
            return
        if self.table.claim is not None and question.claims_in is not None:
            self.table.show_claim(question, self.clock())
        elif question.came:
            self.net_notice(Text(shown(question.update_text(), 400), style="cyan"))
        if self.table.ui is not None:
            self.table.ui.refresh_table()

    def net_done(self, code: int) -> None:
        """The peer's run ended (finished, left, or failed): keep the screen until q."""
        self.net_code = code
        if self.leaving:
            self.exit(code)
            return
        from zoo_p2p.tui.net import NetTable

        if isinstance(self.table, NetTable):
            self.table.run_over = True
            self.table.question = None
            if self.table.ui is not None:
                self.table.ui.refresh_table()
        if self.table is None or self.table.ui is None:
            if self.lobby is not None:
                # the game never started (the join gave up, a wrong fingerprint, an error):
                # nothing is left to do here, so the app closes by itself; the reason stays
                # on the terminal (the runner's lines are printed again once it has closed)
                self.lobby.show_closed()
                wait = self.close_after
                self.lobby.add_line(
                    Text(
                        f"the game link has closed: the app closes by itself in {wait:.0f} s "
                        "(q closes it now); what happened stays on the terminal",
                        style="bold",
                    )
                )
                if wait > 0:
                    self.set_timer(wait, lambda: self.exit(code))
                else:
                    self.call_later(self.exit, code)
        else:
            self.table.ui.notice(Text("the game link has closed", style="bold"))

    def leave_network(self) -> None:
        """q in the lobby (or after the game): stop the peer and leave."""
        if self.net_driver is not None and self.net_code is None:
            self.net_driver.send("q")
        self.exit(self.net_code if self.net_code is not None else 0)


class PickApp(NetworkApp):
    """``zoo join`` with no invite: the games on the LAN, browsed live; the one picked (or an
    invite pasted) starts the join, as a `NetworkApp` from there on."""

    def __init__(
        self,
        pick: Pick,
        *,
        glyphs: Glyphs | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(glyphs=glyphs, clock=clock)
        self.pick = pick
        self.picked: str | None = None

    def open(self) -> None:
        from zoo_p2p.tui.pick import PickScreen

        pick = self.pick
        screen = PickScreen(
            pick.source,
            pick.check,
            bound=pick.bound,
            clock=pick.clock,
            glyphs=self.glyphs,
            watch=pick.watch,
        )

        def after(invite: str | None) -> None:
            if invite is None:
                self.runner_lines.append(Text("no game picked", style="red"))
                self.exit(1)
                return
            self.picked = invite
            game = screen.chosen
            line = None
            if game is not None and game.invite == invite:  # as plain mode says it (the check
                # itself is the joiner's: the host's signed welcome must match, TRANSPORT.md §2)
                line = Text(must_prove(game.name, game.fingerprint))
                self.runner_lines.append(line)
            self.network = pick.start(invite)
            self.start_network(self.network)
            if line is not None:
                self.net_notice(line)

        self.push_screen(screen, after)
