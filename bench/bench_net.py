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


def stages(procs: list[list[tuple[str, int, int]]], players: int) -> dict[str, list[float]]:
    """Where a move's time goes (ms), from the per-process traces (event, n, ns) lines:
    - `sign+fsync+send`: the mover, from `mk` (before signing) to `tx` (its first send of the
      move returned: the publisher with the mesh, the host link without);
    - `transport`: an entry's `tx` at its author to its `rx` at another peer (the zmq hop,
      with its I/O threads and the scheduler's delay in waking the receiver);
    - `verify+apply`: `rx` to `ok` at a receiver (decode, signature, rules, session);
    - `turnaround`: at a reveal's author, from `ok` of the entry before to `tx` of its reveal
      (sign, write, publish);
    - `hops`: entries on the critical path of a move (1, or 1 + players with a reveal round);
    - `last fan-out`: the round's last entry, from its `tx` to the last peer's `ok`."""
    tx: dict[int, tuple[int, int]] = {}  # seq -> (proc, t)
    rx: dict[tuple[int, int], int] = {}  # (seq, proc) -> t
    ok: dict[tuple[int, int], int] = {}
    moves: list[tuple[int, int]] = []  # (seq, t of mk)
    for i, lines in enumerate(procs):
        for ev, n, t in lines:
            if ev == "tx":
                tx[n] = (i, t)
            elif ev == "rx":
                rx.setdefault((n, i), t)
            elif ev == "ok":
                ok[(n, i)] = t
            elif ev == "mk":
                moves.append((n, t))
    moves.sort()
    out: dict[str, list[float]] = defaultdict(list)
    starts = [m for m, _ in moves]
    for k, (m, t0) in enumerate(moves):
        if m not in tx:
            continue
        out["sign+fsync+send"].append((tx[m][1] - t0) / 1e6)
        end = starts[k + 1] - 1 if k + 1 < len(starts) else m
        last = m if end - m != players else end  # a full reveal round follows, or nothing
        out["hops"].append(last - m + 1)
        for seq in range(m, last + 1):
            if seq not in tx:
                break
            author, t_tx = tx[seq]
            for i in range(len(procs)):
                if i != author and (seq, i) in rx and (seq, i) in ok:
                    out["transport"].append((rx[(seq, i)] - t_tx) / 1e6)
                    out["verify+apply"].append((ok[(seq, i)] - rx[(seq, i)]) / 1e6)
            if seq < last and seq + 1 in tx:
                nxt, t_next = tx[seq + 1]
                if (seq, nxt) in ok:
                    out["turnaround"].append((t_next - ok[(seq, nxt)]) / 1e6)
        if last in tx:
            oks = [ok[(last, i)] for i in range(len(procs)) if (last, i) in ok]
            if len(oks) == players - 1:
                out["last fan-out"].append((max(oks) - tx[last][1]) / 1e6)
    return out


DELAY = 0.0  # --delay: seconds each bot waits before its move (0: at once)


def one_game(
    tmp: Path, players: int = 4, mesh: bool = True, stage: dict[str, list[float]] | None = None
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
            "--delay",
            str(DELAY),
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
                "--delay",
                str(DELAY),
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
    procs: list[list[tuple[str, int, int]]] = []
    for f in trace.iterdir():
        procs.append([])
        for line in f.read_text().splitlines():
            ev, n, t = line.split()
            procs[-1].append((ev, int(n), int(t)))
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
    if stage is not None:
        for k, v in stages(procs, players).items():
            stage[k] += v
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
    ap.add_argument(
        "--stages",
        action="store_true",
        help="also print where a 4-peer move's time goes (median ms per stage)",
    )
    ap.add_argument(
        "--delay",
        type=float,
        default=0.0,
        help="every bot waits this long before its move (default 0: the next move is thought "
        "while the others still apply the last entry, on the same 2 cores)",
    )
    args = ap.parse_args()
    global DELAY
    DELAY = args.delay
    stage: dict[str, list[float]] = defaultdict(list)
    lats: list[float] = []
    wires: list[float] = []
    openings: list[float] = []
    for _ in range(args.games):
        with tempfile.TemporaryDirectory() as d:
            lat, wire, opening = one_game(Path(d), stage=stage)
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
    if args.stages:
        for name, values in stage.items():
            print(f"stage {name} p50: {pct(values, 0.5):.3f}")
            print(f"stage {name} p90: {pct(values, 0.9):.3f}")
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
