"""Tor figures on the private Tor network of tests/net/tornet.py (issue 22), with the same
figures on plain loopback in the same run as the baseline.

Prints `name: value` lines:
- the network's bootstrap, and an ephemeral onion's publication (ADD_ONION to HS_DESC UPLOADED);
- a 64-byte round trip through the onion (client SOCKS -> circuit -> service) against raw
  loopback TCP;
- a 2-seat bot game (`zoo host --bot` and `zoo bot`): the join time (the bot started to its log
  holding the genesis) and the game's wall time, over the onion and on 127.0.0.1;
- a 3-seat bot game in which every peer starts its own tor (`--tor`) and publishes its own onion,
  so every direct link is an onion circuit (TRANSPORT.md §10.9), against the same game on
  127.0.0.1: the join time, the opening (genesis written by the host to the last peer seeing
  the game start: commits and the opening reveal) and a capture's reveal time (the capturing
  move signed to every peer holding it and its whole reveal round), p50 and p90, from the
  peers' ZOO_NET_TRACE lines (CLOCK_MONOTONIC, shared by every process on the machine);
- with `--delay-ms D` (root: network namespaces), the same 3-seat game with every peer in a
  namespace of its own whose only way out is its link to the Tor network's relays, delayed by D
  each way in user space (tests/net/nsbridge.py; this kernel has no netem): the join, the
  opening and a capture's reveal time in units of D (a message between two peers crosses two
  delayed links: 2 D at least), and the emulator's own lateness. The relays among themselves
  stay on loopback.
The private network's links are loopback: these are Tor's own per-hop costs (6 relays' crypto
and queueing on this machine), not a wide-area latency. Needs the `tor` package and root-free
127.0.0.1 ports only.

Usage: python bench/bench_tor.py [--games N] [--big-games N] [--delay-ms D [--only-delayed]]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.net.harness import ZOO, log_len  # noqa: E402
from tests.net.tornet import TorNet, socks5_connect, tor_missing  # noqa: E402
from zoo_p2p.net.onion import TorControl  # noqa: E402


def _rtt(sock: socket.socket, peer: socket.socket, n: int = 50) -> float:
    """Median ms of a 64-byte ping-pong between two connected stream sockets."""
    msg = b"x" * 64
    out = []
    for _ in range(n):
        t = time.perf_counter()
        sock.sendall(msg)
        got = b""
        while len(got) < 64:
            got += peer.recv(64 - len(got))
        peer.sendall(got)
        back = b""
        while len(back) < 64:
            back += sock.recv(64 - len(back))
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def _game(tmp: Path, host_args: list[str], bot_args: list[str]) -> tuple[float, float]:
    """(join s, game s) of one 2-seat bot game."""
    inv = tmp / "host.invite"
    t0 = time.monotonic()
    host = subprocess.Popen(
        [*ZOO, "host", "--players", "2", "--bot", "greedy", "--quiet",
         "--invite-file", str(inv), "--log", str(tmp / "host.zoolog"), *host_args],
        stdout=subprocess.DEVNULL, stderr=(tmp / "host.err").open("wb"), cwd=tmp,
    )  # fmt: skip
    try:
        while not inv.exists():
            if host.poll() is not None or time.monotonic() - t0 > 180:
                err = (tmp / "host.err").read_text(errors="replace")[-400:]
                raise RuntimeError(f"the host gave no invite: {err}")
            time.sleep(0.01)
        t1 = time.monotonic()
        bot = subprocess.Popen(
            [*ZOO, "bot", inv.read_text().strip(), "--quiet", "--give-up", "60",
             "--log", str(tmp / "bot.zoolog"), *bot_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
        )  # fmt: skip
        while log_len(tmp / "bot.zoolog") < 1:
            if bot.poll() is not None or time.monotonic() - t1 > 180:
                raise RuntimeError("the bot never got the genesis")
            time.sleep(0.005)
        joined = time.monotonic() - t1
        if bot.wait(240) != 0 or host.wait(60) != 0:
            raise RuntimeError("a peer failed")
        return joined, time.monotonic() - t1
    finally:
        for p in (host,):
            if p.poll() is None:
                p.kill()


def _pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def _game3(
    tmp: Path, tor: bool, env: dict[str, str], wrap: list[list[str]] | None = None
) -> dict[str, list[float]]:
    """One 3-seat bot game (the host's own bot and two `zoo bot`s): join s of each bot, the
    opening ms, and each move's time to every peer holding it and its reveal round, ms, split
    into captures (a reveal round follows) and plain moves."""
    trace = tmp / "trace"
    trace.mkdir()
    env = dict(env, ZOO_HOME=str(tmp / "home"), ZOO_NET_TRACE=str(trace))
    inv = tmp / "host.invite"
    how = ["--tor"] if tor else ["--bind", "127.0.0.1", "--no-announce"]
    pre = wrap or [[], [], []]  # each peer's command prefix (`ip netns exec NS`)
    host = subprocess.Popen(
        [*pre[0], *ZOO, "host", "--players", "3", "--bot", "greedy", "--quiet", "--give-up", "120",
         "--invite-file", str(inv), "--log", str(tmp / "host.zoolog"), *how],
        stdout=subprocess.DEVNULL, stderr=(tmp / "host.err").open("wb"), cwd=tmp, env=env,
    )  # fmt: skip
    bots: list[subprocess.Popen[bytes]] = []
    try:
        t0 = time.monotonic()
        while not inv.exists():
            if host.poll() is not None or time.monotonic() - t0 > 240:
                err = (tmp / "host.err").read_text(errors="replace")[-400:]
                raise RuntimeError(f"the host gave no invite: {err}")
            time.sleep(0.01)
        t1 = time.monotonic()
        for i in (1, 2):
            cmd = [*pre[i], *ZOO, "bot", inv.read_text().strip(), "--quiet", "--give-up", "120",
                   "--log", str(tmp / f"bot{i}.zoolog"), *(["--tor"] if tor else [])]  # fmt: skip
            err = (tmp / f"bot{i}.err").open("wb")
            bots.append(
                subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=tmp, env=env)
            )
        joined: dict[int, float] = {}
        while len(joined) < 2:
            for i in (1, 2):
                if i not in joined and log_len(tmp / f"bot{i}.zoolog") >= 1:
                    joined[i] = time.monotonic() - t1
            if time.monotonic() - t1 > 240 or any(b.poll() not in (None, 0) for b in bots):
                raise RuntimeError("a bot never got the genesis")
            time.sleep(0.005)
        for p in [*bots, host]:
            if p.wait(400) != 0:
                raise RuntimeError(f"a peer failed: see {tmp}")
    finally:
        for p in [*bots, host]:
            if p.poll() is None:
                p.kill()
    sent: dict[int, int] = {}
    settled: dict[int, list[int]] = {}
    mk: list[int] = []
    started: list[int] = []
    genesis = 0
    for f in trace.iterdir():
        for line in f.read_text().splitlines():
            ev, n, t = line.split()
            if ev == "sent":
                sent[int(n)] = int(t)
            elif ev == "settled":
                settled.setdefault(int(n), []).append(int(t))
            elif ev == "mk":
                mk.append(int(n))
            elif ev == "started":
                started.append(int(t))
            elif ev == "genesis":
                genesis = int(t)
    mk.sort()
    out: dict[str, list[float]] = {"join": list(joined.values()), "capture": [], "plain": []}
    out["opening"] = [(max(started) - genesis) / 1e6]
    for k, h in enumerate(sorted(sent)):
        if len(settled.get(h, ())) != 3 or k >= len(mk):
            continue
        gap = (mk[k + 1] if k + 1 < len(mk) else mk[k] + 1) - mk[k] - 1
        kind = "capture" if gap == 3 else "plain"  # a reveal round of 3 entries follows
        out[kind].append((max(settled[h]) - sent[h]) / 1e6)
    return out


def _delayed(net: TorNet, root: Path, delay_ms: float, games: int) -> None:
    """3-seat games, each peer in a namespace of its own whose links to the Tor network delay
    every byte by D each way (tests/net/nsbridge.py): figures in units of D."""
    from tests.net.netns import Lab, netns_missing
    from tests.net.nsbridge import NsBridge

    why = netns_missing()
    if why is not None:
        print(f"delayed games skipped: {why}")
        return
    d = delay_ms / 1000
    ports = [i.or_port for i in net.relays] + [a.dir_port for a in net.authorities]
    env = dict(os.environ, ZOO_TOR_TORRC=str(net.client_include()))
    figs: dict[str, list[float]] = {}
    late: list[float] = []
    for g in range(games):
        lab = Lab(root)
        bridges: list[NsBridge] = []
        try:
            spaces = [lab.machine(f"{c}{g}") for c in "hab"]
            bridges = [NsBridge(ns, ports, delay=d) for ns in spaces]
            tmp = root / f"delayed{g}"
            tmp.mkdir()
            wrap = [["ip", "netns", "exec", ns] for ns in spaces]
            for k, v in _game3(tmp, True, env, wrap).items():
                figs.setdefault(k, []).extend(v)
        finally:
            for b in bridges:
                late.extend(b.late)
                b.close()
            lab.close()
    print(f"delayed D ms: {delay_ms:g} (each peer's link to the Tor network, each way)")
    print(
        f"delay emulator lateness ms p50/p99/max (n={len(late)}): {_pct(late, 0.5) * 1000:.2f}"
        f" / {_pct(late, 0.99) * 1000:.2f} / {max(late, default=0) * 1000:.2f}"
    )
    print(f"delayed 3-seat join s median: {statistics.median(figs['join']):.2f}")
    print(
        f"delayed 3-seat opening in D median: {statistics.median(figs['opening']) / delay_ms:.1f}"
    )
    for what in ("capture", "plain"):
        v = [x / delay_ms for x in figs[what]]
        print(
            f"delayed 3-seat {what} move to settled in D p50/p90 (n={len(v)}): "
            f"{_pct(v, 0.5):.1f} / {_pct(v, 0.9):.1f} (one peer-to-peer message: 2 D at least)"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--big-games", type=int, default=2, help="3-seat games, every peer on Tor")
    ap.add_argument(
        "--delay-ms",
        type=float,
        default=0.0,
        help="also 3-seat games with this one-way delay "
        "on every peer's link to the Tor network (needs root: network namespaces)",
    )
    ap.add_argument("--only-delayed", action="store_true", help="skip the other figures")
    args = ap.parse_args()
    why = tor_missing()
    if why is not None:
        print(f"skipped: {why}", file=sys.stderr)
        return
    root = Path(tempfile.mkdtemp(prefix="zoo-bench-tor-"))
    net = TorNet(root / "net")
    try:
        net.start()
        print(f"private network bootstrap s: {net.bootstrap_seconds:.1f}")
        if args.delay_ms > 0:
            _delayed(net, root, args.delay_ms, args.big_games)
        if args.only_delayed:
            return
        ctl = f"127.0.0.1:{net.onion.control_port}"
        socks = f"127.0.0.1:{net.client.socks_port}"
        runs: dict[str, list[tuple[float, float]]] = {"tor": [], "loopback": []}
        for i in range(args.games):
            for kind in ("tor", "loopback"):
                tmp = root / f"{kind}{i}"
                tmp.mkdir()
                if kind == "tor":
                    runs[kind].append(_game(tmp, ["--tor-control", ctl], ["--tor-socks", socks]))
                else:
                    runs[kind].append(_game(tmp, ["--bind", "127.0.0.1", "--no-announce"], []))
        for kind, rs in runs.items():
            print(f"{kind} join s median: {statistics.median(r[0] for r in rs):.3f}")
            print(f"{kind} 2-seat game s median: {statistics.median(r[1] for r in rs):.3f}")
        env = dict(os.environ, ZOO_TOR_TORRC=str(net.client_include()))
        big: dict[str, dict[str, list[float]]] = {"tor": {}, "loopback": {}}
        for i in range(args.big_games):
            for kind in ("tor", "loopback"):
                tmp = root / f"big-{kind}{i}"
                tmp.mkdir()
                for k, v in _game3(tmp, kind == "tor", env).items():
                    big[kind].setdefault(k, []).extend(v)
        for kind, figs in big.items():
            print(f"{kind} 3-seat join s median: {statistics.median(figs['join']):.2f}")
            print(f"{kind} 3-seat opening ms median: {statistics.median(figs['opening']):.0f}")
            for what in ("capture", "plain"):
                v = figs[what]
                print(
                    f"{kind} 3-seat {what} move to settled ms p50/p90 (n={len(v)}): "
                    f"{_pct(v, 0.5):.1f} / {_pct(v, 0.9):.1f}"
                )
        tc = TorControl.connect("127.0.0.1", net.onion.control_port)
        with socket.socket() as srv:
            srv.bind(("127.0.0.1", 0))
            srv.listen()
            port = srv.getsockname()[1]
            t = time.monotonic()
            onion = tc.publish(port, port, lambda _s: None)
            print(f"onion publish s: {time.monotonic() - t:.2f}")
            t = time.monotonic()
            c = socks5_connect(net.socks, onion.host, onion.port, timeout=60)
            conn, _ = srv.accept()
            print(f"first connect to a fresh onion s: {time.monotonic() - t:.2f}")
            with c, conn:
                print(f"onion 64B round trip ms: {_rtt(c, conn):.2f}")
            a = socket.create_connection(("127.0.0.1", port))
            b, _ = srv.accept()
            with a, b:
                print(f"loopback 64B round trip ms: {_rtt(a, b):.3f}")
        tc.close()  # stem took ownership (we own the network): this instance exits now
    except BaseException:
        for inst in net.instances:
            if inst.proc is not None and inst.proc.poll() is not None:
                print(f"{inst.nick} exited: {inst.last_words()}", file=sys.stderr)
        raise
    finally:
        net.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
