"""Onion services for `zoo host --tor`, through a Tor controller (the `stem` library).

Either a Tor the user already runs (`--tor-control HOST:PORT`, cookie or no authentication), or
a private `tor` process that zoo starts itself: its own data directory, `SocksPort auto`, a
control port on 127.0.0.1 chosen by tor (`ControlPort auto`, written to a file), cookie
authentication, `__OwningControllerProcess` (it exits with us), and always
`tor -f TORRC --defaults-torrc EMPTY` so that the system's /etc/tor/torrc is not read.

The host publishes an *ephemeral* v3 onion (`ADD_ONION NEW:ED25519-V3`, not detached: it goes
away with the control connection) that forwards a virtual port to 127.0.0.1:PORT, and waits,
bounded, until its descriptor is uploaded (`HS_DESC UPLOADED`). Every wait reports progress
through a callback (one updating status line at the CLI).

TRANSPORT.md §3.5 is the normative text.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zoo_p2p import files

BOOTSTRAP_TIMEOUT = 180.0  # seconds for a fresh tor to reach "Bootstrapped 100%"
PUBLISH_TIMEOUT = 120.0  # seconds for the first descriptor upload

Progress = Callable[[str], None]


class TorError(RuntimeError):
    """Tor could not be started, reached or asked: the message says what to do."""


def _stem() -> Any:
    try:
        import stem.control
        import stem.util.log

        # stem logs every control-port exchange at DEBUG: keep it out of our output
        stem.util.log.get_logger().setLevel(logging.WARNING)
    except ImportError:  # pragma: no cover - a dependency
        raise TorError("the `stem` library is missing: pip install stem") from None
    return stem.control


def _torrc(data_dir: Path, port_file: Path) -> bytes:
    """The torrc of a private `tor` of ours (`TorControl.launch`)."""
    lines = [
        f"DataDirectory {data_dir}",
        "SocksPort 127.0.0.1:auto",
        "ControlPort 127.0.0.1:auto",
        f"ControlPortWriteToFile {port_file}",
        "CookieAuthentication 1",
        f"__OwningControllerProcess {os.getpid()}",
        f"Log notice file {data_dir / 'notice.log'}",
    ]
    extra = os.environ.get("ZOO_TOR_TORRC")  # tests: a private network's lines
    if extra:
        lines.append(f"%include {extra}")
    return ("\n".join(lines) + "\n").encode()


@dataclass
class OnionService:
    """A published onion: its name and the port the invite names."""

    host: str  # "<56 base32>.onion"
    port: int


@dataclass
class TorControl:
    """A control connection (and, if we started it, the tor process behind it)."""

    controller: Any
    proc: subprocess.Popen[bytes] | None = None
    data_dir: Path | None = None
    socks: tuple[str, int] | None = None
    onions: list[str] = field(default_factory=list)
    # what every wait on this Tor reads (bootstrap, publishing; a test's may be fake)
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def connect(cls, address: str, port: int) -> TorControl:
        """Attach to a running Tor's control port (cookie, or no, authentication)."""
        control = _stem()
        try:
            c = control.Controller.from_port(address=address, port=port)
            c.authenticate()
        except Exception as exc:
            raise TorError(f"cannot use the Tor control port at {address}:{port}: {exc}") from None
        return cls(controller=c)

    @classmethod
    def launch(
        cls,
        data_dir: Path,
        progress: Progress,
        timeout: float = BOOTSTRAP_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> TorControl:
        """Start a private `tor` with its own data directory and wait until it is bootstrapped."""
        tor = shutil.which("tor")
        if tor is None:
            raise TorError(
                "`tor` is not installed: install the `tor` package (Debian, Ubuntu: "
                "apt install tor), or name a running Tor with --tor-control HOST:PORT"
            )
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(data_dir, 0o700)
        empty = data_dir / "empty"
        files.write_atomic(empty, b"", mode=0o600)
        port_file = data_dir / "control-port"
        with contextlib.suppress(FileNotFoundError):
            port_file.unlink()
        torrc = data_dir / "torrc"
        files.write_atomic(torrc, _torrc(data_dir, port_file), mode=0o600)
        proc = subprocess.Popen(
            [tor, "-f", str(torrc), "--defaults-torrc", str(empty)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        t0 = clock()
        try:
            while not port_file.exists():
                if proc.poll() is not None:
                    raise TorError(
                        f"tor exited with {proc.returncode} at start; see {data_dir / 'notice.log'}"
                    )
                if clock() - t0 > 30:
                    raise TorError("tor did not open its control port in 30 s")
                time.sleep(0.05)  # tor writes the file once its control port listens
            addr = port_file.read_text().split()[0].removeprefix("PORT=")
            host, _, port = addr.rpartition(":")
            tc = cls.connect(host, int(port))
            tc.proc, tc.data_dir, tc.clock = proc, data_dir, clock
            tc.wait_bootstrapped(progress, timeout - (clock() - t0), t0)
            return tc
        except BaseException:
            _kill(proc)
            raise

    def wait_bootstrapped(self, progress: Progress, timeout: float, t0: float) -> None:
        total = timeout + (self.clock() - t0)
        while True:
            phase = str(self.controller.get_info("status/bootstrap-phase", ""))
            pct = _field(phase, "PROGRESS") or "0"
            summary = _field(phase, "SUMMARY") or "starting"
            took = self.clock() - t0
            progress(f"starting Tor: {summary} ({pct}%, {took:.0f} s of {total:.0f})")
            if pct == "100":
                return
            if took > total:
                raise TorError(f"Tor did not finish bootstrapping in {total:.0f} s: {summary}")
            time.sleep(0.5)

    def socks_port(self) -> tuple[str, int]:
        """Where this Tor's SOCKS port listens."""
        listeners = self.controller.get_listeners(_stem().Listener.SOCKS)
        if not listeners:
            raise TorError("this Tor has no SOCKS port (SocksPort 0)")
        host, port = listeners[0]
        return (str(host), int(port))

    def publish(
        self,
        virtual_port: int,
        target_port: int,
        progress: Progress,
        timeout: float = PUBLISH_TIMEOUT,
        also: tuple[int, ...] = (),
    ) -> OnionService:
        """An ephemeral v3 onion forwarding VIRTUAL_PORT to 127.0.0.1:TARGET_PORT (and each
        port of ALSO to the same port on 127.0.0.1), waited for until its descriptor is
        uploaded to at least one directory."""
        pending = self.start_onion({virtual_port: target_port, **{p: p for p in also}})
        try:
            while not pending.uploaded.wait(0.5):
                took = self.clock() - pending.t0
                what = "publishing the onion service"
                if pending.failed:
                    what += f" ({len(pending.failed)} upload(s) failed, retrying)"
                progress(f"{what} ({took:.0f} s of {timeout:.0f}; usually 5-60 s)")
                if took > timeout:
                    raise TorError(f"Tor did not publish the onion service in {timeout:.0f} s")
        finally:
            pending.stop_listening()
        return OnionService(host=pending.host, port=virtual_port)

    def start_onion(self, ports: dict[int, int]) -> PendingOnion:
        """An ephemeral v3 onion forwarding each virtual port of PORTS to 127.0.0.1:target,
        not waited for: its name is known at once, `uploaded` is set once its descriptor is."""
        control = _stem()
        pending = PendingOnion(self)

        self.controller.add_event_listener(pending.on_desc, control.EventType.HS_DESC)
        pending.listening = True
        try:
            resp = self.controller.create_ephemeral_hidden_service(
                {v: f"127.0.0.1:{t}" for v, t in ports.items()},
                key_type="NEW",
                key_content="ED25519-V3",
                await_publication=False,
                detached=False,
            )
        except Exception as exc:
            pending.stop_listening()
            raise TorError(f"Tor refused to create an onion service: {exc}") from None
        pending.name = str(resp.service_id)
        self.onions.append(pending.name)
        return pending

    def close(self) -> None:
        """Drop the onions (they die with the connection) and stop a tor we started."""
        with contextlib.suppress(Exception):
            self.controller.close()
        if self.proc is not None:
            _kill(self.proc)


class PendingOnion:
    """An onion being published (`TorControl.start_onion`): its name at once, `uploaded` set
    by stem's event thread once a directory holds its descriptor."""

    def __init__(self, tc: TorControl) -> None:
        self.tc = tc
        self.name = ""
        self.t0 = tc.clock()
        self.uploaded = threading.Event()
        self.failed: list[str] = []
        self.listening = False

    @property
    def host(self) -> str:
        return f"{self.name}.onion"

    def on_desc(self, event: Any) -> None:
        if self.name and event.address == self.name:
            action = str(event.action)
            if action == "UPLOADED":
                self.uploaded.set()  # (the listener is removed by its owner, not here)
            elif action == "FAILED":
                self.failed.append(str(event.reason or "failed"))

    def stop_listening(self) -> None:
        if self.listening:
            self.listening = False
            with contextlib.suppress(Exception):
                self.tc.controller.remove_event_listener(self.on_desc)


class OnionEndpoints:
    """Our card's endpoint over Tor (a `mesh.MoreEndpoints`): the onion of PENDING at PORT once
    its descriptor is uploaded (a client that looked for it earlier would not look again for a
    while), or nothing if it is not within TIMEOUT seconds; then the others hear us through
    the host."""

    def __init__(self, pending: PendingOnion, port: int, timeout: float = PUBLISH_TIMEOUT):
        self.pending = pending
        self.port = port
        self.timeout = timeout

    def ready(self) -> bool:
        """Published, or given up on."""
        if self.pending.uploaded.is_set():
            return True
        return self.pending.tc.clock() - self.pending.t0 > self.timeout

    def endpoints(self) -> list[tuple[str, int]]:
        """Our onion, once published."""
        return [(self.pending.host, self.port)] if self.pending.uploaded.is_set() else []

    def note(self) -> list[str]:
        """What the player is told once it is known."""
        if self.pending.uploaded.is_set():
            return [
                "your onion for direct links is published: the other players reach you "
                "directly over Tor, not through the host"
            ]
        return [
            f"your onion for direct links was not published in {self.timeout:.0f} s: the "
            "other players hear you through the host (still over Tor)"
        ]


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _field(phase: str, key: str) -> str | None:
    """A KEY=value of a bootstrap-phase status line (the value may be quoted)."""
    marker = f"{key}="
    i = phase.find(marker)
    if i < 0:
        return None
    rest = phase[i + len(marker) :]
    if rest.startswith('"'):
        return rest[1:].split('"', 1)[0]
    return rest.split(" ", 1)[0]
