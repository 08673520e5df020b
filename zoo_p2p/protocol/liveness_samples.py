"""Deterministic claimed and resigned sample games and their test vectors (PROTOCOL.md §10).

Pure, like `samples.py`: `protocol/generate.py` writes `replays/*claimed*`, `replays/*resigned*`
and `protocol/vectors/liveness.json` from these.
"""

from __future__ import annotations

import random
from typing import Any

from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.liveness import Clocks, resign_bytes, vote_bytes
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, broadcast, random_mover, setup_game, step
from zoo_p2p.protocol.standin import (
    capture_score,
    reference_move,
    stand_in_public_key,
    stand_in_seed,
)
from zoo_p2p.rules import Variant

SAMPLE_CLOCKS = Clocks(move=120, reveal=10)


def _game(n: int, label: str) -> tuple[LocalGame, random.Random]:
    return clocked_game(n, f"zoo-p2p liveness sample {label}")


def clocked_game(n: int, rng_seed: str) -> tuple[LocalGame, random.Random]:
    """A seeded local game of `n` seats whose genesis has the sample clocks, and its rng."""
    rng = random.Random(rng_seed)
    game = setup_game(n, Variant.STANDARD, rng)
    # the same game with clocks in its genesis: rebuild the sessions on a genesis that has them
    seats = game.sessions[0].seats
    genesis = Session.create_genesis(
        game.keys[0], seats, Variant.STANDARD, None, rng.randbytes(32), SAMPLE_CLOCKS
    )
    game.sessions = [
        Session(genesis, key=game.keys[i], seed=game.seeds[i], nonce=game.nonces[i])
        for i in range(n)
    ]
    return game, rng


def play_until(game: LocalGame, rng: random.Random, stop: Any) -> None:
    """Let the floor holders speak (random legal moves) until `stop(floor)` is true."""
    while True:
        f = game.sessions[0].floor
        if f is None or stop(f):
            return
        step(game, rng, random_mover)


def claim_round(game: LocalGame, voters: list[int]) -> bytes:
    """Every voter signs a vote, all votes reach every voter, the first voter appends the claim;
    the claim is delivered to every seat that has not answered. Returns the claim entry."""
    votes = [game.sessions[v].vote_claim() for v in voters]
    for v in voters:
        for vote in votes:
            game.sessions[v].add_vote(vote)
    out = game.sessions[voters[0]].take_outgoing()
    assert len(out) == 1 and decode_entry(out[0]).kind == Kind.CLAIM
    return out[0]


def claimed_game() -> tuple[LocalGame, int, bytes]:
    """3 seats: the last link of a reveal chain (seat 3) stalls; seats 1 and 2 claim the game.

    The staller then answers late; its own log holds its late reveal and the claim after it."""
    game, rng = _game(3, "claimed")
    play_until(game, rng, lambda f: f.kind == Kind.REVEAL and f.seat == 2)
    late = game.sessions[2].take_outgoing()  # it computes its link but does not send it
    assert len(late) == 1
    claim = claim_round(game, [0, 1])
    broadcast(game, 0, claim)  # seat 1 already has it; seat 3 adopts it after its late answer
    game.sessions[2].take_outgoing()
    return game, 2, claim


def claimed_move_game() -> tuple[LocalGame, int, bytes]:
    """2 seats: the seat to move (after a few moves) never moves; the other seat claims."""
    game, rng = _game(2, "claimed-move")
    moves = [0]

    def stop(f: Any) -> bool:
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return f.kind == Kind.MOVE and moves[0] > 6

    play_until(game, rng, stop)
    floor = game.sessions[0].floor
    assert floor is not None
    other = 1 - floor.seat
    claim = claim_round(game, [other])
    broadcast(game, other, claim)
    return game, floor.seat, claim


def never_started_game(n: int) -> tuple[LocalGame, bytes]:
    """The game never started: every seat but the last commits; the last computes its commit but
    does not send it, and the others claim against it (a seat that signed nothing, so no result,
    §10.5). The last seat then adopts the claim after its late commit (its own log)."""
    game, _ = _game(n, f"never-started-{n}")
    for seat in range(n - 1):
        for raw in game.sessions[seat].take_outgoing():
            broadcast(game, seat, raw)
    late = game.sessions[n - 1].take_outgoing()  # signed, never sent
    assert [decode_entry(e).kind for e in late] == [Kind.COMMIT]
    claim = claim_round(game, list(range(n - 1)))
    broadcast(game, 0, claim)
    game.sessions[n - 1].take_outgoing()  # the adopted claim, after its late commit
    return game, claim


def resigned_game(n: int) -> tuple[LocalGame, int, int | None]:
    """Seat 2 resigns in the middle of the game (while another seat is to move).

    With 2 seats the game ends (seat 2 loses). With 3+ the stand-in plays seat 2 on to the end:
    its entries are computed by every peer (PROTOCOL.md §10.4); here the peer that spoke last
    appends those that follow its own entries, and seat 3 those that follow a move, and the
    others check each against their own computation. Returns the game, the seat and the seat
    that appends the stand-in's moves (None with 2 seats); the resigner's session stays in
    `game.sessions[1]`, an observer of the rest."""
    game, rng = _game(n, f"resigned-{n}")
    moves = [0]

    def stop(f: Any) -> bool:
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return f.kind == Kind.MOVE and moves[0] > 5 and f.seat != 1

    play_until(game, rng, stop)
    r = game.sessions[1].resign()
    for i, s in enumerate(game.sessions):
        if i != 1:
            assert s.add_resignation(r)
    floor = game.sessions[0].floor
    assert floor is not None
    entry = game.sessions[floor.seat].take_outgoing()
    assert decode_entry(entry[0]).kind == Kind.RESIGN
    broadcast(game, floor.seat, entry[0])
    for extra in entry[1:]:
        broadcast(game, floor.seat, extra)
    if n == 2:
        return game, 1, None
    appender = 2
    while True:
        f = game.sessions[0].floor
        if f is None:
            break
        if f.seat != 1:
            step(game, rng, random_mover)  # (a live seat's own take_outgoing may add some too)
            continue
        out = game.sessions[appender].take_outgoing()
        assert out and decode_entry(out[0]).seat == 1
        for raw in out:
            broadcast(game, appender, raw)
    return game, 1, appender


def liveness_logs() -> dict[str, list[bytes]]:
    """The sample logs of §10 by file name (`replays/`)."""
    claimed, staller, _ = claimed_game()
    moved, _, _ = claimed_move_game()
    two, _, _ = resigned_game(2)
    three, _, _ = resigned_game(3)
    return {
        "3p-standard-claimed-reveal.zoolog": claimed.sessions[0].entries,
        "3p-standard-claimed-reveal-late.zoolog": claimed.sessions[staller].entries,
        "2p-standard-claimed-move.zoolog": moved.sessions[0].entries,
        "2p-standard-resigned.zoolog": two.sessions[0].entries,
        "3p-standard-resigned.zoolog": three.sessions[0].entries,
    }


def liveness_vectors() -> dict[str, Any]:
    """Vectors for claim votes and resignations: the signed bytes, the entries, the endings."""
    game, staller, claim = claimed_game()
    e = decode_entry(claim)
    claimed, at, votes = e.body
    s0 = game.sessions[0]
    head = sha256(s0.entries[at - 1])
    two, _, _ = resigned_game(2)
    never, _ = never_started_game(2)
    left = left_log()
    left_end = Session(left[0])
    for raw in left[1:]:
        left_end.receive(raw)
    r_entry = decode_entry(two.sessions[0].entries[-1])
    r_seat, r_at, seed, new_key, sig = r_entry.body
    return {
        "description": "claim votes sign vote_bytes(game_id, at, head, claimed); a claim entry is "
        "[claimed, at, [[seat, sig]...]]; a resignation signs resign_bytes(game_id, seat, at, "
        "seed, new_key) and its entry body is [seat, at, seed, new_key|nil, sig]",
        "claim": {
            "game_id": s0.game_id.hex(),
            "genesis": s0.entries[0].hex(),
            "claimed": claimed,
            "at": at,
            "head": head.hex(),
            "vote_bytes": vote_bytes(s0.game_id, at, head, claimed).hex(),
            "votes": [[v[0], v[1].hex()] for v in votes],
            "claim_entry": claim.hex(),
            "claim_seq": e.seq,
            "ending": s0.outcome().describe(s0.seats),
            "late_log_ending": game.sessions[staller].outcome().describe(s0.seats),
        },
        "resignation": {
            "game_id": two.sessions[0].game_id.hex(),
            "seat": r_seat,
            "seed": seed.hex(),
            "new_key": None if new_key is None else new_key.hex(),
            "at": r_at,
            "signed_bytes": resign_bytes(
                two.sessions[0].game_id, r_seat, r_at, seed, new_key
            ).hex(),
            "sig": sig.hex(),
            "entry": r_entry.raw.hex(),
            "ending": two.sessions[0].outcome().describe(two.sessions[0].seats),
        },
        "never_started": {
            "description": "a claim against a seat that signed no entry (it owed its first "
            "commit): a valid claim, a complete log, but no result: kind never_started, no "
            "scores, no winners",
            "log": [raw.hex() for raw in never.sessions[0].entries],
            "kind": never.sessions[0].outcome().kind,
            "winners": list(never.sessions[0].outcome().winners),
            "ending": never.sessions[0].outcome().describe(never.sessions[0].seats),
        },
        "statements": statement_vectors(),
        "left": {
            "description": "a 3-seat log that stops right at a resignation (the resigner's own "
            "log): no result, verdict incomplete: kind left, no winners",
            "log": [raw.hex() for raw in left],
            "kind": left_end.outcome().kind,
            "winners": list(left_end.outcome().winners),
            "ending": left_end.outcome().describe(left_end.seats),
        },
    }


def statement_vectors() -> dict[str, Any]:
    """Resignation statements as a peer checks them on arrival (PROTOCOL.md §10.4, "An acceptable
    statement"): each case is a statement and the log length of `log` (or `decided_log`) at
    which it arrives, and what the peer does: `kept`, `dropped` (nobody named) or `proof` (a
    proof against `seat`, given in `proof`: `[1, game_id, log[1..] ‖ [statement]]`)."""
    from zoo_p2p.errors import CheatError
    from zoo_p2p.protocol.evidence import check, make_proof
    from zoo_p2p.protocol.liveness import Resignation, sign_resignation

    game, _, _ = resigned_game(3)
    full = game.sessions[0].entries
    k = next(i for i, raw in enumerate(full) if decode_entry(raw).kind == Kind.RESIGN)
    log = list(full[:k])
    honest = decode_entry(full[k]).body
    r, at = honest[0], honest[1]
    gid = sha256(log[0])
    key = game.keys[r]
    seed = game.seeds[r]
    other = random.Random("zoo-p2p statement vectors").randbytes(32)
    played = max(i for i in range(1, k) if decode_entry(log[i]).seat == r)  # its last entry

    def signed(at: int, seed: bytes, new_key: bytes | None) -> Resignation:
        return sign_resignation(key, gid, r, at, seed, new_key)

    cases: list[tuple[str, Resignation, int]] = [
        ("the honest statement", signed(at, seed, stand_in_public_key(gid, r, seed)), k),
        (
            "a random seed with the stand-in key derived from it: the seed misses the commitments",
            signed(at, other, stand_in_public_key(gid, r, other)),
            k,
        ),
        (
            "the right seed, a stand-in key that is not the derived one",
            signed(at, seed, stand_in_public_key(gid, r, other)),
            k,
        ),
        ("no stand-in key with 3 seats", signed(at, seed, None), k),
        (
            "64 zero bytes as its signature",
            Resignation(r, at, seed, stand_in_public_key(gid, r, seed), bytes(64)),
            k,
        ),
        (
            f"signed at entry {played}: its seat signed entry {played} after it (stale)",
            signed(played, seed, stand_in_public_key(gid, r, seed)),
            k,
        ),
        (
            "signed at a later length than the peer holds: kept, it waits for the rest",
            signed(k + 1, seed, stand_in_public_key(gid, r, seed)),
            k,
        ),
    ]
    two, rng = _game(2, "statement-decided")
    play_until(two, rng, lambda f: f.kind == Kind.SEED)
    decided = two.sessions[0].entries
    d_case = sign_resignation(two.keys[1], sha256(decided[0]), 1, len(decided), two.seeds[1], None)
    out: list[dict[str, Any]] = []
    for what, st, length in [*cases, ("at a seed floor: the game is decided", d_case, -1)]:
        base = decided if length < 0 else log[:length]
        peer = Session(base[0])
        for raw in base[1:]:
            peer.receive(raw)
        case: dict[str, Any] = {
            "what": what,
            "log": "decided_log" if length < 0 else "log",
            "log_length": len(base),
            "statement": st.to_bytes().hex(),
        }
        try:
            kept = peer.add_resignation(st)
        except CheatError as exc:
            proof = make_proof(base, st.to_bytes())
            c = check(proof, base[0])
            assert c.seat == exc.seat == st.seat
            case.update(verdict="proof", seat=c.seat, reason=c.reason, proof=proof.hex())
        else:
            case.update(verdict="kept" if kept else "dropped", seat=None)
        out.append(case)
    entries = _resign_entry_cases(game, log, decode_entry(full[k]), two, decided, played)
    return {
        "description": "what a peer does with a resignation statement it receives (PROTOCOL.md "
        "§10.4): kept; dropped, naming nobody (unsigned, stale, after the game is decided); or "
        "a proof against its signer (a fault: a seed that misses its commitments, a stand-in "
        "key that is not the derived one), never kept or appended",
        "log": [raw.hex() for raw in log],
        "decided_log": [raw.hex() for raw in decided],
        "cases": out,
        "entries_description": "resign entries appended at the head of `log` (or `decided_log`) "
        "and the auditor's verdict on the log they end: the index of the refused entry and the "
        "one seat convicted (null: nobody)",
        "entries": entries,
    }


def _resign_entry_cases(
    game: LocalGame,
    log: list[bytes],
    honest: Any,
    two: LocalGame,
    decided: list[bytes],
    played: int,
) -> list[dict[str, Any]]:
    """Forged `resign` entries (PROTOCOL.md §6, §10.4) and the verdicts they must give."""
    from zoo_p2p.protocol.audit import audit
    from zoo_p2p.protocol.encoding import encode_payload, make_entry, pack
    from zoo_p2p.protocol.liveness import sign_resignation
    from zoo_p2p.protocol.standin import stand_in_private_key

    gid, head = sha256(log[0]), sha256(log[-1])
    author = honest.seat
    r, at = honest.body[0], honest.body[1]
    other = random.Random("zoo-p2p resign entry vectors").randbytes(32)
    bad = sign_resignation(game.keys[r], gid, r, at, other, stand_in_public_key(gid, r, other))
    stale = sign_resignation(
        game.keys[r], gid, r, played, game.seeds[r], stand_in_public_key(gid, r, game.seeds[r])
    )
    zero = pack([encode_payload(len(log), head, author, Kind.RESIGN, honest.body), bytes(64)])
    own_key = stand_in_private_key(gid, r, other)
    two_gid = sha256(decided[0])
    late = sign_resignation(two.keys[1], two_gid, 1, len(decided), two.seeds[1], None)
    seed_floor = two.sessions[0].floor
    assert seed_floor is not None and seed_floor.kind == Kind.SEED
    cases = [
        (
            "the floor holder's real entry",
            "log",
            honest.raw,
        ),
        (
            "the same body 'by' the floor holder with 64 zero bytes as its signature: not the "
            "exempt entry (its resigner is not its seat), so its signature is checked",
            "log",
            zero,
        ),
        (
            "appended by the floor holder, a statement with a seed that misses the resigner's "
            "commitments: the resigner is convicted, not the appender",
            "log",
            make_entry(game.keys[author], len(log), head, author, Kind.RESIGN, bad.to_body()),
        ),
        (
            "the resigner's own seat and body signed with the key derived from the statement's "
            "seed, while another seat holds the floor: not the exempt entry (it is not at the "
            "resigner's floor), so its signature is checked with the genesis key: nobody named",
            "log",
            make_entry(own_key, len(log), head, r, Kind.RESIGN, bad.to_body()),
        ),
        (
            f"a statement signed at entry {played}, appended after its resigner signed entry "
            f"{played}: it no longer stands; the appender signed it",
            "log",
            make_entry(game.keys[author], len(log), head, author, Kind.RESIGN, stale.to_body()),
        ),
        (
            "2 seats, at the seed floor: the game is decided; the appender signed it",
            "decided_log",
            make_entry(
                two.keys[seed_floor.seat],
                len(decided),
                sha256(decided[-1]),
                seed_floor.seat,
                Kind.RESIGN,
                late.to_body(),
            ),
        ),
    ]
    out = []
    for what, base_name, entry in cases:
        base = log if base_name == "log" else decided
        report = audit([*base, entry])
        out.append(
            {
                "what": what,
                "log": base_name,
                "entry": entry.hex(),
                "verdict": report.verdict,
                "index": report.fault_index,
                "seat": report.fault_seat,
            }
        )
    return out


def stand_in_vectors() -> dict[str, Any]:
    """Vectors for the stand-in (PROTOCOL.md §10.4): its derived key, and the reference policy's
    decisions in the 3-seat resigned sample (`replays/3p-standard-resigned.zoolog`)."""
    game, seat, _ = resigned_game(3)
    log = game.sessions[0].entries
    watcher = Session(log[0])
    derivations: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    for raw in log[1:]:
        e = decode_entry(raw)
        if e.kind == Kind.MOVE and e.seat in watcher.resigned:
            st = watcher.state
            assert st is not None
            legal = sorted(st.legal_moves(), key=encode_move)
            decisions.append(
                {
                    "seq": e.seq,
                    "seat": e.seat,
                    "legal": [[*encode_move(m), capture_score(st, m)] for m in legal],
                    "chosen": encode_move(reference_move(st)),
                    "entry": raw.hex(),
                }
            )
        watcher.receive(raw)
        if e.kind == Kind.RESIGN:
            r_seat, _, seed, new_key, _ = e.body
            derivations.append(
                {
                    "game_id": watcher.game_id.hex(),
                    "seat": r_seat,
                    "seed": seed.hex(),
                    "private_seed": stand_in_seed(watcher.game_id, r_seat, seed).hex(),
                    "public_key": new_key.hex(),
                }
            )
    game_id, other_seed = bytes(range(32)), bytes(range(255, 223, -1))
    derivations.append(
        {
            "game_id": game_id.hex(),
            "seat": 3,
            "seed": other_seed.hex(),
            "private_seed": stand_in_seed(game_id, 3, other_seed).hex(),
            "public_key": stand_in_public_key(game_id, 3, other_seed).hex(),
        }
    )
    assert seat == 1 and len(derivations) == 2
    own, rng = _game(3, "resign-at-own-floor")
    play_until(own, rng, lambda f: f.kind == Kind.MOVE and f.seat == 1)
    statement = own.sessions[1].resign()
    assert own.sessions[0].add_resignation(statement)
    head = own.sessions[0].entries
    entry = own.sessions[0].take_outgoing()[0]
    ties = [
        d for d in decisions if sum(m[3] == max(x[3] for x in d["legal"]) for m in d["legal"]) > 1
    ]
    return {
        "description": "the stand-in of a resigned seat r signs with the Ed25519 private seed "
        "H('zoo-p2p/v1/stand-in\\0' || game_id || u8(r) || seed_r); its move is the legal move "
        "with the highest score (the printed value of the card it captures), ties broken by the "
        "smallest body [kind, a, b]. decisions: every stand-in move of "
        "replays/3p-standard-resigned.zoolog with the legal moves [kind, a, b, score] in body "
        "order and the chosen body; ties_at lists the seqs where the tie-break decided",
        "derivations": derivations,
        "log": "replays/3p-standard-resigned.zoolog",
        "decisions": decisions,
        "ties_at": [d["seq"] for d in ties],
        "resign_at_own_floor": {
            "description": "seat 2 resigns while it holds a move floor (3 seats): the resign "
            "entry is authored by seat 2 and signed with its derived stand-in key, computed by "
            "every peer from the log and the statement",
            "log": [raw.hex() for raw in head],
            "statement": statement.to_bytes().hex(),
            "entry": entry.hex(),
        },
    }


def left_log() -> list[bytes]:
    """The 3-seat game of `resigned_game(3)` up to and including its resignation: the log the
    resigner keeps (it leaves once the entry with its resignation is in, PROTOCOL.md §10.5)."""
    game, _, _ = resigned_game(3)
    entries = game.sessions[0].entries
    at = next(i for i, raw in enumerate(entries) if decode_entry(raw).kind == Kind.RESIGN)
    return list(entries[: at + 1])


__all__ = [
    "SAMPLE_CLOCKS",
    "claim_round",
    "claimed_game",
    "claimed_move_game",
    "left_log",
    "liveness_logs",
    "liveness_vectors",
    "never_started_game",
    "play_until",
    "resigned_game",
    "stand_in_vectors",
    "statement_vectors",
]
