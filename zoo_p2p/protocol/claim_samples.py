"""Claim rules as logs (PROTOCOL.md §6, §10.3, §10.5): the honest cases and the forgeries that each
rule refuses, built deterministically from seeded games; `protocol/generate.py` writes them to
`protocol/vectors/claims.json` and the tests replay them.

Every forgery is signed with keys the builder holds, exactly as a cheating seat (or several,
colluding) would sign it; the vector says which entry is refused and whose signature, if any, it
convicts. Pure, like `samples.py`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack, sign_entry
from zoo_p2p.protocol.liveness import vote_bytes
from zoo_p2p.protocol.liveness_samples import claim_round, clocked_game
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, broadcast, random_mover, step
from zoo_p2p.protocol.standin import stand_in_private_key


@dataclass(frozen=True)
class Forged:
    """A log whose entry `index` is refused; `seat` is the one seat its signature convicts (None:
    nobody). `log` holds every entry up to and including the refused one."""

    name: str
    description: str
    log: list[bytes]
    index: int
    seat: int | None


def _game(n: int) -> tuple[LocalGame, random.Random]:
    """The one seeded game of `n` seats that every sample plays on from (so the vectors share
    its genesis and opening round)."""
    return clocked_game(n, f"zoo-p2p claim sample {n}")


def _live(game: LocalGame) -> list[int]:
    s = game.sessions
    return [i for i in range(len(s)) if i not in s[0].resigned and not s[i].left]


def advance(game: LocalGame, rng: random.Random) -> None:
    """The floor holder speaks once; a resigned seat's entries are appended by the first seat
    that plays on (every peer computes them, §10.4)."""
    f = game.sessions[0].floor
    assert f is not None
    if f.seat in game.sessions[0].resigned:
        live = _live(game)[0]
        for raw in game.sessions[live].take_outgoing():
            broadcast(game, live, raw)
        return
    step(game, rng, random_mover)


def resign(game: LocalGame, seat: int) -> None:
    """`seat` signs its resignation; every other seat holds it and the floor holder (or, at the
    resigner's own floor, its stand-in through the first seat that plays on) appends it."""
    r = game.sessions[seat].resign()
    for i, s in enumerate(game.sessions):
        if i != seat:
            assert s.add_resignation(r)
    f = game.sessions[0].floor
    assert f is not None
    appender = f.seat if f.seat != seat and f.seat not in game.sessions[0].resigned else None
    if appender is None:
        appender = next(i for i in _live(game) if i != seat)
    out = game.sessions[appender].take_outgoing()
    assert out and decode_entry(out[0]).kind == Kind.RESIGN, out
    for raw in out:
        broadcast(game, appender, raw)


def votes(game: LocalGame, log: list[bytes], at: int, claimed: int, voters: list[int]) -> list[Any]:
    """Votes of `voters` against `claimed` at log length `at` of `log`, signed with their keys."""
    msg = vote_bytes(sha256(log[0]), at, sha256(log[at - 1]), claimed)
    return [[v, game.keys[v].sign(msg)] for v in voters]


def chained(game: LocalGame, log: list[bytes], author: int, kind: str, body: Any) -> bytes:
    """An entry signed by `author`'s genesis key at the head of `log`."""
    return make_entry(game.keys[author], len(log), sha256(log[-1]), author, kind, body)


def finished(n: int) -> LocalGame:
    """A complete game among `n` seats."""
    game, rng = _game(n)
    while game.sessions[0].floor is not None:
        step(game, rng, random_mover)
    return game


def claim_after_result(n: int, author: int) -> Forged:
    """Every seat but the last signs a vote about the head before the last `result` (the last
    seat then held the floor) and `author` appends a claim after that result: the signed totals
    would stop counting and the winner change (issue 18 B). Nothing may follow the last result
    (§5, §8.2): refused, convicting `author` only (its claim; the votes are not entries)."""
    game = finished(n)
    log = game.sessions[0].entries
    at = len(log) - 1
    claimed = n - 1
    body = [claimed, at, votes(game, log, at, claimed, list(range(n - 1)))]
    who = "the claimed seat itself" if author == claimed else f"seat {author + 1}"
    return Forged(
        f"claim_after_result_{n}p_by_{author + 1}",
        f"{n} seats: a claim against the last seat to sign the result, with every other seat's "
        f"vote about the head before that result, appended by {who} after the last result",
        [*log, chained(game, log, author, Kind.CLAIM, body)],
        len(log),
        author,
    )


def _until(game: LocalGame, rng: random.Random, stop: Any) -> None:
    while True:
        f = game.sessions[0].floor
        assert f is not None, "the game ended before the sample's position"
        if stop(f):
            return
        advance(game, rng)


def claim_on_late_answer(n: int) -> Forged:
    """The seat to move answers; the others signed votes about the head before its answer, and
    one of them appends the claim chained on that answer. Its chaining proves it had the answer:
    only the claimed seat may append a claim after the head the votes name (§10.3). Refused,
    convicting the claim's author only."""
    game, rng = _game(n)
    moves = [0]

    def stop(f: Any) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.kind == Kind.MOVE and moves[0] > 4

    _until(game, rng, stop)
    s0 = game.sessions[0]
    f = s0.floor
    assert f is not None and s0.state is not None
    c = f.seat
    log = s0.entries
    at = len(log)
    voters = [i for i in range(n) if i != c]
    body = [c, at, votes(game, log, at, c, voters)]
    answer = game.sessions[c].move(random_mover(s0.state.public(), rng))
    log = [*log, answer]
    author = voters[-1]
    return Forged(
        f"claim_on_late_answer_{n}p",
        f"{n} seats: seat {c + 1} moves at entry {at}; every other seat signed a vote about the "
        f"head before it and seat {author + 1} appends the claim after the move",
        [*log, chained(game, log, author, Kind.CLAIM, body)],
        len(log),
        author,
    )


def _late_to_stand_in() -> tuple[LocalGame, int, bytes]:
    """3 seats, seat 2 resigned: seat 1 holds a move floor and seat 3 (the only other seat that
    plays on) claims it. Seat 1 had moved late, and its own session appended the stand-in's
    entries that follow (every peer computes them): its late answer handed the floor to the
    stand-in. Returns the game (seat 1's session holds its late log, without the claim), the
    claimed seat and the claim seat 3 appended."""
    game, rng = _game(3)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat != 1)
    resign(game, 1)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 0)
    c = game.sessions[0]
    assert c.state is not None
    c.move(random_mover(c.state.public(), rng))  # signed, never sent
    late = c.take_outgoing()  # the stand-in's entries after it (and any of its own)
    assert any(decode_entry(x).seat == 1 for x in late), "the late answer must reach a stand-in"
    claim = claim_round(game, [2])
    game.sessions[1].receive(claim)
    return game, 0, claim


def late_answer_to_stand_in() -> tuple[LocalGame, int, bytes]:
    """`_late_to_stand_in`, then the claim reaches seat 1, which adopts it: it appends the same
    claim body after what it holds (§10.3). Seat 1's session holds its late log with the
    claim."""
    game, c, claim = _late_to_stand_in()
    game.sessions[c].receive(claim)
    out = game.sessions[c].take_outgoing()
    assert len(out) == 1 and decode_entry(out[0]).kind == Kind.CLAIM
    return game, c, claim


def claim_by_voter_after_stand_in() -> Forged:
    """The exemption of `late_answer_to_stand_in` (stand-in entries may stand between a claim's
    head and the claimed seat's own claim) abused by the voter: it appends the claim after the
    claimed seat's late move and the stand-in's entries. Convicts the voter."""
    game, c, claim = _late_to_stand_in()
    late = game.sessions[c].entries
    return Forged(
        "claim_by_voter_after_stand_in",
        "3 seats, seat 2 resigned: seat 1's late move and the stand-in's entries after it; "
        "seat 3, the voter, appends the claim after them",
        [*late, chained(game, late, 2, Kind.CLAIM, decode_entry(claim).body)],
        len(late),
        2,
    )


def claim_after_another_seats_entry() -> Forged:
    """The same exemption stretched by the claimed seat: the voter signs its own entry on the
    claimed seat's branch (after the stand-in's), and the claimed seat appends its claim after
    it. Only its own and stand-in entries may stand there: convicts the claimed seat."""
    game, c, claim = _late_to_stand_in()
    late = game.sessions[c].entries
    watcher = Session(late[0], key=game.keys[2], seed=game.seeds[2], nonce=game.nonces[2])
    for raw in late[1:]:
        watcher.receive(raw)
    f = watcher.floor
    assert f is not None and f.seat == 2 and watcher.state is not None
    if f.kind == Kind.MOVE:
        theirs = [watcher.move(watcher.state.legal_moves()[0])]
    else:
        theirs = watcher.take_outgoing()[:1]
    branch = [*late, *theirs]
    return Forged(
        "claim_after_another_seats_entry",
        "3 seats, seat 2 resigned: after seat 1's late move and the stand-in's entries, seat 3 "
        "signs its own entry on that branch and seat 1 appends the claim after it",
        [*branch, chained(game, branch, c, Kind.CLAIM, decode_entry(claim).body)],
        len(branch),
        c,
    )


def voter_resigns_late() -> tuple[LocalGame, bytes]:
    """3 seats: seat 1 holds a move floor; seats 2 and 3 vote against it, then seat 3 resigns.
    Seat 1, late, appends that resignation itself (it holds the floor) and moves; then the claim
    of seat 2 reaches it and it adopts it. The resigner's vote was signed with its genesis key and
    is checked with it (§10.3 rule 7), although that seat's entries are now its stand-in's.
    Returns the game (seat 1's session holds its log, its own claim last) and seat 2's claim."""
    game, rng = _game(3)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 0)
    c, a, r = game.sessions
    a.vote_claim()
    vote = r.vote_claim()
    assert a.add_vote(vote)
    assert c.add_resignation(r.resign())
    (resigned,) = c.take_outgoing()  # the floor holder appends it, late: nobody else sees it
    assert decode_entry(resigned).kind == Kind.RESIGN and c.resigned == {2: vote.at}
    assert c.state is not None
    c.move(c.state.legal_moves()[0])
    c.take_outgoing()
    (claim,) = a.take_outgoing()
    c.receive(claim)
    (own,) = c.take_outgoing()
    assert decode_entry(own).body == decode_entry(claim).body
    return game, claim


def vote_signed_with_stand_in_key() -> Forged:
    """`voter_resigns_late`, with the resigner's vote replaced by one signed with its stand-in's
    key (public: anyone can sign with it) and the claim appended by the claimed seat: refused,
    convicting the claimed seat (the claim's signer)."""
    game, claim = voter_resigns_late()
    c = game.sessions[0]
    log = c.entries[:-1]
    claimed, at, held = decode_entry(claim).body
    key = stand_in_private_key(c.game_id, 2, game.seeds[2])
    fake = [2, key.sign(vote_bytes(c.game_id, at, sha256(log[at - 1]), claimed))]
    return Forged(
        "vote_signed_with_stand_in_key",
        "3 seats: seat 3 voted, then resigned (its resignation among the late entries of seat 1); "
        "seat 1's claim carries a vote for seat 3 signed with seat 3's stand-in key",
        [*log, chained(game, log, 0, Kind.CLAIM, [claimed, at, [held[0], fake]])],
        len(log),
        0,
    )


def claimed_with_resigned_leader() -> tuple[list[bytes], int]:
    """3 seats, seat 2 resigned and its stand-in plays on; seat 3 claims against seat 1 at a
    floor where seat 2's total is at least seat 3's: a resigned seat cannot win (§10.5), so seat
    3 alone wins. Returns the log and the resigned seat."""
    game, rng = _game(3)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat != 1)
    resign(game, 1)

    def stop(f: Any) -> bool:
        st = game.sessions[0].state
        assert st is not None
        totals = [x.total for x in st.scores()]
        return f.seat == 0 and totals[1] >= totals[2]

    _until(game, rng, stop)
    claim = claim_round(game, [2])
    broadcast(game, 2, claim)
    return game.sessions[2].entries, 1


def claim_with_no_votes() -> Forged:
    """3 seats, seats 1 and 2 resigned: seat 3 plays on alone against two stand-ins and appends
    a claim against itself that needs nobody's vote, so that a resigned seat would win. A claim
    needs at least one vote (§10.3): refused, convicting seat 3."""
    game, rng = _game(3)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 2)
    resign(game, 0)
    _until(game, rng, lambda f: f.kind == Kind.MOVE and f.seat == 2)
    resign(game, 1)
    _until(game, rng, lambda f: f.seat == 2)
    log = game.sessions[2].entries
    at = len(log)
    return Forged(
        "claim_with_no_votes",
        "3 seats, seats 1 and 2 resigned: seat 3, the only seat still playing, appends a claim "
        "against itself with no votes",
        [*log, chained(game, log, 2, Kind.CLAIM, [2, at, []])],
        at,
        2,
    )


def _mid_game() -> tuple[LocalGame, list[bytes], int]:
    game, rng = _game(2)
    _until(game, rng, lambda f: f.kind == Kind.MOVE)
    f = game.sessions[0].floor
    assert f is not None
    return game, game.sessions[0].entries, f.seat


def unknown_kind() -> Forged:
    """The floor holder signs, at the head, an entry of a kind §2.2 does not list: refused at §6
    step 1 (header field types), before any key is used; it convicts nobody."""
    game, log, seat = _mid_game()
    return Forged(
        "unknown_kind",
        "an entry of kind 'pass' signed by the floor holder at the head",
        [*log, chained(game, log, seat, "pass", [])],
        len(log),
        None,
    )


def unknown_version() -> Forged:
    """The floor holder signs, at the head, a legal move under version 2: refused at §6 step 1;
    it convicts nobody."""
    game, log, seat = _mid_game()
    st = game.sessions[0].state
    assert st is not None
    payload = pack(
        [2, len(log), sha256(log[-1]), seat, Kind.MOVE, encode_move(st.legal_moves()[0])]
    )
    return Forged(
        "unknown_version",
        "a legal move signed by the floor holder at the head, with version 2",
        [*log, sign_entry(game.keys[seat], payload)],
        len(log),
        None,
    )


FORGERIES: dict[str, Callable[[], Forged]] = {
    "claim_after_result_3p_by_1": partial(claim_after_result, 3, 0),
    "claim_after_result_3p_by_2": partial(claim_after_result, 3, 1),
    "claim_after_result_3p_by_3": partial(claim_after_result, 3, 2),
    "claim_after_result_2p_by_1": partial(claim_after_result, 2, 0),
    "claim_on_late_answer_3p": partial(claim_on_late_answer, 3),
    "claim_on_late_answer_2p": partial(claim_on_late_answer, 2),
    "claim_by_voter_after_stand_in": claim_by_voter_after_stand_in,
    "claim_after_another_seats_entry": claim_after_another_seats_entry,
    "claim_with_no_votes": claim_with_no_votes,
    "vote_signed_with_stand_in_key": vote_signed_with_stand_in_key,
    "unknown_kind": unknown_kind,
    "unknown_version": unknown_version,
}


def forgeries() -> list[Forged]:
    """Every refused claim (and header) case, in a fixed order."""
    out = [build() for build in FORGERIES.values()]
    assert [f.name for f in out] == list(FORGERIES)
    return out


def _common(a: list[bytes], b: list[bytes]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def claim_vectors() -> dict[str, Any]:
    """`protocol/vectors/claims.json`: the refused cases and two honest ones, with what an
    auditor must say of each. Logs share their beginnings: each is `bases[base][:upto]`
    followed by `append`."""
    bases: dict[str, list[bytes]] = {}

    def ref(log: list[bytes], index: int) -> dict[str, Any]:
        base, keep = max(
            ((k, _common(b, log)) for k, b in bases.items()), key=lambda x: x[1], default=("", 0)
        )
        if keep == 0:
            base, keep = f"{len(decode_entry(log[0]).body[2])}-seat game", index
            bases[base] = log[:keep]
        return {"base": base, "upto": keep, "append": [raw.hex() for raw in log[keep:]]}

    refused = []
    for f in forgeries():
        r = audit(f.log)
        assert r.fault_index == f.index and r.fault_seat == f.seat, (f.name, r.fault_reason)
        refused.append(
            {
                "name": f.name,
                "description": f.description,
                **ref(f.log, f.index),
                "index": f.index,
                "verdict": "cheat" if f.seat is not None else "rejected",
                "seat": f.seat,
            }
        )
    game, c, _ = late_answer_to_stand_in()
    late = game.sessions[c].entries
    late_end = audit(late)
    voter, _ = voter_resigns_late()
    voter_log = voter.sessions[0].entries
    voter_end = audit(voter_log)
    leader, resigned = claimed_with_resigned_leader()
    lead_end = audit(leader)
    assert late_end.verdict == lead_end.verdict == voter_end.verdict == "ok"
    assert late_end.ending is not None and lead_end.ending is not None
    assert voter_end.ending is not None
    accepted = [
        {
            "name": "late_answer_to_stand_in",
            "description": "3 seats, seat 2 resigned: seat 1 moved late, its own log holds the "
            "stand-in's entries after its move, then its own copy of the claim",
            **ref(late, len(late)),
            "kind": late_end.ending.kind,
            "late_entries": list(late_end.ending.late),
            "winners": list(late_end.winners),
            "ending": late_end.ending_text,
        },
        {
            "name": "voter_resigns_late",
            "description": "3 seats: seats 2 and 3 vote against seat 1, seat 3 resigns; seat 1, "
            "late, appends that resignation and moves, then its own copy of the claim, whose vote "
            "of seat 3 verifies with seat 3's genesis key",
            **ref(voter_log, len(voter_log)),
            "kind": voter_end.ending.kind,
            "late_entries": list(voter_end.ending.late),
            "winners": list(voter_end.winners),
            "ending": voter_end.ending_text,
        },
        {
            "name": "claimed_with_resigned_leader",
            "description": "3 seats, seat 2 resigned with a total at least seat 3's: seat 3 claims "
            "against seat 1 and wins alone (a resigned seat cannot win)",
            **ref(leader, len(leader)),
            "kind": lead_end.ending.kind,
            "resigned": [resigned],
            "scores": list(lead_end.scores or ()),
            "winners": list(lead_end.winners),
            "ending": lead_end.ending_text,
        },
    ]
    return {
        "description": "claims (PROTOCOL.md §10.3, §10.5) and entry headers (§6 step 1). Each "
        "log is bases[base][:upto] followed by append. A refused log is valid up to entry "
        "`index`, which is refused: `verdict` cheat convicting `seat` (0-based) alone, or "
        "rejected (seat null: nobody). An accepted log verifies ok with the ending given.",
        "bases": {k: [raw.hex() for raw in b] for k, b in bases.items()},
        "refused": refused,
        "accepted": accepted,
    }


def vector_log(vectors: dict[str, Any], case: dict[str, Any]) -> list[bytes]:
    """A case's log from `claims.json`, as another implementation would read it."""
    base = vectors["bases"][case["base"]][: case["upto"]]
    return [bytes.fromhex(h) for h in [*base, *case["append"]]]


__all__ = [
    "FORGERIES",
    "Forged",
    "advance",
    "chained",
    "claim_after_another_seats_entry",
    "claim_after_result",
    "claim_by_voter_after_stand_in",
    "claim_on_late_answer",
    "claim_vectors",
    "claim_with_no_votes",
    "claimed_with_resigned_leader",
    "finished",
    "forgeries",
    "late_answer_to_stand_in",
    "resign",
    "unknown_kind",
    "unknown_version",
    "vector_log",
    "vote_signed_with_stand_in_key",
    "voter_resigns_late",
    "votes",
]
