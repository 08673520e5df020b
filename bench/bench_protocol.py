"""Protocol benchmark: a full 4-seat game in one process, and the auditor, beside raw Ed25519.

Run: .venv/bin/python bench/bench_protocol.py [--games N] [--audits N]
Prints `name: value` lines. Goal: auditor entries/s >= 0.65 x raw Ed25519 verify/s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.crypto import public_key_from_bytes
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.simulate import play_game
from zoo_p2p.rules import Variant


def raw_verify_rate(entries: list[bytes], keys: list[bytes], rounds: int) -> float:
    """Ed25519 verifications per second over the log's own (payload, sig) pairs."""
    pubs = [public_key_from_bytes(k) for k in keys]
    pairs = []
    for raw in entries:
        e = decode_entry(raw)
        pairs.append((pubs[e.seat], e.sig, e.payload))
    t = time.perf_counter()
    for _ in range(rounds):
        for pub, sig, payload in pairs:
            pub.verify(sig, payload)
    return rounds * len(pairs) / (time.perf_counter() - t)


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--audits", type=int, default=10)
    args = ap.parse_args()

    rng = random.Random("bench")
    t = time.perf_counter()
    n_entries = 0
    log: list[bytes] = []
    game = None
    for _ in range(args.games):
        game = play_game(4, Variant.STANDARD, rng)
        log = game.entries
        n_entries += len(log)
    dt = time.perf_counter() - t
    assert game is not None
    keys = [s.public_key for s in game.sessions[0].seats]

    raw_before = raw_verify_rate(log, keys, max(2, args.audits // 2))
    t = time.perf_counter()
    for _ in range(args.audits):
        report = audit(log)
        assert report.ok
    audit_rate = args.audits * len(log) / (time.perf_counter() - t)
    raw_after = raw_verify_rate(log, keys, max(2, args.audits // 2))
    raw = (raw_before + raw_after) / 2

    print("game_seats: 4")
    print(f"game_entries_avg: {n_entries / args.games:.1f}")
    print(f"game_ms: {1000 * dt / args.games:.1f}")
    print(f"game_entries_per_s: {n_entries / dt:.0f}")
    print("game_verifies_per_entry: 3")
    print(f"audit_entries_per_s: {audit_rate:.0f}")
    print(f"raw_ed25519_verify_per_s: {raw:.0f}")
    print(f"audit_vs_raw_verify: {audit_rate / raw:.3f}")
    print("goal_audit_vs_raw_verify: 0.65")


if __name__ == "__main__":
    main()
