"""Helpers for the network tests: real `zoo` processes on 127.0.0.1, waited on with deadlines."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# `zoo` as a person's terminal runs it: Ctrl-C (SIGINT) raises KeyboardInterrupt. Said outright
# because a suite started with SIGINT ignored (`pytest &` in a script without job control, some
# CI runners) hands that on to every child, Python then installs no handler, and a test's SIGINT
# would be lost: the three tests that interrupt a peer timed out that way.
ZOO = [
    sys.executable,
    "-c",
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from zoo_p2p.cli.app import main; main()",
]
ROOT = Path(__file__).resolve().parents[2]
START = 60.0  # seconds a `zoo` process may take to start up and write its invite, at most


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `cond` until true or fail after `timeout` seconds (a deadline, not a sleep)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def log_len(path: Path) -> int:
    """How many whole entries a log file holds now (0 if missing)."""
    from zoo_p2p.storage import read_log

    if not path.exists():
        return 0
    try:
        return len(read_log(path).entries)
    except Exception:
        return 0


class Procs:
    """Spawned processes of one test, all killed at the end whatever happens."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        self.env = dict(
            os.environ, ZOO_HOME=str(tmp / "home"), PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="80"
        )

    def zoo(
        self, *args: str, name: str, stdin: int = subprocess.DEVNULL
    ) -> subprocess.Popen[bytes]:
        """Start `zoo ARGS`, output to tmp/NAME.out and .err."""
        return self.start([*ZOO, *args], name=name, stdin=stdin)

    def start(
        self, cmd: list[str], *, name: str, stdin: int = subprocess.DEVNULL
    ) -> subprocess.Popen[bytes]:
        """Start `cmd` (here, in tmp), output to tmp/NAME.out and .err; killed at the end."""
        out = open(self.tmp / f"{name}.out", "wb")  # noqa: SIM115
        err = open(self.tmp / f"{name}.err", "wb")  # noqa: SIM115
        p = subprocess.Popen(
            cmd,
            stdin=stdin,
            stdout=out,
            stderr=err,
            env=self.env,
            cwd=self.tmp,
        )
        out.close()
        err.close()
        self.procs.append(p)
        return p

    def host(
        self, *args: str, name: str = "host", quiet: bool = True
    ) -> tuple[subprocess.Popen[bytes], str]:
        """Start a headless host and return it with its invite (``quiet=False``: what it says
        is in tmp/NAME.out)."""
        inv = self.tmp / f"{name}.invite"
        p = self.zoo(
            "host",
            "--bind",
            "127.0.0.1",
            "--invite-file",
            str(inv),
            "--log",
            str(self.tmp / f"{name}.zoolog"),
            *(["--quiet"] if quiet else []),
            *args,
            name=name,
        )
        # START: a host that fails exits, and the wait ends at once; one that starts is slow
        # only as the machine is (its imports alone took 5 s of a 15 s bound at load 10)
        wait_for(lambda: inv.exists() or p.poll() is not None, START, "the invite")
        assert p.poll() is None, self.text(name)
        return p, inv.read_text().strip()

    def bot(
        self,
        invite: str,
        name: str,
        *args: str,
        quiet: bool = True,
    ) -> subprocess.Popen[bytes]:
        """Start a bot peer with its own log tmp/NAME.zoolog."""
        q = ["--quiet"] if quiet else []
        return self.zoo(
            "bot",
            invite,
            "--log",
            str(self.tmp / f"{name}.zoolog"),
            *q,
            "--give-up",
            "20",
            "--name",
            name,
            *args,
            name=name,
        )

    def human(self, invite: str, name: str, *args: str) -> subprocess.Popen[bytes]:
        """Start a person's `zoo join --plain` (log tmp/NAME.zoolog, key tmp/NAME.key); the test
        is its keyboard: `type` lines into it."""
        return self.zoo(
            "join", invite, "--plain", "--name", name, "--log", str(self.tmp / f"{name}.zoolog"),
            "--identity", str(self.tmp / f"{name}.key"), *args,
            name=name, stdin=subprocess.PIPE,
        )  # fmt: skip

    @staticmethod
    def type(p: subprocess.Popen[bytes], keys: bytes) -> None:
        """Type `keys` into a process started with a keyboard (`human`)."""
        assert p.stdin is not None
        p.stdin.write(keys)
        p.stdin.flush()

    def text(self, name: str) -> str:
        """What a process printed (stdout and stderr)."""
        out = (self.tmp / f"{name}.out").read_text(errors="replace")
        err = (self.tmp / f"{name}.err").read_text(errors="replace")
        return f"--- {name} stdout\n{out}\n--- {name} stderr\n{err}"

    def log(self, name: str) -> bytes:
        """The bytes of a peer's log."""
        return (self.tmp / f"{name}.zoolog").read_bytes()

    def wait(self, p: subprocess.Popen[bytes], name: str, timeout: float = 40) -> int:
        """Wait for exit with a deadline; fail with the process's output."""
        try:
            return p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            raise AssertionError(f"{name} did not finish\n{self.text(name)}") from None

    def close(self) -> None:
        """Kill whatever is still running."""
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    """A process group for one test."""
    p = Procs(tmp_path)
    try:
        yield p
    finally:
        p.close()


def audit_file(path: Path) -> object:
    """The auditor's report on a log file."""
    from zoo_p2p.protocol.audit import audit
    from zoo_p2p.storage import read_log

    return audit(read_log(path).entries)
