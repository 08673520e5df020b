"""The claim question's three lines (the question, the "waiting for" votes, a vote that came)
count the votes with one phrase (`ClaimQuestion.count`, `.still_needed`): the question no
longer capitalises by slicing the votes line, and the update no longer formats the count again."""

from __future__ import annotations

from zoo_p2p.driver import ClaimQuestion

ASKED = ClaimQuestion(
    2,
    "seat 3 (Red)",
    "its move",
    130,
    voted=("seat 2 (Green)",),
    missing=("you", "seat 4 (Yellow)"),
    claims_in=40,
    came=("seat 2 (Green)",),
)


def test_every_line_about_the_votes_says_the_same_count() -> None:
    assert ASKED.count == "1 of 3"
    assert ASKED.still_needed == "still needed: you, seat 4 (Yellow)"
    votes = "votes 1 of 3: seat 2 (Green); still needed: you, seat 4 (Yellow)"
    assert ASKED.votes_text() == f"claim {votes}"
    assert ASKED.votes_text(capital=True) == f"Claim {votes}"
    assert ASKED.text() == (
        "seat 3 (Red) has not answered for 130 s (its move): claim the game now (c), or wait "
        f"(w)? Claim {votes}. Without an answer the game is claimed for you in 40 s."
    )
    assert ASKED.update_text() == (
        "seat 2 (Green) voted to claim the game from seat 3 (Red): 1 of 3 votes; still needed: "
        "you, seat 4 (Yellow); without an answer the game is claimed for you in 40 s"
    )
    for line in (ASKED.votes_text(), ASKED.text(), ASKED.update_text()):
        assert ASKED.count in line and ASKED.still_needed in line


def test_no_vote_yet_says_no_count() -> None:
    fresh = ClaimQuestion(2, "seat 3 (Red)", "its move", 120, missing=("you",))
    assert fresh.votes_text() == "" and "votes" not in fresh.text().lower()
