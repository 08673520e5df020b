"""A bot at our seat: `zoo_p2p.driver.Driver` played by a bot from `zoo_p2p.bots`."""

from __future__ import annotations

from rich.console import Console

from zoo_p2p.bots import make_bot
from zoo_p2p.cli.plain import ConsoleDriver
from zoo_p2p.driver import GameLink


class BotDriver(ConsoleDriver):
    """Plays our seat with a bot (optionally waiting `delay` s per move); shows the lobby,
    presence and notices on `console` unless it is None."""

    def __init__(
        self,
        level: str,
        *,
        seed: int | None,
        delay: float,
        console: Console | None,
        think: float | None = None,
    ) -> None:
        super().__init__(console)
        self.bot = make_bot(level, seed=seed, think=think)
        self.delay = delay

    def on_turn(self, link: GameLink) -> None:
        """Choose and play (now or after the delay)."""
        if self.delay > 0:
            link.call_later(self.delay, lambda: self._move(link))
        else:
            self._move(link)

    def _move(self, link: GameLink) -> None:
        s = link.session
        if not link.my_turn or s is None or s.state is None:
            return
        link.play(self.bot.choose(s.state))
