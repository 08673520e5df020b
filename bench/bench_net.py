"""Network benchmark: headless 4-peer games on loopback, each peer a separate process.

Prints one ``name: value`` figure per line:
- per-move latency p50/p99 (ms): from the mover signing a move to every peer having applied it
  and finished its reveal round; also from the move leaving (after the mover's own fsync, which
  is on the critical path by design). Peers write ``ZOO_NET_TRACE`` lines stamped with
  CLOCK_MONOTONIC, which every process on the machine shares;
- raw pyzmq round trip (ms) over CURVE on loopback, measured in the same run, for comparison;
- commit + opening round (ms): from the host writing genesis to the last peer seeing the game
  start (commits and the batched reveal of the 25 top cards);
- ``zoo --help`` wall time (ms).
Goals (issue 4): p50 <= 3 ms, p99 <= 15 ms, opening <= 100 ms, --help <= 300 ms.
Run: python bench/bench_net.py [--games N] [--small] [--star]
(--star: the same 4-peer games with the direct links off, ZOO_MESH=0, for a same-run comparison)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ZOO = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()"]


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def raw_round_trip(n: int = 2000) -> tuple[float, float]:
    """(p50, p99) ms of a 300-byte DEALER->ROUTER->DEALER round trip, CURVE, loopback."""
    import zmq
    from zmq.auth.thread import ThreadAuthenticator

    ctx = zmq.Context()
    auth = ThreadAuthenticator(ctx)
    auth.start()
    auth.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
    spub, ssec = zmq.curve_keypair()
    cpub, csec = zmq.curve_keypair()
    router = ctx.socket(zmq.ROUTER)
    router.curve_secretkey, router.curve_publickey, router.curve_server = ssec, spub, True
    port = router.bind_to_random_port("tcp://127.0.0.1")
    dealer = ctx.socket(zmq.DEALER)
    dealer.curve_secretkey, dealer.curve_publickey, dealer.curve_serverkey = csec, cpub, spub
    dealer.connect(f"tcp://127.0.0.1:{port}")
    msg = b"x" * 300
    times: list[float] = []
    for i in range(n + 50):
        t0 = time.perf_counter()
        dealer.send(msg)
        rid, data = router.recv_multipart()
        router.send_multipart([rid, data])
        dealer.recv()
        if i >= 50:
            times.append((time.perf_counter() - t0) * 1000)
    dealer.close(0)
    router.close(0)
    auth.stop()
    ctx.term()
    return pct(times, 0.5), pct(times, 0.99)


def one_game(
    tmp: Path, players: int = 4, mesh: bool = True
) -> tuple[list[float], list[float], float]:
    """Play a headless game; return per-move latencies (ms) from signing and from the wire
    (after the mover's own fsync), and the opening round time (ms). `mesh=False` turns the
    direct links off (ZOO_MESH=0): every entry goes through the host, as before issue 8."""
    trace = tmp / "trace"
    trace.mkdir()
    env = dict(
        os.environ,
        ZOO_HOME=str(tmp / "home"),
        ZOO_NET_TRACE=str(trace),
        ZOO_MESH="1" if mesh else "0",
    )
    inv = tmp / "invite"
    host = subprocess.Popen(
        [
            *ZOO,
            "host",
            "--players",
            str(players),
            "--bot",
            "greedy",
            "--bind",
            "127.0.0.1",
            "--invite-file",
            str(inv),
            "--log",
            str(tmp / "host.zoolog"),
            "--quiet",
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while not inv.exists():
        if time.monotonic() > deadline or host.poll() is not None:
            raise SystemExit("the host did not start")
        time.sleep(0.02)
    bots = [
        subprocess.Popen(
            [
                *ZOO,
                "bot",
                inv.read_text().strip(),
                "--level",
                "greedy",
                "--quiet",
                "--log",
                str(tmp / f"bot{i}.zoolog"),
                "--give-up",
                "20",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for i in range(1, players)
    ]
    for p in [*bots, host]:
        if p.wait(120) != 0:
            raise SystemExit("a peer failed")
    sent: dict[int, int] = {}
    onwire: dict[int, int] = {}
    settled: dict[int, list[int]] = defaultdict(list)
    started: list[int] = []
    genesis = 0
    for f in trace.iterdir():
        for line in f.read_text().splitlines():
            ev, n, t = line.split()
            if ev == "sent":
                sent[int(n)] = int(t)
            elif ev == "onwire":
                onwire[int(n)] = int(t)
            elif ev == "settled":
                settled[int(n)].append(int(t))
            elif ev == "started":
                started.append(int(t))
            elif ev == "genesis":
                genesis = int(t)
    lat = [(max(settled[h]) - t0) / 1e6 for h, t0 in sent.items() if len(settled[h]) == players]
    wire = [(max(settled[h]) - t0) / 1e6 for h, t0 in onwire.items() if len(settled[h]) == players]
    return lat, wire, (max(started) - genesis) / 1e6


def raw_verify_us(n: int = 3000) -> float:
    """Microseconds per raw Ed25519 verify of a 300-byte message, measured here and now."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    pub, msg = key.public_key(), b"x" * 300
    sig = key.sign(msg)
    t0 = time.perf_counter()
    for _ in range(n):
        pub.verify(sig, msg)
    return (time.perf_counter() - t0) / n * 1e6


def help_time(runs: int = 5) -> float:
    """Median wall time (ms) of `zoo --help`."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([*ZOO, "--help"], stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    """Run and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--small", action="store_true", help="also time 2- and 3-peer games")
    ap.add_argument(
        "--star",
        action="store_true",
        help="also time 4-peer games without direct links (every entry through the host)",
    )
    args = ap.parse_args()
    lats: list[float] = []
    wires: list[float] = []
    openings: list[float] = []
    for _ in range(args.games):
        with tempfile.TemporaryDirectory() as d:
            lat, wire, opening = one_game(Path(d))
            lats += lat
            wires += wire
            openings.append(opening)
    rt50, rt99 = raw_round_trip()
    verify = raw_verify_us()
    print(f"moves measured: {len(lats)}")
    print(f"move latency p50 ms: {pct(lats, 0.5):.2f}")
    print(f"move latency p99 ms: {pct(lats, 0.99):.2f}")
    print(f"move latency from the wire (after the mover's fsync) p50 ms: {pct(wires, 0.5):.2f}")
    print(f"move latency from the wire (after the mover's fsync) p99 ms: {pct(wires, 0.99):.2f}")
    print(f"raw pyzmq round trip p50 ms: {rt50:.3f}")
    print(f"raw pyzmq round trip p99 ms: {rt99:.3f}")
    print(f"raw Ed25519 verify us: {verify:.0f}")
    print(f"move latency p50 / raw round trip: {pct(lats, 0.5) / rt50:.1f}")
    print(f"move latency p50 / raw verify: {pct(lats, 0.5) * 1000 / verify:.1f}")
    if args.star:
        star: list[float] = []
        for _ in range(args.games):
            with tempfile.TemporaryDirectory() as d:
                star += one_game(Path(d), 4, mesh=False)[0]
        print(f"star (no direct links) move latency p50 ms: {pct(star, 0.5):.2f}")
        print(f"star (no direct links) move latency p99 ms: {pct(star, 0.99):.2f}")
        print(f"star move latency p50 / raw round trip: {pct(star, 0.5) / rt50:.1f}")
    if args.small:
        for players in (2, 3):
            small: list[float] = []
            for _ in range(args.games):
                with tempfile.TemporaryDirectory() as d:
                    small += one_game(Path(d), players)[0]
            print(f"{players}-peer move latency p50 ms: {pct(small, 0.5):.2f}")
            print(f"{players}-peer move latency p99 ms: {pct(small, 0.99):.2f}")
    print(
        f"commit + opening round ms (median of {len(openings)}): {statistics.median(openings):.1f}"
    )
    print(f"zoo --help ms: {help_time():.0f}")


if __name__ == "__main__":
    main()
