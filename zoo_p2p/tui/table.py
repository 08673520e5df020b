"""What the game screen shows and whom it asks: a ``Table`` (local here; the network one wraps
the CLI's driver interface) and the ``TableUI`` it reports to."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from rich.text import Text

from zoo_p2p.driver import ClaimQuestion
from zoo_p2p.errors import IllegalMoveError
from zoo_p2p.rules import KnownDeal, Move, State, Team, Variant, move_name
from zoo_p2p.text import shown

T = TypeVar("T")


@dataclass(frozen=True)
class DealView:
    """The deal that was hidden: a token per slot (slot q < 25 top of square q, 25 + q bottom)
    and, per value 0..3, which copy hid the mutant (token = 10 * value + copy)."""

    slot_tokens: tuple[int, ...]
    mutant_copies: tuple[int, ...]

    def is_mutant(self, token: int) -> bool:
        """Does ``token`` hide the mutant?"""
        v, c = divmod(token, 10)
        return v < len(self.mutant_copies) and self.mutant_copies[v] == c


@dataclass(frozen=True)
class Ending:
    """What the game-over screen shows beside the final position."""

    deal: DealView | None
    verdict: Text
    log_path: str | None
    notes: tuple[str, ...] = ()


class TableUI(Protocol):
    """What a table tells its screen (always called on the UI thread)."""

    def moved(self, before: State, after: State, move: Move) -> None: ...
    def refresh_table(self) -> None: ...
    def log_line(self, text: Text) -> None: ...
    def notice(self, text: Text | str) -> None: ...
    def background(self, work: Callable[[], T], done: Callable[[T], None]) -> None: ...


@dataclass
class Table:
    """A game as a front-end sees it: seats, the public state, who moves from this terminal."""

    names: list[str]
    human: set[int]
    title: str
    presence: list[bool] | None = None
    seat_notes: list[str] | None = None  # "lost 12 s", "left" (empty: connected)
    awaiting: str | None = None  # "waiting for Bo (Blue): a reveal"
    seat_links: list[str] | None = None  # "direct", "via host", "host link" ("": not known)
    clocks: list[str] | None = None
    question: Text | None = None  # the claim question (PROTOCOL.md §10): c claims, w waits
    claim: ClaimQuestion | None = None  # what `question` says, with its count-down…
    claim_at: float = 0.0  # …from this monotonic time (when the question last came)
    networked: bool = False  # a game with other peers over the network (no hints…)
    agreed: bool = False  # …unless its genesis allows them: every seat agreed (PROTOCOL.md §3.2)
    ui: TableUI | None = field(default=None, repr=False)
    run_over: bool = False  # a network game whose peer's run has ended (NetTable)
    leaving: bool = False  # the person left (q, confirmed): the peer is stopping (NetTable)

    def log_path(self) -> str | None:
        """Where this game's log is saved (None: it keeps none, or it is not known yet)."""
        return None

    @property
    def state(self) -> State:
        """The public state to draw."""
        raise NotImplementedError

    def you(self) -> int | None:
        """The seat called 'you' in narration (None in hot-seat, where nobody is)."""
        return next(iter(self.human)) if len(self.human) == 1 else None

    def my_turn(self) -> bool:
        """May this terminal move now?"""
        st = self.state
        if st.is_terminal() or self.ended() is not None:
            return False
        return st.needs is None and st.to_move in self.human

    def hints_off(self) -> str | None:
        """Why this game offers no hints (networked without the genesis' agreement, or several
        people here), or None."""
        from zoo_p2p.bots.analysis import hint_refusal

        return hint_refusal(networked=self.networked, people=len(self.human), agreed=self.agreed)

    def ended(self) -> str | None:
        """How the game ended when its position is not final (a claim, a resignation), else
        None."""
        return None

    def out_seats(self) -> dict[int, int]:
        """Seat -> the entry at which a claim that played on put it out (PROTOCOL.md §10.7):
        its stand-in plays on. Empty but in a network game."""
        return {}

    def resigned_seats(self) -> dict[int, int]:
        """Seat -> the entry of its resignation (PROTOCOL.md §10.4), at 3–4 seats where its
        stand-in plays on. Empty but in a network game."""
        return {}

    def replaced_at(self) -> int | None:
        """The entry at which a claim that played on put *our* seat out (we watch), or None."""
        return None

    def start(self) -> None:
        """Called once the screen is up."""

    def tick(self) -> bool:
        """Called once a second: update clocks; True when the screen should redraw."""
        return False

    def submit(self, move: Move) -> str | None:
        """Play ``move`` for the seat to move; a reason when it cannot be played."""
        raise NotImplementedError

    def answer_claim(self, claim: bool) -> None:
        """The person answered the claim question: claim now, or wait one more clock period."""
        self.question = None
        self.claim = None

    def show_claim(self, question: ClaimQuestion | None, now: float) -> None:
        """The claim question comes, changes (a seat voted) or goes (None)."""
        self.claim, self.claim_at = question, now
        self.question = self.claim_text(now)

    def claim_text(self, now: float) -> Text | None:
        """The claim question as it reads at ``now``: the votes, and the seconds left before
        the program claims by itself, counted down from when the question came."""
        q = self.claim
        if q is None:
            return None
        left = None if q.claims_in is None else q.claims_in - int(now - self.claim_at)
        return Text(shown(q.text(left), 500), style="bold yellow")

    def claim_tick(self, now: float) -> bool:
        """Count the claim question down; True when what it says changed."""
        if self.claim is None:
            return False
        text = self.claim_text(now)
        changed = text is not None and (self.question is None or text.plain != self.question.plain)
        self.question = text
        return changed

    def ending(self) -> Ending:
        """What to show once the game is over."""
        raise NotImplementedError

    @property
    def can_rematch(self) -> bool:
        """Does ``rematch`` offer a new game?"""
        return False

    def rematch(self) -> Table | None:
        """A new game with the same seats, or None when this table cannot offer one."""
        return None

    def close(self) -> None:
        """Leave the game (quit or Ctrl-C)."""


class LocalTable(Table):
    """``zoo play --local``: humans at this terminal against bots, no network and no log."""

    def __init__(
        self,
        *,
        teams: Sequence[Team],
        names: list[str],
        human: set[int],
        bots: dict[int, Any],
        variant: Variant = Variant.STANDARD,
        seed: int | None = None,
        bot_delay: float = 0.4,
        make_bots: Callable[[random.Random], dict[int, Any]] | None = None,
    ) -> None:
        super().__init__(names=names, human=human, title=f"local {variant.value} game")
        self.teams = list(teams)
        self.variant = variant
        self.seed = seed if seed is not None else secrets.randbits(64)
        self.rng = random.Random(self.seed)
        self.bots = bots
        self.bot_delay = bot_delay
        self.make_bots = make_bots
        self.deal = KnownDeal.random(self.rng, variant)
        self.first = self.rng.randrange(len(teams))
        self._state = self.deal.new_state(self.teams, first_seat=self.first)
        self._busy = False

    @property
    def state(self) -> State:
        return self._state.public()

    def start(self) -> None:
        self._next()

    def submit(self, move: Move) -> str | None:
        if self._state.to_move not in self.human:
            return "it is not your turn"
        return self._play(move)

    def _play(self, move: Move) -> str | None:
        try:
            self._state.check(move)
        except IllegalMoveError as exc:
            return str(exc)
        before = self._state.public()
        self._state.apply(move)
        if self.ui is not None:
            self.ui.moved(before, self._state.public(), move)
        self._next()
        return None

    def _next(self) -> None:
        st = self._state
        if st.is_terminal() or st.to_move not in self.bots or self._busy or self.ui is None:
            return
        bot = self.bots[st.to_move]
        view = st.public()
        delay = self.bot_delay

        def think() -> Move:
            t0 = time.monotonic()
            move: Move = bot.choose(view)
            rest = delay - (time.monotonic() - t0)
            if rest > 0:
                time.sleep(rest)  # let a person see the position before the bot answers
            return move

        def done(move: Move) -> None:
            self._busy = False
            if self._play(move) is not None and self.ui is not None:
                self.ui.notice(f"the bot chose an illegal move {move_name(move)}")

        self._busy = True
        self.ui.background(think, done)

    def ending(self) -> Ending:
        return Ending(
            deal=DealView(self.deal.slot_tokens, self.deal.mutant_copies),
            verdict=Text(
                "local game: the deal never left this process, so there is no log to audit"
            ),
            log_path=None,
        )

    @property
    def can_rematch(self) -> bool:
        return True

    def rematch(self) -> Table:
        bots = self.make_bots(self.rng) if self.make_bots is not None else self.bots
        return LocalTable(
            teams=self.teams,
            names=self.names,
            human=self.human,
            bots=bots,
            variant=self.variant,
            seed=self.rng.randrange(2**63),
            bot_delay=self.bot_delay,
            make_bots=self.make_bots,
        )


def leave_words(t: Table) -> Text:
    """What leaving the game at table ``t`` does, said before it is done (its `q`)."""
    over = t.state.is_terminal() or t.ended() is not None or t.run_over
    if not t.networked and isinstance(t, LocalTable):
        return Text(
            "Leave the game? A local game is not saved anywhere (it keeps no log): "
            + ("it is over, nothing is lost." if over else "this one ends here for good.")
        )
    log = t.log_path()
    where = f" The log is {shown(log, 200)}." if log else ""
    if over:
        return Text(f"Leave? The game is over.{where.replace('The log is', 'Its log is saved:')}")
    return Text(
        "Leave the game? Leaving with q RESIGNS your seat: a stand-in plays it on to the "
        "end, and the others finish the game. Ctrl-C instead leaves without resigning: "
        f"the seat is kept, and `zoo resume` takes it back.{where}"
    )
