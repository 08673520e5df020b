"""A catalogue of forged logs, each a test id (issue 18: a differential check of our own).

Every forgery starts from a real sample log of `replays/` and is signed with the keys that made
it (`tests/protocol/forged.py`), as a cheating seat or coalition holding them could: entries at
the wrong floor, entries after the end, claims and their votes, resignation statements and
entries, stand-in entries, reorderings and duplicates, stored proofs (§9). Each must give no
false `ok`, never accept the forged entry, and convict nobody but the signer of the offending
entry (`assert_convicts_only_signer`); the expected conviction is named per case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from tests.protocol.forged import (
    Forgery,
    Sample,
    forgery,
    key_bytes,
    other_key,
    refuse,
    sample,
)
from tests.protocol.helpers import assert_convicts_only_signer
from zoo_p2p.protocol.audit import CHEAT, OK, REJECTED, audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.deal import DEAL_TABLE, SeatTables
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack
from zoo_p2p.protocol.events import Floor
from zoo_p2p.protocol.evidence import make_proof
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.protocol.standin import reference_move
from zoo_p2p.rules import N_SQUARES

CATALOGUE: dict[str, Callable[[], Forgery]] = {}


def case(name: str) -> Callable[[Callable[[], Forgery]], Callable[[], Forgery]]:
    """Register a named forgery."""

    def add(make: Callable[[], Forgery]) -> Callable[[], Forgery]:
        assert name not in CATALOGUE
        CATALOGUE[name] = make
        return make

    return add


def _move_floor(s: Sample, after: int = 0) -> tuple[int, int]:
    """The index of the first move at or after `after` and the seat that made it."""
    k = s.find(Kind.MOVE, after=after)
    return k, decode_entry(s.log[k]).seat


def _other_legal_move(s: Sample, k: int) -> list[int]:
    """A legal move at the move floor before entry k, other than the one played."""
    st = s.session(k).state
    assert st is not None
    played = decode_entry(s.log[k]).body
    return next(encode_move(m) for m in st.legal_moves() if encode_move(m) != played)


def _body(s: Sample, kind: str, seat: int | None = None) -> object:
    return decode_entry(s.log[s.find(kind, seat=seat)]).body


# ------------------------------------------------------------------ entries at the wrong floor
@case("floor/move-out-of-turn-4p")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k, mover = _move_floor(s)
    other = (mover + 1) % s.n
    bad = s.sign(other, k, Kind.MOVE, decode_entry(s.log[k]).body)
    return forgery([*s.log[:k], bad, *s.log[k:]], [other], k, other)


@case("floor/reveal-at-a-move-floor")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k, mover = _move_floor(s)
    bad = s.sign(mover, k, Kind.REVEAL, _body(s, Kind.REVEAL, mover))
    return forgery([*s.log[:k], bad], [mover], k, mover)


@case("floor/reveal-chain-started-at-the-mover")
def _() -> Forgery:
    """A joiner captures a Zoo card and signs the first link of the reveal chain itself, with
    its own honest links for the chain's public input, as if chains started at the mover: every
    chain starts at seat 0 (PROTOCOL.md §4.4: another order reveals from another permutation),
    so the link is out of turn and convicts the mover alone."""
    s = sample("4p-standard.zoolog")
    kinds = s.kinds()
    k = next(
        i + 1
        for i, seat, kind in kinds[:-1]
        if kind == Kind.MOVE and seat != 0 and kinds[i + 1][2] == Kind.REVEAL
    )
    mover = decode_entry(s.log[k - 1]).seat
    before = s.session(k)
    st = before.state
    assert st is not None and st.needs is not None and before.floor == Floor(0, Kind.REVEAL)
    needs = st.needs
    questions: list[tuple[int, int]] = []
    if needs.bottom:
        questions.append((DEAL_TABLE, N_SQUARES + needs.square))
    if needs.mutant_value is not None:
        slot = needs.square if needs.layer == 1 else N_SQUARES + needs.square
        questions.append((1 + needs.mutant_value, before.known_tokens[slot] % 10))
    tables = SeatTables.from_seed(s.seeds[mover], s.game_id, general=False)
    links = [[tables.tables[t][x], tables.salts[t][x]] for t, x in questions]
    bad = s.sign(mover, k, Kind.REVEAL, [links])
    return forgery([*s.log[:k], bad, *s.log[k:]], [mover], k, mover)


@case("floor/seed-opened-during-play")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k, mover = _move_floor(s, after=20)
    bad = s.sign(mover, k, Kind.SEED, [s.seeds[mover]])
    return forgery([*s.log[:k], bad, *s.log[k:]], [mover], k, mover)


@case("floor/result-before-the-seeds")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.SEED)
    bad = s.sign(0, k, Kind.RESULT, _body(s, Kind.RESULT, 0))
    return forgery([*s.log[:k], bad, *s.log[k:]], [0], k, 0)


@case("floor/second-commit")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    bad = s.sign(0, 2, Kind.COMMIT, decode_entry(s.log[1]).body)
    return forgery([*s.log[:2], bad, *s.log[2:]], [0], 2, 0)


@case("floor/open-before-its-turn")
def _() -> Forgery:
    s = sample("3p-general.zoolog")
    k = s.find(Kind.OPEN)
    bad = s.sign(1, k, Kind.OPEN, _body(s, Kind.OPEN, 1))
    return forgery([*s.log[:k], bad], [1], k, 1)


@case("floor/illegal-move-hints-game")
def _() -> Forgery:
    s = sample("2p-standard-hints.zoolog")
    k, mover = _move_floor(s, after=30)
    bad = s.sign(mover, k, Kind.MOVE, [1, 24, 0])  # a step from E5 to A1: never legal
    return forgery([*s.log[:k], bad], [mover], k, mover)


@case("floor/wrong-result-totals")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k = s.find(Kind.RESULT)
    (totals,) = decode_entry(s.log[k]).body
    bad = s.sign(0, k, Kind.RESULT, [[totals[1], totals[0], *totals[2:]]])
    return forgery([*s.log[:k], bad], [0], k, 0)


# ------------------------------------------------------------------ entries after the end
@case("end/move-after-the-last-result")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k = len(s.log)
    bad = s.sign(0, k, Kind.MOVE, decode_entry(s.log[s.find(Kind.MOVE, seat=0)]).body)
    return forgery([*s.log, bad], [0], k, 0)


@case("end/second-result")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = len(s.log)
    bad = s.sign(1, k, Kind.RESULT, decode_entry(s.log[-1]).body)
    return forgery([*s.log, bad], [1], k, 1)


@case("end/resign-after-the-last-result")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k = len(s.log)
    r = s.statement(1, k)
    bad = s.sign(0, k, Kind.RESIGN, r.to_body())
    return forgery([*s.log, bad], [0, 1], k, 0, None)


@case("end/reveal-after-a-claim")
def _() -> Forgery:
    s = sample("3p-standard-claimed-reveal.zoolog")
    k = len(s.log)
    bad = s.sign(1, k, Kind.REVEAL, decode_entry(s.log[k - 2]).body)
    return forgery([*s.log, bad], [1], k, 1)


@case("end/second-claim")
def _() -> Forgery:
    s = sample("2p-standard-claimed-move.zoolog")
    k = len(s.log)
    bad = s.sign(0, k, Kind.CLAIM, decode_entry(s.log[-1]).body)
    return forgery([*s.log, bad], [0], k, 0, None)


@case("end/move-after-a-2-seat-resignation")
def _() -> Forgery:
    s = sample("2p-standard-resigned.zoolog")
    k = len(s.log)
    seat = 1 - decode_entry(s.log[-1]).body[0]  # the seat that plays on
    bad = s.sign(seat, k, Kind.MOVE, decode_entry(s.log[s.find(Kind.MOVE, seat=seat)]).body)
    return forgery([*s.log, bad], [seat], k, seat)


@case("end/stand-in-entry-after-the-end")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    k = len(s.log)
    bad = s.sign(1, k, Kind.RESULT, decode_entry(s.log[-1]).body, key=s.stand_in_key(1))
    return forgery([*s.log, bad], [], k)


@case("end/bytes-after-the-claim-from-an-outsider")
def _() -> Forgery:
    s = sample("3p-standard-claimed-reveal-late.zoolog")
    k = len(s.log)
    bad = s.sign(2, k, Kind.SEED, [s.seeds[2]], key=other_key("after-claim"))
    return forgery([*s.log, bad], [], k)


# ------------------------------------------------------------------ claims and their votes
def _claim_case(name: str) -> tuple[Sample, int, int, int]:
    """The 3-seat claimed sample: (sample, index of the claim, claimed seat, at)."""
    s = sample(name)
    k = s.find(Kind.CLAIM)
    claimed, at, _ = decode_entry(s.log[k]).body
    return s, k, claimed, at


@case("claim/missing-a-vote")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(0, k, Kind.CLAIM, [c, at, [s.vote(0, at, c)]])
    return forgery([*s.log[:k], bad], [0], k, 0)


@case("claim/vote-signed-by-another-seat")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    votes = [s.vote(0, at, c), s.vote(1, at, c, key=s.keys[0])]
    bad = s.sign(0, k, Kind.CLAIM, [c, at, votes])
    return forgery([*s.log[:k], bad], [0], k, 0)


@case("claim/vote-of-zero-bytes")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(1, k, Kind.CLAIM, [c, at, [s.vote(0, at, c), [1, bytes(64)]]])
    return forgery([*s.log[:k], bad], [0, 1], k, 1)


@case("claim/votes-about-another-head")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    head = sha256(s.log[at - 2])
    votes = [s.vote(v, at, c, head=head) for v in (0, 1)]
    bad = s.sign(0, k, Kind.CLAIM, [c, at, votes])
    return forgery([*s.log[:k], bad], [0, 1], k, 0)


@case("claim/votes-of-another-game")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    gid = sample("3p-standard.zoolog").game_id
    votes = [s.vote(v, at, c, game_id=gid) for v in (0, 1)]
    bad = s.sign(0, k, Kind.CLAIM, [c, at, votes])
    return forgery([*s.log[:k], bad], [0, 1], k, 0)


@case("claim/votes-out-of-order")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(0, k, Kind.CLAIM, [c, at, [s.vote(1, at, c), s.vote(0, at, c)]])
    return forgery([*s.log[:k], bad], [0, 1], k, 0)


@case("claim/a-vote-twice")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(0, k, Kind.CLAIM, [c, at, [s.vote(0, at, c), s.vote(0, at, c)]])
    return forgery([*s.log[:k], bad], [0], k, 0)


@case("claim/the-claimed-seat-votes-too")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    votes = [s.vote(v, at, c) for v in range(s.n)]
    bad = s.sign(0, k, Kind.CLAIM, [c, at, votes])
    return forgery([*s.log[:k], bad], [0, 1, 2], k, 0)


@case("claim/against-a-seat-without-the-floor")
def _() -> Forgery:
    s, k, _c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    wrong = 1
    votes = [s.vote(v, at, wrong) for v in range(s.n) if v != wrong]
    bad = s.sign(0, k, Kind.CLAIM, [wrong, at, votes])
    return forgery([*s.log[:k], bad], [0, 2], k, 0)


@case("claim/about-a-later-position")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    votes = [s.vote(v, at, c) for v in (0, 1)]
    bad = s.sign(0, k, Kind.CLAIM, [c, k + 1, votes])
    return forgery([*s.log[:k], bad], [0, 1], k, 0)


@case("claim/at-zero")
def _() -> Forgery:
    s, k, _c, _ = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(0, k, Kind.CLAIM, [0, 0, [[1, bytes(64)], [2, bytes(64)]]])
    return forgery([*s.log[:k], bad], [0], k, 0)


@case("claim/over-another-seats-entry")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    at, mover = _move_floor(s, after=40)  # mover held the floor at `at`; then others revealed
    k = at + 2
    assert decode_entry(s.log[at + 1]).seat != mover
    votes = [s.vote(v, at, mover) for v in range(s.n) if v != mover]
    bad = s.sign(mover, k, Kind.CLAIM, [mover, at, votes])
    return forgery([*s.log[:k], bad], range(s.n), k, mover)


@case("claim/against-a-stand-in")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    at = s.find(Kind.MOVE, seat=1, after=r)  # the stand-in of seat 2 (index 1) to move
    votes = [s.vote(v, at, 1) for v in (0, 2)]
    bad = s.sign(0, at, Kind.CLAIM, [1, at, votes])
    return forgery([*s.log[:at], bad], [0, 2], at, 0)


@case("claim/malformed-body")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    bad = s.sign(0, k, Kind.CLAIM, [c, at, [[0]], b"extra"])
    return forgery([*s.log[:k], bad], [0], k, 0)


@case("claim/by-an-outsider-key")
def _() -> Forgery:
    s, k, _c, _at = _claim_case("3p-standard-claimed-reveal.zoolog")
    body = decode_entry(s.log[k]).body
    bad = s.sign(0, k, Kind.CLAIM, body, key=other_key("claim"))
    return forgery([*s.log[:k], bad], [], k)


@case("claim/same-claim-by-another-author-after-it")
def _() -> Forgery:
    s, k, _c, _at = _claim_case("3p-standard-claimed-reveal.zoolog")
    body = decode_entry(s.log[k]).body
    bad = s.sign(1, k, Kind.CLAIM, body)  # the same claim at a held seq: not a second entry
    return forgery([*s.log, bad], [1], k + 1)


# ------------------------------------------------------------------ resignations
def _resign_case() -> tuple[Sample, int, int]:
    """3 seats: a move floor in the middle of the game and the seat holding it."""
    s = sample("3p-standard.zoolog")
    k, mover = _move_floor(s, after=30)
    return s, k, mover


@case("resign/appended-by-a-seat-without-the-floor")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r, author = (mover + 1) % 3, (mover + 2) % 3
    bad = s.sign(author, k, Kind.RESIGN, s.statement(r, k).to_body())
    return forgery([*s.log[:k], bad], [r, author], k, author)


@case("resign/statement-signed-by-another-seat")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    st = s.statement(r, k, key=s.keys[mover])
    bad = s.sign(mover, k, Kind.RESIGN, st.to_body())
    return forgery([*s.log[:k], bad], [mover], k, mover)


@case("resign/statement-of-zero-bytes")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    body = s.statement(r, k).to_body()
    body[4] = bytes(64)
    bad = s.sign(mover, k, Kind.RESIGN, body)
    return forgery([*s.log[:k], bad], [mover], k, mover)


@case("resign/statement-of-another-game")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    gid = sample("3p-general.zoolog").game_id
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(r, k, game_id=gid).to_body())
    return forgery([*s.log[:k], bad], [mover, r], k, mover)


@case("resign/stand-in-key-not-derived")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    st = s.statement(r, k, stand_in=key_bytes(other_key("stand-in")))
    bad = s.sign(mover, k, Kind.RESIGN, st.to_body())
    return forgery(
        [*s.log[:k], bad], [mover, r], k, r
    )  # the resigner signed that field (§10.4): it is convicted


@case("resign/no-stand-in-key-with-3-seats")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(r, k, stand_in=None).to_body())
    return forgery(
        [*s.log[:k], bad], [mover, r], k, r
    )  # the resigner signed that field (§10.4): it is convicted


@case("resign/stand-in-key-with-2-seats")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k, mover = _move_floor(s, after=30)
    r = 1 - mover
    st = s.statement(r, k, stand_in=key_bytes(s.stand_in_key(r)))
    bad = s.sign(mover, k, Kind.RESIGN, st.to_body())
    return forgery(
        [*s.log[:k], bad], [mover, r], k, r
    )  # the resigner signed that field (§10.4): it is convicted


@case("resign/before-the-statement-was-signed")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(r, k + 1).to_body())
    return forgery([*s.log[:k], bad], [mover, r], k, mover)


@case("resign/in-the-opening-round")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k = s.find(Kind.OPEN, seat=2)
    bad = s.sign(2, k, Kind.RESIGN, s.statement(3, k).to_body())
    return forgery([*s.log[:k], bad], [2, 3], k, 2)


@case("resign/seed-that-misses-the-commitments")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(r, k, seed=bytes(32)).to_body())
    # the resigner signed the bad seed (issue 18 D): nobody or the resigner, never the appender
    return forgery([*s.log[:k], bad], [mover, r], k, None, r)


@case("resign/a-resigned-seat-again")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    k, mover = next((i, a) for i, a, kind in s.kinds()[r + 1 :] if kind == Kind.MOVE and a != 1)
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(1, k).to_body())
    return forgery([*s.log[:k], bad], [mover, 1], k, mover)


@case("resign/while-a-stand-in-holds-the-floor")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    k = s.find(Kind.MOVE, seat=1, after=r)
    bad = s.sign(0, k, Kind.RESIGN, s.statement(2, k).to_body())
    return forgery([*s.log[:k], bad], [0, 2], k, 0)


@case("resign/resigner-appends-its-own-with-3-seats")
def _() -> Forgery:
    s, k, mover = _resign_case()
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(mover, k).to_body())
    return forgery([*s.log[:k], bad], [mover], k, mover, None)


@case("resign/stand-in-resign-entry-badly-signed")
def _() -> Forgery:
    s, k, mover = _resign_case()
    body = s.statement(mover, k).to_body()
    good = s.sign(mover, k, Kind.RESIGN, body, key=s.stand_in_key(mover))
    payload = decode_entry(good).payload
    bad = pack([payload, bytes(64)])
    return forgery([*s.log[:k], bad], [mover], k)


@case("resign/resigner-appends-its-own-with-2-seats")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k, mover = _move_floor(s, after=30)
    bad = s.sign(mover, k, Kind.RESIGN, s.statement(mover, k).to_body())
    return forgery([*s.log[:k], bad], [mover], k, mover)


@case("resign/malformed-statement")
def _() -> Forgery:
    s, k, mover = _resign_case()
    r = (mover + 1) % 3
    body = s.statement(r, k).to_body()
    bad = s.sign(mover, k, Kind.RESIGN, body[:4])
    return forgery([*s.log[:k], bad], [mover, r], k, mover)


# ------------------------------------------------------------------ stand-in entries
def _stand_in_case(kind: str) -> tuple[Sample, int]:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    return s, s.find(kind, seat=1, after=r + 1)


@case("stand-in/move-not-the-reference-policy")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.MOVE)
    st = s.session(k).state
    assert st is not None
    other = next(m for m in st.legal_moves() if m != reference_move(st))
    bad = s.sign(1, k, Kind.MOVE, encode_move(other), key=s.stand_in_key(1))
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [], k)


@case("stand-in/reveal-with-a-wrong-salt")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.REVEAL)
    (links,) = decode_entry(s.log[k]).body
    links[0] = [links[0][0], bytes(32)]
    bad = s.sign(1, k, Kind.REVEAL, [links], key=s.stand_in_key(1))
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [], k)


@case("stand-in/seed-not-the-opened-one")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.SEED)
    bad = s.sign(1, k, Kind.SEED, [bytes(32)], key=s.stand_in_key(1))
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [], k)


@case("stand-in/result-with-other-totals")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.RESULT)
    (totals,) = decode_entry(s.log[k]).body
    bad = s.sign(1, k, Kind.RESULT, [[t + 1 for t in totals]], key=s.stand_in_key(1))
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [], k)


@case("stand-in/entry-signed-by-the-resigners-own-key")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.MOVE)
    bad = s.sign(1, k, Kind.MOVE, decode_entry(s.log[k]).body)
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [1], k, None, 1)


@case("stand-in/a-second-entry-at-a-held-seq")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.MOVE)
    st = s.session(k).state
    assert st is not None
    other = next(m for m in st.legal_moves() if m != reference_move(st))
    bad = s.sign(1, k, Kind.MOVE, encode_move(other), key=s.stand_in_key(1))
    return forgery([*s.log[: k + 1], bad, *s.log[k + 1 :]], [], k + 1)


@case("stand-in/a-live-seat-plays-the-stand-ins-move")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.MOVE)
    bad = s.sign(0, k, Kind.MOVE, decode_entry(s.log[k]).body)
    return forgery([*s.log[:k], bad, *s.log[k + 1 :]], [0], k, 0)


# ------------------------------------------------------------------ reorderings, duplicates
@case("order/two-entries-swapped")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k = 40
    log = list(s.log)
    log[k], log[k + 1] = log[k + 1], log[k]
    return forgery(log, [], k)


@case("order/reveal-round-reversed")
def _() -> Forgery:
    s = sample("3p-general.zoolog")
    k = s.find(Kind.REVEAL, after=20)
    log = [*s.log[:k], *reversed(s.log[k : k + 3]), *s.log[k + 3 :]]
    return forgery(log, [], k)


@case("order/an-entry-twice")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    return forgery([*s.log[:31], s.log[30], *s.log[31:]], [], 31)


@case("order/the-claim-twice")
def _() -> Forgery:
    s = sample("2p-standard-claimed-move.zoolog")
    return forgery([*s.log, s.log[-1]], [], len(s.log))


@case("order/an-entry-missing")
def _() -> Forgery:
    s = sample("2p-standard-hints.zoolog")
    return forgery([*s.log[:50], *s.log[51:]], [], 50)


@case("order/an-entry-of-another-game")
def _() -> Forgery:
    s, o = sample("3p-standard.zoolog"), sample("3p-standard-resigned.zoolog")
    return forgery([*s.log[:12], o.log[12], *s.log[13:]], [], 12)


@case("order/the-late-log-spliced-after-the-claim")
def _() -> Forgery:
    s = sample("3p-standard-claimed-reveal.zoolog")
    late = sample("3p-standard-claimed-reveal-late.zoolog")
    k = len(s.log)
    return forgery([*s.log, *late.log[k - 1 :]], [], k)


@case("order/the-resignation-moved-earlier")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    return forgery([*s.log[: r - 3], s.log[r], *s.log[r - 3 : r], *s.log[r + 1 :]], [], r - 3)


# ------------------------------------------------------------------ forks (the signer's own)
@case("fork/seat-signs-two-moves-for-one-seq")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k, mover = _move_floor(s, after=10)
    bad = s.sign(mover, k, Kind.MOVE, _other_legal_move(s, k))
    return forgery([*s.log[: k + 3], bad, *s.log[k + 3 :]], [mover], k + 3, mover)


@case("fork/a-claim-at-the-signers-own-held-seq")
def _() -> Forgery:
    s = sample("2p-standard-claimed-move.zoolog")
    k = len(s.log) - 1
    c, at, _ = decode_entry(s.log[k]).body
    author = decode_entry(s.log[k - 1]).seat
    bad = s.sign(author, k - 1, Kind.CLAIM, [c, at, [s.vote(1 - c, at, c)]], on=s.log)
    return forgery([*s.log, bad], [0, 1], k + 1, author, None)


# ------------------------------------------------------------------ stored proofs (§9)
def _proof_case() -> tuple[Sample, int, int]:
    s = sample("3p-standard.zoolog")
    k, mover = _move_floor(s, after=60)
    return s, k, mover


@case("proof/a-real-fork-convicts-its-signer")
def _() -> Forgery:
    s, k, mover = _proof_case()
    alt = s.sign(mover, k, Kind.MOVE, _other_legal_move(s, k))
    return forgery(s.log, [mover], None, mover, proofs=[make_proof(s.log[: k + 1], alt)])


@case("proof/chain-ends-with-an-honest-entry")
def _() -> Forgery:
    s, k, _ = _proof_case()
    return forgery(s.log, [], None, proofs=[make_proof(s.log[:k], s.log[k])])


@case("proof/last-entry-with-a-broken-signature")
def _() -> Forgery:
    s, k, _ = _proof_case()
    e = decode_entry(s.log[k])
    broken = pack([e.payload, bytes([e.sig[0] ^ 1]) + e.sig[1:]])
    return forgery(s.log, [], None, proofs=[make_proof(s.log[:k], broken)])


@case("proof/last-entry-signed-by-an-outsider")
def _() -> Forgery:
    s, k, mover = _proof_case()
    bad = s.sign(mover, k, Kind.MOVE, [1, 24, 0], key=other_key("proof"))
    return forgery(s.log, [], None, proofs=[make_proof(s.log[:k], bad)])


@case("proof/a-wrong-stand-in-entry")
def _() -> Forgery:
    s, k = _stand_in_case(Kind.MOVE)
    st = s.session(k).state
    assert st is not None
    other = next(m for m in st.legal_moves() if m != reference_move(st))
    bad = s.sign(1, k, Kind.MOVE, encode_move(other), key=s.stand_in_key(1))
    return forgery(s.log, [], None, proofs=[make_proof(s.log[:k], bad)])


@case("proof/an-honest-entry-after-a-gap")
def _() -> Forgery:
    s, k, _ = _proof_case()
    chain = [*s.log[1 : k - 1], s.log[k]]  # entry k-1 left out: k does not chain
    proof = pack([1, s.game_id, chain])
    return forgery(s.log, [], None, proofs=[proof])


@case("proof/an-honest-entry-of-another-seat-at-a-held-seq")
def _() -> Forgery:
    s, k, _ = _proof_case()
    proof = pack([1, s.game_id, [*s.log[1 : k + 1], s.log[k + 1]]])  # seq k+1 at index k+1
    conflict = pack([1, s.game_id, [*s.log[1 : k + 2], s.log[k]]])  # a held entry again
    return forgery(s.log, [], None, proofs=[proof, conflict])


@case("proof/about-another-game")
def _() -> Forgery:
    s, _k, _mover = _proof_case()
    o = sample("3p-general.zoolog")
    ko, mo = _move_floor(o, after=40)
    alt = o.sign(mo, ko, Kind.MOVE, _other_legal_move(o, ko))
    return forgery(s.log, [], None, proofs=[make_proof(o.log[: ko + 1], alt)])


@case("proof/the-same-fork-twice-counts-once")
def _() -> Forgery:
    s, k, mover = _proof_case()
    alt = s.sign(mover, k, Kind.MOVE, _other_legal_move(s, k))
    proof = make_proof(s.log[: k + 1], alt)
    return forgery(s.log, [mover], None, mover, proofs=[proof, proof])


@case("proof/not-canonical-msgpack")
def _() -> Forgery:
    s, k, mover = _proof_case()
    alt = s.sign(mover, k, Kind.MOVE, _other_legal_move(s, k))
    proof = make_proof(s.log[: k + 1], alt)
    assert proof[0] == 0x93 and proof[1] == 0x01
    stretched = bytes([0x93, 0xCC, 0x01]) + proof[2:]  # version 1 as uint8: not the shortest
    return forgery(s.log, [mover], None, proofs=[stretched])


@case("proof/a-forged-claim-in-the-chain")
def _() -> Forgery:
    s, k, c, at = _claim_case("3p-standard-claimed-reveal.zoolog")
    forged = s.sign(0, k, Kind.CLAIM, [c, at, [s.vote(0, at, c)]])  # seat 2's vote missing
    after = make_entry(s.keys[1], k + 1, sha256(forged), 1, Kind.MOVE, [0, 3, 12])
    proof = pack([1, s.game_id, [*s.log[1:k], forged, after]])
    return forgery(s.log, [0], None, proofs=[proof])


# ------------------------------------------------------------------ issue 18 B and D (8ca177d)
def _last_result_claim(name: str) -> Forgery:
    s = sample(name)
    n = len(s.log)
    at = n - 1  # the head before the last result: the last seat held the floor there
    c = decode_entry(s.log[-1]).seat
    votes = [s.vote(v, at, c) for v in range(s.n) if v != c]
    bad = s.sign(0, n, Kind.CLAIM, [c, at, votes])
    return forgery([*s.log, bad], [v for v in range(s.n) if v != c], n, 0, None)


@case("claim/after-the-last-result-2p")
def _() -> Forgery:
    return _last_result_claim("2p-standard.zoolog")


@case("claim/after-the-last-result-3p")
def _() -> Forgery:
    return _last_result_claim("3p-standard.zoolog")


@case("claim/on-the-late-answer-by-another-author")
def _() -> Forgery:
    s = sample("3p-standard-claimed-reveal-late.zoolog")
    k = s.find(Kind.CLAIM)
    bad = s.sign(0, k, Kind.CLAIM, decode_entry(s.log[k]).body)
    return forgery([*s.log[:k], bad], [0], k, 0, None)


@case("claim/with-a-stand-in-signed-vote")
def _() -> Forgery:
    """Seat 2 (index 1) resigned at entry 27, appended by seat 1 (index 0) at its own move floor.
    A claim against index 0 about log length 27 needs index 1's vote (it had not resigned by
    then): §10.3 says it verifies with its genesis key; here it is signed with its stand-in
    key, which anyone can compute."""
    s = sample("3p-standard-resigned.zoolog")
    at = s.find(Kind.RESIGN)
    assert decode_entry(s.log[at]).seat == 0
    votes = [s.vote(1, at, 0, key=s.stand_in_key(1)), s.vote(2, at, 0)]
    bad = s.sign(2, at + 1, Kind.CLAIM, [0, at, votes])
    return forgery([*s.log[: at + 1], bad], [2], at + 1, 2, None)


def _two_resigned() -> tuple[Sample, list[bytes], int, int, int]:
    """3-seat game: at a move floor of `holder`, the seat `r` leading the other two resigns,
    then (same floor) the third seat `t`: only `holder` plays on."""
    s = sample("3p-standard.zoolog")
    for k in range(60, len(s.log)):
        obs = s.session(k)
        f = obs.floor
        assert obs.state is not None
        if f is None or f.kind != Kind.MOVE:
            continue
        totals = [x.total for x in obs.state.scores()]
        others = [i for i in range(s.n) if i != f.seat]
        r, t = sorted(others, key=lambda i: -totals[i])
        if totals[r] > totals[t]:
            return s, list(s.log[:k]), f.seat, r, t
    raise AssertionError("no position where a non-holder leads")


@case("claim/with-no-votes-when-the-others-resigned")
def _() -> Forgery:
    s, log, holder, r, t = _two_resigned()
    k = len(log)
    log.append(s.sign(holder, k, Kind.RESIGN, s.statement(r, k).to_body(), on=log))
    log.append(s.sign(holder, k + 1, Kind.RESIGN, s.statement(t, k + 1).to_body(), on=log))
    claim = s.sign(holder, k + 2, Kind.CLAIM, [holder, k + 2, []], on=log)
    assert audit(log).checked == k + 2  # (both resignations stand)
    return forgery([*log, claim], [holder, r, t], k + 2, holder, None)


def test_a_claimed_games_winners_are_not_resigned_seats() -> None:
    """Issue 18 D: §10.5, a resigned seat cannot win; a claim against the floor holder after
    the leader resigned gives the win to the third seat."""
    s, log, holder, r, t = _two_resigned()
    k = len(log)
    log.append(s.sign(holder, k, Kind.RESIGN, s.statement(r, k).to_body(), on=log))
    vote = s.vote(t, k + 1, holder, head=sha256(log[k]))
    claim = s.sign(t, k + 1, Kind.CLAIM, [holder, k + 1, [vote]], on=log)
    report = audit([*log, claim])
    assert report.verdict == OK, report.fault_reason
    assert report.winners == (t,), (report.winners, r, t)


# ------------------------------------------------------------------ issue 18 A, C, D (seed), N1
def _unsigned_stand_in_header(s: Sample, k: int, holder: int, r: int) -> bytes:
    """Issue 18 A: a `resign` entry "by" the floor holder carrying another seat's (genuine)
    statement, with 64 zero bytes as its signature."""
    good = s.sign(holder, k, Kind.RESIGN, s.statement(r, k).to_body())
    return pack([decode_entry(good).payload, bytes(64)])


@case("resign/unsigned-resign-entry-by-the-floor-holder")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k, holder = _move_floor(s, after=40)
    r = (holder + 1) % s.n
    bad = _unsigned_stand_in_header(s, k, holder, r)
    return forgery([*s.log[:k], bad], [r], k)


@case("resign/unsigned-resign-entry-before-the-holders-real-entry")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k, holder = _move_floor(s, after=40)
    r = (holder + 1) % s.n
    bad = _unsigned_stand_in_header(s, k, holder, r)
    return forgery([*s.log[:k], bad, *s.log[k:]], [r], k)


@case("resign/unsigned-resign-entry-in-a-stored-proof")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k, holder = _move_floor(s, after=40)
    r = (holder + 1) % s.n
    bad = _unsigned_stand_in_header(s, k, holder, r)
    proof = pack([1, s.game_id, [*s.log[1:k], bad, s.log[k]]])
    return forgery(s.log, [r], None, proofs=[proof])


@case("claim/claim-against-itself-with-a-stand-in-signed-vote")
def _() -> Forgery:
    """As above, but authored by the claimed seat itself (so the rule of B does not apply): the
    vote of index 1 is still signed by its public stand-in key, not its genesis key."""
    s = sample("3p-standard-resigned.zoolog")
    at = s.find(Kind.RESIGN)
    votes = [s.vote(1, at, 0, key=s.stand_in_key(1)), s.vote(2, at, 0)]
    bad = s.sign(0, at + 1, Kind.CLAIM, [0, at, votes])
    return forgery([*s.log[: at + 1], bad], [0, 2], at + 1, 0, None)


@case("claim/genuine-vote-of-a-seat-that-resigned-after-the-head")
def _() -> Forgery:
    """The converse: index 1's genuine genesis-key vote, signed before it resigned, is refused
    (the claimed seat's own log, which adopts this claim after its late answer, cannot end)."""
    s = sample("3p-standard-resigned.zoolog")
    at = s.find(Kind.RESIGN)
    votes = [s.vote(1, at, 0), s.vote(2, at, 0)]
    good = s.sign(0, at + 1, Kind.CLAIM, [0, at, votes])
    return forgery([*s.log[: at + 1], good], [0, 1, 2], None)


@case("resign/resign-at-the-seed-floor-2p")
def _() -> Forgery:
    s = sample("2p-standard.zoolog")
    k = s.find(Kind.SEED)
    bad = s.sign(0, k, Kind.RESIGN, s.statement(1, k).to_body())
    return forgery([*s.log[:k], bad], [0, 1], k, 0, 1, None)


@case("resign/resign-at-the-result-floor-3p")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.RESULT, seat=1)
    bad = s.sign(1, k, Kind.RESIGN, s.statement(2, k).to_body())
    return forgery([*s.log[:k], bad], [1, 2], k, 1, 2, None)


@case("resign/leader-resigns-at-the-seed-floor-3p")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.SEED)
    (totals,) = decode_entry(s.log[-1]).body
    leader = max(range(s.n), key=lambda i: totals[i])
    holder = decode_entry(s.log[k]).seat
    bad = s.sign(holder, k, Kind.RESIGN, s.statement(leader, k).to_body())
    return forgery([*s.log[:k], bad], [holder, leader], k, holder, leader, None)


@case("resign/stale-statement-after-the-resigner-played-on")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    at, r = _move_floor(s, after=30)
    k, holder = next((i, a) for i, a, kind in s.kinds()[at + 12 :] if kind == Kind.MOVE and a != r)
    bad = s.sign(holder, k, Kind.RESIGN, s.statement(r, at).to_body())
    return forgery([*s.log[:k], bad], [holder, r], k, holder, r, None)


# ---- stored proofs whose last element is a bare statement (§9.1 after the resign fix)
def _statement_proof(s: Sample, upto: int, statement: bytes) -> bytes:
    return pack([1, s.game_id, [*s.log[1:upto], statement]])


@case("proof/statement-whose-seed-misses-the-commitments")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    bad = s.statement(2, k, seed=bytes(32)).to_bytes()
    return forgery(s.log, [2], None, 2, proofs=[_statement_proof(s, k, bad)])


@case("proof/statement-with-a-stand-in-key-not-derived")
def _() -> Forgery:
    s = sample("4p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    bad = s.statement(1, k, stand_in=bytes(range(32))).to_bytes()
    return forgery(s.log, [1], None, 1, proofs=[_statement_proof(s, k, bad)])


@case("proof/statement-without-a-fault")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    good = s.statement(2, k).to_bytes()
    return forgery(s.log, [2], None, proofs=[_statement_proof(s, k, good)])


@case("proof/faulty-statement-signed-by-another-seat")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    bad = s.statement(2, k, seed=bytes(32), key=s.keys[0]).to_bytes()
    return forgery(s.log, [0], None, proofs=[_statement_proof(s, k, bad)])


@case("proof/faulty-statement-in-the-opening-round")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.OPEN, seat=1)
    bad = s.statement(2, k, seed=bytes(32)).to_bytes()
    return forgery(s.log, [2], None, proofs=[_statement_proof(s, k, bad)])


@case("proof/faulty-statement-of-another-game")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    gid = sample("3p-general.zoolog").game_id
    bad = s.statement(2, k, seed=bytes(32), game_id=gid).to_bytes()
    return forgery(s.log, [2], None, proofs=[_statement_proof(s, k, bad)])


@case("proof/faulty-statement-with-a-zero-signature")
def _() -> Forgery:
    s = sample("3p-standard.zoolog")
    k = s.find(Kind.MOVE, after=40)
    body = s.statement(2, k, seed=bytes(32)).to_body()
    body[4] = bytes(64)
    return forgery(s.log, [], None, proofs=[_statement_proof(s, k, pack(body))])


@case("proof/an-honest-statement-after-its-resign-entry")
def _() -> Forgery:
    s = sample("3p-standard-resigned.zoolog")
    r = s.find(Kind.RESIGN)
    statement = pack(decode_entry(s.log[r]).body)  # the resigner's own, honest statement
    return forgery(s.log, [1], None, proofs=[_statement_proof(s, len(s.log), statement)])


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_forgery_is_refused_and_convicts_only_its_signer(name: str) -> None:
    refuse(CATALOGUE[name]())


def test_every_sample_log_verifies_before_it_is_forged() -> None:
    """The control: the untouched samples verify ok and convict nobody."""
    from tests.protocol.forged import SAMPLE_NAMES

    for name in SAMPLE_NAMES:
        s = sample(name)
        report = audit(s.log)
        assert report.verdict == OK, (name, report.fault_reason)
        assert report.cheater is None


def test_the_catalogue_covers_every_kind_of_forgery() -> None:
    """Every family of issue 18's list has cases, and both verdicts a forgery can give occur."""
    families = {name.split("/")[0] for name in CATALOGUE}
    assert families >= {"floor", "end", "claim", "resign", "stand-in", "order", "fork", "proof"}
    verdicts = {refuse(CATALOGUE[name]()).verdict for name in sorted(CATALOGUE)[::7]}
    assert {CHEAT, REJECTED} <= verdicts


def test_the_helper_catches_a_framed_seat() -> None:
    """`assert_convicts_only_signer` can fail: a conviction of a seat that signed nothing, or of
    a seat whose signature is not on the cited entries, is caught."""
    f = CATALOGUE["fork/seat-signs-two-moves-for-one-seq"]()
    report = refuse(f)
    (signer,) = f.signers
    with pytest.raises(AssertionError, match="honest seat"):
        assert_convicts_only_signer(report, f.log, signers=[1 - signer])
    framed = replace(report, fault_seat=1 - signer)
    with pytest.raises(AssertionError, match="does not carry its signature"):
        assert_convicts_only_signer(framed, f.log, signers=[0, 1])
    p = CATALOGUE["proof/a-real-fork-convicts-its-signer"]()
    proven = refuse(p)
    (c,) = proven.convictions
    moved = replace(proven, convictions=(replace(c, seat=(c.seat + 1) % 3),))
    with pytest.raises(AssertionError):
        assert_convicts_only_signer(moved, p.log, signers=[0, 1, 2], proofs=p.proofs)


# ------------------------------------------------------------------ out of the msgpack profile
def _signed_payload(s: Sample, seat: int, k: int, body_bytes: bytes) -> bytes:
    """An entry whose payload is `[1, k, prev, seat, "move", <body_bytes>]`, signed by `seat`
    (the body spliced in as raw msgpack, so it can be out of the profile)."""
    head = pack([1, k, sha256(s.log[k - 1]), seat, Kind.MOVE])
    payload = bytes([0x96]) + head[1:] + body_bytes
    return pack([payload, s.keys[seat].sign(payload)])


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"\x80", id="an-empty-map"),
        pytest.param(b"\x93\x00\x03\x80", id="an-empty-map-inside-the-move"),
        pytest.param(b"\xc7\x00\x01", id="a-zero-length-ext"),
        pytest.param(b"\x93\x00\x03\xcb" + b"\x00" * 8, id="a-float"),
        pytest.param(b"\x93\x00\x03\xd9\x00", id="a-str-in-a-non-shortest-form"),
    ],
)
def test_a_signed_body_out_of_the_msgpack_profile_convicts_nobody(body: bytes) -> None:
    """§2.1, §6 step 1, §8.2: bytes out of the strict profile are rejected before anything is
    read from them, and convict nobody, even under the mover's valid signature."""
    s = sample("3p-standard.zoolog")
    k, mover = _move_floor(s, after=30)
    bad = _signed_payload(s, mover, k, body)
    report = refuse(forgery([*s.log[:k], bad], [mover], k))
    assert report.verdict == REJECTED and report.fault_index == k
