"""Ask the home router to forward a TCP port to us: UPnP IGD through miniupnpc.

`PortMapper.open()` finds the router (SSDP, bounded), maps an external TCP port to our listening
port with a lease, and a background thread renews the lease at half its life; `close()` removes
the mapping. Every failure is a `MappingError` whose message says why, and `advice()` says what
the user can do instead (protocol/TRANSPORT.md, "Port mapping").

NAT-PMP / PCP: miniupnpd and most routers that speak them also speak UPnP IGD, and no maintained
Python library for them exists (the PyPI ``natpmp`` / ``py-natpmp`` packages have had no release
for a decade), so UPnP IGD is the only protocol spoken here.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from zoo_p2p.errors import ZooError

log = logging.getLogger("zoo_p2p.net.portmap")
T = TypeVar("T")

LEASE = 3600  # seconds asked for; renewed at half-life
DISCOVER_MS = 2000  # how long SSDP discovery listens for routers (per kind of device)
JOIN_DISCOVER_MS = 1000  # the same for a joiner's direct-link port (it costs no one a wait)
OPEN_TIMEOUT = 10.0  # the whole of open() is abandoned after this long
DESCRIPTION = "zoo-p2p game"


class MappingError(ZooError):
    """No port mapping; the message says why."""


@dataclass(frozen=True)
class Mapping:
    """A port mapped on the router: (external address, port) forwards to (LAN address, port)."""

    external_ip: str
    external_port: int
    lan_ip: str
    port: int
    lease: int  # seconds; 0 = until removed


def _is_public(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_global
    except ValueError:
        return False


VPN_ADVICE = (
    "or join a VPN such as Tailscale or WireGuard with the other players and give them "
    "the invite with your VPN address (--address VPN-ADDRESS);"
)


def advice(port: int, lan_ip: str | None = None, *, joiner: bool = False) -> list[str]:
    """What a host (or a joiner, for its direct-link port) can do when its router will not map
    a port (one line each)."""
    lan = lan_ip or "THIS-MACHINE'S-LAN-ADDRESS"
    if joiner:  # its port is new each game: only the router's UPnP or a VPN make it reachable
        return [
            "to be reached directly: turn UPnP on in your router's settings, "
            "or play over a VPN such as Tailscale or WireGuard (the host gives its VPN address "
            "in the invite)"
        ]
    return [
        f"forward TCP port {port} on your router to {lan}:{port} by hand "
        f"(router settings: 'port forwarding'), then host with --port {port} again;",
        VPN_ADVICE,
        "or tunnel through a server you can log in to that has a public address:",
        f"    ssh -N -R '*:{port}:{lan}:{port}' you@server.example",
        f"  (the server needs 'GatewayPorts clientspecified' in sshd_config), "
        f"then host with --port {port} --address server.example.",
    ]


class PortMapper:
    """One TCP port mapping on the router, renewed until closed."""

    def __init__(
        self,
        port: int,
        *,
        lease: int = LEASE,
        discover_ms: int = DISCOVER_MS,
        timeout: float = OPEN_TIMEOUT,
    ) -> None:
        self.port = port
        self.lease = lease
        self.discover_ms = discover_ms
        self.timeout = timeout
        self.mapping: Mapping | None = None
        self.also: list[Mapping] = []  # more ports mapped on the same router (`add`)
        self.lan_ip: str | None = None
        self.renewals = 0
        self._upnp: Any = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._lock = threading.Lock()

    # ----- opening ----------------------------------------------------------------------
    def open(self) -> Mapping:
        """Map the port (bounded by `timeout`); raise MappingError saying why it failed."""
        mapping: Mapping = self._bounded(self._open, "open")
        self.mapping = mapping
        if self.lease:
            self._renewer = threading.Thread(target=self._renew_loop, name="zoo-upnp", daemon=True)
            self._renewer.start()
        return mapping

    def _bounded(self, fn: Callable[[], T], what: str) -> T:
        """`fn()` in a thread, abandoned after `timeout`; every failure a MappingError."""
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["ok"] = fn()
            except MappingError as exc:
                box["err"] = exc
            except Exception as exc:  # miniupnpc raises bare Exception with the router's words
                box["err"] = MappingError(f"the router refused: {exc}")

        t = threading.Thread(target=work, name=f"zoo-upnp-{what}", daemon=True)
        t.start()
        t.join(self.timeout)
        if t.is_alive():
            raise MappingError(f"no answer from the router within {self.timeout:.0f} s")
        if "err" in box:
            raise box["err"]
        result: T = box["ok"]
        return result

    def _open(self) -> Mapping:
        try:
            import miniupnpc
        except ImportError:
            raise MappingError("miniupnpc is not installed") from None
        u = miniupnpc.UPnP()
        u.discoverdelay = self.discover_ms
        t0 = time.monotonic()
        try:
            n = u.discover()  # one wait of discover_ms per kind of device it asks for
        except Exception:  # miniupnpc raises when nothing answered ("Success" errno text)
            n = 0
        if not n:
            raise MappingError(
                f"no UPnP router answered within {time.monotonic() - t0:.0f} s "
                "(UPnP is off on the router, or there is no router)"
            )
        try:
            u.selectigd()
        except Exception as exc:
            raise MappingError(f"no usable UPnP internet gateway ({exc})") from None
        self._upnp = u
        self.lan_ip = str(u.lanaddr)
        try:
            ext_ip = str(u.externalipaddress())
        except Exception as exc:
            raise MappingError(f"the router does not tell its external address ({exc})") from None
        if not ext_ip:
            raise MappingError("the router has no external address (is it online?)")
        ext_port, lease = self._add(self.port)
        if not _is_public(ext_ip):
            log.warning("the router's external address %s is not public (double NAT?)", ext_ip)
        return Mapping(ext_ip, ext_port, self.lan_ip, self.port, lease)

    def _add_one(self, ext_port: int, lease: int, port: int | None = None) -> None:
        with self._lock:
            ok = self._upnp.addportmapping(
                ext_port, "TCP", self.lan_ip, port or self.port, DESCRIPTION, "", lease
            )
        if not ok:
            raise MappingError(f"the router would not map port {ext_port}")

    def _add(self, want: int) -> tuple[int, int]:
        """Map `want` (or a nearby free port) with our lease; fall back to a permanent one."""
        last = ""
        for ext_port in (want, *(want + 1 + i * 7 for i in range(4))):
            if ext_port > 65535:
                break
            for lease in (self.lease, 0) if self.lease else (0,):
                try:
                    self._add_one(ext_port, lease, want)
                    return ext_port, lease
                except Exception as exc:
                    last = str(exc)
                    if "OnlyPermanentLeases" in last or "725" in last:
                        continue  # this router only does leases of 0: ask for that
                    break
            if "onflict" not in last and "718" not in last:
                break  # not a port clash: another port will not help
        raise MappingError(f"the router refused to map TCP port {want}: {last or 'no reason'}")

    def add(self, port: int) -> Mapping:
        """Map one more local `port` on the router that `open()` found (quick: no discovery),
        renewed and removed with the first; MappingError saying why if the router refuses."""
        if self.mapping is None or self._upnp is None:
            raise MappingError("no router to ask (the first mapping failed)")
        ext_port, lease = self._bounded(lambda: self._add(port), "add")
        m = Mapping(self.mapping.external_ip, ext_port, self.mapping.lan_ip, port, lease)
        self.also.append(m)
        return m

    # ----- keeping it -------------------------------------------------------------------
    def renew(self) -> None:
        """Map again with a fresh lease (what the renewal thread does at half-life)."""
        if self.mapping is None:
            return
        for m in (self.mapping, *self.also):
            self._add_one(m.external_port, m.lease, m.port)
        self.renewals += 1

    def _renew_loop(self) -> None:
        assert self.mapping is not None
        every = max(1.0, self.mapping.lease / 2)
        while not self._stop.wait(every):
            try:
                self.renew()
                log.info("renewed the port mapping for %d s", self.mapping.lease)
            except Exception as exc:
                log.warning("could not renew the port mapping: %s", exc)

    def close(self, timeout: float = 3.0) -> bool:
        """Stop renewing and remove the mapping (bounded); True if the router removed it."""
        self._stop.set()
        m, self.mapping = self.mapping, None
        if m is None or self._upnp is None:
            return False
        box: dict[str, bool] = {}
        rest, self.also = self.also, []

        def work() -> None:
            for other in rest:
                with contextlib.suppress(Exception), self._lock:
                    self._upnp.deleteportmapping(other.external_port, "TCP")
            with contextlib.suppress(Exception), self._lock:
                box["ok"] = bool(self._upnp.deleteportmapping(m.external_port, "TCP"))

        t = threading.Thread(target=work, name="zoo-upnp-close", daemon=True)
        t.start()
        t.join(timeout)
        if self._renewer is not None:
            self._renewer.join(0.1)
        return box.get("ok", False)


def map_port(port: int, **kw: Any) -> tuple[PortMapper, Mapping]:
    """Convenience: open a mapping for `port` and return the mapper (to close) and the mapping."""
    start = time.monotonic()
    pm = PortMapper(port, **kw)
    m = pm.open()
    log.info(
        "mapped %s:%d -> %s:%d in %.2f s",
        m.external_ip,
        m.external_port,
        m.lan_ip,
        port,
        time.monotonic() - start,
    )
    return pm, m


class BackgroundMapping:
    """A joiner's direct-link port mapped in a background thread (bounded by the mapper's
    timeout), so joining never waits for the router; the mesh makes its card once `ready()`
    (`zoo_p2p.net.mesh.MoreEndpoints`). `close()` removes the mapping."""

    def __init__(self, port: int, **kw: Any) -> None:
        self.port = port
        self.mapper = PortMapper(port, **kw)
        self.mapping: Mapping | None = None
        self.error: MappingError | None = None
        self.took = 0.0
        self._closed = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="zoo-upnp-join", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        t0 = time.monotonic()
        try:
            self.mapping = self.mapper.open()
        except MappingError as exc:
            self.error = exc
        except Exception as exc:  # pragma: no cover - open() wraps everything it can
            self.error = MappingError(str(exc))
        finally:
            self.took = time.monotonic() - t0
            with self._lock:
                self._done.set()
                late = self._closed
            if late:  # the game ended before the router answered: undo it at once
                self.mapper.close()

    def ready(self) -> bool:
        """True once mapped or failed."""
        return self._done.is_set()

    def endpoints(self) -> list[tuple[str, int]]:
        """The router's external address and port, if it mapped ours."""
        m = self.mapping
        if m is None:
            return []
        log.info(
            "the router forwards %s:%d to our direct links at %s:%d (%.1f s; lease %s)",
            m.external_ip,
            m.external_port,
            m.lan_ip,
            m.port,
            self.took,
            f"{m.lease} s, renewed" if m.lease else "permanent",
        )
        return [(m.external_ip, m.external_port)]

    def note(self) -> list[str]:
        """Why there is no mapping, what it costs and what to do (empty when mapped)."""
        if self.error is None:
            return []
        return [
            f"could not map our direct-link port {self.port} on the router: {self.error}; "
            "the other players will reach you only through the host",
            *advice(self.port, self.mapper.lan_ip, joiner=True),
        ]

    def close(self, timeout: float = 3.0) -> None:
        """Remove the mapping (bounded; one still being made is removed when it is made)."""
        with self._lock:
            self._closed = True
            ready = self._done.is_set()
        if ready:
            self.mapper.close(timeout)
