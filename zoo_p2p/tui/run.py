"""Entry points the CLI calls (lazily) to open the full-screen app."""

from __future__ import annotations

import contextlib
import logging
import random
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from zoo_p2p.driver import Driver
from zoo_p2p.rules import Team, Variant
from zoo_p2p.text import shown
from zoo_p2p.tui.pick import Pick, Source
from zoo_p2p.tui.table import LocalTable

if TYPE_CHECKING:
    from zoo_p2p.tui.app import NetworkApp


def local_table(
    *,
    teams: list[Team],
    humans: int,
    bots: int,
    level: str,
    variant: Variant,
    seed: int | None,
    think: float | None = None,
    bot_delay: float = 0.4,
) -> LocalTable:
    """A local game: ``humans`` seats at this terminal (hot-seat when more than one), then bots."""
    from zoo_p2p.bots import make_bot

    seed = seed if seed is not None else secrets.randbits(64)
    n = humans + bots
    names = ["you"] if humans == 1 else [f"player {i + 1}" for i in range(humans)]
    names += [f"{level} bot {i + 1}" for i in range(bots)]

    def make_bots(rng: random.Random) -> dict[int, Any]:
        return {
            seat: make_bot(level, seed=rng.randrange(2**32), think=think)
            for seat in range(humans, n)
        }

    return LocalTable(
        teams=teams,
        names=names,
        human=set(range(humans)),
        bots=make_bots(random.Random(seed ^ 0x5EED)),
        variant=variant,
        seed=seed,
        bot_delay=bot_delay,
        make_bots=make_bots,
    )


def run_local(
    *,
    teams: list[Team],
    humans: int,
    level: str,
    variant: Variant,
    seed: int | None,
    think: float | None = None,
) -> int:
    """``zoo play --local`` on the full screen: ``humans`` seats here, the others bots."""
    return run_table(
        local_table(
            teams=teams,
            humans=humans,
            bots=len(teams) - humans,
            level=level,
            variant=variant,
            seed=seed,
            think=think,
        )
    )


class AppLogHandler(logging.Handler):
    """Log records (a peer's garbage dropped, a link lost…) in the app's message area, dimmed
    and shown literally: while the app owns the terminal, a record written to the terminal
    would land on top of the screen (as `zoo host` showed a joiner declining hints)."""

    def __init__(self, app: NetworkApp) -> None:
        super().__init__()
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = Text(shown(record.getMessage(), 300), style="dim")
            if not self.app.is_running:
                return
            try:
                self.app.call_from_thread(self.app.net_notice, text)
            except RuntimeError:  # on the app's own thread, or the app is closing
                if self.app.is_running:
                    self.app.net_notice(text)
        except Exception:  # logging must never raise
            self.handleError(record)


def _on_terminal(handler: logging.Handler) -> bool:
    stream = getattr(handler, "stream", None)
    isatty = getattr(stream, "isatty", None)
    try:
        return isinstance(handler, logging.StreamHandler) and callable(isatty) and bool(isatty())
    except (OSError, ValueError):  # a closed stream
        return False


@contextlib.contextmanager
def logs_on_screen(app: NetworkApp) -> Iterator[None]:
    """While the app runs: the root logger's handlers that write to the terminal give way to
    one that shows records in the app; they are back when it closes."""
    root = logging.getLogger()
    taken = [h for h in root.handlers if _on_terminal(h)]
    if not taken:
        yield
        return
    ours = AppLogHandler(app)
    ours.setLevel(min(h.level for h in taken))
    for h in taken:
        root.removeHandler(h)
    root.addHandler(ours)
    try:
        yield
    finally:
        root.removeHandler(ours)
        for h in taken:
            root.addHandler(h)


def run_network(start: Callable[[Driver, Console], int], *, networked: bool = True) -> int:
    """A network game on the full screen: ``start(driver, console)`` (the CLI's runner, which
    runs the peer's loop) goes to a worker thread with the app's driver and a console whose lines
    land in the app's message area; the exit code is the runner's (130 after Ctrl-C).
    ``networked=False``: every other seat is a bot this command started (``zoo play``), so the
    expert's hints are offered."""
    from zoo_p2p.tui.app import NetworkApp

    app = NetworkApp(start, networked=networked)
    with logs_on_screen(app):
        code = app.run()
    out = Console(highlight=False)
    for line in app.runner_lines[app.started_at :]:  # how it ended: scores, log, audit, resume
        out.print(line)
    return 0 if code is None else code


def run_join_picked(
    source: Source,
    start: Callable[[str], Callable[[Driver, Console], int]],
    *,
    check: Callable[[str], str | None] | None = None,
    watch: bool = False,
) -> int:
    """``zoo join`` with no invite on the full screen: the games on the LAN are listed live as
    ``source`` (a browse in the background, see `zoo_p2p.tui.pick`) reports them; the one
    picked, or an invite pasted (``check`` says what is wrong with it), runs ``start(invite)``
    as a network game (``watch``: `zoo watch`, which may pick a full game too). Exit code 1
    when nothing is picked, 130 after Ctrl-C."""
    from zoo_p2p.tui.app import PickApp

    app = PickApp(Pick(source=source, start=start, check=check, watch=watch))
    with logs_on_screen(app):
        code = app.run()
    out = Console(highlight=False)
    for line in app.runner_lines[app.started_at :]:
        out.print(line)
    return 0 if code is None else code


def run_table(table: LocalTable) -> int:
    """Run the app on a table until the player leaves; the exit code (130 after Ctrl-C)."""
    from zoo_p2p.tui.app import TableApp

    app = TableApp(table)
    code = app.run()
    last = app.table if isinstance(app.table, LocalTable) else table
    Console(highlight=False).print(Text(local_left(last)))
    return 0 if code is None else code


def local_left(table: LocalTable) -> str:
    """What leaving a local game says on the terminal: where it stands, and that it was not
    saved (a local game keeps no log)."""
    st = table.state
    if st.is_terminal():
        from zoo_p2p.tui.over import headline

        head = f"the local game is over: {headline(st, table.names).plain.strip()}"
    else:
        head = f"you left the local game at move {len(st.history) + 1}"
    return (
        f"{head}. It was not saved: a local game keeps no log "
        "(zoo play without --local keeps a signed log to replay and export)."
    )


def run_replay(path: Path, *, analyse: bool = False, plies: int = 6000, seed: int = 0) -> int:
    """Open a log in the replay screen (``analyse``: score every move with the expert bot in the
    background, ``plies`` simulated plies per move); the exit code. A log that cannot be read
    raises `zoo_p2p.errors.LogError` before the screen opens."""
    from zoo_p2p.tui.app import ReplayApp
    from zoo_p2p.tui.replay import load

    data = load(path)
    code = ReplayApp(data, analyse=(plies, seed) if analyse else None).run()
    return 0 if code is None else code
