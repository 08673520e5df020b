"""Spectators' cost to the players (TRANSPORT.md §12.5): a move's latency with no spectator and
with N (`zoo host --spectators N`, default the host's default 4), in headless games on loopback,
each peer and each spectator a separate process, with a raw pyzmq CURVE round trip measured in
the same run as the unit.

Prints one ``name: value`` figure per line: per-move latency p50/p99 (ms, from the mover signing
to every seat having applied the move and its reveal round: bench_net.py's measure, the seats'
traces only) with 0 and with N spectators, interleaved game by game; the ratio of each p50 to the
raw round trip; and how far behind the seats the slowest spectator applied each move (ms).
Run: python bench/bench_spectators.py [--games N] [--players P] [--spectators N] [--delay S]
[--nice 19]. Every process runs on this machine: with --nice 0 the spectators' own work (a
signature check per entry, a board drawn per move) competes with the players' for the same
cores, which a spectator on its own machine would not; --nice 19 lets the players go first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_net import pct, raw_round_trip

ZOO = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()"]


def _traces(d: Path) -> list[list[tuple[str, int, int]]]:
    out = []
    for f in sorted(d.iterdir()):
        rows = []
        for line in f.read_text().splitlines():
            ev, n, t = line.split()
            rows.append((ev, int(n), int(t)))
        out.append(rows)
    return out


def _wait(cond: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.02)


HEADLESS = """
import sys
from pathlib import Path
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from zoo_p2p import storage
from zoo_p2p.cli.runners import GameFiles
from zoo_p2p.driver import NullDriver
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import JoinOptions
from zoo_p2p.net.spectate import Spectator, watcher_session
from zoo_p2p.protocol.crypto import fingerprint

class Told(NullDriver):
    def on_notice(self, text):
        if text.startswith("watching:"):
            print(text, flush=True)

files = GameFiles(Path(sys.argv[2]), storage.NetSidecar(role="watch"))
s = Spectator(Invite.parse(sys.argv[1]), key=Ed25519PrivateKey.generate(), driver=Told(),
              make_session=watcher_session, open_log=files.open_new, fingerprint=fingerprint,
              options=JoinOptions(name="spectator", give_up=20))
s.catch_up()
sys.exit(0 if s.run().finished else 1)
"""
"""A spectator that shows nothing (--headless): what it costs is its checks, not a screen."""

NICE = 0  # --nice: the spectators' niceness (they stand for machines of their own)
HEADLESS_ON = False


def _spectator_priority() -> None:
    if NICE:
        os.nice(NICE)


def one_game(
    tmp: Path, players: int, spectators: int, delay: float
) -> tuple[list[float], list[float]]:
    """(move latencies at the seats, ms; the slowest spectator's lag behind the last seat, ms)."""
    seats_trace, spec_trace = tmp / "seats", tmp / "spectators"
    seats_trace.mkdir()
    spec_trace.mkdir()
    env = dict(os.environ, ZOO_HOME=str(tmp / "home"), ZOO_NET_TRACE=str(seats_trace))
    spec_env = dict(env, ZOO_NET_TRACE=str(spec_trace))
    inv = tmp / "invite"
    common = ["--quiet", "--delay", str(delay)]
    host = subprocess.Popen(
        [*ZOO, "host", "--players", str(players), "--bot", "greedy", "--bind", "127.0.0.1",
         "--invite-file", str(inv), "--log", str(tmp / "host.zoolog"),
         "--spectators", str(max(spectators, 1)), *common],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    _wait(lambda: inv.exists() or host.poll() is not None, "the invite")
    invite = inv.read_text().strip()
    watchers = []
    for i in range(spectators):
        out = tmp / f"w{i}.out"
        with open(out, "wb") as f:
            watchers.append(
                subprocess.Popen(
                    [sys.executable, "-c", HEADLESS, invite, str(tmp / f"w{i}.zoolog")]
                    if HEADLESS_ON
                    else [*ZOO, "watch", invite, "--plain", "--log", str(tmp / f"w{i}.zoolog")],
                    env=spec_env,
                    stdin=subprocess.DEVNULL,
                    stdout=f,
                    stderr=subprocess.DEVNULL,
                    preexec_fn=_spectator_priority,
                )
            )
        _wait(lambda out=out: b"watching:" in out.read_bytes(), f"spectator {i} admitted")
    bots = [
        subprocess.Popen(
            [
                *ZOO,
                "bot",
                invite,
                "--level",
                "greedy",
                "--log",
                str(tmp / f"bot{i}.zoolog"),
                "--give-up",
                "20",
                *common,
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for i in range(1, players)
    ]
    for p in [*bots, host, *watchers]:
        if p.wait(120) != 0:
            raise SystemExit("a peer or a spectator failed")
    sent: dict[int, int] = {}
    settled: dict[int, list[int]] = defaultdict(list)
    for rows in _traces(seats_trace):
        for ev, n, t in rows:
            if ev == "sent":
                sent[n] = t
            elif ev == "settled":
                settled[n].append(t)
    lat = [(max(settled[h]) - t0) / 1e6 for h, t0 in sent.items() if len(settled[h]) == players]
    seen: dict[int, list[int]] = defaultdict(list)
    for rows in _traces(spec_trace):
        for ev, n, t in rows:
            if ev == "settled":
                seen[n].append(t)
    lag = [
        (max(seen[h]) - max(settled[h])) / 1e6
        for h in sent
        if spectators and len(seen[h]) == spectators and len(settled[h]) == players
    ]
    return lat, lag


def main() -> None:
    """Run and print the figures."""
    from zoo_p2p.net.spectators import DEFAULT_SPECTATORS

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=3, help="games of each kind (interleaved)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--spectators", type=int, default=DEFAULT_SPECTATORS)
    ap.add_argument("--delay", type=float, default=0.0, help="each bot waits this before a move")
    ap.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run the spectators at this niceness (19: the players first, as if the spectators "
        "ran on other machines; 0: they compete for the same cores)",
    )
    ap.add_argument(
        "--headless",
        action="store_true",
        help="spectators that show nothing (a Spectator with a null driver), not zoo watch --plain",
    )
    a = ap.parse_args()
    global NICE, HEADLESS_ON
    NICE, HEADLESS_ON = a.nice, a.headless
    none: list[float] = []
    many: list[float] = []
    lags: list[float] = []
    for _ in range(a.games):
        with tempfile.TemporaryDirectory() as d:
            none += one_game(Path(d), a.players, 0, a.delay)[0]
        with tempfile.TemporaryDirectory() as d:
            lat, lag = one_game(Path(d), a.players, a.spectators, a.delay)
            many += lat
            lags += lag
    rt50, rt99 = raw_round_trip()
    n = a.spectators
    print(f"players: {a.players}")
    print(f"games of each kind: {a.games}")
    print(f"bot delay s: {a.delay:g}")
    print(f"spectators' niceness: {a.nice}")
    print(f"headless spectators: {int(a.headless)}")
    print(f"moves measured with 0 spectators: {len(none)}")
    print(f"moves measured with {n} spectators: {len(many)}")
    print(f"move latency p50 ms with 0 spectators: {pct(none, 0.5):.2f}")
    print(f"move latency p99 ms with 0 spectators: {pct(none, 0.99):.2f}")
    print(f"move latency p50 ms with {n} spectators: {pct(many, 0.5):.2f}")
    print(f"move latency p99 ms with {n} spectators: {pct(many, 0.99):.2f}")
    print(f"raw pyzmq round trip p50 ms: {rt50:.3f}")
    print(f"raw pyzmq round trip p99 ms: {rt99:.3f}")
    print(f"move latency p50 / raw round trip with 0 spectators: {pct(none, 0.5) / rt50:.1f}")
    print(f"move latency p50 / raw round trip with {n} spectators: {pct(many, 0.5) / rt50:.1f}")
    print(f"p50 with {n} spectators / p50 with 0: {pct(many, 0.5) / pct(none, 0.5):.2f}")
    if lags:
        print(f"slowest spectator behind the last seat p50 ms: {pct(lags, 0.5):.2f}")
        print(f"slowest spectator behind the last seat p99 ms: {pct(lags, 0.99):.2f}")


if __name__ == "__main__":
    main()
