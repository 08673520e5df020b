"""What a stand-in costs each peer (PROTOCOL.md §10.4): every peer computes a resigned seat's
entries itself, so this is CPU per stand-in entry on every peer, not a network round trip.

- stand_in_entry_us: median time to compute one stand-in entry (reference policy or links, plus
  the Ed25519 signature) over every stand-in entry of `replays/3p-standard-resigned.zoolog`;
- stand_in_move_us: the same, stand-in moves only;
- audit_resigned_log_ms: a full audit of that log (every stand-in entry recomputed and compared).

Prints `name: value` lines (medians over --rounds). Pure CPU: run under `nice`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoo_p2p.protocol.audit import audit  # noqa: E402
from zoo_p2p.protocol.encoding import Kind, decode_entry  # noqa: E402
from zoo_p2p.protocol.session import Session  # noqa: E402
from zoo_p2p.storage import read_log  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    log = list(read_log(ROOT / "replays" / "3p-standard-resigned.zoolog").entries)
    every: list[float] = []
    moves: list[float] = []
    for _ in range(a.rounds):
        s = Session(log[0])
        for raw in log[1:]:
            e = decode_entry(raw)
            if e.seat in s.resigned:
                t = time.perf_counter()
                got = s.stand_in_entry()
                dt = (time.perf_counter() - t) * 1e6
                assert got == raw, f"entry {e.seq} is not the computed one"
                every.append(dt)
                if e.kind == Kind.MOVE:
                    moves.append(dt)
            s.receive(raw)
    audits = []
    for _ in range(a.rounds):
        t = time.perf_counter()
        r = audit(log)
        audits.append((time.perf_counter() - t) * 1e3)
        assert r.verdict == "ok"
    print(f"stand_in_entries: {len(every) // a.rounds}")
    print(f"stand_in_entry_us: {statistics.median(every):.0f}")
    print(f"stand_in_move_us: {statistics.median(moves):.0f}")
    print(f"audit_resigned_log_ms: {statistics.median(audits):.1f}")


if __name__ == "__main__":
    main()
