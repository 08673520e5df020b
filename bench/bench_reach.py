"""Connection matrix (issue 11): can a joiner reach a host, and how long does joining take?

Scenarios, each in network namespaces made here and torn down at the end (needs root, iproute2,
nftables and miniupnpd; run as `sudo python bench/bench_reach.py`):

- same host: host and joiner in one namespace, joining with the invite;
- same LAN: two namespaces on one link, joining with the invite (IPv4 and IPv6 addresses), with
  an IPv6-only invite, and with no invite at all (mDNS);
- NAT + UPnP: host behind a router namespace running miniupnpd, joiner outside, `--upnp`;
- NAT, no UPnP: the same router without the daemon; the joiner has only the host's LAN address.
- joiner behind NAT, with and without `zoo bot --upnp`: the host and a joiner B on the
  "internet", a joiner A at "home" behind the router with miniupnpd, 3 seats; A's join time, and
  whether B's direct link to A came up (B's `direct links:` line names the router's address).

"join s" is the time from starting the joiner process to its log holding the genesis (it has
been seated and the game has begun), Python start-up included; in the 3-seat scenarios that
includes the lobby filling up. Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.net.harness import log_len
from tests.net.netns import Lab, NsProcs, netns_missing, sh
from tests.net.test_netns_nat import ROUTER_WAN, _router
from zoo_p2p.net.invite import Invite


def _host(p: NsProcs, ns: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    return p.host_in(ns, "--quiet", *extra, give_up=15)


def _join(p: NsProcs, ns: str, invite: str | None, give_up: float) -> tuple[bool, float]:
    log = p.tmp / "bot1.zoolog"
    log.unlink(missing_ok=True)
    args = [invite] if invite else []
    t0 = time.monotonic()
    j = p.zoo_in(ns, "bot", *args, "--log", str(log), "--give-up", str(give_up), name="bot1")
    while time.monotonic() - t0 < give_up + 10:
        if log_len(log) > 0:
            took = time.monotonic() - t0
            p.wait(j, "bot1", 60)
            return True, took
        if j.poll() is not None:
            break
        time.sleep(0.01)
    took = time.monotonic() - t0
    if j.poll() is None:
        j.kill()
    return False, took


def _mesh_join(
    p: NsProcs, home: str, inet: str, upnp: bool
) -> tuple[bool, float, bool, float | None]:
    """(joined, A's join time, B heard A directly, how long A's router took to map) for
    joiner A at home (maybe --upnp)."""
    host, inv = p.host_in(inet, "--no-announce", "--quiet", players=3, give_up=15)
    common = ["--delay", "0.15", "--give-up", "15"]
    b = p.zoo_in(inet, "bot", inv, "--log", str(p.tmp / "b.zoolog"), *common, name="b")
    log = p.tmp / "a.zoolog"
    log.unlink(missing_ok=True)
    t0 = time.monotonic()
    extra = ["--upnp", "-v"] if upnp else []
    a = p.zoo_in(home, "bot", inv, "--log", str(log), *common, *extra, name="a")
    while log_len(log) == 0 and a.poll() is None and time.monotonic() - t0 < 25:
        time.sleep(0.01)
    took, joined = time.monotonic() - t0, log_len(log) > 0
    for proc, name in ((a, "a"), (b, "b"), (host, "host")):
        p.wait(proc, name, 60)
    out = (p.tmp / "b.out").read_text()
    links = [x for x in out.splitlines() if x.startswith("direct links: ")]
    direct = bool(links) and f"at tcp://{ROUTER_WAN}:" in links[0]
    mapped = re.search(r"to our direct links at \S+ \(([0-9.]+) s;", p.text("a"))
    return joined, took, direct, float(mapped.group(1)) if mapped else None


@contextlib.contextmanager
def _lab() -> Iterator[tuple[Lab, NsProcs]]:
    """Namespaces and processes in a fresh directory, all gone at the end."""
    with tempfile.TemporaryDirectory(prefix="zoo-reach-") as d:
        net, p = Lab(Path(d)), NsProcs(Path(d))
        try:
            yield net, p
        finally:
            p.close()
            net.close()


def run(rounds: int, only: str = "") -> None:
    why = netns_missing()
    if why:
        print(f"# skipped: {why}")
        return
    rows: dict[str, list[tuple[bool, float]]] = {}
    links: dict[str, list[bool]] = {}  # did the outside joiner hear the one at home directly?
    mapping: list[float] = []  # seconds the home joiner's router took to map its port

    def record(name: str, ok: bool, took: float) -> None:
        rows.setdefault(name, []).append((ok, took))

    for _ in range(rounds):
        if only in "lan":
            with _lab() as (net, p):
                a, b = net.machine("a"), net.machine("b")
                ia, ib = net.wire(a, "10.231.0.1/24", b, "10.231.0.2/24")
                sh("ip", "addr", "add", "fd00:231::1/64", "dev", ia, "nodad", ns=a)
                sh("ip", "addr", "add", "fd00:231::2/64", "dev", ib, "nodad", ns=b)
                host, inv = _host(p, a, "--no-announce")
                record("same host", *_join(p, a, inv, 10))
                p.wait(host, "host")
                host, inv = _host(p, a, "--no-announce")
                record("same LAN, invite", *_join(p, b, inv, 10))
                p.wait(host, "host")
                host, inv = _host(p, a, "--no-announce")
                v6 = Invite.parse(inv)
                v6 = v6.with_addresses([x for x in v6.addresses if ":" in x[0]])
                record("same LAN, IPv6 invite", *_join(p, b, str(v6), 10))
                p.wait(host, "host")
                host, inv = _host(p, a)
                record("same LAN, discovered", *_join(p, b, None, 10))
                p.wait(host, "host")
        for daemon in (True, False) if only in "nat" else ():
            with _lab() as (net, p):
                home, _, inet = _router(net, daemon=daemon)
                host, inv = _host(p, home, "--upnp", "--no-announce")
                name = "NAT + UPnP" if daemon else "NAT, no UPnP"
                record(name, *_join(p, inet, inv, 5))
        for upnp in (True, False) if only in "joiner" else ():
            with _lab() as (net, p):
                home, _, inet = _router(net, daemon=True)
                joined, took, direct, mapped = _mesh_join(p, home, inet, upnp)
                name = f"joiner behind NAT{' with' if upnp else ', no'} --upnp"
                record(name, joined, took)
                links.setdefault(name, []).append(direct)
                if mapped is not None:
                    mapping.append(mapped)
    for name, results in rows.items():
        ok = [t for good, t in results if good]
        key = name.replace(",", "")
        print(f"{key} connected: {len(ok)}/{len(results)}".replace("/", " of "))
        if ok:
            print(f"{key} join s median: {statistics.median(ok):.2f}")
        else:
            print(f"{key} gave up after s: {max(t for _, t in results):.2f}")
        if name in links:
            print(f"{key} direct link from outside: {sum(links[name])} of {len(links[name])}")
    if mapping:
        print(f"joiner's port mapped in background s median: {statistics.median(mapping):.2f}")


def main() -> None:
    """Run the matrix `--rounds` times."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--only", choices=("lan", "nat", "joiner"), default="", help="one group of scenarios"
    )
    args = ap.parse_args()
    run(args.rounds, args.only)


if __name__ == "__main__":
    main()
