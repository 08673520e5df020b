"""Play on after a claim (PROTOCOL.md §10.7): the table rule in the genesis, the re-deal round,
the out seat's stand-in, the auditor's checks and the forgeries that must convict only their
signer (issue 21)."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.protocol.forged import forgery, refuse, sample
from zoo_p2p.errors import CheatError, LocalProtocolError, RemoteProtocolError
from zoo_p2p.protocol.audit import OK, audit
from zoo_p2p.protocol.bodies import ON_LEAVE_END, ON_LEAVE_PLAY_ON, Genesis
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.events import Floor, SeatInfo
from zoo_p2p.protocol.liveness import CLAIMED, FINISHED
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.protocol.playon_samples import (
    claim,
    dropout_game,
    play_on_game,
    run_until,
    send,
    twice_game,
)
from zoo_p2p.protocol.redeal import (
    HiddenPart,
    RedealTables,
    claimed_stand_in_private_key,
)
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import random_mover, setup_game
from zoo_p2p.rules import Variant

ROOT = Path(__file__).resolve().parents[2]
GENESIS = json.loads((ROOT / "protocol" / "vectors" / "genesis.json").read_text())
REDEAL = json.loads((ROOT / "protocol" / "vectors" / "redeal.json").read_text())
PLAY_ON = "4p-standard-play-on.zoolog"
HOST = "4p-standard-play-on-host.zoolog"
TWICE = "3p-standard-play-on-twice.zoolog"


def _kinds(log: tuple[bytes, ...] | list[bytes]) -> list[tuple[int, int, str]]:
    return [(i, (e := decode_entry(raw)).seat, e.kind) for i, raw in enumerate(log)]


def _observer(log: tuple[bytes, ...] | list[bytes]) -> Session:
    s = Session(log[0])
    for raw in log[1:]:
        s.receive(raw)
    return s


# ------------------------------------------------------------------ the table rule (§10.7.1)
def test_on_leave_genesis_vectors_parse_and_refuse() -> None:
    for case in GENESIS["on_leave"]:
        g = Session(bytes.fromhex(case["genesis_entry"])).genesis
        assert (g.hints, g.on_leave) == (case["hints"], case["on_leave"]) == (g.hints, "play-on")
    for case in GENESIS["on_leave_refused"]:
        with pytest.raises(RemoteProtocolError):
            Session(bytes.fromhex(case["genesis_entry"]))


def test_an_absent_on_leave_is_end_and_keeps_the_old_bytes() -> None:
    """Every genesis written before §10.7 means `end`; the default genesis of `create_genesis`
    is byte for byte what it was (no seventh element)."""
    old = Session(bytes.fromhex(GENESIS["genesis_entry"])).genesis
    assert old.on_leave == ON_LEAVE_END and not old.play_on
    for name in ("3p-standard.zoolog", "4p-standard.zoolog", "3p-standard-resigned.zoolog"):
        assert not sample(name).session(1).genesis.play_on
    g = Genesis(bytes(32), Variant.STANDARD, sample("3p-standard.zoolog").session(1).seats, None)
    assert len(g.to_body()) == 4
    rng = random.Random(1)
    game = setup_game(3, Variant.STANDARD, rng)
    body = decode_entry(game.sessions[0].entries[0]).body
    assert len(body) == 5  # clocks, and nothing after them


def test_a_two_seat_table_always_ends() -> None:
    game = setup_game(2, Variant.STANDARD, random.Random(2))
    seats = list(game.sessions[0].seats)
    with pytest.raises(LocalProtocolError, match="2-seat"):
        Session.create_genesis(
            game.keys[0], seats, Variant.STANDARD, None, bytes(32), on_leave=ON_LEAVE_PLAY_ON
        )


def test_play_on_round_trips_in_the_genesis_with_and_without_hints() -> None:
    game = setup_game(3, Variant.STANDARD, random.Random(3))
    seats: list[SeatInfo] = list(game.sessions[0].seats)
    for hints in (False, True):
        raw = Session.create_genesis(
            game.keys[0],
            seats,
            Variant.STANDARD,
            None,
            bytes(32),
            hints=hints,
            on_leave=ON_LEAVE_PLAY_ON,
        )
        g = Session(raw).genesis
        assert g.play_on and g.hints is hints
        assert decode_entry(raw).body[5:] == [hints, "play-on"]


# ------------------------------------------------------------------ playing on
@pytest.mark.parametrize("name", [PLAY_ON, HOST])
def test_the_others_finish_and_the_log_verifies(name: str) -> None:
    s = sample(name)
    report = audit(s.log)
    assert report.verdict == OK, report.fault_reason
    assert report.ending is not None and report.ending.kind == FINISHED
    (p,) = report.ending.played_on
    assert p.seat not in report.winners  # an out seat cannot win (§10.5)
    obs = _observer(s.log)
    (r,) = obs.redeals
    assert r.dealers == tuple(i for i in range(4) if i != p.seat)
    # after the claim: the dealers' redeal entries, in seat order, then only the dealers in
    # the reveal chains, and no seed nor result of the out seat
    after = _kinds(s.log)[r.claim_seq + 1 :]
    assert [(a, k) for _, a, k in after[:3]] == [(d, Kind.REDEAL) for d in r.dealers]
    assert all(a != p.seat for _, a, k in after if k in (Kind.REVEAL, Kind.SEED, Kind.RESULT))
    assert any(a == p.seat and k == Kind.MOVE for _, a, k in after)  # its stand-in moves
    # the stand-in's entries are signed with the key derived from public data only (§10.7.6)
    head = sha256(s.log[r.claim_seq - 1])  # the head the votes name (k = at)
    key = claimed_stand_in_private_key(obs.game_id, p.seat, head).public_key()
    key.verify(decode_entry(s.log[r.claim_seq]).sig, decode_entry(s.log[r.claim_seq]).payload)
    for i, a, _ in after:
        if a == p.seat:
            e = decode_entry(s.log[i])
            key.verify(e.sig, e.payload)
    text = report.ending_text or ""
    assert f"stopped answering at entry {p.at}; a stand-in plays on" in text
    assert f"the {p.cards} cards nobody had seen" in text


def test_every_remaining_seat_ends_with_the_same_log() -> None:
    game, _, rest = dropout_game(4, 1, Kind.REVEAL, 6, "same log")
    logs = [game.sessions[i].entries for i in rest]
    assert logs[0] == logs[1] == logs[2]
    assert audit(logs[0]).verdict == OK


def test_the_interrupted_reveal_round_is_asked_again_of_the_redeal() -> None:
    obs = _observer(sample(PLAY_ON).log)
    (r,) = obs.redeals
    assert r.restart  # the claim was at a reveal floor
    assert _kinds(sample(PLAY_ON).log)[r.claim_seq + 4][2] == Kind.REVEAL
    assert REDEAL["play_on_log"]["restarted_questions"] == [list(q) for q in r.restart]


def test_a_second_claim_that_would_leave_one_seat_ends_the_game() -> None:
    s = sample(TWICE)
    report = audit(s.log)
    assert report.verdict == OK
    assert report.ending is not None and report.ending.kind == CLAIMED
    assert report.winners == (0,)  # seat 2 claimed, seat 3 out: only seat 1 can win
    assert len(report.ending.played_on) == 1


def test_an_end_table_still_ends_at_the_claim() -> None:
    """The same dropout at a table without play-on: the claim ends the log (today's rule)."""
    rng = random.Random("end table")
    game = setup_game(4, Variant.STANDARD, rng)
    moves = [0]

    def stop(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.seat == 2 and f.kind == Kind.REVEAL and moves[0] > 5

    run_until(game, rng, range(4), stop)
    claim(game, [0, 1, 3])
    s = game.sessions[0]
    assert s.floor is None and s.ending is not None and s.ending.kind == CLAIMED
    assert audit(s.entries).verdict == OK


def test_the_claimed_seat_that_hears_the_claim_only_watches() -> None:
    game, rng = play_on_game(3, "watcher")
    run_until(game, rng, range(3), lambda f: f.seat == 2 and f.kind == Kind.MOVE)
    c = claim(game, [0, 1])
    out = game.sessions[2]
    out.receive(c)
    assert out.seat is None  # its seat went to the stand-in
    with pytest.raises(LocalProtocolError):
        out.move(random_mover(out.state.public(), rng))  # type: ignore[union-attr]


# ------------------------------------------------------------------ forgeries (§10.7.8)
def _first(name: str, kind: str, after: int = 0) -> int:
    return next(i for i, _, k in _kinds(sample(name).log) if k == kind and i >= after)


def test_forged_redeal_by_the_claimed_seat_or_out_of_order_is_refused() -> None:
    s = sample(PLAY_ON)
    obs = _observer(s.log)
    (r,) = obs.redeals
    k = r.commit_seq[r.dealers[0]]
    body = decode_entry(s.log[k]).body
    # the out seat under its genesis key: its seat is signed for by its stand-in now (§6 step
    # 3), so the entry is refused at its signature and convicts nobody, as a resigned seat's
    bad = s.sign(r.claimed, k, Kind.REDEAL, body)
    report = refuse(forgery([*s.log[:k], bad], [r.claimed], k, None))
    assert "bad signature" in (report.fault_reason or "")
    # under its stand-in's key: not the computed entry (it owes none), convicts nobody
    stand_in = claimed_stand_in_private_key(s.game_id, r.claimed, sha256(s.log[r.claim_seq - 1]))
    bad = s.sign(r.claimed, k, Kind.REDEAL, body, key=stand_in)
    refuse(forgery([*s.log[:k], bad], [], k, None))
    # a dealer that deals before its turn: out of turn, its own signature convicts it
    late = r.dealers[1]
    bad = s.sign(late, k, Kind.REDEAL, decode_entry(s.log[r.commit_seq[late]]).body)
    report = refuse(forgery([*s.log[:k], bad], [late], k, late))
    assert "out of turn" in (report.fault_reason or "")


def test_forged_redeal_bodies_of_the_wrong_shape_convict_their_author() -> None:
    s = sample(PLAY_ON)
    obs = _observer(s.log)
    (r,) = obs.redeals
    d = r.dealers[0]
    k = r.commit_seq[d]
    hc, tables = decode_entry(s.log[k]).body
    wrong: list[list[Any]] = [
        [sha256(b"another claim"), tables],  # another claim's hash
        [hc, tables[:-1]],  # a table too few (a found value, say)
        [hc, [*tables, bytes(32 * 10)]],  # a table too many
        [hc, [tables[0][:-32], *tables[1:]]],  # a deal table over one slot too few
        [hc, [tables[0] + bytes(32), *tables[1:]]],  # over one slot too many
    ]
    for body in wrong:
        refuse(forgery([*s.log[:k], s.sign(d, k, Kind.REDEAL, body)], [d], k, d))


Patch = Callable[[Session, int, HiddenPart, RedealTables], RedealTables]


def _cheating_game(cheat: Patch, label: str) -> tuple[list[bytes], int]:
    """A 4-seat play-on game in which dealer `cheater` commits to the tables `cheat` returns
    and reveals from them; played until an honest seat refuses an entry of the cheater. Returns
    that honest seat's log with the refused entry last, and the cheater."""
    game, rng = play_on_game(4, label)
    moves = [0]

    def stop(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.seat == 3 and f.kind == Kind.MOVE and moves[0] > 8

    run_until(game, rng, range(4), stop)
    cheater = 1
    s = game.sessions[cheater]
    honest = game.sessions[0]
    real = s._redeal_body

    def body(seat: int, seed: bytes) -> list[Any]:
        out = real(seat, seed)
        r = s.redeals[-1]
        forged = cheat(s, seat, r.hidden, r.tables[seat])
        r.tables[seat] = forged
        return [r.claim_hash, forged.commitments(s.game_id, r.claim_hash, seat)] if out else out

    s._redeal_body = body  # type: ignore[method-assign]
    claim(game, [0, 1, 2])
    rest = [0, 1, 2]
    for _ in range(2000):
        f = honest.floor
        if f is None:
            break
        speaker = f.seat if f.seat in rest and honest.stand_in_entry() is None else 0
        sess = game.sessions[speaker]
        try:
            if f.kind == Kind.MOVE and speaker == f.seat:
                assert sess.state is not None
                out = [sess.move(random_mover(sess.state.public(), rng))]
            else:
                out = sess.take_outgoing()
        except CheatError as exc:  # the cheater's own session refuses its entry: sent anyway
            assert speaker == cheater and exc.entry is not None
            out = [exc.entry]
        for raw in out:
            try:
                send(game, speaker, [raw], [i for i in rest if i != cheater])
            except CheatError:
                return [*honest.entries, raw], cheater
            if speaker != cheater:
                with contextlib.suppress(RemoteProtocolError):
                    s.receive(raw)
    raise AssertionError("the cheat was never caught")


def _dup(s: Session, seat: int, h: HiddenPart, t: RedealTables) -> RedealTables:
    """Not a permutation: the deal table maps every covered slot to one unrevealed token."""
    tables = list(t.tables)
    tables[0] = tuple(0 for _ in tables[0])
    return RedealTables(h, tuple(tables), t.salts)


def _out_of_range(s: Session, seat: int, h: HiddenPart, t: RedealTables) -> RedealTables:
    """Not over the hidden part: every mutant table entry points past the unturned copies."""
    tables = [tuple(len(x) for _ in x) if i else x for i, x in enumerate(t.tables)]
    return RedealTables(h, tuple(tables), t.salts)


def _other_tokens(s: Session, seat: int, h: HiddenPart, t: RedealTables) -> RedealTables:
    """Commitments over the wrong token set (same sizes): a stale view of the hidden part."""
    outside = next(x for x in range(50) if x not in h.tokens)
    other = HiddenPart(h.covered, tuple(sorted((*h.tokens[1:], outside))), h.copies)
    assert s._seed is not None
    r = s.redeals[-1]
    return RedealTables.from_seed(s._seed, s.game_id, r.claim_hash, other)


@pytest.mark.parametrize(
    ("cheat", "why"),
    [
        (_dup, "not a permutation"),
        (_out_of_range, "not a permutation"),
        (_other_tokens, "does not match its commitment"),
    ],
    ids=["duplicate-token", "outside-the-hidden-part", "wrong-token-set"],
)
def test_a_dealer_whose_tables_are_not_the_hidden_part_is_convicted_alone(
    cheat: Patch, why: str
) -> None:
    log, cheater = _cheating_game(cheat, f"cheat {cheat.__name__}")
    report = refuse(forgery(log, [cheater], len(log) - 1, cheater))
    assert report.verdict == "cheat" and report.fault_seat == cheater
    assert why in (report.fault_reason or ""), report.fault_reason


def test_a_stand_in_move_that_is_not_the_reference_policys_convicts_nobody() -> None:
    s = sample(HOST)
    obs = _observer(s.log)
    (r,) = obs.redeals
    k = next(
        i for i, a, kind in _kinds(s.log) if i > r.claim_seq and a == r.claimed and kind == "move"
    )
    prefix = s.session(k)
    assert prefix.state is not None
    want = decode_entry(s.log[k]).body
    alt = next(encode_move(m) for m in prefix.state.legal_moves() if encode_move(m) != want)
    stand_in = claimed_stand_in_private_key(s.game_id, r.claimed, sha256(s.log[r.claim_seq - 1]))
    bad = s.sign(r.claimed, k, Kind.MOVE, alt, key=stand_in)
    report = refuse(forgery([*s.log[:k], bad], [], k, None))
    assert "reference policy" in (report.fault_reason or "")


def test_the_play_on_vector_is_what_the_log_gives() -> None:
    v = REDEAL["play_on_log"]
    log = sample(PLAY_ON).log
    assert sha256(b"".join(log)).hex() == v["sha256"] and len(log) == v["entries"]
    report = audit(log)
    assert report.ending_text == v["ending_text"] and list(report.winners) == v["winners"]
    assert report.slot_tokens is not None and list(report.slot_tokens) == v["deal"]
    obs = _observer(log)
    (r,) = obs.redeals
    assert (r.claim_seq, r.claimed, list(r.dealers)) == (
        v["claim_index"],
        v["claimed_seat"],
        v["dealers"],
    )
    assert r.hidden.encode().hex() == v["hidden"]["encoding"]
    assert [r.commit_seq[d] for d in r.dealers] == v["redeal_entries"]


def test_play_on_logs_do_not_depend_on_who_appends_the_stand_ins_entries() -> None:
    """Every peer computes the out seat's entries: the dealers' logs agree byte for byte
    with the sample, whichever of them appended each stand-in entry."""
    game, _, rest = twice_game()
    assert game.sessions[rest[0]].entries == list(sample(TWICE).log)


def test_a_play_on_claim_signed_by_a_voter_convicts_that_voter_only() -> None:
    """A claim that would play on is the entry every peer computes (§10.7.2): one a voter
    signs with its own key at the head is refused, and its signature convicts it alone; the
    computed form with a vote missing convicts nobody (its key is public)."""
    s = sample(PLAY_ON)
    obs = _observer(s.log)
    (r,) = obs.redeals
    k = r.claim_seq
    body = decode_entry(s.log[k]).body
    voter = r.dealers[0]
    bad = s.sign(voter, k, Kind.CLAIM, body)
    report = refuse(forgery([*s.log[:k], bad], [voter], k, voter))
    assert "every peer computes" in (report.fault_reason or "")
    key = claimed_stand_in_private_key(s.game_id, r.claimed, sha256(s.log[k - 1]))
    short = [body[0], body[1], body[2][:-1]]
    bad = s.sign(r.claimed, k, Kind.CLAIM, short, key=key)
    refuse(forgery([*s.log[:k], bad], [], k, None))
    # a claim the out seat's genesis key signs against itself: not the computed bytes, nobody
    bad = s.sign(r.claimed, k, Kind.CLAIM, body)
    refuse(forgery([*s.log[:k], bad], [r.claimed], k, None))


def test_a_vanished_seat_that_comes_back_reads_that_it_is_out_and_its_log_verifies() -> None:
    """Seat 3 stopped answering (its session held back its reveal); when it comes back and
    reads the others' log, the claim puts it out at once: it no longer holds a seat (it can
    watch, not play) and its log is theirs, which verifies."""
    game, claim_entry, rest = dropout_game(4, 2, Kind.REVEAL, 12, "joiner")
    back = game.sessions[2]
    theirs = game.sessions[rest[0]].entries
    k = decode_entry(claim_entry).seq
    assert len(back) == k  # it stopped where it was claimed (it signed nothing more)
    for raw in theirs[k:]:
        back.receive(raw)
    assert back.seat is None and 2 in back.out and back.out[2] == k and back.replaced_at == k
    assert back.take_outgoing() == []
    assert back.entries == theirs
    assert audit(back.entries).verdict == OK


@pytest.mark.parametrize("second_at", [Kind.REVEAL, Kind.REDEAL])
def test_two_claims_that_play_on_at_four_seats(second_at: str) -> None:
    """Seat 3 stops answering, the others re-deal; then seat 2 stops answering too (in a reveal
    chain of the re-deal, or on its own `redeal` floor, which the new round replaces): seats 1
    and 4 re-deal again and finish; both logs are the same and verify."""
    game, rng = play_on_game(4, f"double {second_at}")
    moves = [0]

    def first(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.seat == 2 and f.kind == Kind.REVEAL and moves[0] > 5

    run_until(game, rng, range(4), first)
    claim(game, [0, 1, 3])
    moves[0] = 0

    def second(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.seat == 1 and f.kind == second_at and (second_at == Kind.REDEAL or moves[0] > 3)

    run_until(game, rng, [0, 1, 3], second)
    claim(game, [0, 3])
    run_until(game, rng, [0, 3], lambda f: False)
    log = game.sessions[0].entries
    assert log == game.sessions[3].entries
    report = audit(log)
    assert report.verdict == OK, report.fault_reason
    assert report.ending is not None and report.ending.kind == FINISHED
    assert [p.seat for p in report.ending.played_on] == [2, 1]
    assert [p.dealers for p in report.ending.played_on] == [(0, 1, 3), (0, 3)]
    assert set(report.winners) <= {0, 3}
    rounds = _observer(log).redeals
    assert len(rounds) == 2 and rounds[1].complete
    if second_at == Kind.REDEAL:  # the unfinished round is replaced, over the same hidden part
        assert not rounds[0].complete and rounds[0].hidden == rounds[1].hidden
    else:
        assert rounds[0].complete


def test_a_dealer_that_resigns_on_its_redeal_floor_is_dealt_for_by_its_stand_in() -> None:
    """Seat 1 resigns while it owes its `redeal` entry: its stand-in appends the `resign` entry
    and then the `redeal` entry its opened seed gives (§10.7.4), and the game finishes."""
    game, rng = play_on_game(4, "resign dealer 1")
    moves = [0]

    def stop(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.seat == 2 and f.kind == Kind.MOVE and moves[0] > 5

    run_until(game, rng, range(4), stop)
    votes = [game.sessions[v].vote_claim() for v in (0, 1, 3)]
    for v in (0, 1, 3):
        for vote in votes:
            game.sessions[v].add_vote(vote)
    out = game.sessions[3].take_outgoing()  # the computed claim (seat 3 is not a dealer first)
    send(game, 3, out, [0, 1])
    assert game.sessions[0].floor == Floor(0, Kind.REDEAL)
    r = game.sessions[0].resign()
    for i in (1, 3):
        game.sessions[i].add_resignation(r)
    send(game, 1, game.sessions[1].take_outgoing(), [0, 1, 3])
    run_until(game, rng, [1, 3], lambda f: False)
    log = game.sessions[3].entries
    kinds = _kinds(log)
    k = next(i for i, a, kind in kinds if kind == Kind.RESIGN)
    assert kinds[k + 1][1:] == (0, Kind.REDEAL)  # the stand-in's redeal
    report = audit(log)
    assert report.verdict == OK, report.fault_reason
    assert report.ending is not None and report.ending.resigned == (0,)
    assert 0 not in report.winners and 2 not in report.winners
