"""The Textual application: one app for the game, game over, rematch and replay."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any, ClassVar, cast

from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType

from zoo_p2p.driver import ClaimQuestion, Driver
from zoo_p2p.text import must_prove, shown
from zoo_p2p.tui.facts import ASCII, Glyphs, glyphs_for, locale_utf8
from zoo_p2p.tui.table import Table


def terminal_glyphs() -> Glyphs:
    """UTF-8 glyphs when the locale and the terminal's encoding can show them, else ASCII
    (Textual draws on stderr)."""
    if not locale_utf8(os.environ):
        return ASCII
    return glyphs_for(getattr(sys.__stderr__, "encoding", None))


class ZooApp(App[int]):
    """``zoo`` on the full screen. The return value is the exit code (130 after Ctrl-C)."""

    CSS_PATH = "zoo.tcss"
    TITLE = "Apocalypse at the Zoo of Carson City"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 - textual's own type
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        table: Table | None = None,
        replay: Any = None,
        network: Callable[[Driver, Console], int] | None = None,
        analyse: tuple[int, int] | None = None,
        glyphs: Glyphs | None = None,
        pick: Any = None,
        networked: bool = True,
    ) -> None:
        # NO_COLOR: strip colours outright (Textual's NoColor filter) rather than turn them into
        # greys, which hide red figures on grey; marks stay as brackets, bold, reverse, underline
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        self.analyse = analyse
        self.table = table
        self.replay_data = replay
        self.network = network
        self.networked = networked  # False: the network game's other seats are our own bots
        self.pick = pick  # zoo_p2p.tui.pick.Pick: browse the LAN and pick before the network runs
        self.picked: str | None = None
        self.glyphs = glyphs or terminal_glyphs()
        self.net_code: int | None = None
        self.net_driver: Any = None
        self.lobby: Any = None
        self.pending_notes: list[Text] = []
        self.runner_lines: list[Text] = []
        self.started_at = 0
        self.leaving = False
        self.last_presence: list[bool] | None = None
        self.last_seats: tuple[list[str], str | None] | None = None

    def on_mount(self) -> None:
        if self.pick is not None:
            self.show_pick()
        elif self.network is not None:
            self.start_network(self.network)
        elif self.table is not None:
            from zoo_p2p.tui.game import GameScreen

            self.push_screen(GameScreen(self.table, self.glyphs))
        elif self.replay_data is not None:
            from zoo_p2p.tui.replay import ReplayScreen

            self.push_screen(ReplayScreen(self.replay_data, self.glyphs, self.analyse))

    def show_game_over(self, table: Table) -> None:
        """Open the game-over screen; act on what it is dismissed with."""
        from zoo_p2p.tui.over import GameOverScreen

        def after(choice: str | None) -> None:
            if choice == "quit":
                self.quit_game()
            elif choice == "rematch" and self.network is not None:
                self.rematch_network()
            elif choice == "rematch":
                new = table.rematch()
                if new is not None:
                    from zoo_p2p.tui.game import GameScreen

                    table.close()
                    self.table = new
                    self.switch_screen(GameScreen(new, self.glyphs))

        self.push_screen(GameOverScreen(table, self.glyphs), after)

    def quit_game(self) -> None:
        """Leave the game (asked for and confirmed). A network game first lets the peer stop
        and save its log (bounded: 10 s), then leaves with the runner's exit code."""
        if self.table is not None:
            self.table.close()
        if self.net_driver is not None and self.net_code is None:
            self.leaving = True
            self.net_notice(Text("leaving: saving the log…", style="bold"))
            self.set_timer(10, lambda: self.exit(1))
            return
        self.exit(self.net_code if self.net_code is not None else 0)

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
            self.net_notice(Text(said, style="green"))
            return
        if self.net_driver is not None:
            from zoo_p2p.tui.net import INTERRUPT

            self.net_driver.send(INTERRUPT)  # before the table's own "q", which would resign
        if self.table is not None:
            self.table.close()
        self.exit(130)

    # ------------------------------------------------------------------ network games
    def show_pick(self) -> None:
        """The games on the LAN, browsed live; the one picked (or an invite pasted) starts the
        join."""
        from zoo_p2p.tui.pick import PickScreen

        pick = self.pick
        screen = PickScreen(pick.source, pick.check, bound=pick.bound, clock=pick.clock)

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

    def rematch_network(self) -> None:
        """Run the same command's peer again with a fresh driver: a new game."""
        assert self.network is not None
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

    def net_lobby(self, rows: list[tuple[str, str, int]], need: int) -> None:
        """The lobby changed."""
        if self.lobby is not None:
            self.lobby.show_lobby(rows, need)

    def net_started(self, snap: Any) -> None:
        """The game started: the game screen takes over from the lobby."""
        from zoo_p2p.tui.game import GameScreen
        from zoo_p2p.tui.net import NetTable

        if snap.state is None or self.table is not None:
            return
        self.started_at = len(self.runner_lines)
        self.table = NetTable(self.net_driver, snap, networked=self.networked)
        self.table.presence = self.last_presence
        if self.last_seats is not None:
            self.table.seat_notes, self.table.awaiting = self.last_seats
        screen = GameScreen(self.table, self.glyphs)
        self.switch_screen(screen)
        for note in self.pending_notes[-2:]:
            screen.notice(note)

    def net_update(self, snap: Any) -> None:
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
        self.table.show_claim(question, time.monotonic())
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
            self.table.show_claim(question, time.monotonic())
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
                self.lobby.show_closed()
                self.lobby.add_line(
                    Text("the game link has closed; press q to leave", style="bold")
                )
        else:
            self.table.ui.notice(Text("the game link has closed", style="bold"))

    def leave_network(self) -> None:
        """q in the lobby (or after the game): stop the peer and leave."""
        if self.net_driver is not None and self.net_code is None:
            self.net_driver.send("q")
        self.exit(self.net_code if self.net_code is not None else 0)
