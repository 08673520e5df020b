"""The re-deal round's wall time over 127.0.0.1, against the opening round of the same game
(PROTOCOL.md §10.7, issue 21).

Each game: a real `zoo host --players 4 --bot greedy --on-leave play-on` (small clocks, move 5 s
and reveal 3 s: long enough that a loaded machine makes no claim but the one) and three `zoo bot`
processes, every peer a separate process over pyzmq (CURVE, the direct links on). Once the game
has made some moves, one bot is killed with kill -9; the others claim its seat when its clock
runs out, re-deal what nobody has seen and finish. Every peer writes `ZOO_NET_TRACE` lines
(entry seq, CLOCK_MONOTONIC, which every process on the machine shares; the killed bot's are
lost with it, so both rounds are timed at the same three peers):

- opening round: from the host writing the genesis to the last of the three holding the last
  `open` entry (4 `commit`, 4 `open`, each seat's in turn); also from the first of them holding
  the first `commit` (the genesis' own trip to the joiners left out);
- re-deal round: from the first of the three holding the claim entry (the clock that ran out and
  the votes come before it, as with any claim) to the last of them holding the last `redeal`
  entry (3 `redeal`); and, to the end of the round the claim interrupted, asked again of the
  re-deal (when the claim was at a reveal floor) or the stand-in's move (at a move floor).

Every game's logs are checked: the three are byte-identical, verify ok, and played on once.
Prints `name: value` lines: medians over --games, the ratio of the re-deal round to the opening
round (per game, then the median), and the raw pyzmq round trip and raw Ed25519 verify measured
in the same run (bench/bench_net.py's).

    .venv/bin/python bench/bench_play_on_net.py [--games N] [--kill-at ENTRIES]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_net import raw_round_trip, raw_verify_us  # noqa: E402

from tests.net.harness import Procs, log_len, wait_for  # noqa: E402
from zoo_p2p.protocol.audit import audit  # noqa: E402
from zoo_p2p.protocol.encoding import Kind, decode_entry  # noqa: E402
from zoo_p2p.protocol.session import Session  # noqa: E402
from zoo_p2p.storage import read_log  # noqa: E402

Trace = dict[str, list[tuple[int, int]]]  # event -> [(n, monotonic ns)]


def read_trace(path: Path) -> Trace:
    """One process's trace lines, by event."""
    out: Trace = defaultdict(list)
    for line in path.read_text().splitlines():
        ev, n, t = line.split()
        out[ev].append((int(n), int(t)))
    return out


def held(trace: Trace, seq: int) -> int | None:
    """When this process first held entry `seq` (ns): its first `tx` or `ok` of it or of a
    later entry, or `rx` of the entry after it (traced only when the log holds `seq`)."""
    times = [t for ev in ("tx", "ok") for n, t in trace.get(ev, []) if n >= seq]
    times += [t for n, t in trace.get("rx", []) if n > seq]
    return min(times) if times else None


class Lost(Exception):
    """A game that did not give a verified play-on (said, counted, and left out)."""


def one(tmp: Path, kill_at: int) -> tuple[float, float, float, str, float]:
    """(opening s, re-deal s, re-deal to the end of the interrupted floor s, the claim's
    floor, opening from the first commit s) of one 4-seat game."""
    trace = tmp / "trace"
    trace.mkdir()
    procs = Procs(tmp)
    procs.env["ZOO_NET_TRACE"] = str(trace)
    try:
        inv = tmp / "host.invite"
        host = procs.zoo(
            "host", "--bind", "127.0.0.1", "--invite-file", str(inv), "--quiet",
            "--log", str(tmp / "host.zoolog"), "--players", "4", "--bot", "greedy",
            "--on-leave", "play-on", "--move-time", "5", "--reveal-time", "3", "--give-up", "60",
            name="host",
        )  # fmt: skip
        # (not `procs.host`, whose 15 s for the invite a machine under load can overrun)
        wait_for(lambda: inv.exists() or host.poll() is not None, 120, "the invite")
        invite = inv.read_text().strip()
        bots = [procs.bot(invite, f"b{i}", "--level", "greedy") for i in (1, 2, 3)]
        wait_for(
            lambda: log_len(tmp / "host.zoolog") >= kill_at or host.poll() is not None,
            60,
            f"{kill_at} entries",
        )
        if host.poll() is not None:
            raise Lost(f"the host ended before {kill_at} entries: {procs.text('host')[-300:]}")
        bots[2].kill()  # kill -9: it never returns
        bots[2].wait(5)
        for p, name in ((host, "host"), (bots[0], "b1"), (bots[1], "b2")):
            try:
                procs.wait(p, name, timeout=120)
            except AssertionError as exc:
                raise Lost(str(exc)[:300]) from None
    finally:
        procs.close()
    logs = [tmp / f"{n}.zoolog" for n in ("host", "b1", "b2")]
    data = [p.read_bytes() for p in logs]
    if not data[0] == data[1] == data[2]:
        raise SystemExit(f"the three logs differ ({tmp})")  # never: a bug, not a lost game
    entries = read_log(logs[0]).entries
    r = audit(entries)
    if r.verdict != "ok" or r.ending is None or len(r.ending.played_on) != 1:
        raise Lost(f"not one verified play-on: {r.verdict} {r.ending_text}")
    kinds = [decode_entry(e).kind for e in entries]
    last_open = max(i for i, k in enumerate(kinds) if k == Kind.OPEN)
    (claim,) = [i for i, k in enumerate(kinds) if k == Kind.CLAIM]
    last_redeal = max(i for i, k in enumerate(kinds) if k == Kind.REDEAL)
    before = Session(entries[0])
    for raw in entries[1:claim]:
        before.receive(raw)
    assert before.floor is not None
    floor = before.floor.kind
    # the end of the interrupted floor: the re-asked reveal round's last link, or the move
    after = last_redeal + 1
    if floor == Kind.REVEAL:
        while after + 1 < len(kinds) and kinds[after + 1] == Kind.REVEAL:
            after += 1
    traces = [tr for f in trace.iterdir() if (tr := read_trace(f))]  # the killed bot's: empty
    genesis = min(t for tr in traces for _, t in tr.get("genesis", []))

    def last(seq: int) -> int:
        times = [held(tr, seq) for tr in traces]
        if any(t is None for t in times) or len(times) != 3:
            raise SystemExit(f"entry {seq} missing from a trace ({tmp})")
        return max(t for t in times if t is not None)

    first_commit = min(t for tr in traces if (t := held(tr, 1)) is not None)
    first_claim = min(t for tr in traces if (t := held(tr, claim)) is not None)
    ns = 1e-9
    return (
        (last(last_open) - genesis) * ns,
        (last(last_redeal) - first_claim) * ns,
        (last(min(after, len(kinds) - 1)) - first_claim) * ns,
        str(floor),
        (last(last_open) - first_commit) * ns,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--kill-at", type=int, default=24, help="kill a bot at this many entries")
    ap.add_argument("--keep", action="store_true", help="keep each game's directory")
    a = ap.parse_args()
    rows = []
    lost: list[str] = []
    for _ in range(a.games):
        d = Path(tempfile.mkdtemp(prefix="bench-play-on-"))
        try:
            rows.append(one(d, a.kill_at))
        except (Lost, AssertionError) as exc:  # AssertionError: a wait ran out (the harness')
            lost.append(str(exc))
            print(f"lost: {exc} ({d})", flush=True)
            continue
        if a.keep:
            print(f"kept: {d}", flush=True)
        else:
            shutil.rmtree(d)
    rt50, rt99 = raw_round_trip()
    verify = raw_verify_us()
    op = statistics.median(r[0] for r in rows)
    rd = statistics.median(r[1] for r in rows)
    rf = statistics.median(r[2] for r in rows)
    oc = statistics.median(r[4] for r in rows)
    print(f"games: {len(rows)} of {a.games} ({len(lost)} lost, said above)")
    print(f"claims at: {', '.join(sorted({r[3] for r in rows}))} floors")
    print(f"opening round (4 commit + 4 open) median ms: {op * 1e3:.1f}")
    print(f"opening from the first commit held median ms: {oc * 1e3:.1f}")
    print(f"opening per entry (of 8) median ms: {op * 1e3 / 8:.1f}")
    print(f"re-deal round (claim to the last of 3 redeal) median ms: {rd * 1e3:.1f}")
    print(f"re-deal per entry (of 3) median ms: {rd * 1e3 / 3:.1f}")
    print(f"re-deal round to the end of the interrupted floor median ms: {rf * 1e3:.1f}")
    print(
        f"re-deal / opening (per game, median): {statistics.median(r[1] / r[0] for r in rows):.2f}"
    )
    print(f"re-deal / opening (per game) min-max: "
          f"{min(r[1] / r[0] for r in rows):.2f}-{max(r[1] / r[0] for r in rows):.2f}")  # fmt: skip
    ratio_c = statistics.median(r[1] / r[4] for r in rows)
    print(f"re-deal / opening from the first commit (per game, median): {ratio_c:.2f}")
    print(f"raw pyzmq round trip p50 ms: {rt50:.3f}")
    print(f"raw pyzmq round trip p99 ms: {rt99:.3f}")
    print(f"raw Ed25519 verify us: {verify:.0f}")
    print(f"re-deal round / raw round trip: {rd * 1e3 / rt50:.1f}")
    print(f"re-deal round / raw verify: {rd * 1e6 / verify:.0f}")
    print(f"opening round / raw round trip: {op * 1e3 / rt50:.1f}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    sys.exit(main())
