"""Clocks, claims and resignations (PROTOCOL.md §10): who may claim, late answers, endings."""

from __future__ import annotations

import random

import pytest

from tests.protocol.helpers import forge
from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes, sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.liveness import (
    CLAIMED,
    FINISHED,
    LEFT,
    NEVER_STARTED,
    RESIGNED,
    Clocks,
    Resignation,
    parse_vote,
    sign_resignation,
)
from zoo_p2p.protocol.liveness_samples import (
    _game,
    claim_round,
    claimed_game,
    claimed_move_game,
    left_log,
    never_started_game,
    play_until,
    resigned_game,
)
from zoo_p2p.protocol.session import Genesis, Session
from zoo_p2p.protocol.simulate import broadcast, setup_game
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import Variant
from zoo_p2p.text import seat_word


def test_genesis_carries_the_clocks_and_old_geneses_get_the_defaults() -> None:
    game, _ = _game(2, "clocks")
    s = game.sessions[0]
    assert s.clocks == Clocks(120, 10)
    assert decode_entry(s.entries[0]).body[4] == [120, 10]
    old = setup_game(2, Variant.STANDARD, random.Random(1)).sessions[0]
    assert old.clocks == Clocks()  # created with the defaults
    body = decode_entry(old.entries[0]).body
    assert Genesis.from_body(body[:4]).clocks == Clocks(300, 15)  # a 4-field genesis
    for bad in ([0, 10], [10], [10, 86_401], [10, True]):
        with pytest.raises(RemoteProtocolError):
            Genesis.from_body([*body[:4], bad])


def test_a_claim_ends_the_game_and_every_log_says_so() -> None:
    game, staller, _ = claimed_game()
    for i, s in enumerate(game.sessions):
        r = audit(s.entries)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.kind == CLAIMED
        assert r.ending.seat == staller and r.ending.by == (0, 1)
        assert r.ending_text is not None
        assert "seat 3 (Red) did not reveal within 10 s of entry" in r.ending_text
        assert "claimed by seat 1 (Yellow), seat 2 (Green)" in r.ending_text
        assert staller not in r.winners and r.winners
        # the staller's own log keeps its late answer, and shows it came after the claim
        assert ("late answer" in r.ending_text) == (i == staller)
        assert r.to_json()["ending"]["kind"] == "claimed"


def test_the_claimed_seat_loses_even_with_the_best_score() -> None:
    game, staller, _ = claimed_move_game()
    ending = game.sessions[0].outcome()
    assert ending.kind == CLAIMED and ending.floor_kind == Kind.MOVE
    assert ending.winners == (1 - staller,)


def test_one_seat_of_three_cannot_claim() -> None:
    game, rng = _game(3, "minority")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    floor = game.sessions[0].floor
    assert floor is not None
    voter = (floor.seat + 1) % 3
    vote = game.sessions[voter].vote_claim()
    assert game.sessions[voter].votes_missing() == [(floor.seat + 2) % 3]
    assert game.sessions[voter].take_outgoing() == []  # not enough votes: nothing to append
    # a forged claim holding one vote is refused by everyone (and by the auditor)
    forged = forge(
        game, voter, Kind.CLAIM, [floor.seat, vote.at, [[vote.seat, vote.sig]]], on=game.sessions[0]
    )
    for i, s in enumerate(game.sessions):
        if i != voter:
            with pytest.raises(RemoteProtocolError, match="one vote from each"):
                s.receive(forged)
    assert audit([*game.sessions[0].entries, forged]).verdict == "cheat"  # signed by the voter


def test_an_honest_answer_beats_a_minority_vote_and_binds_the_voter() -> None:
    game, rng = _game(3, "binding")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    floor = game.sessions[0].floor
    assert floor is not None
    mover = floor.seat
    a, b = (mover + 1) % 3, (mover + 2) % 3
    vote_a = game.sessions[a].vote_claim()
    s = game.sessions[mover]
    assert s.state is not None
    answer = s.move(s.state.legal_moves()[0])
    # b got the answer first: it goes on and will never sign a vote about the old head
    game.sessions[b].receive(answer)
    assert not game.sessions[b].add_vote(vote_a)  # a stale vote is dropped
    # a signed a vote: it refuses the late answer (so no split between a and b can complete)
    with pytest.raises(RemoteProtocolError, match="after we signed a claim"):
        game.sessions[a].receive(answer)
    game.sessions[a].release_vote()  # a learns that b went on: it takes its vote back
    game.sessions[a].receive(answer)
    assert game.sessions[a].entries == game.sessions[b].entries


def test_votes_are_checked() -> None:
    game, rng = _game(2, "votes")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    floor = game.sessions[0].floor
    assert floor is not None
    other = 1 - floor.seat
    with pytest.raises(LocalProtocolError):
        game.sessions[floor.seat].vote_claim()  # nobody claims against itself
    vote = game.sessions[other].vote_claim()
    assert parse_vote(decode_entry_vote(vote.to_bytes())) == vote
    forged = vote.__class__(vote.claimed, vote.at, vote.seat, bytes(64))
    assert not game.sessions[floor.seat].add_vote(forged)
    with pytest.raises(RemoteProtocolError):
        parse_vote([0, 0, 1, bytes(64)])


def decode_entry_vote(data: bytes) -> object:
    import msgpack

    return msgpack.unpackb(data)


def test_a_duplicate_claim_from_another_voter_is_ignored() -> None:
    game, rng = _game(3, "dup")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    floor = game.sessions[0].floor
    assert floor is not None
    voters = [i for i in range(3) if i != floor.seat]
    claim = claim_round(game, voters)
    other = game.sessions[voters[1]].take_outgoing()  # the second voter assembles it too
    assert len(other) == 1 and other[0] != claim
    assert game.sessions[voters[0]].receive(other[0]) == []
    assert game.sessions[voters[1]].receive(claim) == []
    assert audit(game.sessions[voters[1]].entries).ending_text is not None


def test_a_resignation_ends_a_two_seat_game() -> None:
    game, seat, _ = resigned_game(2)
    for s in game.sessions:
        ending = s.outcome()
        assert ending.kind == RESIGNED and ending.seat == seat and ending.winners == (0,)
        r = audit(s.entries)
        assert r.verdict == "ok" and r.ending_text is not None
        assert r.ending_text.startswith("resigned: seat 2")


def test_a_three_seat_game_goes_on_with_a_stand_in() -> None:
    """Every peer computes the stand-in's entries: whoever appends one, the others accept it
    because it is the very entry they compute, and every log of the game is the same."""
    game, seat, appender = resigned_game(3)
    assert appender == 2 and all(s.finished for s in game.sessions)
    r = audit(game.sessions[0].entries)
    assert r.verdict == "ok", r.fault_reason
    assert r.ending is not None and r.ending.kind == FINISHED and r.ending.resigned == (seat,)
    assert seat not in r.winners
    assert r.ending_text is not None and "resigned; a stand-in played on" in r.ending_text
    assert all(s.entries == game.sessions[0].entries for s in game.sessions)
    at = game.sessions[0].resigned[seat]
    after = [decode_entry(x) for x in game.sessions[0].entries[at + 1 :]]
    kinds = {e.kind for e in after if e.seat == seat}
    assert kinds == {Kind.MOVE, Kind.REVEAL, Kind.SEED, Kind.RESULT}  # all signed by the stand-in


def _watcher(log: list[bytes]) -> Session:
    s = Session(log[0])
    for raw in log[1:]:
        s.receive(raw)
    return s


def test_resignation_rules() -> None:
    game, rng = _game(3, "resign-rules")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    s1 = game.sessions[1]
    log = game.sessions[0].entries
    key = private_key_from_bytes(bytes(range(32)))
    # a stand-in key of the resigner's choosing (say, one whose private half it gave someone):
    # signed by the seat, but not the key derived from its seed: its own signature proves it
    # wrong, so it is a proof against the resigner, never kept (§10.4)
    chosen = sign_resignation(
        game.keys[1], s1.game_id, 1, len(s1), game.seeds[1], public_key_bytes(key)
    )
    with pytest.raises(CheatError, match="not the one derived from the opened seed") as caught:
        _watcher(log).add_resignation(chosen)
    assert caught.value.seat == 1
    good = s1.resign()
    assert good.new_key == stand_in_public_key(s1.game_id, 1, game.seeds[1])
    # a wrong seed is signed by the seat but does not match its commitments: proof of cheating
    derived = stand_in_public_key(s1.game_id, 1, bytes(32))
    bad = sign_resignation(game.keys[1], s1.game_id, 1, len(s1), bytes(32), derived)
    floor = game.sessions[0].floor
    assert floor is not None
    author = floor.seat if floor.seat != 1 else 0
    wrong_author = (author + 1) % 3 if (author + 1) % 3 != 1 else (author + 2) % 3
    forged = forge(game, wrong_author, Kind.RESIGN, good.to_body())
    with pytest.raises(RemoteProtocolError, match="appends this resignation"):
        game.sessions[author].receive(forged)
    with pytest.raises(CheatError, match="not the one derived from the opened seed"):
        _watcher(log).receive(forge(game, author, Kind.RESIGN, chosen.to_body()))
    cheat = forge(game, author, Kind.RESIGN, bad.to_body())
    with pytest.raises(CheatError, match="does not match its commitments") as caught:
        _watcher(log).receive(cheat)
    assert caught.value.seat == 1  # the resigner signed the seed, whoever appended it
    forged_sig = Resignation(1, good.at, good.seed, good.new_key, bytes(64))
    assert not game.sessions[0].add_resignation(forged_sig)


def test_abandoned_log_says_who_holds_it() -> None:
    game, rng = _game(3, "abandoned")
    play_until(game, rng, lambda f: f.kind == Kind.REVEAL and f.seat == 1)
    r = audit(game.sessions[0].entries)
    assert r.verdict == "incomplete"
    assert r.ending_text == (
        f"abandoned at entry {len(game.sessions[0])}: waiting for a reveal from seat 2 (Green)"
    )


@pytest.mark.parametrize("n", [2, 3])
def test_a_claim_against_a_seat_that_signed_nothing_has_no_result(n: int) -> None:
    """The claimed seat owed its first commit: it signed nothing in the game, so the game never
    started. The claim still ends the log (verdict ok, nothing may follow it), with no winner and
    no scores, in every log of the game, the claimed seat's own (with its late commit) too."""
    game, claim = never_started_game(n)
    seats = game.sessions[0].seats
    who = [seat_word(i, seats[i].team.name.capitalize()) for i in range(n)]
    voters = ", ".join(who[: n - 1])
    text = f"never started: {who[-1]} signed nothing in this game (claimed by {voters})"
    for i, s in enumerate(game.sessions):
        r = audit(s.entries)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.kind == NEVER_STARTED and r.ending.seat == n - 1
        assert r.ending.winners == () and r.winners == () and r.scores is None
        assert r.ending.by == tuple(range(n - 1)) and r.ending.floor_kind == Kind.COMMIT
        late = "; its commitments (entry" in (r.ending_text or "")
        assert late == (i == n - 1) and r.ending.late == ((n,) if i == n - 1 else ())
        assert r.ending_text is not None and r.ending_text.startswith(text)
        assert r.ending_text.endswith("; no result") and "win" not in r.ending_text
        js = r.to_json()
        assert js["ending"]["kind"] == "never_started" and js["winners"] == []
        assert js["scores"] is None and js["ending"]["claimed_by"] == list(range(n - 1))
        assert s.finished and s.floor is None
    s0 = game.sessions[0]
    after = forge(game, 0, Kind.OPEN, [bytes(32), []], on=s0)  # nothing may follow a claim
    with pytest.raises(RemoteProtocolError):
        s0.receive(after)
    assert decode_entry(claim).kind == Kind.CLAIM and s0.entries[-1] == claim


def test_a_log_that_stops_before_a_seats_first_commit_never_started() -> None:
    """Abandoned while a seat that signed nothing owes its commit: no result, and it says so;
    abandoned while seat 1 (which signed the genesis) owes its commit: only who holds it."""
    game, _ = _game(3, "stops-at-commit")
    host = audit(game.sessions[0].entries)
    assert host.verdict == "incomplete" and host.ending is not None
    assert not host.ending.never_started and host.ending_text is not None
    assert host.ending_text.startswith("abandoned at entry 1: waiting for its commitments from")
    assert "never started" not in host.ending_text
    (c,) = game.sessions[0].take_outgoing()
    broadcast(game, 0, c)
    r = audit(game.sessions[0].entries)
    assert r.verdict == "incomplete" and r.ending is not None and r.ending.never_started
    who = seat_word(1, game.sessions[0].seats[1].team.name.capitalize())
    assert r.ending_text == (
        f"abandoned at entry 2: waiting for its commitments from {who}, which signed nothing "
        "in this game: never started, no result"
    )
    assert r.winners == ()


def test_a_claim_against_the_host_owing_its_commit_is_a_forfeit() -> None:
    """Seat 1 signed the genesis (it wrote the table), so a claim at its commit is a claim like
    any other: it loses, every other seat wins at 0 points."""
    game, _ = _game(2, "host-stall")
    claim = claim_round(game, [1])
    ending = game.sessions[1].outcome()
    assert decode_entry(claim).body[:2] == [0, 1]
    assert ending.kind == CLAIMED and ending.winners == (1,) and ending.scores == (0, 0)
    text = audit(game.sessions[1].entries).ending_text
    assert text is not None and "did not send its commitments" in text and "wins" in text


def test_a_two_seat_resignation_names_no_stand_in() -> None:
    game, rng = _game(2, "resign-two")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE)
    s1 = game.sessions[1]
    named = sign_resignation(
        game.keys[1], s1.game_id, 1, len(s1), game.seeds[1], public_key_bytes(game.keys[1])
    )
    with pytest.raises(CheatError, match="names a stand-in key in a 2-seat game"):
        _watcher(game.sessions[0].entries).add_resignation(named)
    assert s1.resign().new_key is None
    with pytest.raises(LocalProtocolError):
        s1.resign()  # it signs nothing more


def test_liveness_vectors_and_sample_logs_are_current() -> None:
    import json
    from pathlib import Path

    from zoo_p2p.protocol.liveness_samples import liveness_logs, liveness_vectors
    from zoo_p2p.storage import read_log

    root = Path(__file__).resolve().parents[2]
    stored = json.loads((root / "protocol" / "vectors" / "liveness.json").read_text())
    assert stored == liveness_vectors(), "stale: run protocol/generate.py"
    for name, entries in liveness_logs().items():
        held = read_log(root / "replays" / name)
        assert list(getattr(held, "entries", held)) == entries, f"replays/{name} is stale"
        r = audit(entries)
        assert r.verdict == "ok" and r.ending_text
    never = stored["never_started"]  # read back as another implementation would
    r = audit([bytes.fromhex(h) for h in never["log"]])
    assert r.verdict == "ok" and r.ending is not None and r.ending.kind == never["kind"]
    assert never["kind"] == NEVER_STARTED and never["winners"] == [] and r.winners == ()
    assert r.ending_text == never["ending"] and never["ending"].endswith("; no result")


def test_a_resigning_seat_signs_nothing_more() -> None:
    game, rng = _game(3, "resign-quiet")
    play_until(game, rng, lambda f: f.kind == Kind.REVEAL and f.seat == 2)
    s2 = game.sessions[2]
    s2.resign()
    assert s2.take_outgoing() == []  # its reveal is not sent: the deputy appends the resignation


def test_a_resignation_waits_for_what_the_resigner_had_seen() -> None:
    game, rng = _game(3, "resign-at")
    play_until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 2)
    s2 = game.sessions[2]
    r = s2.resign()
    assert r.at == len(s2)
    behind = Session(
        game.sessions[0].entries[0], key=game.keys[0], seed=game.seeds[0], nonce=game.nonces[0]
    )
    for raw in game.sessions[0].entries[1:-1]:  # one entry short of the resigner's view
        behind.receive(raw)
        behind.take_outgoing()
    assert behind.add_resignation(r)
    assert [decode_entry(x).kind for x in behind.take_outgoing()] == []
    # an entry appended before `at` is refused, by whichever seat would append it there: the
    # floor holder, or, when that is the resigner, its stand-in (signed with the derived key)
    observer = Session(behind.entries[0])
    for raw in behind.entries[1:]:
        observer.receive(raw)
    f = observer.floor
    assert f is not None
    if f.seat == 2:
        key = stand_in_private_key(observer.game_id, 2, game.seeds[2])
        held = observer.entries
        early = make_entry(key, len(held), sha256(held[-1]), 2, Kind.RESIGN, r.to_body())
    else:
        early = forge(game, f.seat, Kind.RESIGN, r.to_body(), on=behind)
    with pytest.raises(RemoteProtocolError, match="cannot stand at"):
        observer.receive(early)


def test_the_cli_defaults_are_the_protocol_defaults() -> None:
    import typer.main

    from zoo_p2p.cli.app import app
    from zoo_p2p.protocol import liveness

    host = typer.main.get_command(app).commands["host"]  # type: ignore[attr-defined]
    given = {p.name: p.default for p in host.params}
    assert given["move_time"] == liveness.DEFAULT_MOVE_TIME
    assert given["reveal_time"] == liveness.DEFAULT_REVEAL_TIME


def test_a_claim_settles_the_scores() -> None:
    game, _, _ = claimed_game()
    r = audit(game.sessions[0].entries)
    assert not r.provisional and r.scores is not None and r.winners
    assert r.to_json()["ending"]["claimed_by"] == [0, 1]


def test_a_log_that_stops_at_a_resignation_says_so_and_claims_no_result() -> None:
    """The resigner's own log of a 3-seat game ends with the entry that holds its resignation
    (it leaves once that is in). It is incomplete (the game went on without it), and it says who
    resigned where, not "waiting for a move from" the seat that resigned; one entry more (the
    stand-in's) and it is an ordinary abandoned log again."""
    entries = left_log()
    assert decode_entry(entries[-1]).kind == Kind.RESIGN
    r = audit(entries)
    assert r.verdict == "incomplete" and r.fault_index is None
    assert r.ending is not None and r.ending.kind == LEFT and r.ending.seat == 1
    assert r.ending.at == len(entries) - 1 and r.ending.resigned == (1,)
    who = seat_word(1, r.seats[1].team.name.capitalize())
    assert r.ending_text == (
        f"left: {who} resigned at entry {len(entries) - 1} (a stand-in takes its seat); "
        "the log stops there: no result"
    )
    assert r.winners == () and r.provisional  # no result: the totals so far, unsigned
    assert r.notes[0] == (
        f"the log stops at entry {len(entries)}, right after {who} resigned "
        f"(entry {len(entries) - 1}); a stand-in takes its seat"
    )
    assert "waiting for" not in (r.ending_text or "") and "has not" not in r.notes[0]
    js = r.to_json()
    assert js["verdict"] == "incomplete" and js["ending"]["kind"] == "left"
    assert js["ending"]["seat"] == 1 and js["winners"] == []
    game, _, _ = resigned_game(3)
    more = game.sessions[0].entries[: len(entries) + 1]
    after = audit(more)
    assert after.ending is not None and after.ending.kind == "abandoned", after.ending_text
    assert after.ending_text is not None and "resigned; a stand-in played on" in after.ending_text


def test_the_left_vector_reads_back() -> None:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    left = json.loads((root / "protocol" / "vectors" / "liveness.json").read_text())["left"]
    r = audit([bytes.fromhex(h) for h in left["log"]])  # as another implementation would
    assert r.verdict == "incomplete" and r.ending is not None
    assert left["kind"] == LEFT == r.ending.kind and left["winners"] == [] and r.winners == ()
    assert r.ending_text == left["ending"] and left["ending"].endswith(": no result")
