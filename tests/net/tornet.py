"""A private Tor network on 127.0.0.1 for the tests (issue 22, item 4).

Three directory authorities (keys made with `tor-gencert`), three relays, a client and an
onion-service instance, all from Debian's `tor` package: 8 processes, every port on 127.0.0.1.
Nothing of it can reach the public Tor network: every instance names only our own authorities
(`DirAuthority` lines, which replace tor's built-in ones), `UseDefaultFallbackDirs 0`, relays
refuse to exit (`ExitPolicy reject *:*`: onion services need no exit), and the GeoIP files are an
empty file (they are tor's largest allocation: 8 instances stay near 500 MB).

`TestingTorNetwork 1` with 20 s voting intervals makes the first consensus come in about 20-50 s;
every relay gets the HSDir, Guard and Exit... flags by vote (`TestingDirAuthVote* *`), so onion
descriptors have somewhere to go in a 6-relay network.

Each instance runs as `tor -f TORRC --defaults-torrc EMPTY`: without `--defaults-torrc`, tor also
reads the system's `/etc/tor/torrc` (and its `%include`s). `__OwningControllerProcess` ties every
instance to the test process, so a killed test run leaves no tor behind. (So never open a `stem`
controller to an instance from the test process itself: stem then takes ownership, and closing
it stops that instance. `zoo` subprocesses are other processes and are fine.)

The options follow chutney's `hs-v3` templates (torrc_templates/*.tmpl, *.i); the code is ours.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.net.harness import wait_for
from zoo_p2p.net.invite import Invite

if TYPE_CHECKING:
    from tests.net.harness import Procs

BOOTSTRAP_TIMEOUT = 120.0  # seconds; 19-48 s is usual on the shared 2-core machine
ONION_VIRTUAL_PORT = 5858  # the port clients ask the onion for

_UPLOADED = "Uploading hidden service descriptor: finished with status 200"
_FP_RE = re.compile(r"^[0-9A-F]{40}$")


def tor_missing() -> str | None:
    """Why the private network cannot run here (with the package to install), or None."""
    for tool in ("tor", "tor-gencert"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (Debian package `tor`)"
    return None


_GIVEN: set[int] = set()  # the ports free_port has handed out in this run


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (tor binds it a moment later), never one handed
    out before in this run: the network's ports are picked one after the other, each socket
    closed before the next bind, and the kernel may pick the same free port twice (two tors
    would then fight over it and the network would not come up)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


@dataclass
class TorInstance:
    """One tor process of the network."""

    nick: str
    role: str  # "authority", "relay", "client", "onion"
    dir: Path
    or_port: int = 0
    dir_port: int = 0
    socks_port: int = 0
    control_port: int = 0
    fingerprint: str = ""
    v3ident: str = ""
    proc: subprocess.Popen[bytes] | None = None
    extra: list[str] = field(default_factory=list)

    @property
    def torrc(self) -> Path:
        return self.dir / "torrc"

    @property
    def notice_log(self) -> Path:
        return self.dir / "notice.log"

    @property
    def info_log(self) -> Path:
        return self.dir / "info.log"

    def log_text(self, info: bool = False) -> str:
        path = self.info_log if info else self.notice_log
        try:
            return path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def bootstrapped(self) -> bool:
        return "Bootstrapped 100%" in self.log_text()

    def last_words(self) -> str:
        """The last notice line, to say where an instance got stuck."""
        lines = [ln for ln in self.log_text().splitlines() if ln.strip()]
        return lines[-1][-160:] if lines else "(no log yet)"


class TorNet:
    """The private network: `start()` builds and bootstraps it, `stop()` removes every trace."""

    def __init__(self, root: Path, *, authorities: int = 3, relays: int = 3) -> None:
        self.root = root
        self.empty = root / "empty"  # the defaults torrc, and the GeoIP files
        self.instances: list[TorInstance] = []
        self.n_auth = authorities
        self.n_relay = relays
        self.onion_target_port = 0  # where the onion service forwards to, on 127.0.0.1
        self.onion_hostname = ""  # "<56 base32>.onion"
        self.bootstrap_seconds = 0.0

    # --- the instances --------------------------------------------------------------------
    @property
    def authorities(self) -> list[TorInstance]:
        return [i for i in self.instances if i.role == "authority"]

    @property
    def relays(self) -> list[TorInstance]:
        return [i for i in self.instances if i.role in ("authority", "relay")]

    @property
    def client(self) -> TorInstance:
        return next(i for i in self.instances if i.role == "client")

    @property
    def onion(self) -> TorInstance:
        return next(i for i in self.instances if i.role == "onion")

    @property
    def socks(self) -> tuple[str, int]:
        """The client's SOCKS5 port: reaches onion services of this network only."""
        return ("127.0.0.1", self.client.socks_port)

    def _new(self, nick: str, role: str) -> TorInstance:
        d = self.root / nick
        d.mkdir(mode=0o700)
        inst = TorInstance(nick=nick, role=role, dir=d)
        self.instances.append(inst)
        return inst

    def _common(self, inst: TorInstance) -> list[str]:
        e = str(self.empty)
        return [
            f"Nickname {inst.nick}",
            f"DataDirectory {inst.dir}",
            "TestingTorNetwork 1",
            # every relay gets every flag it needs at once: a 6-relay network has no history
            "TestingDirAuthVoteHSDir *",
            "TestingDirAuthVoteGuard *",
            "TestingDirAuthVoteExit *",
            "TestingMinExitFlagThreshold 0",
            "PathsNeededToBuildCircuits 0.67",
            "V3AuthNIntervalsValid 2",
            # only our authorities: nothing can reach the public network
            "UseDefaultFallbackDirs 0",
            f"GeoIPFile {e}",
            f"GeoIPv6File {e}",
            "ClientUseIPv6 0",
            "ConnLimit 60",
            "ShutdownWaitLength 0",
            "Sandbox 0",
            "RunAsDaemon 0",
            "SafeLogging 0",
            "LogTimeGranularity 1",
            f"Log notice file {inst.notice_log}",
            f"__OwningControllerProcess {os.getpid()}",
        ]

    def _relay_lines(self, inst: TorInstance) -> list[str]:
        return [
            "SocksPort 0",
            "Address 127.0.0.1",
            f"ORPort 127.0.0.1:{inst.or_port}",
            "ExitRelay 0",
            "ExitPolicy reject *:*",
            "ServerDNSDetectHijacking 0",
            "ServerDNSTestAddresses",
            f"ServerDNSResolvConfFile {self.empty}",
            "AssumeReachable 1",
            "PublishServerDescriptor 1",
        ]

    def _authority_lines(self, inst: TorInstance) -> list[str]:
        return [
            f"DirPort 127.0.0.1:{inst.dir_port}",
            "AuthoritativeDirectory 1",
            "V3AuthoritativeDirectory 1",
            f"ContactInfo {inst.nick}@zoo.test",
            "TestingV3AuthInitialVotingInterval 20",
            "TestingV3AuthInitialVoteDelay 4",
            "TestingV3AuthInitialDistDelay 4",
            "V3AuthVotingInterval 20",
            "V3AuthVoteDelay 4",
            "V3AuthDistDelay 4",
        ]

    def _tor(self, torrc: Path, *args: str) -> list[str]:
        return ["tor", "-f", str(torrc), "--defaults-torrc", str(self.empty), *args]

    def _make_authority_keys(self, inst: TorInstance) -> None:
        keys = inst.dir / "keys"
        keys.mkdir(mode=0o700)
        r = subprocess.run(
            [
                "tor-gencert",
                "--create-identity-key",
                "--passphrase-fd",
                "0",
                "-i",
                str(keys / "authority_identity_key"),
                "-s",
                str(keys / "authority_signing_key"),
                "-c",
                str(keys / "authority_certificate"),
                "-m",
                "12",
                "-a",
                f"127.0.0.1:{inst.dir_port}",
            ],
            input=b"zoo-test-passphrase\n",
            capture_output=True,
            timeout=60,
        )
        if r.returncode != 0:
            raise RuntimeError(f"tor-gencert failed for {inst.nick}: {r.stderr.decode()[-400:]}")
        for line in (keys / "authority_certificate").read_text().splitlines():
            if line.startswith("fingerprint "):
                inst.v3ident = line.split()[1].strip()
        if not _FP_RE.match(inst.v3ident):
            raise RuntimeError(f"no v3 identity in {inst.nick}'s authority certificate")

    def _fingerprint(self, inst: TorInstance) -> None:
        """Make the relay identity key now and read its fingerprint (no network is touched)."""
        pre = inst.dir / "torrc.keys"
        pre.write_text(
            "\n".join(
                [
                    f"DataDirectory {inst.dir}",
                    f"ORPort 127.0.0.1:{inst.or_port}",
                    f"GeoIPFile {self.empty}",
                    f"GeoIPv6File {self.empty}",
                    "Log err stderr",
                ]
            )
            + "\n"
        )
        r = subprocess.run(
            self._tor(pre, "--list-fingerprint"), capture_output=True, text=True, timeout=60
        )
        lines = r.stdout.strip().splitlines()
        fp = "".join(lines[-1].split()[1:]) if lines else ""
        if r.returncode != 0 or not _FP_RE.match(fp):
            raise RuntimeError(
                f"tor --list-fingerprint failed for {inst.nick}: {r.stdout}{r.stderr}"
            )
        inst.fingerprint = fp

    def _dir_authority_lines(self) -> list[str]:
        return [
            f"DirAuthority {a.nick} orport={a.or_port} no-v2 v3ident={a.v3ident} "
            f"127.0.0.1:{a.dir_port} {a.fingerprint}"
            for a in self.authorities
        ]

    # --- life cycle -----------------------------------------------------------------------
    def configure(self) -> None:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        self.empty.write_text("")
        for n in range(self.n_auth):
            a = self._new(f"zooauth{n}", "authority")
            a.or_port, a.dir_port = free_port(), free_port()
            self._make_authority_keys(a)
            self._fingerprint(a)
        for n in range(self.n_relay):
            r = self._new(f"zoorelay{n}", "relay")
            r.or_port = free_port()
            self._fingerprint(r)
        c = self._new("zooclient", "client")
        c.socks_port, c.control_port = free_port(), free_port()
        h = self._new("zooonion", "onion")
        h.control_port = free_port()
        self.onion_target_port = free_port()
        hs = h.dir / "hidden_service"
        hs.mkdir(mode=0o700)

        auth_lines = self._dir_authority_lines()
        for inst in self.instances:
            lines = self._common(inst) + auth_lines
            if inst.role in ("authority", "relay"):
                lines += self._relay_lines(inst)
            if inst.role == "authority":
                lines += self._authority_lines(inst)
            if inst.role == "client":
                lines += [f"SocksPort 127.0.0.1:{inst.socks_port} ExtendedErrors"]
            if inst.role == "onion":
                lines += [
                    "SocksPort 0",
                    f"Log info file {inst.info_log}",
                    f"HiddenServiceDir {hs}",
                    "HiddenServiceVersion 3",
                    f"HiddenServicePort {ONION_VIRTUAL_PORT} 127.0.0.1:{self.onion_target_port}",
                ]
            if inst.control_port:
                lines += [f"ControlPort 127.0.0.1:{inst.control_port}", "CookieAuthentication 1"]
            inst.torrc.write_text("\n".join(lines) + "\n")

    def launch(self) -> None:
        for inst in self.instances:
            out = (inst.dir / "stdout.log").open("wb")
            inst.proc = subprocess.Popen(
                self._tor(inst.torrc),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            out.close()

    def problems(self) -> list[str]:
        """What has not come up yet, one phrase per instance."""
        out: list[str] = []
        for inst in self.instances:
            if inst.proc is not None and inst.proc.poll() is not None:
                tail = (inst.dir / "stdout.log").read_text(errors="replace")[-300:]
                out.append(f"{inst.nick} exited with {inst.proc.returncode}: {tail}")
            elif inst.role in ("client", "onion") and not inst.bootstrapped():
                out.append(f"{inst.nick} not bootstrapped (last: {inst.last_words()})")
            elif inst.role == "onion" and _UPLOADED not in inst.log_text(info=True):
                out.append(f"{inst.nick}'s descriptor not uploaded yet")
        if not self.onion_hostname:
            out.append("the onion service has no hostname file yet")
        return out

    def wait_ready(self, timeout: float = BOOTSTRAP_TIMEOUT) -> None:
        """Until the client and the onion service are bootstrapped and the descriptor is up."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        host_file = self.onion.dir / "hidden_service" / "hostname"
        while True:
            if not self.onion_hostname and host_file.exists():
                self.onion_hostname = host_file.read_text().strip()
            left = self.problems()
            if not left:
                break
            if any(" exited with " in p for p in left) or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the private Tor network did not come up in {timeout:.0f} s: "
                    + "; ".join(left)
                    + f" (logs in {self.root})"
                )
            time.sleep(0.25)  # polling tor's own log files, bounded by the deadline above
        # "uploaded" means to one HSDir; the client may ask another, or hold an older consensus.
        # Ready means a stream through the client reaches the onion's target port.
        self.reach_onion(max(10.0, deadline - time.monotonic()))
        self.bootstrap_seconds = time.monotonic() - t0

    def control(self, inst: TorInstance, *commands: str) -> list[str]:
        """Send control-port COMMANDS to INST (cookie auth) and return their reply lines.

        Plain sockets, never stem: stem would take ownership of the instance (see the module's
        docstring). Raises OSError on a refusal."""
        cookie = (inst.dir / "control_auth_cookie").read_bytes().hex()
        replies: list[str] = []
        with socket.create_connection(("127.0.0.1", inst.control_port), timeout=10) as s:
            f = s.makefile("rb")
            for cmd in (f"AUTHENTICATE {cookie}", *commands, "QUIT"):
                s.sendall(cmd.encode("ascii") + b"\r\n")
                while True:
                    line = f.readline(4096).decode("ascii", "replace").rstrip("\r\n")
                    if not line:
                        raise OSError(f"{inst.nick}'s control port closed on {cmd.split()[0]}")
                    if not line.startswith(("250", "251")):
                        raise OSError(f"{inst.nick} refused {cmd.split()[0]}: {line}")
                    if cmd != "QUIT" and not cmd.startswith("AUTHENTICATE"):
                        replies.append(line)
                    if len(line) < 4 or line[3] == " ":
                        break
        return replies

    def newnym(self) -> None:
        """Make the client forget its onion descriptors, failed-fetch marks and circuits, so the
        next attempt starts afresh (tor rate-limits this to once per 10 s, queuing the rest)."""
        self.control(self.client, "SIGNAL NEWNYM")

    def reach_onion(self, timeout: float = 90.0, attempt: float = 20.0) -> float:
        """Until a stream through the client reaches the onion's target port (a listener of our
        own there, closed after): seconds taken. Each failed attempt, a hang of ATTEMPT s or a
        SOCKS refusal, is followed by NEWNYM; raises RuntimeError with the attempts and the last
        words of the client's and the onion's logs when TIMEOUT runs out. Tests that use the
        fixture's onion call it first, before they bind the target port themselves."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        tried: list[str] = []
        with socket.socket() as srv:
            srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            srv.bind(("127.0.0.1", self.onion_target_port))
            srv.listen()
            while True:
                left = deadline - time.monotonic()
                try:
                    with socks5_connect(
                        self.socks,
                        self.onion_hostname,
                        ONION_VIRTUAL_PORT,
                        timeout=max(1.0, min(attempt, left)),
                    ):
                        srv.settimeout(max(1.0, min(attempt, left)))
                        conn, _ = srv.accept()
                        conn.close()
                        return time.monotonic() - t0
                except OSError as e:
                    tried.append(f"{time.monotonic() - t0:.0f} s: {e or type(e).__name__}")
                if time.monotonic() >= deadline:
                    raise RuntimeError(
                        f"the onion {self.onion_hostname} was not reachable through the client "
                        f"in {timeout:.0f} s; attempts: {'; '.join(tried)}; client: "
                        f"{self.tail(self.client)}; onion: {self.tail(self.onion)}"
                    )
                with contextlib.suppress(OSError):
                    self.newnym()

    def tail(self, inst: TorInstance, n: int = 6) -> str:
        """The last N notice lines of INST, for an error message."""
        lines = [ln[-200:] for ln in inst.log_text().splitlines() if ln.strip()]
        return " | ".join(lines[-n:]) or "(no log)"

    def start(self, timeout: float = BOOTSTRAP_TIMEOUT) -> None:
        try:
            self.configure()
            self.launch()
            self.wait_ready(timeout)
        except BaseException:
            self.stop(keep_logs=True)
            raise

    def client_include(self) -> Path:
        """torrc lines that make any tor a client of this network only (for `ZOO_TOR_TORRC`,
        which `zoo --tor` %includes): our authorities, no fallbacks, empty GeoIP files."""
        path = self.root / "client-include"
        lines = [
            "TestingTorNetwork 1",
            "PathsNeededToBuildCircuits 0.67",
            "UseDefaultFallbackDirs 0",
            f"GeoIPFile {self.empty}",
            f"GeoIPv6File {self.empty}",
            "ClientUseIPv6 0",
            *self._dir_authority_lines(),
        ]
        path.write_text("\n".join(lines) + "\n")
        return path

    def pids(self) -> list[int]:
        return [i.proc.pid for i in self.instances if i.proc is not None and i.proc.poll() is None]

    def stop(self, keep_logs: bool = False) -> None:
        """Kill every instance (and wait for it), then remove the data directories."""
        for inst in self.instances:
            if inst.proc is not None and inst.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(inst.proc.pid, signal.SIGKILL)
        for inst in self.instances:
            if inst.proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    inst.proc.wait(timeout=10)
        if not keep_logs:
            shutil.rmtree(self.root, ignore_errors=True)


def onion_host(procs: Procs, net: TorNet, *more: str) -> tuple[subprocess.Popen[bytes], Invite]:
    """`zoo host --players 2 --bot greedy MORE`, its onion published by the network's
    onion-service tor (`--tor-control`), its invite in host.invite and its log host.zoolog:
    the process and its invite, once it has written one (150 s at the most) and still runs."""
    inv = procs.tmp / "host.invite"
    host = procs.zoo(
        "host", "--players", "2", "--bot", "greedy", *more,
        "--tor-control", f"127.0.0.1:{net.onion.control_port}",
        "--invite-file", str(inv), "--log", str(procs.tmp / "host.zoolog"),
        name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, 150, "the onion invite")
    assert host.poll() is None, procs.text("host")
    return host, Invite.parse(inv.read_text())


def socks5_connect(
    proxy: tuple[str, int], host: str, port: int, timeout: float = 30.0
) -> socket.socket:
    """A TCP stream to HOST:PORT through a SOCKS5 proxy, the name sent unresolved (ATYP 3).

    Raises OSError naming the SOCKS reply code on refusal. Plain Python, no libzmq: a failed
    attempt through libzmq's SOCKS connecter aborts the process on close (see
    docs/upstream/libzmq-socks-close-abort.md), so readiness probes must not use it.
    """
    s = socket.create_connection(proxy, timeout=timeout)
    try:
        s.sendall(b"\x05\x01\x00")
        if _recv_exact(s, 2) != b"\x05\x00":
            raise OSError("the SOCKS proxy refused the greeting")
        name = host.encode("ascii")
        s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
        head = _recv_exact(s, 4)
        if head[1] != 0:
            raise OSError(f"SOCKS5 connect to {host}:{port} refused with reply code {head[1]}")
        atyp = head[3]
        n = {1: 4, 4: 16}.get(atyp)
        if n is None:
            n = _recv_exact(s, 1)[0]
        _recv_exact(s, n + 2)
        return s
    except BaseException:
        s.close()
        raise


def _recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise OSError("the SOCKS proxy closed the connection")
        buf += chunk
    return buf


@pytest.fixture(scope="session")
def tornet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TorNet]:
    """The private Tor network, built once per test run (about 20-50 s) and torn down after.

    Skips, naming the package, where `tor` is not installed; fails with what did not come up
    when the network is not ready within BOOTSTRAP_TIMEOUT.
    """
    why = tor_missing()
    if why is not None:
        pytest.skip(why)
    net = TorNet(tmp_path_factory.mktemp("tornet"))
    net.start()
    try:
        yield net
    finally:
        net.stop()
