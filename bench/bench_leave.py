"""How long a joiner's leave takes to reach the others, and how long its Ctrl-C takes to exit
(TRANSPORT.md §6: the host's `farewell`, waited for at most 1.5 s). Real `zoo` processes on
127.0.0.1; the leaver reaches the host through a relay (tests/net/relay.py) that can cut its
link. Three cases, medians over --rounds:

- link up: Ctrl-C → the host says "left", and → the leaver has exited;
- link reconnecting, back 0.5 s after the leaver starts waiting: the same two figures;
- host killed: Ctrl-C → the leaver has exited (the whole bounded wait, then the honest line).

    python bench/bench_leave.py --rounds 3
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.net.harness import Procs, log_len, wait_for
from tests.net.relay import Relay
from zoo_p2p.net.invite import Invite


def _until(cond: Callable[[], bool], t0: float, what: str) -> float:
    wait_for(cond, 30, what)
    return time.monotonic() - t0


def one(tmp: Path, case: str) -> tuple[float, float]:
    """(seconds to the host's "left" (nan when the host is gone), seconds to the exit)."""
    procs = Procs(tmp)
    inv_path = tmp / "host.invite"
    try:
        host = procs.zoo(
            "host", "--players", "2", "--bot", "greedy", "--delay", "0.3", "--move-time", "600",
            "--reveal-time", "600", "--bind", "127.0.0.1", "--invite-file", str(inv_path),
            "--log", str(tmp / "host.zoolog"), name="host",
        )  # fmt: skip
        wait_for(lambda: inv_path.exists() or host.poll() is not None, 15, "the invite")
        inv = Invite.parse(inv_path.read_text().strip())
        relay = Relay((inv.host, inv.port))
        try:
            via = str(dataclasses.replace(inv, port=relay.port))
            leaver = procs.bot(via, "leaver", "--delay", "0.3", "-v", quiet=False)
            wait_for(lambda: log_len(tmp / "host.zoolog") >= 5, 20, "the game to start")
            if case == "gone":
                host.kill()
                host.wait(5)
                wait_for(lambda: "reconnecting" in procs.text("leaver"), 15, "reconnecting")
            if case == "reconnecting":
                relay.cut()
                wait_for(lambda: "reconnecting" in procs.text("leaver"), 15, "reconnecting")
                wait_for(lambda: relay.holding() > 0, 15, "the new connection")
            t0 = time.monotonic()
            leaver.send_signal(signal.SIGINT)
            if case == "reconnecting":
                wait_for(lambda: "farewell (the link" in procs.text("leaver"), 15, "waiting")
                threading.Timer(0.5, relay.mend).start()
            left = float("nan")
            if case != "gone":
                left = _until(lambda: "leaver (seat 2) left" in procs.text("host"), t0, "left")
            leaver.wait(30)
            return left, time.monotonic() - t0
        finally:
            relay.close()
    finally:
        procs.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    for case in ("up", "reconnecting", "gone"):
        lefts, exits = [], []
        for _ in range(a.rounds):
            with tempfile.TemporaryDirectory() as d:
                left, gone = one(Path(d), case)
            lefts.append(left)
            exits.append(gone)
        if case != "gone":
            print(f"leave {case}: Ctrl-C to host says left s: {statistics.median(lefts):.3f}")
        print(f"leave {case}: Ctrl-C to exit s: {statistics.median(exits):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
