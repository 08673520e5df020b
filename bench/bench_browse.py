"""The live LAN browse behind `zoo join` with no invite (issue 11): how soon a game shows up,
how soon its seat count and its withdrawal show, how long closing the browse takes.

Two namespaces on one link, made here and torn down at the end (needs root and iproute2: run
as `sudo python bench/bench_browse.py`). Per round: a 3-seat host in "a"; in "b" the browse the
picker runs (`zoo_p2p.net.discovery.LiveBrowse`), then two bots join one after the other.

- listed_after_start_s: from starting a browse to the game in its list (the host already up);
- host_start_to_listed_s: from starting `zoo host` to the game listed by a running browse
  (Python start-up and zeroconf's ~1.5 s of probing included);
- join_to_seat_shown_s: from starting a bot joiner to the browse showing 2/3 taken;
- full_to_gone_s: from starting the last joiner to the game gone from the list;
- close_s: `LiveBrowse.close()`.

Prints `name: value` lines (medians over --rounds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.net.harness import wait_for
from tests.net.netns import Lab, NsProcs, netns_missing

BROWSE = """
import json, sys, time
from zoo_p2p.net.discovery import LiveBrowse
t0 = time.time()
seen = []
def report(state):
    seen.append(len(state.games))
    print(json.dumps({"at": time.time(), "start": t0,
                      "games": [[g.taken, g.seats] for g in state.games]}), flush=True)
live = LiveBrowse(report).start()
stop_when_listed = sys.argv[1] == "once"
while time.time() - t0 < 60:
    if any(seen) and (stop_when_listed or seen[-1] == 0):
        break
    time.sleep(0.02)
t1 = time.monotonic()
live.close()
print(json.dumps({"closed": time.monotonic() - t1}), flush=True)
"""


def _lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.startswith("{")]


def _first(path: Path, want: Callable[[dict[str, object]], bool], what: str) -> float:
    wait_for(lambda: any(want(x) for x in _lines(path)), 30, what)
    at = next(x["at"] for x in _lines(path) if want(x))
    assert isinstance(at, float)
    return at


def with_games(games: list[list[int]]) -> Callable[[dict[str, object]], bool]:
    """A report listing exactly these [taken, seats]."""
    return lambda x: x.get("games") == games


def _gone_after(t: float) -> Callable[[dict[str, object]], bool]:
    return lambda x: x.get("games") == [] and float(str(x["at"])) > t


def one_round(tmp: Path) -> dict[str, float]:
    lab = Lab(tmp)
    p = NsProcs(tmp)
    try:
        a, b = lab.machine("a"), lab.machine("b")
        lab.wire(a, "10.234.0.1/24", b, "10.234.0.2/24")
        watch = tmp / "watch.out"
        lab.daemon(b, sys.executable, "-c", BROWSE, "all", name="watch")
        wait_for(lambda: bool(_lines(watch)), 20, "the browse to start")
        inv = tmp / "host.invite"
        t_host = time.time()
        host = p.zoo_in(
            a,
            "host",
            "--players",
            "3",
            "--bot",
            "greedy",
            "--quiet",
            "--log",
            str(tmp / "host.zoolog"),
            "--invite-file",
            str(inv),
            "--give-up",
            "30",
            name="host",
        )
        listed = _first(watch, with_games([[1, 3]]), "the game listed")
        invite = p.invite_of(host, inv, "host")
        once = tmp / "once.out"
        lab.daemon(b, sys.executable, "-c", BROWSE, "once", name="once")
        found = _first(once, with_games([[1, 3]]), "the game listed by a new browse")
        start = _lines(once)[0]["start"]
        assert isinstance(start, float)
        wait_for(lambda: "closed" in _lines(once)[-1], 10, "the browse to close")
        closed = _lines(once)[-1]["closed"]
        assert isinstance(closed, float)
        t_join = time.time()
        p.zoo_in(b, "bot", invite, "--quiet", "--log", str(tmp / "b1.zoolog"), name="b1")
        seat = _first(watch, with_games([[2, 3]]), "2/3 taken")
        t_full = time.time()
        p.zoo_in(b, "bot", invite, "--quiet", "--log", str(tmp / "b2.zoolog"), name="b2")
        gone = _first(watch, _gone_after(listed), "the game gone")
        return {
            "listed_after_start_s": found - start,
            "host_start_to_listed_s": listed - t_host,
            "join_to_seat_shown_s": seat - t_join,
            "full_to_gone_s": gone - t_full,
            "close_s": closed,
        }
    finally:
        p.close()
        lab.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    why = netns_missing()
    if why:
        print(f"skipped: {why}")
        return
    runs: list[dict[str, float]] = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as d:
            runs.append(one_round(Path(d)))
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(
            f"{key}: {statistics.median(values):.3f} (min {min(values):.3f}, max {max(values):.3f})"
        )


if __name__ == "__main__":
    main()
