"""Test vectors for the re-deal (docs/design/PLAY-ON.md): `protocol/vectors/redeal.json`.

A deterministic 3-seat standard game (a fixed deal, moves drawn by a seeded generator from the
rules engine's legal moves) stopped at a fixed ply; seat 1 is claimed against and seats 0 and 2
re-deal. Everything is derived from fixed labels, so the file is reproducible byte for byte.
"""

from __future__ import annotations

import random
from typing import Any

from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.deal import DEAL_TABLE
from zoo_p2p.protocol.playon_samples import play_on_logs
from zoo_p2p.protocol.redeal import (
    HiddenPart,
    RedealTables,
    apply_redeal,
    claimed_stand_in_public_key,
    claimed_stand_in_seed,
    commitment_problem,
    compose_redeal,
    hidden_part,
    public_record,
    redeal_key,
    reveal_chain,
    table_problem,
)
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import KnownDeal, Team, Variant

PLIES = 24
CLAIMED = 1
LIVE = (0, 2)


def _label(text: str) -> bytes:
    return sha256(b"zoo-p2p redeal vector " + text.encode())


def _hidden_json(h: HiddenPart, game_id: bytes) -> dict[str, Any]:
    return {
        "covered": list(h.covered),
        "tokens": list(h.tokens),
        "copies": [[v, list(cs)] for v, cs in h.copies],
        "table_ids": list(h.table_ids()),
        "encoding": h.encode().hex(),
        "digest": h.digest(game_id).hex(),
    }


def redeal_vectors() -> dict[str, Any]:
    """The hidden part of a played game, two seats' re-deal tables and commitments, the
    composed re-deal and the new deal, a reveal chain, the claimed seat's stand-in key, and
    tables and commitments that must be refused."""
    rng = random.Random(2101)
    deal = KnownDeal.random(rng)
    state = deal.new_state([Team.YELLOW, Team.GREEN, Team.RED])
    for _ in range(PLIES):
        moves = state.legal_moves()
        state.apply(moves[int(rng.random() * len(moves))])
    known, reveals = public_record(deal, state)
    h = hidden_part(known, reveals, Variant.STANDARD)
    game_id = _label("game id")
    claim_hash = _label("claim entry")
    seeds = {k: _label(f"seed {k}") for k in LIVE}
    tables = {k: RedealTables.from_seed(seeds[k], game_id, claim_hash, h) for k in LIVE}
    seats = []
    for k in LIVE:
        t = tables[k]
        seats.append(
            {
                "seat": k,
                "seed": seeds[k].hex(),
                "redeal_key": redeal_key(seeds[k], game_id, claim_hash).hex(),
                "tables": [list(x) for x in t.tables],
                "salts_table0_first2": [s.hex() for s in t.salts[0][:2]],
                "commitments": [c.hex() for c in t.commitments(game_id, claim_hash, k)],
            }
        )
    composed = compose_redeal(h, [tables[k].tables for k in LIVE])
    new = apply_redeal(h, composed, known, reveals, Variant.STANDARD)
    slot = h.covered[0]
    index = h.slot_index(slot)
    chain = reveal_chain([tables[k] for k in LIVE], DEAL_TABLE, index)
    # a hidden part of the same sizes over another token set: its commitments must not verify
    other = _other_token_set(h)
    wrong_commits = RedealTables.from_seed(seeds[0], game_id, claim_hash, other).commitments(
        game_id, claim_hash, 0
    )
    refusals = _refusals(h, tables[0])
    return {
        "game_id": game_id.hex(),
        "claim_hash": claim_hash.hex(),
        "variant": "standard",
        "claimed_seat": CLAIMED,
        "remaining_seats": list(LIVE),
        "known_tokens": [[s, known[s]] for s in sorted(known)],
        "mutant_reveals": [[v, c, reveals[(v, c)]] for v, c in sorted(reveals)],
        "hidden": _hidden_json(h, game_id),
        "seats": seats,
        "composed": [list(x) for x in composed],
        "new_deal": {
            "slot_tokens": list(new.slot_tokens),
            "mutant_copies": list(new.mutant_copies),
        },
        "reveal": {
            "slot": slot,
            "index": index,
            "links": [
                [y, tables[k].salt(DEAL_TABLE, x).hex()]
                for k, y, x in zip(LIVE, chain, [index, *chain[:-1]], strict=True)
            ],
            "token": h.tokens[chain[-1]],
        },
        "claimed_stand_in": {
            "seat": CLAIMED,
            "seed": claimed_stand_in_seed(game_id, CLAIMED, claim_hash).hex(),
            "public_key": claimed_stand_in_public_key(game_id, CLAIMED, claim_hash).hex(),
        },
        "refused_tables": refusals,
        "wrong_token_set": {
            "hidden": _hidden_json(other, game_id),
            "seat": 0,
            "commitments": [c.hex() for c in wrong_commits],
            "reason": commitment_problem(h, game_id, claim_hash, 0, wrong_commits, seeds[0]),
        },
        "play_on_log": play_on_log_vector(),
    }


def play_on_log_vector() -> dict[str, Any]:
    """A whole 4-seat log played on after a dropout (§10.7), as `replays/` ships it: what a
    second auditor must find in it (the claim, the dealers, the hidden part at the claim, the
    `redeal` entries, the final layout, the ending)."""
    name = "4p-standard-play-on.zoolog"
    log = play_on_logs()[name]
    s = Session(log[0])
    for raw in log[1:]:
        s.receive(raw)
    (r,) = s.redeals
    report = audit(log)
    assert report.verdict == "ok" and report.ending is not None, report.fault_reason
    return {
        "file": f"replays/{name}",
        "sha256": sha256(b"".join(log)).hex(),
        "entries": len(log),
        "on_leave": s.genesis.on_leave,
        "claim_index": r.claim_seq,
        "claim_hash": r.claim_hash.hex(),
        "claimed_seat": r.claimed,
        "dealers": list(r.dealers),
        "hidden": _hidden_json(r.hidden, s.game_id),
        "redeal_entries": [r.commit_seq[d] for d in r.dealers],
        "claimed_stand_in_public_key": claimed_stand_in_public_key(
            s.game_id, r.claimed, sha256(log[r.claim_seq - 1])
        ).hex(),
        "restarted_questions": None if r.restart is None else [list(q) for q in r.restart],
        "deal": None if report.slot_tokens is None else list(report.slot_tokens),
        "mutant_copies": None if report.mutant_copies is None else list(report.mutant_copies),
        "scores": None if report.scores is None else list(report.scores),
        "winners": list(report.winners),
        "ending_kind": report.ending.kind,
        "ending_text": report.ending_text,
    }


def _other_token_set(h: HiddenPart) -> HiddenPart:
    """The same sizes, one unrevealed token swapped for a revealed one (a stale view)."""
    outside = next(t for t in range(50) if t not in h.tokens)
    tokens = tuple(sorted((*h.tokens[1:], outside)))
    return HiddenPart(h.covered, tokens, h.copies)


def _refusals(h: HiddenPart, t: RedealTables) -> list[dict[str, Any]]:
    base = [list(x) for x in t.tables]
    cases: list[tuple[str, list[list[int]]]] = []
    dup = [row[:] for row in base]
    dup[0][1] = dup[0][0]
    cases.append(("a duplicate in the deal table (two covered slots, one token)", dup))
    out = [row[:] for row in base]
    out[0][0] = len(h.covered)
    cases.append(("an index outside the covered slots", out))
    short = [row[:] for row in base]
    short[0] = short[0][:-1]
    cases.append(("a deal table over one slot too few", short))
    extra = [*(row[:] for row in base), list(range(10))]
    cases.append(("a table for a value whose mutant is found", extra))
    if len(base) > 1:
        longer = [row[:] for row in base]
        longer[1] = [*longer[1], len(longer[1])]
        cases.append(("a mutant table over a turned-over copy too", longer))
    return [
        {"what": what, "tables": tables, "reason": table_problem(h, tables)}
        for what, tables in cases
    ]
