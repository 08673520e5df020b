"""Full games among 2, 3 and 4 seats in one process: identical logs, floors, events, audit."""

from __future__ import annotations

import random

import pytest

from tests.protocol.conftest import finished_game
from zoo_p2p.errors import IllegalMoveError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.events import (
    CardRevealed,
    EntryAccepted,
    Finished,
    Floor,
    GameOver,
    GameStarted,
    Gap,
    MoveApplied,
    MutantRevealed,
    SeedsOpened,
)
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import play_game, setup_game, step
from zoo_p2p.rules import KnownDeal, Send, Step, Variant


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_full_game_identical_logs_and_audit_ok(n: int, variant: Variant) -> None:
    game = finished_game(n, variant)
    logs = [s.entries for s in game.sessions]
    assert all(log == logs[0] for log in logs)
    assert all(s.finished and s.floor is None for s in game.sessions)
    report = audit(logs[0])
    assert report.ok, report
    assert report.scores == game.sessions[0].final_scores
    assert report.slot_tokens is not None and sorted(report.slot_tokens) == list(range(50))
    if variant is Variant.STANDARD:
        assert report.mutant_copies is not None and len(report.mutant_copies) == 4
    else:
        assert report.mutant_copies == ()


def test_sessions_agree_on_state_and_the_deal_replays_with_known_deal() -> None:
    game = finished_game(3)
    s0 = game.sessions[0]
    assert all(s.state is not None and s.state.digest() == s0.state.digest() for s in game.sessions)  # type: ignore[union-attr]
    deal = s0.opened_deal
    assert deal is not None and s0.state is not None and s0.first_seat is not None
    # Replaying the same moves on the opened deal with the rules' oracle gives the same end.
    known = KnownDeal.from_tokens(list(deal.slot_tokens), list(deal.mutant_copies), s0.variant)
    st = known.new_state(list(s0.state.teams), first_seat=s0.first_seat)
    for mv in s0.state.history:
        st.apply(mv)
    assert st.is_terminal()
    assert [x.total for x in st.scores()] == list(s0.final_scores or ())


def test_event_stream_of_an_observer() -> None:
    game = finished_game(2)
    obs = Session(game.entries[0])
    events = [ev for raw in game.entries[1:] for ev in obs.receive(raw)]
    kinds = [type(ev) for ev in events]
    assert kinds.count(EntryAccepted) == len(game.entries) - 1
    assert kinds.count(GameStarted) == 1 and kinds.count(GameOver) == 1
    assert kinds.count(SeedsOpened) == 1 and kinds[-1] is Finished
    reveals = [ev for ev in events if isinstance(ev, CardRevealed)]
    assert [ev.square for ev in reveals[:25]] == list(range(25))
    moves = [ev for ev in events if isinstance(ev, MoveApplied)]
    assert len(moves) == len(obs.state.history)  # type: ignore[union-attr]
    for ev in events:
        if isinstance(ev, MutantRevealed):
            assert 0 <= ev.value <= 3
    assert obs.finished and obs.entries == game.entries


def test_floor_order_commit_open_move() -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(5))
    rng = random.Random(0)
    floors: list[Floor | None] = []
    for _ in range(8):
        floors.append(game.sessions[0].floor)
        step(game, rng)
    assert floors[:6] == [
        Floor(0, Kind.COMMIT),
        Floor(1, Kind.COMMIT),
        Floor(2, Kind.COMMIT),
        Floor(0, Kind.OPEN),
        Floor(1, Kind.OPEN),
        Floor(2, Kind.OPEN),
    ]
    s = game.sessions[0]
    assert floors[6] == Floor(s.first_seat, Kind.MOVE)  # type: ignore[arg-type]


def test_reveal_round_follows_a_zoo_capture_in_seat_order() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(6))
    rng = random.Random(1)
    while game.sessions[0].floor is not None and game.sessions[0].floor.kind != Kind.MOVE:
        step(game, rng)
    step(game, rng)  # the first move is a Send: always a Zoo capture exposing a bottom card
    s = game.sessions[0]
    assert s.floor == Floor(0, Kind.REVEAL)
    step(game, rng)
    assert s.floor == Floor(1, Kind.REVEAL)
    step(game, rng)
    assert s.floor is not None and s.floor.kind == Kind.MOVE


def test_fixed_first_player_from_genesis() -> None:
    for first in (0, 1):
        game = play_game(2, Variant.GENERAL, random.Random(9), first_player=first)
        assert game.sessions[1].first_seat == first


def test_first_player_from_nonces_varies() -> None:
    firsts = set()
    for i in range(12):
        game = setup_game(2, Variant.GENERAL, random.Random(100 + i))
        rng = random.Random(0)
        for _ in range(4):
            step(game, rng)
        firsts.add(game.sessions[0].first_seat)
    assert firsts == {0, 1}


def test_duplicate_is_ignored_and_future_entry_is_a_gap() -> None:
    game = finished_game(2)
    obs = Session(game.entries[0])
    assert obs.receive(game.entries[0]) == []
    assert obs.receive(game.entries[5]) == [Gap(1)]
    assert len(obs) == 1
    obs.receive(game.entries[1])
    assert obs.receive(game.entries[1]) == []
    assert len(obs) == 2


def test_move_out_of_turn_and_illegal_local_move() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(3))
    rng = random.Random(0)
    with pytest.raises(LocalProtocolError):
        game.sessions[0].move(Send(3, 0))
    while game.sessions[0].floor is not None and game.sessions[0].floor.kind != Kind.MOVE:
        step(game, rng)
    f = game.sessions[0].floor
    assert f is not None
    other = game.sessions[1 - f.seat]
    with pytest.raises(LocalProtocolError):
        other.move(Send(3, 0))
    me = game.sessions[f.seat]
    n = len(me)
    with pytest.raises(IllegalMoveError):
        me.move(Step(0, 24))
    with pytest.raises(IllegalMoveError):
        me.move(Send(9, 0))
    assert len(me) == n


def test_observer_cannot_write_and_foreign_key_is_refused() -> None:
    game = finished_game(2)
    obs = Session(game.entries[0])
    assert obs.take_outgoing() == []
    stranger = play_game(2, Variant.GENERAL, random.Random(77)).keys[0]
    with pytest.raises(LocalProtocolError):
        Session(game.entries[0], key=stranger, seed=bytes(32))
    with pytest.raises(LocalProtocolError):
        Session(game.entries[0], key=game.keys[0], seed=None)


def test_session_rejects_non_genesis_start() -> None:
    game = finished_game(2)
    with pytest.raises(RemoteProtocolError):
        Session(game.entries[1])


def test_finished_session_rejects_more() -> None:
    game = finished_game(2)
    obs = Session(game.entries[0])
    for raw in game.entries[1:]:
        obs.receive(raw)
    last = decode_entry(game.entries[-1])
    from tests.protocol.helpers import forge

    extra = forge(game, last.seat, Kind.RESULT, [list(obs.final_scores or ())], on=obs)
    with pytest.raises(RemoteProtocolError, match="finished"):
        obs.receive(extra)


def test_state_learns_a_bottom_card_only_when_the_round_completes() -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(31))
    rng = random.Random(2)
    while game.sessions[0].floor is not None and game.sessions[0].floor.kind != Kind.REVEAL:
        step(game, rng)
    obs = game.sessions[0]
    assert obs.state is not None and obs.state.needs is not None
    sq = obs.state.needs.square
    for _ in range(2):  # seats 0 and 1 have published their links: still hidden
        step(game, rng)
        assert obs.state.needs is not None
        assert 25 + sq not in obs.known_tokens
    step(game, rng)  # seat 2 completes the chain
    assert obs.state.needs is None and 25 + sq in obs.known_tokens


def test_mutant_reveals_match_the_opened_deal() -> None:
    for n in (2, 3, 4):
        game = finished_game(n)
        s = game.sessions[0]
        assert s.opened_deal is not None
        copies = s.opened_deal.mutant_copies
        for (value, copy), is_mutant in s.mutant_reveals.items():
            assert is_mutant == (copies[value] == copy)
        found = [v for (v, _), m in s.mutant_reveals.items() if m]
        assert len(found) == len(set(found))
        for slot, tok in s.known_tokens.items():
            assert s.opened_deal.slot_tokens[slot] == tok


def test_protocol_package_does_no_file_io() -> None:
    from pathlib import Path

    import zoo_p2p.protocol as pkg

    for f in Path(pkg.__file__).parent.glob("*.py"):
        src = f.read_text()
        for banned in (" open(", "read_bytes", "write_bytes", "import pathlib", "import os"):
            assert banned not in src, f"{f.name} uses {banned}"
