"""Wide-area benchmark: every peer on its own machine, a one-way delay D between any two.

Each peer (`zoo host` with a bot in seat 1, `zoo bot` in the others) runs in its own network
namespace. The namespaces have no link to this machine's network and none to each other but a
TUN device each, `10.77.0.K/24`, whose other end is this bench's delay emulator: a user-space
process that reads every IPv4 packet a machine sends, holds it for D and writes it into the TUN
of the machine it is addressed to (this kernel has no `netem`). A packet for any other address
is dropped and counted, so nothing leaves the addresses the bench made. Everything is torn down
after (processes by pid, then the namespaces; the TUN devices go with the emulator).

The emulator's own timing error is printed twice: its lateness (when a packet was written,
against when it was due: read time + D), and a UDP ping between two machines (one-way time, half
the round trip, minus D: the emulator's and both kernels' and Pythons' share).

Figures, in units of D against their floors (a floor is the chain of one-way hops the protocol
needs, counted from the log: one D each time the next entry has another author, one more for the
last entry to reach everyone; signing, checking and thinking are not in it):
- capture to reveal: from the mover signing a capture that asks hidden facts to every peer
  holding the reveal round's last link; floor (n+1)·D for a joiner's capture, n·D for the host's
  (every chain starts at seat 0, PROTOCOL.md §4.4);
- the opening: from the host writing the genesis to every peer holding the last `open`; floor
  2n·D;
- the whole game: genesis to every peer holding the last `result`; its floor, and the bots'
  thinking time (from holding the entry that gives the move floor to signing the move);
- the direct links: when each joiner-to-joiner link first carried an entry in about D (not the
  2 D of the relay through the host), in D after the genesis, and how many of the opening's
  joiner-to-joiner hops were relayed.

`--stagger S` starts the joiners S seconds apart, as people join a lobby one after another (by
default all at once: the lobby is then over within a round trip, and links started in the lobby,
TRANSPORT.md §10.10, have no time to come up before the genesis).

Needs root and iproute2. Run: python bench/bench_wan.py [--delays 25 50] [--seats 3 4] [--games 2]
[--stagger 0.5]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fcntl
import json
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ZOO = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()"]
SUBNET = "10.77.0."  # machine K (0-based) is 10.77.0.(K+1), on its own TUN device
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000


def addr(k: int) -> str:
    """Machine k's address."""
    return f"{SUBNET}{k + 1}"


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


# ------------------------------------------------------------------ the delay emulator
def emulate(tag: str, machines: int, delay_ms: float, stats: Path) -> None:
    """The emulator process: make one TUN per machine, say `ready`, then hold every packet for
    the delay and pass it to its destination's TUN, until stdin closes; write the stats."""
    # the peers (and whatever else runs) share the cores with it: a real-time priority keeps
    # its wake-ups on time; it sleeps in select() between packets, so it takes no more CPU
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, PermissionError, OSError):
        with contextlib.suppress(PermissionError, OSError):
            os.nice(-10)
    fds: list[int] = []
    for k in range(machines):
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(
            fd, TUNSETIFF, struct.pack("16sH22x", f"{tag}t{k}".encode(), IFF_TUN | IFF_NO_PI)
        )
        fds.append(fd)
    by_dst = {bytes(map(int, addr(k).split("."))): fds[k] for k in range(machines)}
    print("ready", flush=True)
    d = delay_ms / 1000
    queue: collections.deque[tuple[float, int, bytes]] = collections.deque()
    late: list[float] = []
    dropped = passed = 0
    dropped_what: list[str] = []
    stdin = sys.stdin.fileno()
    watch = [*fds, stdin]
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else 1.0
        ready, _, _ = select.select(watch, [], [], timeout)
        now = time.monotonic()
        if stdin in ready and not os.read(stdin, 4096):
            break
        for fd in ready:
            if fd == stdin:
                continue
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                out = by_dst.get(pkt[16:20]) if len(pkt) >= 20 and pkt[0] >> 4 == 4 else None
                if out is None:
                    dropped += 1  # not IPv4, or not for a machine of ours: never delivered
                    if len(dropped_what) < 20:
                        dropped_what.append(pkt[:40].hex())
                    continue
                queue.append((now + d, out, pkt))
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            due, out, pkt = queue.popleft()
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(out, pkt)
                passed += 1
            late.append((time.monotonic() - due) * 1000)
    stats.write_text(
        json.dumps({"late_ms": late, "dropped": dropped, "passed": passed, "what": dropped_what})
    )


# ------------------------------------------------------------------ the machines
def sh(*cmd: str) -> None:
    """Run a command, bounded; fail loudly."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")


class Wan:
    """Namespaces m0..mN-1, each with one TUN to the emulator, with delay D between any two."""

    def __init__(self, tmp: Path, machines: int, delay_ms: float) -> None:
        self.tmp, self.machines, self.delay_ms = tmp, machines, delay_ms
        self.tag = f"zw{os.getpid() % 10000}"
        self.spaces: list[str] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.stats = tmp / "emulator.json"
        self.emulator: subprocess.Popen[str] | None = None

    def __enter__(self) -> Wan:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        for k in range(self.machines):
            ns = f"{self.tag}m{k}"
            sh("ip", "netns", "add", ns)
            self.spaces.append(ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            for conf in ("all", "default"):  # (IPv4 only: no router solicitations)
                sh(
                    "ip",
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    f"net.ipv6.conf.{conf}.disable_ipv6=1",
                )
        self.emulator = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--emulate",
                self.tag,
                str(self.machines),
                str(self.delay_ms),
                str(self.stats),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.emulator.stdout is not None
        if self.emulator.stdout.readline().strip() != "ready":
            raise SystemExit("the delay emulator did not start")
        for k, ns in enumerate(self.spaces):
            dev = f"{self.tag}t{k}"
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "-n", ns, "addr", "add", f"{addr(k)}/24", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")

    def run(
        self, k: int, cmd: list[str], env: dict[str, str], out: Path
    ) -> subprocess.Popen[bytes]:
        """Start `cmd` on machine k."""
        with open(out, "wb") as f:
            p = subprocess.Popen(
                ["ip", "netns", "exec", self.spaces[k], *cmd],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
            )
        self.procs.append(p)
        return p

    def emulator_stats(self) -> dict[str, object]:
        """Stop the emulator and read what it measured."""
        if self.emulator is not None and self.emulator.poll() is None:
            assert self.emulator.stdin is not None
            self.emulator.stdin.close()
            self.emulator.wait(10)
        return json.loads(self.stats.read_text()) if self.stats.exists() else {}

    def close(self) -> None:
        """Stop what we started (by pid), then delete the namespaces."""
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(3)
            if p.poll() is None:
                p.kill()
                p.wait(3)
        for ns in self.spaces:
            r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
            for pid in r.stdout.split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        if self.emulator is not None and self.emulator.poll() is None:
            self.emulator.kill()
            self.emulator.wait(5)
        for ns in self.spaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        self.spaces = []


# ------------------------------------------------------------------ the emulator's error
PING_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 7777))
print("up", flush=True)
while True:
    data, peer = s.recvfrom(64)
    if data == b"stop":
        break
    s.sendto(data, peer)
"""

PING_CLIENT = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
rtts = []
for i in range(int(sys.argv[2])):
    t0 = time.monotonic()
    s.sendto(b"%d" % i, (sys.argv[1], 7777))
    s.recvfrom(64)
    rtts.append((time.monotonic() - t0) * 1000)
    time.sleep(0.01)
s.sendto(b"stop", (sys.argv[1], 7777))
print(" ".join(f"{r:.4f}" for r in rtts))
"""


def ping(wan: Wan, count: int = 100) -> list[float]:
    """Round trips (ms) of small UDP packets from machine 1 to machine 0."""
    server = subprocess.Popen(
        ["ip", "netns", "exec", wan.spaces[0], sys.executable, "-c", PING_SERVER, addr(0)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()
        r = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                wan.spaces[1],
                sys.executable,
                "-c",
                PING_CLIENT,
                addr(0),
                str(count),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if r.returncode != 0:
            raise SystemExit(f"the ping between two machines failed: {r.stderr.strip()}")
        return [float(x) for x in r.stdout.split()]
    finally:
        server.kill()
        server.wait(5)


# ------------------------------------------------------------------ one game
@dataclass
class Game:
    """What one game gave, in ms (the floors in hops)."""

    captures: list[tuple[bool, float, int]] = field(default_factory=list)  # (by host, ms, floor)
    opening: tuple[float, int] = (0.0, 0)
    game: tuple[float, int, float] = (0.0, 0, 0.0)  # ms, floor hops, thinking ms
    links: dict[tuple[int, int], float] = field(default_factory=dict)  # (from, to) -> ms
    opening_relayed: tuple[int, int] = (0, 0)  # joiner-to-joiner hops relayed, of all


def hops(authors: list[int], start: int, end: int) -> int:
    """The floor, in one-way hops, from entry `start` being written to every peer holding entry
    `end`: one per change of author, one for the last entry to reach everyone."""
    return 1 + sum(authors[i] != authors[i - 1] for i in range(start + 1, end + 1))


def zoo_from(tree: str | None) -> list[str]:
    """How to run `zoo`: this checkout's, or the `zoo_p2p` package under `tree` (an older
    version, for a before/after comparison in the same run)."""
    if tree is None:
        return ZOO
    code = (
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in "
        f"repr(f).lower()]; sys.path.insert(0, {tree!r}); "
        "from zoo_p2p.cli.app import main; main()"
    )
    return [sys.executable, "-c", code]


def play(
    wan: Wan, tmp: Path, seats: int, delay_ms: float, tree: str | None = None, stagger: float = 0
) -> Game:
    """Play one headless game of `seats` peers, one per machine, and read its traces."""
    from zoo_p2p.protocol.encoding import decode_entry
    from zoo_p2p.storage import read_log

    zoo = zoo_from(tree)

    trace = tmp / "trace"
    trace.mkdir()
    env = dict(os.environ, ZOO_HOME=str(tmp / "home"), ZOO_NET_TRACE=str(trace))
    inv = tmp / "invite"
    host = wan.run(
        0,
        [
            *zoo,
            "host",
            "--players",
            str(seats),
            "--bot",
            "greedy",
            "--bind",
            addr(0),
            "--invite-file",
            str(inv),
            "--log",
            str(tmp / "host.zoolog"),
            "--quiet",
            "--no-announce",
            "--give-up",
            "60",
        ],
        env,
        tmp / "host.out",
    )
    deadline = time.monotonic() + 30
    while not inv.exists():
        if time.monotonic() > deadline or host.poll() is not None:
            raise SystemExit(f"the host did not start: {(tmp / 'host.out').read_text()[-500:]}")
        time.sleep(0.02)
    bots = []
    for k in range(1, seats):
        if k > 1 and stagger:
            time.sleep(stagger)  # the next player joins a little later, as people do
        bot = wan.run(
            k,
            [
                *zoo,
                "bot",
                inv.read_text().strip(),
                "--level",
                "greedy",
                "--log",
                str(tmp / f"bot{k}.zoolog"),
                "--give-up",
                "60",
            ],
            env,
            tmp / f"bot{k}.out",
        )
        bots.append(bot)
    for i, proc in enumerate([*bots, host]):
        if proc.wait(600) != 0:
            name = "host" if proc is host else f"bot{i + 1}"
            out = (tmp / f"{name}.out").read_text()[-800:]
            raise SystemExit(f"{name} exited with {proc.returncode}: {out}")
    log = list(read_log(tmp / "host.zoolog").entries)
    entries = [decode_entry(raw) for raw in log]
    authors = [e.seat for e in entries]
    # per process: when it held each seq (its own: sent; others': applied), its moves' `mk`
    held: list[dict[int, int]] = []
    made: list[dict[int, int]] = []
    sent: list[set[int]] = []
    genesis = 0
    for f in sorted(trace.iterdir()):
        h: dict[int, int] = {}
        mk: dict[int, int] = {}
        own: set[int] = set()
        for line in f.read_text().splitlines():
            ev, n, t = line.split()
            if ev == "tx":
                own.add(int(n))
            if ev in ("tx", "ok"):
                h.setdefault(int(n), int(t))
            elif ev == "mk":
                mk[int(n)] = int(t)
            elif ev == "genesis":
                genesis = int(t)
                h[0] = int(t)
        held.append(h)
        made.append(mk)
        sent.append(own)
    seat_of: dict[int, int] = {}  # process -> seat: the author of the commit it sent
    for q, own in enumerate(sent):
        seat_of[q] = next(authors[seq] for seq in sorted(own) if entries[seq].kind == "commit")

    def everyone(seq: int) -> int:
        return max(h[seq] for h in held)

    game = Game()
    opened = max(i for i, e in enumerate(entries) if e.kind == "open")
    game.opening = ((everyone(opened) - genesis) / 1e6, hops(authors, 0, opened))
    think = 0.0
    for q, mk in enumerate(made):
        for seq, at in mk.items():
            think += max(0, at - held[q][seq - 1]) / 1e6
    game.game = ((everyone(len(log) - 1) - genesis) / 1e6, hops(authors, 0, len(log) - 1), think)
    for seq, e in enumerate(entries):
        if e.kind != "move" or seq + 1 >= len(entries) or entries[seq + 1].kind != "reveal":
            continue
        last = seq + seats
        mover = next(q for q, s in seat_of.items() if s == e.seat)
        if seq not in made[mover]:
            continue
        ms = (everyone(last) - made[mover][seq]) / 1e6
        game.captures.append((e.seat == 0, ms, hops(authors, seq, last)))
    # the direct links: an entry by joiner a that reached joiner b in under 1.5 D came directly
    proc_of = {s: q for q, s in seat_of.items()}
    relayed = total = 0
    for seq in range(1, len(entries)):
        a = authors[seq]
        if a == 0 or a not in proc_of or seq not in held[proc_of[a]]:
            continue
        for b in range(1, seats):
            if b == a or b not in proc_of or seq not in held[proc_of[b]]:
                continue
            took = (held[proc_of[b]][seq] - held[proc_of[a]][seq]) / 1e6
            if took < 1.5 * delay_ms:
                game.links.setdefault((a, b), (held[proc_of[a]][seq] - genesis) / 1e6)
            if seq <= opened:
                total += 1
                relayed += took >= 1.5 * delay_ms
    game.opening_relayed = (relayed, total)
    return game


# ------------------------------------------------------------------ the report
def report(delay_ms: float, seats: int, games: list[Game], label: str = "") -> None:
    """Print one delay's and one table size's figures."""
    d = delay_ms
    tag = f"D={d:g}ms {seats} seats{label}"
    for by_host, who in ((False, "a joiner's"), (True, "the host's")):
        got = [(ms, fl) for g in games for h, ms, fl in g.captures if h == by_host]
        if not got:
            continue
        floor = statistics.median(fl for _, fl in got)
        in_d = [ms / d for ms, _ in got]
        ratio = [ms / (fl * d) for ms, fl in got]
        print(
            f"{tag}: capture to reveal, {who} ({len(got)}): p50 {pct(in_d, 0.5):.2f} D "
            f"p90 {pct(in_d, 0.9):.2f} D, floor {floor:g} D, p50 {pct(ratio, 0.5):.3f}x floor"
        )
    op = [g.opening for g in games]
    print(
        f"{tag}: opening (commit + open rounds): median "
        f"{statistics.median(ms / d for ms, _ in op):.2f} D, floor {op[0][1]} D, "
        f"{statistics.median(ms / (fl * d) for ms, fl in op):.3f}x floor"
    )
    rel = sum(g.opening_relayed[0] for g in games), sum(g.opening_relayed[1] for g in games)
    print(f"{tag}: opening joiner-to-joiner hops through the host: {rel[0]} of {rel[1]}")
    gm = [g.game for g in games]
    print(
        f"{tag}: whole game: median {statistics.median(ms / d for ms, _, _ in gm):.1f} D, floor "
        f"{statistics.median(fl for _, fl, _ in gm):g} D, "
        f"{statistics.median(ms / (fl * d) for ms, fl, _ in gm):.3f}x floor "
        f"(bots thinking: {statistics.median(t / d for _, _, t in gm):.1f} D)"
    )
    links = [ms / d for g in games for ms in g.links.values()]
    want = (seats - 1) * (seats - 2)  # joiner pairs, both ways
    seen = [len(g.links) for g in games]
    if links:
        print(
            f"{tag}: direct joiner links first carried an entry at: median {pct(links, 0.5):.1f} D,"
            f" last {max(links):.1f} D after the genesis ({min(seen)}-{max(seen)} of {want} "
            "links per game)"
        )


def main() -> None:
    """Run and print the figures."""
    if len(sys.argv) == 6 and sys.argv[1] == "--emulate":
        emulate(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), Path(sys.argv[5]))
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--delays", type=float, nargs="+", default=[25.0, 50.0], metavar="MS")
    ap.add_argument("--seats", type=int, nargs="+", default=[3, 4], choices=[2, 3, 4])
    ap.add_argument("--games", type=int, default=2, help="games per delay and table size")
    ap.add_argument(
        "--compare",
        metavar="TREE",
        help="also play every game with the zoo_p2p package under TREE (an older version, e.g. "
        "`git archive COMMIT zoo_p2p | tar -x -C TREE`), alternating: figures 'before' and "
        "'after' from the same run",
    )
    ap.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        metavar="S",
        help="start the joiners S seconds apart (0: all at once, the lobby over in a round "
        "trip): links started in the lobby (TRANSPORT.md §10.10) need a lobby that lasts",
    )
    ap.add_argument(
        "--tmp",
        default="/dev/shm" if Path("/dev/shm").is_dir() else None,
        help="where the logs are written (default /dev/shm: a disk's fsync, tens of ms on a "
        "busy machine, is not what this bench measures)",
    )
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench_wan needs root (network namespaces)")
    # a `kill` tears the machines down too (the context managers run on SystemExit)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"load average (1 min) at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"joiners started {args.stagger:g} s apart")
    trees: list[tuple[str, str | None]] = [("", None)]
    if args.compare:
        trees = [(" before", str(Path(args.compare).resolve())), (" after", None)]
    print(f"logs written under: {args.tmp or tempfile.gettempdir()}")
    for delay_ms in args.delays:
        with (
            tempfile.TemporaryDirectory(dir=args.tmp) as d,
            Wan(Path(d), max(args.seats), delay_ms) as wan,
        ):
            rtts = ping(wan)
            one_way = [r / 2 - delay_ms for r in rtts]
            print(
                f"D={delay_ms:g}ms: emulator check, UDP ping one-way minus D: p50 "
                f"{pct(one_way, 0.5):.3f} ms, p99 {pct(one_way, 0.99):.3f} ms "
                f"({len(rtts)} round trips)"
            )
            results: dict[tuple[int, str], list[Game]] = defaultdict(list)
            for seats in args.seats:
                for i in range(args.games):
                    for label, tree in trees:
                        tmp = Path(d) / f"g{seats}-{i}{label.strip()}"
                        tmp.mkdir()
                        results[(seats, label)].append(
                            play(wan, tmp, seats, delay_ms, tree, args.stagger)
                        )
            stats = wan.emulator_stats()
            late = stats.get("late_ms") or [0.0]
            assert isinstance(late, list)
            print(
                f"D={delay_ms:g}ms: emulator lateness (written - due) over {len(late)} packets: "
                f"p50 {pct(late, 0.5):.3f} ms, p99 {pct(late, 0.99):.3f} ms, max "
                f"{max(late):.3f} ms; {stats.get('dropped', 0)} packets for no machine of ours "
                "dropped"
            )
            for seats in args.seats:
                for label, _ in trees:
                    report(delay_ms, seats, results[(seats, label)], label)
            print(f"load average (1 min) after D={delay_ms:g}ms: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
