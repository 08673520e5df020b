"""Simulated machines for the network tests: Linux network namespaces joined by veth pairs.

Every namespace, link and address is made by the test itself and torn down in a finalizer; the
namespaces have no link to the machine's own network, so no packet of these tests can leave them.
The tests skip with the reason when they cannot run (not root, no `ip netns`, no daemon).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.net.harness import START, ZOO, Procs, wait_for

_COUNTER = itertools.count()


def netns_missing() -> str | None:
    """Why namespaces cannot be used here, or None if they can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    name = f"zprobe{os.getpid() % 100000}"
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        return f"`ip netns add` fails here: {r.stderr.strip()[:200]}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)
    return None


def sh(*cmd: str, ns: str | None = None, check: bool = True, stdin: str | None = None) -> str:
    """Run a command (inside namespace `ns`), bounded; fail with its output."""
    full = ["ip", "netns", "exec", ns, *cmd] if ns else list(cmd)
    r = subprocess.run(full, input=stdin, capture_output=True, text=True, timeout=20)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(full)} failed: {r.stdout}{r.stderr}")
    return r.stdout


class Lab:
    """A set of namespaces (machines) and veth links of one test."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.tag = f"z{os.getpid() % 10000}{next(_COUNTER) % 100}"
        self.spaces: list[str] = []
        self.links = 0
        self.daemons: list[subprocess.Popen[bytes]] = []

    def machine(self, short: str) -> str:
        """A new namespace with its loopback up; returns its name."""
        name = f"{self.tag}{short}"
        sh("ip", "netns", "add", name)
        self.spaces.append(name)
        sh("ip", "link", "set", "lo", "up", ns=name)
        return name

    def wire(
        self, a: str, a_cidr: str, b: str, b_cidr: str | None, *, bridge: str | None = None
    ) -> tuple[str, str]:
        """A veth pair between namespaces a and b with these addresses; returns the names.
        With `bridge`, b's end has no address and is a port of that bridge (in b)."""
        self.links += 1
        ia, ib = f"{self.tag}v{self.links}a", f"{self.tag}v{self.links}b"
        sh("ip", "link", "add", ia, "type", "veth", "peer", "name", ib)
        sh("ip", "link", "set", ia, "netns", a)
        sh("ip", "link", "set", ib, "netns", b)
        for ns, ifname, cidr in ((a, ia, a_cidr), (b, ib, b_cidr)):
            if cidr is not None:
                sh("ip", "addr", "add", cidr, "dev", ifname, ns=ns)
            sh("ip", "link", "set", ifname, "up", ns=ns)
        if bridge is not None:
            sh("ip", "link", "set", ib, "master", bridge, ns=b)
        return ia, ib

    def bridge(self, ns: str, cidr: str) -> str:
        """A bridge (a switch) in namespace `ns` with this address; returns its name."""
        name = f"{self.tag}br"
        sh("ip", "link", "add", name, "type", "bridge", ns=ns)
        sh("ip", "addr", "add", cidr, "dev", name, ns=ns)
        sh("ip", "link", "set", name, "up", ns=ns)
        return name

    def daemon(self, ns: str, *cmd: str, name: str) -> subprocess.Popen[bytes]:
        """Start a long-running program inside `ns`, output to tmp/NAME.out."""
        out = open(self.tmp / f"{name}.out", "wb")  # noqa: SIM115
        p = subprocess.Popen(
            ["ip", "netns", "exec", ns, *cmd],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()
        self.daemons.append(p)
        return p

    def close(self) -> None:
        """Stop what runs inside our namespaces (by pid) and delete them."""
        for p in self.daemons:
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
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


class NsProcs(Procs):
    """`zoo` processes started inside chosen namespaces (see harness.Procs)."""

    def zoo_in(self, ns: str, *args: str, name: str) -> subprocess.Popen[bytes]:
        """Start `zoo ARGS` inside namespace `ns`."""
        return self.start(["ip", "netns", "exec", ns, *ZOO, *args], name=name)

    def host_in(
        self, ns: str, *extra: str, players: int = 2, give_up: int = 30, name: str = "host"
    ) -> tuple[subprocess.Popen[bytes], str]:
        """Start `zoo host` (a greedy bot in seat 1) inside `ns`, logging to tmp/NAME.zoolog
        (a fresh file), and return it with its invite once written."""
        inv, log = self.tmp / f"{name}.invite", self.tmp / f"{name}.zoolog"
        inv.unlink(missing_ok=True)
        log.unlink(missing_ok=True)
        host = self.zoo_in(
            ns,
            "host",
            "--players",
            str(players),
            "--bot",
            "greedy",
            "--log",
            str(log),
            "--invite-file",
            str(inv),
            "--give-up",
            str(give_up),
            *extra,
            name=name,
        )
        return host, self.invite_of(host, inv, name)

    def invite_of(self, p: subprocess.Popen[bytes], path: Path, name: str) -> str:
        """Wait for a host's invite file."""
        wait_for(lambda: path.exists() or p.poll() is not None, START, f"{name}'s invite")
        assert p.poll() is None, self.text(name)
        return path.read_text().strip()


@contextlib.contextmanager
def lab(tmp: Path) -> Iterator[Lab]:
    """A Lab torn down whatever happens; skips the test if namespaces are unavailable."""
    why = netns_missing()
    if why:
        pytest.skip(why)
    the_lab = Lab(tmp)
    try:
        yield the_lab
    finally:
        the_lab.close()


def elapsed_until(cond: object, timeout: float, what: str) -> float:
    """Seconds until `cond()` is true (bounded)."""
    t0 = time.monotonic()
    wait_for(cond, timeout, what)  # type: ignore[arg-type]
    return time.monotonic() - t0


def need(program: str, package: str) -> str:
    """The path of `program`, or skip the test naming the Debian package that brings it."""
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"{program} is not installed (Debian package {package})")
    return path
