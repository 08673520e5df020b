"""One test per rule and per forbidden move (RULES.md)."""

from __future__ import annotations

import pytest

from tests.rules.helpers import deal_with, game, play
from zoo_p2p.errors import IllegalMoveError, NotationError
from zoo_p2p.rules import (
    Card,
    KnownDeal,
    Needs,
    RevealError,
    Send,
    State,
    Step,
    Team,
    Variant,
    parse_move,
    parse_square,
    square_name,
)


def sq(name: str) -> int:
    return parse_square(name)


# ---------------------------------------------------------------- notation


def test_square_names_round_trip() -> None:
    assert [square_name(s) for s in (0, 4, 12, 20, 24)] == ["A1", "E1", "C3", "A5", "E5"]
    for s in range(25):
        assert parse_square(square_name(s).lower()) == s


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5@C3", Send(5, 12)),
        ("5c3", Send(5, 12)),
        ("6 a1", Send(6, 0)),
        ("C3-C4", Step(12, 17)),
        ("c3c4", Step(12, 17)),
        ("b2 b1", Step(6, 1)),
    ],
)
def test_parse_move(text: str, expected: object) -> None:
    move = parse_move(text)
    assert move == expected
    assert parse_move(str(move)) == move


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("7@C3", "3, 4, 5 or 6"),
        ("5@F3", "not a square"),
        ("C3-D4", "not one square"),
        ("hello", "not a move"),
        ("", "empty move"),
        ("A1-A3", "not one square"),
    ],
)
def test_bad_notation_explains_with_example(text: str, fragment: str) -> None:
    with pytest.raises(NotationError) as e:
        parse_move(text)
    assert fragment in str(e.value)
    assert "e.g. 5@C3" in str(e.value)


# ---------------------------------------------------------------- set-up


def test_setup_two_card_stacks_and_public_tops() -> None:
    deal = deal_with(top={"C3": 2})
    s = game(deal, 3)
    assert s.top(sq("C3")).value == 2
    assert all(s.under(q).kind == "unknown" for q in range(25))
    assert all(s.hand(p) == [3, 4, 5, 6] for p in range(3))
    assert s.zoo_cards_left() == 50
    assert len(s.legal_moves()) == 4 * 25


def test_teams_must_be_distinct_and_2_to_4() -> None:
    with pytest.raises(ValueError):
        State.new([Team.RED, Team.RED], [4] * 10 + [3] * 10 + [2] * 5)
    with pytest.raises(ValueError):
        State.new([Team.RED], [4] * 10 + [3] * 10 + [2] * 5)


# ---------------------------------------------------------------- send


def test_send_captures_zoo_card_and_reveals_bottom() -> None:
    s = game(deal_with(top={"C3": 2}, bottom={"C3": 3}))
    play(s, "5@C3")
    assert s.captured_zoo(0) == [2]
    assert s.top(sq("C3")).kind == "character" and s.top(sq("C3")).value == 5
    assert s.under(sq("C3")).value == 3  # visible to everyone from now on
    assert s.hand(0) == [3, 4, 6]
    assert s.to_move == 1


def test_send_onto_character_is_illegal() -> None:
    s = play(game(deal_with()), "5@C3")
    with pytest.raises(IllegalMoveError, match="only be sent onto a Zoo card"):
        s.apply(Send(6, sq("C3")))


def test_send_onto_mutant_is_illegal() -> None:
    s = play(game(deal_with(top={"C3": 2}, mutants=("C3",))), "5@C3")
    assert s.top(sq("C3")).kind == "mutant"
    with pytest.raises(IllegalMoveError, match="never by a send"):
        s.apply(Send(6, sq("C3")))


def test_send_onto_empty_is_illegal() -> None:
    # Yellow sends onto C3 then moves off twice: C3 loses both cards
    s = game(deal_with(), 2)
    play(s, "5@C3", "6@A1", "C3-C4", "A1-A2", "C4-C3", "A2-A1")
    assert s.top(sq("C3")).kind == "character"
    play(s, "C3-C2", "A1-B1")
    assert s.top(sq("C3")).kind == "empty"
    with pytest.raises(IllegalMoveError, match="C3 is empty"):
        s.apply(Send(3, sq("C3")))


def test_send_of_a_character_not_in_hand() -> None:
    s = play(game(deal_with()), "5@C3", "5@A1")
    with pytest.raises(IllegalMoveError, match="it is on C3"):
        s.apply(Send(5, sq("D4")))


def test_not_your_turn_is_not_a_thing_you_can_do() -> None:
    s = play(game(deal_with()), "5@C3")
    # it is Blue's turn: Yellow's character on C3 cannot be moved by Blue
    with pytest.raises(IllegalMoveError, match="does not hold one of your"):
        s.apply(Step(sq("C3"), sq("C4")))


# ---------------------------------------------------------------- step


def test_step_onto_zoo_card_captures_it() -> None:
    s = play(game(deal_with(top={"C4": 1})), "5@C3", "6@A1", "C3-C4")
    assert s.captured_zoo(0)[-1] == 1
    assert s.top(sq("C4")).value == 5
    assert s.top(sq("C3")).kind == "zoo"  # the bottom card C3 stood on shows again


def test_step_onto_lower_or_equal_opponent_captures_it() -> None:
    s = play(game(deal_with()), "5@C3", "5@C4", "C3-C4")
    assert s.captured_characters(0) == [(Team.BLUE, 5, False)]
    assert s.on_board(1) == {}
    s = play(game(deal_with()), "6@C3", "3@C4", "C3-C4")
    assert s.captured_characters(0) == [(Team.BLUE, 3, False)]


def test_step_onto_higher_opponent_is_illegal() -> None:
    s = play(game(deal_with()), "4@C3", "5@C4")
    with pytest.raises(IllegalMoveError, match="cannot take Blue's 5"):
        s.apply(Step(sq("C3"), sq("C4")))


def test_step_onto_own_character_is_illegal() -> None:
    s = play(game(deal_with()), "4@C3", "5@A1", "6@C4", "A1-A2")
    with pytest.raises(IllegalMoveError, match="your own 6"):
        s.apply(Step(sq("C3"), sq("C4")))


def test_diagonal_and_off_board_steps_are_illegal() -> None:
    s = play(game(deal_with()), "4@E1", "5@A1")
    with pytest.raises(IllegalMoveError, match="not one square"):
        s.apply(Step(sq("E1"), sq("D2")))  # diagonal
    with pytest.raises(IllegalMoveError, match="not one square"):
        s.apply(Step(sq("E1"), sq("A2")))  # would wrap off the right edge
    with pytest.raises(NotationError):
        parse_move("E1-D2")


def test_step_onto_empty_is_illegal() -> None:
    s = game(deal_with(), 2)
    play(s, "5@C3", "6@A1", "C3-C4", "A1-A2", "C4-C3", "A2-A1", "C3-C2", "A1-B1")
    play(s, "C2-C1")
    # Blue's 6 is on B1; A1 lost both its cards (top to Blue's send, bottom to Blue's return)
    assert s.top(sq("A1")).kind == "empty"
    with pytest.raises(IllegalMoveError, match="A1 is empty"):
        s.apply(Step(sq("B1"), sq("A1")))


def test_each_capture_takes_exactly_one_card() -> None:
    s = game(deal_with(top={"C3": 1}, bottom={"C3": 2}))
    before = s.zoo_cards_left()
    play(s, "5@C3")
    assert s.zoo_cards_left() == before - 1


# ---------------------------------------------------------------- mutants


def test_capturing_the_mutant_card_mutates_the_captor_and_keeps_the_card() -> None:
    s = play(game(deal_with(top={"C3": 2}, mutants=("C3",))), "5@C3")
    top = s.top(sq("C3"))
    assert (top.kind, top.value, top.seat) == ("mutant", 5, 0)
    assert s.captured_zoo(0) == [2]  # Decision: the Zoo card is kept and scores
    assert 5 not in s.on_board(0) and 5 not in s.hand(0)
    assert s.scores()[0].survivors == 3 + 4 + 6
    assert s.mutants_found == {2}


def test_a_mutant_never_moves() -> None:
    s = play(game(deal_with(top={"C3": 2}, mutants=("C3",))), "5@C3", "6@A1")
    with pytest.raises(IllegalMoveError, match="no longer yours"):
        s.apply(Step(sq("C3"), sq("C4")))


@pytest.mark.parametrize("captor_seat", [0, 1])
def test_anyone_even_the_former_owner_can_take_a_mutant_by_moving(captor_seat: int) -> None:
    s = play(game(deal_with(top={"C3": 2}, mutants=("C3",))), "6@C3")  # Yellow's 6 mutates
    if captor_seat == 0:
        play(s, "3@A1", "3@C4", "6@E5", "C4-C3")  # Yellow's own 3 takes its former 6
    else:
        play(s, "3@C4", "4@A1", "C4-C3")  # Blue's 3 takes it: values do not matter
    assert s.captured_characters(captor_seat) == [(Team.YELLOW, 6, True)]
    assert s.scores()[captor_seat].characters == 6
    assert s.top(sq("C3")).value == 3


def test_a_value_4_card_never_asks_for_a_mutant() -> None:
    s = State.new([Team.YELLOW, Team.BLUE], [4] * 10 + [3] * 10 + [2] * 5)
    s.apply(Send(5, 0))
    assert s.needs == Needs(square=0, layer=1, bottom=True, mutant_value=None)


def test_general_variant_has_no_mutants() -> None:
    deal = deal_with(top={"C3": 2}, variant=Variant.GENERAL)
    s = play(game(deal), "5@C3")
    assert s.top(sq("C3")).kind == "character"
    st = State.new([Team.YELLOW, Team.BLUE], [2] * 10 + [3] * 10 + [0] * 5, variant=Variant.GENERAL)
    st.apply(Send(5, 0))
    assert st.needs is not None and st.needs.mutant_value is None


# ---------------------------------------------------------------- hidden facts as inputs


def test_hidden_facts_are_asked_for_not_invented() -> None:
    s = State.new([Team.YELLOW, Team.BLUE], [2] * 10 + [3] * 10 + [0] * 5)
    s.apply(Send(5, 0))
    assert s.needs == Needs(square=0, layer=1, bottom=True, mutant_value=2)
    assert s.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="revealed"):
        s.apply(Send(3, 1))
    with pytest.raises(RevealError, match="mutant flag must be given"):
        s.reveal(bottom=1)
    with pytest.raises(RevealError, match=r"0\.\.4"):
        s.reveal(bottom=9, mutant=False)
    s.reveal(bottom=1, mutant=True)
    assert s.under(0).value == 1 and s.top(0).kind == "mutant" and s.to_move == 1
    # a second mutant of the value 2 is never asked for again
    s.apply(Send(3, 1))
    assert s.needs == Needs(square=1, layer=1, bottom=True, mutant_value=None)


def test_an_eleventh_card_of_a_value_is_rejected() -> None:
    s = State.new([Team.YELLOW, Team.BLUE], [4] * 10 + [3] * 10 + [2] * 5)
    s.apply(Send(5, 0))
    with pytest.raises(RevealError, match="eleventh"):
        s.reveal(bottom=4)


def test_layer_says_which_physical_card_was_taken() -> None:
    s = State.new([Team.YELLOW, Team.BLUE], [2] * 10 + [3] * 10 + [0] * 5)
    s.apply(Send(5, 0))  # A1 top-layer card
    s.reveal(bottom=1, mutant=False)
    s.apply(Send(5, 24))
    s.reveal(bottom=4, mutant=False)
    s.apply(Step(0, 5))  # Yellow 5 leaves A1: its bottom (1) shows
    s.reveal(bottom=4, mutant=False)
    s.apply(Step(24, 23))
    s.reveal(bottom=4, mutant=False)
    s.apply(Step(5, 0))  # back onto A1: takes the bottom-layer card
    assert s.needs == Needs(square=0, layer=0, bottom=False, mutant_value=1)


# ---------------------------------------------------------------- end of game and scoring


@pytest.mark.parametrize("n", [2, 3, 4])
def test_game_ends_when_the_player_to_move_has_no_character(n: int) -> None:
    deal = deal_with(
        top={"A1": 0, "B1": 1, "C1": 2, "D1": 3},
        mutants=("A1", "B1", "C1", "D1"),
    )
    s = game(deal, n)
    others = iter(["A5", "B5", "C5", "D5", "E5", "A4", "B4", "C4", "D4", "E4", "A3", "B3"])
    for value, target in zip((3, 4, 5, 6), ("A1", "B1", "C1", "D1"), strict=True):
        play(s, f"{value}@{target}")  # Yellow's character mutates
        for _seat in range(1, n):
            play(s, f"{value}@{next(others)}")
        assert not s.is_terminal() or value == 6
    assert s.to_move == 0 and s.is_terminal()
    assert s.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply(Send(3, 24))
    assert s.scores()[0].survivors == 0


def test_game_ends_when_the_player_to_move_is_blocked() -> None:
    # Found by search: play random games until one ends with characters still in play.
    import random

    rng = random.Random(7)
    for _ in range(200):
        s = KnownDeal.random(rng).new_state([Team.YELLOW, Team.RED])
        s.playout(rng)
        p = s.to_move
        if s.on_board(p):
            assert s.is_terminal() and s.legal_moves() == []
            top, _ = s.square_codes()
            assert not s.hand(p) or all(not (0 <= c < 5) for c in top)
            return
    pytest.fail("no blocked ending found")


def test_rulebook_36_point_example() -> None:
    # Red takes 18 in Zoo cards, Yellow's 3 and 4, and loses its own 3 and 4 to mutants.
    deal = deal_with(
        top={
            "A1": 0,
            "B1": 4,
            "A2": 0,
            "E5": 0,
            "C1": 4,
            "E4": 0,
            "D5": 0,
            "D1": 4,
            "D4": 0,
            "E1": 4,
            "C5": 0,
            "E2": 1,
            "A4": 0,
            "B4": 1,
            "B5": 4,
            "A5": 4,
        },
        mutants=("A4", "B4"),
    )
    s = deal.new_state([Team.YELLOW, Team.RED])
    play(
        s,
        "3@A1",
        "6@B1",
        "4@A2",
        "B1-A1",
        "5@E5",
        "A1-A2",
        "6@E4",
        "5@C1",
        "E5-D5",
        "C1-D1",
        "E4-D4",
        "D1-E1",
        "D5-C5",
        "E1-E2",
        "C5-B5",
        "3@A4",
        "B5-A5",
        "4@B4",
    )
    assert s.top(sq("A4")).kind == s.top(sq("B4")).kind == "mutant"
    red = s.scores()[1]
    assert (red.zoo, red.characters, red.survivors, red.total) == (18, 7, 11, 36)


def test_a_tie_is_a_shared_win() -> None:
    s = State.new([Team.YELLOW, Team.BLUE], [4] * 10 + [3] * 10 + [2] * 5)
    assert s.winners() == [0, 1]


# ---------------------------------------------------------------- impossible reveals


def test_the_last_unturned_copy_of_a_value_must_hide_the_mutant() -> None:
    """Nine plain 0-cards turned over: the tenth cannot be plain (one 0 hides a mutant)."""
    top = [0] * 10 + [4] * 10 + [1] * 5
    st = State.new([Team.YELLOW, Team.BLUE], top, first_seat=0)
    left = {1: 5, 2: 10, 3: 10}  # the bottom layer: what is not on top
    turned = {0: 0, 1: 0, 2: 0, 3: 0}
    refused = False
    for _ in range(200):
        if st.is_terminal():
            break
        n = st.needs
        if n is None:
            moves = st.legal_moves()
            zeros = [m for m in moves if st.top(m.to) == Card("zoo", 0)]
            st.apply((zeros or moves)[0])
            continue
        bottom = None
        if n.bottom:
            bottom = next(v for v in (3, 2, 1) if left[v] > 0)
            left[bottom] -= 1
        mutant = None
        v = n.mutant_value
        if v is not None:
            turned[v] += 1
            mutant = turned[v] == 10
            if mutant:
                with pytest.raises(RevealError, match="must hide the mutant"):
                    st.reveal(bottom=bottom, mutant=False)
                refused = refused or v == 0
        st.reveal(bottom=bottom, mutant=mutant)
    assert refused, turned
