"""While the full-screen app runs a network game, a log record is shown in the app, never
written to the terminal under it (it landed on top of the screen: `zoo host`, a joiner that
declined hints); the terminal's handlers are back afterwards. The same words as a notice and
as its log record are shown once."""

from __future__ import annotations

import asyncio
import io
import logging
import threading

from rich.text import Text

from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.run import logs_on_screen

WAIT = 20.0  # seconds any wait below may take, at most
SAID = "a joiner declined: the table allows hints [b]x[/b]"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_record_goes_to_the_app_not_to_the_terminal() -> None:
    terminal = _Terminal()
    to_terminal = logging.StreamHandler(terminal)
    root = logging.getLogger()
    root.addHandler(to_terminal)
    said = threading.Event()

    def start(driver: object, console: object) -> int:  # the peer's loop, in its thread
        logging.getLogger("zoo_p2p.net").warning("%s", SAID)
        said.set()
        return 0

    async def run(app: NetworkApp) -> str:
        async with app.run_test(size=(100, 32)) as pilot:
            await asyncio.wait_for(app.workers.wait_for_complete(), WAIT)
            assert said.is_set()
            app.net_notice(Text(SAID, style="cyan"))  # the notice that says the same
            await pilot.pause()
            text = screen_text(app)
            await pilot.press("q", "q")  # q asks, q leaves
            return text

    app = NetworkApp(start, glyphs=UTF8)
    try:
        with logs_on_screen(app):
            assert to_terminal not in root.handlers
            text = asyncio.run(run(app))
        assert to_terminal in root.handlers  # back once the app is closed
    finally:
        root.removeHandler(to_terminal)
    assert terminal.getvalue() == ""
    assert text.count(SAID) == 1, text  # literal (no markup), once
