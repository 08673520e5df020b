"""Who may append a claim, where, and who wins it (PROTOCOL.md §6, §10.3, §10.5; issue 18 B, D).

Each refused case is a forgery signed with keys the test holds (`claim_samples`): the auditor
must not say ok and must convict only the signer of the refused entry, the same entry as a §9
proof convicts the same seat, and a live session refuses it the same way.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from zoo_p2p.errors import CheatError, RemoteProtocolError
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.claim_samples import (
    FORGERIES,
    Forged,
    _game,
    advance,
    claim_vectors,
    claimed_with_resigned_leader,
    late_answer_to_stand_in,
    vector_log,
    voter_resigns_late,
    votes,
)
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack
from zoo_p2p.protocol.evidence import PROOF_VERSION, ProofError, check, convicted_by, make_proof
from zoo_p2p.protocol.liveness import CLAIMED, FINISHED
from zoo_p2p.protocol.liveness_samples import claim_round
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import broadcast

ROOT = Path(__file__).resolve().parents[2]


@cache
def _case(name: str) -> Forged:
    f = FORGERIES[name]()
    assert f.name == name
    return f


def _peers(log: list[bytes]) -> list[Session]:
    """An observer and every seat's own session (the samples' key material), holding `log`."""
    n = len(Session(log[0]).seats)
    game, _ = _game(n)
    assert game.sessions[0].entries[0] == log[0]
    peers = [Session(log[0])]
    peers += [
        Session(log[0], key=game.keys[i], seed=game.seeds[i], nonce=game.nonces[i])
        for i in range(n)
    ]
    for peer in peers:
        for raw in log[1:]:
            peer.receive(raw)
    return peers


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_refused_claim_convicts_only_its_signer(name: str) -> None:
    f = _case(name)
    before, offending = f.log[:-1], f.log[-1]
    assert f.index == len(before)
    honest = audit(before)
    assert honest.fault_index is None, honest.fault_reason  # everything before it checks
    r = audit(f.log)
    assert r.verdict == ("cheat" if f.seat is not None else "rejected"), r.fault_reason
    assert (r.fault_index, r.fault_seat) == (f.index, f.seat), r.fault_reason
    assert r.fault_entries == (f.index,) and r.convictions == ()
    # every live peer holding the same log (each seat, and an observer) refuses it, and
    # convicts the same seat or nobody
    for peer in _peers(before):
        with pytest.raises(RemoteProtocolError) as exc:
            peer.receive(offending)
        assert convicted_by(peer, offending, exc.value) == f.seat
        assert peer.entries == before
    # as a §9 proof beside the honest log: it convicts the signer, or proves nothing
    proof = pack([PROOF_VERSION, sha256(before[0]), [*before[1:], offending]])  # (§9.1)
    if f.seat is None:
        with pytest.raises(ProofError):
            check(proof, before[0])
        assert audit(before, proofs=[proof]).verdict == honest.verdict
    else:
        assert check(proof, before[0]).seat == f.seat
        beside = audit(before, proofs=[proof])
        assert beside.verdict == "cheat" and [c.seat for c in beside.convictions] == [f.seat]


def test_claims_vectors_are_current_and_read_back() -> None:
    stored = json.loads((ROOT / "protocol" / "vectors" / "claims.json").read_text())
    assert stored == claim_vectors(), "stale: run protocol/generate.py"
    assert [c["name"] for c in stored["refused"]] == list(FORGERIES)
    for case in stored["refused"]:  # as another implementation would read them
        r = audit(vector_log(stored, case))
        assert r.verdict == case["verdict"] and r.fault_index == case["index"], case["name"]
        assert r.fault_seat == case["seat"], case["name"]
    for case in stored["accepted"]:
        r = audit(vector_log(stored, case))
        assert r.verdict == "ok" and r.ending is not None and r.ending.kind == case["kind"]
        assert list(r.winners) == case["winners"] and r.ending_text == case["ending"]


def test_the_claimed_seat_adopts_a_claim_after_its_late_answer_handed_the_floor_to_a_stand_in() -> (
    None
):
    """Its late move gave the floor to a resigned seat's stand-in, whose entries its own session
    appended (every peer computes them); the claim used to be refused there for ever ("entry N
    after the claimed position is not the claimed seat's"), leaving its log abandoned."""
    game, c, claim = late_answer_to_stand_in()
    mine = game.sessions[c].entries
    theirs = game.sessions[2].entries
    at = decode_entry(claim).body[1]
    assert mine[:at] == theirs[:at] and theirs[-1] == claim
    own = decode_entry(mine[-1])
    assert own.kind == Kind.CLAIM and own.seat == c and own.body == decode_entry(claim).body
    assert {decode_entry(x).seat for x in mine[at:-1]} == {c, 1}  # its entries, the stand-in's
    endings = []
    for log in (mine, theirs):
        r = audit(log)
        assert r.verdict == "ok", r.fault_reason
        assert r.ending is not None and r.ending.kind == CLAIMED
        endings.append((r.ending.seat, r.ending.at, r.ending.scores, r.winners, r.ending.resigned))
    assert endings[0] == endings[1]  # every log of the game gives the same result
    ending = audit(mine).ending
    assert ending is not None and ending.late == tuple(range(at, len(mine) - 1))


def test_a_resigned_seat_does_not_win_a_claimed_game() -> None:
    """§10.5: a resigned seat keeps its points but cannot win, in a claimed game too."""
    log, resigned = claimed_with_resigned_leader()
    r = audit(log)
    assert r.verdict == "ok" and r.ending is not None and r.ending.kind == CLAIMED
    assert r.scores is not None and r.ending.resigned == (resigned,)
    claimed = r.ending.seat
    rest = [i for i in range(len(r.scores)) if i not in (claimed, resigned)]
    assert r.scores[resigned] >= max(r.scores[i] for i in rest)  # it would have won or tied
    assert resigned not in r.winners and r.winners == tuple(
        i for i in rest if r.scores[i] == max(r.scores[j] for j in rest)
    )
    assert r.ending_text is not None and "resigned; a stand-in played on" in r.ending_text
    assert r.to_json()["winners"] == list(r.winners)


def test_a_seat_that_is_not_the_claimed_one_never_adopts_a_claim() -> None:
    """A voter that took its vote back and accepted the floor holder's answer, then got the claim
    completed with that vote: appending it after the answer would be a claim by another author
    after the head, which its own rules refuse. It keeps its log; nobody is convicted."""
    game, rng = _game(3)
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.kind == Kind.MOVE and f.seat == 0:
            break
        advance(game, rng)
    a, b = game.sessions[1], game.sessions[2]
    a.vote_claim()
    vote_b = b.vote_claim()
    b.release_vote()  # it learns that the game went on
    c = game.sessions[0]
    assert c.state is not None
    answer = c.move(c.state.legal_moves()[0])
    b.receive(answer)
    assert a.add_vote(vote_b)
    (claim,) = a.take_outgoing()
    held = b.entries
    with pytest.raises(RemoteProtocolError, match="conflicts with our log") as exc:
        b.receive(claim)
    assert convicted_by(b, claim, exc.value) is None
    assert [decode_entry(x).kind for x in b.take_outgoing()] != [Kind.CLAIM]
    assert b.entries[: len(held)] == held and Kind.CLAIM not in {
        decode_entry(x).kind for x in b.entries
    }


def test_the_claimed_seat_whose_late_answer_was_the_last_result_keeps_its_complete_log() -> None:
    """Nothing may follow the last result, so the claimed seat does not adopt the claim there:
    its complete log is its proof that it answered; the others' logs hold the claim."""
    game, rng = _game(2)
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.kind == Kind.RESULT and f.seat == 1:
            break
        advance(game, rng)
    late = game.sessions[1]
    late.take_outgoing()  # its result, never sent: its log is complete
    assert late.finished and late.floor is None
    claim = claim_round(game, [0])
    with pytest.raises(RemoteProtocolError, match="nothing may follow") as exc:
        late.receive(claim)
    assert convicted_by(late, claim, exc.value) is None
    assert late.take_outgoing() == []
    mine, theirs = audit(late.entries), audit(game.sessions[0].entries)
    assert mine.verdict == theirs.verdict == "ok"
    assert mine.ending is not None and mine.ending.kind == FINISHED
    assert theirs.ending is not None and theirs.ending.kind == CLAIMED


def test_a_claim_signed_for_a_seq_its_author_already_signed_is_a_fork() -> None:
    """A seat that signed an entry at a seq and then a claim at that seq on the same predecessor
    signed two entries for one seq: a fork, whatever the claim says (it used to be taken for
    another seat's claim to adopt, or a conflict)."""
    game, rng = _game(3)
    while True:
        f = game.sessions[0].floor
        assert f is not None
        if f.kind == Kind.MOVE and f.seat == 0:
            break
        advance(game, rng)
    c = game.sessions[0]
    assert c.state is not None
    log = c.entries
    at = len(log)
    answer = c.move(c.state.legal_moves()[0])
    broadcast(game, 0, answer)
    twin = make_entry(
        game.keys[0], at, sha256(log[-1]), 0, Kind.CLAIM, [0, at, votes(game, log, at, 0, [1, 2])]
    )
    for peer in game.sessions[1:]:
        with pytest.raises(CheatError, match="fork"):
            peer.receive(twin)
    r = audit([*log, answer], proofs=[make_proof([*log, answer], twin)])
    assert r.verdict == "cheat" and [x.seat for x in r.convictions] == [0]


def test_a_vote_is_checked_with_its_seats_genesis_key_after_that_seat_resigned() -> None:
    """A voter resigns after voting, and the late claimed seat (holding the floor) appends that
    resignation among its late entries: the claim it adopts still carries the voter's vote, which
    verifies with the voter's genesis key (§10.3 rule 7), not with its stand-in's public key (with
    which anyone could sign a "vote": `vote_signed_with_stand_in_key` is refused)."""
    game, _ = voter_resigns_late()
    c = game.sessions[0]
    r = audit(c.entries)
    assert r.verdict == "ok" and r.ending is not None and r.ending.by == (1, 2)
    assert 2 in c.resigned and r.ending.resigned == ()  # (it resigned after the claimed head)
    theirs = audit(game.sessions[1].entries)
    assert theirs.verdict == "ok" and theirs.ending is not None
    assert (theirs.ending.scores, theirs.winners) == (r.ending.scores, r.winners)
