"""A person is asked before the program claims a game for them (PROTOCOL.md §10): when the floor
holder's clock runs out, the link offers the claim to its driver; the plain line mode asks
"claim now (c), or wait (w)?", with a bound of one more clock period. Bots, pipes and --quiet
claim at once.

No network: the link is the `Liveness` component over real protocol sessions of a 3-seat game
(we are seat 1, seat 3 (Red) owes its move); the loop's clock is passed in, so nothing sleeps."""

from __future__ import annotations

import io
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console

from tests.net.livepeer import LivePeer
from zoo_p2p.cli.plain import CLAIM_PROMPT, PlainDriver
from zoo_p2p.driver import BaseDriver, ClaimQuestion
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.liveness_samples import _game, play_until
from zoo_p2p.protocol.simulate import LocalGame, random_mover, step

MOVE_TIME = 120  # the sample games' move clock
QUESTION = (
    "seat 3 (Red) has not answered for 120 s (its move): claim the game now (c), or wait (w)?"
)


class _Link(LivePeer):
    """The liveness component with a peer without sockets: what it would send is kept."""

    def __init__(self, game: LocalGame, driver: Any) -> None:
        super().__init__(game.sessions[0], driver)
        self.game = game
        self.seats_state: list[Any] = []


class _Bot(BaseDriver):
    """A driver without `on_claim_offer` (bots): it claims at once."""

    def __init__(self) -> None:
        self.notices: list[str] = []

    def on_notice(self, text: str) -> None:
        self.notices.append(text)


@pytest.fixture
def stdin() -> Iterator[int]:
    r, w = os.pipe()
    yield r
    os.close(r)
    os.close(w)


def _stalled(n: int = 3) -> tuple[LocalGame, random.Random]:
    game, rng = _game(n, "question")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 2)
    return game, rng


def _person(stdin: int) -> tuple[_Link, PlainDriver, io.StringIO]:
    out = io.StringIO()
    driver = PlainDriver(
        Console(file=out, width=200, color_system=None), stdin_fd=stdin, ask_claims=True
    )
    game, _ = _stalled()
    link = _Link(game, driver)
    link._liveness_tick(1000.0)  # the floor holder's clock starts
    return link, driver, out


def test_a_bot_or_a_pipe_claims_at_once(stdin: int) -> None:
    bot = _Bot()
    link = _Link(_stalled()[0], bot)
    link._liveness_tick(1000.0)
    link._liveness_tick(1000.0 + MOVE_TIME - 1)
    assert not link.session.voted
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert link.session.voted and link.sent
    assert "seat 3 (Red) did not answer within 120 s: we claim the game" in bot.notices[0]
    assert "lacks the votes of seat 2 (Green)" in bot.notices[0]
    # the plain mode on a pipe (not a terminal) is not asked either
    piped = PlainDriver(Console(file=io.StringIO()), stdin_fd=stdin)
    assert not piped.ask_claims
    question = ClaimQuestion(2, "seat 3 (Red)", "its move", 120)
    assert piped.on_claim_offer(question, link) is True


def test_the_person_is_asked_and_c_claims(stdin: int) -> None:
    link, driver, out = _person(stdin)
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert QUESTION in out.getvalue()
    assert out.getvalue().endswith("claim the game now (c), or wait (w)? ")
    assert not link.session.voted and not link.sent  # nothing signed before the answer
    link._liveness_tick(1000.0 + MOVE_TIME + 5)
    assert out.getvalue().count(QUESTION) == 1  # asked once, not every loop turn
    driver.on_line("c", link)
    assert link.session.voted and link.sent
    assert "we claim the game" in out.getvalue()
    assert not out.getvalue().endswith("? ")  # the question is gone


def test_w_waits_one_clock_period_then_asks_again_and_no_answer_claims(stdin: int) -> None:
    link, driver, out = _person(stdin)
    t = 1000.0 + MOVE_TIME
    link._liveness_tick(t)
    driver.on_line("w", link)
    assert "waiting 120 s more for seat 3 (Red); then you are asked again" in out.getvalue()
    wait_began = t + 3
    link._liveness_tick(wait_began)  # the loop's next turn: the wait starts
    link._liveness_tick(wait_began + MOVE_TIME - 1)
    assert "has not answered for" not in out.getvalue().split("waiting 120 s more")[1]
    link._liveness_tick(wait_began + MOVE_TIME)
    again = out.getvalue().split("waiting 120 s more")[1]
    assert "seat 3 (Red) has not answered for" in again and "(c), or wait (w)?" in again
    assert not link.session.voted
    # the bound: nobody answers within one more clock period
    link._liveness_tick(wait_began + 2 * MOVE_TIME - 1)
    assert not link.session.voted
    link._liveness_tick(wait_began + 2 * MOVE_TIME)
    assert "no answer: claiming the game for you" in out.getvalue()
    assert link.session.voted and link.sent
    assert driver.claim_asked is False


def test_the_question_goes_when_the_late_seat_answers(stdin: int) -> None:
    link, driver, out = _person(stdin)
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert QUESTION in out.getvalue()
    step(link.game, random.Random(1), random_mover)  # seat 3 moves: everyone receives it
    link._liveness_tick(1000.0 + MOVE_TIME + 1)
    assert "seat 3 (Red) answered: the game goes on" in out.getvalue()
    assert driver.claim_asked is False
    driver.on_line("c", link)  # a late "c" claims nothing against whoever holds the floor now
    assert not link.session.voted and not link.sent


def test_the_question_says_whose_votes_the_pending_claim_lacks(stdin: int) -> None:
    link, _, out = _person(stdin)
    other = link.game.sessions[1].vote_claim()  # seat 2 (Green) already claims
    assert link.session.add_vote(other)
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert (
        QUESTION + " Claim votes 1 of 2: seat 2 (Green); still needed: you. Without an answer the"
        " game is claimed for you in 120 s." in out.getvalue()
    )
    assert not link.session.voted  # waiting withholds only our vote: no claim without it


def test_whose_votes_a_pending_claim_lacks_is_told_as_votes_come(stdin: int) -> None:
    link, driver, out = _person(stdin)
    link._liveness_tick(1000.0 + MOVE_TIME)
    driver.on_line("w", link)  # we wait; seat 2 (Green) does not
    link._liveness_tick(1000.0 + MOVE_TIME + 1)
    assert link.session.add_vote(link.game.sessions[1].vote_claim())
    link._liveness_tick(1000.0 + MOVE_TIME + 2)
    said = (
        "seat 2 (Green) voted to claim the game from seat 3 (Red): 1 of 2 votes; "
        "still needed: you\n"
    )
    assert out.getvalue().count(said) == 1  # we wait: no question open, so no time left in it
    link._liveness_tick(1000.0 + MOVE_TIME + 3)
    assert out.getvalue().count(said) == 1  # told once, when it changed
    # and as a voter in a 4-seat game: we claimed at once (a bot); seat 2's vote comes, seat 4's
    # is still missing
    bot = _Bot()
    voter = _Link(_stalled(4)[0], bot)
    voter._liveness_tick(1000.0)
    voter._liveness_tick(1000.0 + MOVE_TIME)
    assert voter.session.voted and voter.session.votes_missing() == [1, 3]
    voter._liveness_tick(1000.0 + MOVE_TIME + 1)
    assert len(bot.notices) == 1  # the claim notice; nothing new to tell
    assert voter.session.add_vote(voter.game.sessions[1].vote_claim())
    voter._liveness_tick(1000.0 + MOVE_TIME + 2)
    assert bot.notices[1:] == [
        f"seat 2 ({voter.session.seats[1].team.label}) voted to claim the game from seat 3 "
        f"({voter.session.seats[2].team.label}); the claim still lacks the votes of seat 4 "
        f"({voter.session.seats[3].team.label})"
    ]


def test_a_vote_while_the_person_is_asked_is_one_line_and_the_prompt_comes_back(
    stdin: int,
) -> None:
    out = io.StringIO()
    driver = PlainDriver(
        Console(file=out, width=200, color_system=None), stdin_fd=stdin, ask_claims=True
    )
    link = _Link(_stalled(4)[0], driver)  # 4 seats: seat 3 is late; seats 2 and 4 vote too
    link._liveness_tick(1000.0)
    t = 1000.0 + MOVE_TIME
    link._liveness_tick(t)  # asked: the link claims by itself at t + MOVE_TIME
    asked = out.getvalue()
    assert asked.endswith(CLAIM_PROMPT)
    assert "Without an answer the game is claimed for you in 120 s." in asked
    teams = [link.session.seats[i].team.label for i in range(4)]
    assert link.session.add_vote(link.game.sessions[1].vote_claim())
    link._liveness_tick(t + 30)
    first = (
        f"seat 2 ({teams[1]}) voted to claim the game from seat 3 ({teams[2]}): 1 of 3 votes; "
        f"still needed: you, seat 4 ({teams[3]}); without an answer the game is claimed for "
        "you in 90 s"
    )
    assert out.getvalue() == asked + "\n" + first + "\n" + CLAIM_PROMPT  # off the prompt line
    for later in (31, 32, 40):  # no vote came: nothing more is said
        link._liveness_tick(t + later)
    assert out.getvalue() == asked + "\n" + first + "\n" + CLAIM_PROMPT
    assert link.session.add_vote(link.game.sessions[3].vote_claim())
    link._liveness_tick(t + 61)
    second = out.getvalue()[len(asked + "\n" + first + "\n" + CLAIM_PROMPT) :]
    assert second == (
        f"\nseat 4 ({teams[3]}) voted to claim the game from seat 3 ({teams[2]}): 2 of 3 votes; "
        "still needed: you; without an answer the game is claimed for you in 59 s\n" + CLAIM_PROMPT
    )
    assert not link.session.voted  # the votes came; ours waits for the person's answer
    driver.on_line("c", link)
    assert link.session.voted


def test_the_waiting_for_line_counts_the_pending_claim_votes() -> None:
    from zoo_p2p.net.core.peer import PeerCore

    bot = _Bot()
    link = _Link(_stalled(4)[0], bot)
    link.seats_state = []  # what PeerCore.awaited reads of the seats' presence: nobody lost
    teams = [link.session.seats[i].team.label for i in range(4)]
    link._liveness_tick(1000.0)
    assert PeerCore.awaited(link) == [(2, "a move")]  # no vote yet: nothing about a claim
    link._liveness_tick(1000.0 + MOVE_TIME)  # a bot: it votes at once
    assert PeerCore.awaited(link) == [
        (
            2,
            f"a move (claim votes 1 of 3: you; still needed: seat 2 ({teams[1]}), seat 4 "
            f"({teams[3]}))",
        )
    ]
    assert link.session.add_vote(link.game.sessions[1].vote_claim())
    assert PeerCore.awaited(link) == [
        (
            2,
            f"a move (claim votes 2 of 3: you, seat 2 ({teams[1]}); still needed: seat 4 "
            f"({teams[3]}))",
        )
    ]


def test_a_driver_with_none_of_the_claim_or_seat_hooks_gets_the_base_drivers() -> None:
    # a driver that writes only on_notice: the peer calls every hook directly (no getattr), and
    # BaseDriver's claim at once and say why a question went
    bot = _Bot()
    assert "on_claim_offer" not in vars(_Bot) and "on_claim_closed" not in vars(_Bot)
    link = _Link(_stalled()[0], bot)
    link._liveness_tick(1000.0)
    link._liveness_tick(1000.0 + MOVE_TIME)
    assert link.session.voted and link.sent  # offered: the base driver claims at once
    link.live._claim_closed("the game moved on")
    assert bot.notices[-1] == "the game moved on"  # the base on_claim_closed: a notice
