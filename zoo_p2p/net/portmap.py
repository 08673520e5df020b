"""Ask the home router to forward a TCP port to us: UPnP IGD, spoken here with hard bounds.

`PortMapper.open()` finds the router (SSDP, bounded), maps an external TCP port to our listening
port with a lease, and a background thread renews the lease at half its life; `close()` removes
the mapping. Every failure is a `MappingError` whose message says why, and `advice()` says what
the user can do instead (protocol/TRANSPORT.md, "Port mapping").

Every UPnP answer is hostile input: any device on the LAN may answer the search. So the client is
our own, small and bounded (miniupnpc read a device description of any size into memory): an
SSDP answer is one datagram of at most 2 KiB whose LOCATION must be an http URL on the address
the answer came from; the device description is read with a size cap (64 KiB) and a deadline;
SOAP answers likewise (16 KiB); the control URL must be on the same host; the external address
must parse as an IP address (`ipaddress`), else there is no mapping. XML is parsed by the
standard library's expat (no external entities, bounded expansion) from those capped bytes.

NAT-PMP / PCP: miniupnpd and most routers that speak them also speak UPnP IGD, and no maintained
Python library for them exists, so UPnP IGD is the only protocol spoken here.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import logging
import socket
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from xml.sax.saxutils import escape

from zoo_p2p.errors import ZooError
from zoo_p2p.text import shown

log = logging.getLogger("zoo_p2p.net.portmap")
T = TypeVar("T")

LEASE = 3600  # seconds asked for; renewed at half-life
DISCOVER_MS = 2000  # how long SSDP discovery listens for routers
JOIN_DISCOVER_MS = 1000  # the same for a joiner's direct-link port (it costs no one a wait)
OPEN_TIMEOUT = 10.0  # the whole of open() is abandoned after this long
DESCRIPTION = "zoo-p2p game"

SSDP_GROUP = ("239.255.255.250", 1900)
SEARCH_TARGETS = (
    "urn:schemas-upnp-org:device:InternetGatewayDevice:1",
    "urn:schemas-upnp-org:device:InternetGatewayDevice:2",
    "urn:schemas-upnp-org:service:WANIPConnection:1",
    "urn:schemas-upnp-org:service:WANIPConnection:2",
    "urn:schemas-upnp-org:service:WANPPPConnection:1",
)
WAN_SERVICES = (  # in the order we prefer them
    "urn:schemas-upnp-org:service:WANIPConnection:2",
    "urn:schemas-upnp-org:service:WANIPConnection:1",
    "urn:schemas-upnp-org:service:WANPPPConnection:1",
)
MAX_SSDP_ANSWER = 2048  # bytes of one SSDP answer datagram (they are a few hundred)
MAX_LOCATIONS = 4  # distinct devices whose description we read, at most
MAX_DESCRIPTION = 64 * 1024  # bytes of a device description (miniupnpd's is about 3 KiB)
MAX_SOAP_ANSWER = 16 * 1024  # bytes of a SOAP answer (a few hundred)
HTTP_TIMEOUT = 4.0  # seconds for one HTTP exchange with the router, from connect to last byte


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


class _IGD:
    """An Internet Gateway Device's WAN connection service, found and spoken to with bounds."""

    def __init__(self, control_url: str, service: str, lan_ip: str) -> None:
        self.control_url = control_url
        self.service = service
        self.lanaddr = lan_ip  # our address as the router sees it (the socket's own end)

    def call(self, action: str, args: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
        """One SOAP action; its answer's fields, or MappingError with the router's error."""
        inner = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in args)
        body = (
            '<?xml version="1.0"?>\r\n<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/'
            'envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>'
            f'<u:{action} xmlns:u="{self.service}">{inner}</u:{action}></s:Body></s:Envelope>'
        ).encode()
        headers = {
            "Content-Type": 'text/xml; charset="utf-8"',
            "SOAPAction": f'"{self.service}#{action}"',
        }
        status, data, _ = _http("POST", self.control_url, MAX_SOAP_ANSWER, body, headers)
        root = _xml(data, "the router's answer")
        if status != 200:
            code = _find_text(root, "errorCode")
            why = _find_text(root, "errorDescription")
            raise MappingError(
                f"{shown(code or f'HTTP {status}', 12)} {shown(why or '', 80)}".strip()
            )
        for el in root.iter():
            if _local(el.tag) == f"{action}Response":
                return {_local(c.tag): (c.text or "").strip() for c in el}
        raise MappingError(f"the router's answer to {action} says nothing")

    def externalipaddress(self) -> str:
        return self.call("GetExternalIPAddress").get("NewExternalIPAddress", "")

    def addportmapping(
        self, ext_port: int, proto: str, lan_ip: str, port: int, desc: str, _rh: str, lease: int
    ) -> bool:
        self.call(
            "AddPortMapping",
            (
                ("NewRemoteHost", ""),
                ("NewExternalPort", str(ext_port)),
                ("NewProtocol", proto),
                ("NewInternalPort", str(port)),
                ("NewInternalClient", lan_ip),
                ("NewEnabled", "1"),
                ("NewPortMappingDescription", desc),
                ("NewLeaseDuration", str(lease)),
            ),
        )
        return True

    def deleteportmapping(self, ext_port: int, proto: str) -> bool:
        self.call(
            "DeletePortMapping",
            (("NewRemoteHost", ""), ("NewExternalPort", str(ext_port)), ("NewProtocol", proto)),
        )
        return True


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _find_text(root: ET.Element, name: str) -> str | None:
    for el in root.iter():
        if _local(el.tag) == name:
            return (el.text or "").strip()
    return None


def _xml(data: bytes, what: str) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise MappingError(f"{what} is not XML ({exc})") from None


def _http(
    method: str,
    url: str,
    cap: int,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, str]:
    """One HTTP exchange with the router: (status, at most `cap` bytes of body, our address).

    Bounded: HTTP_TIMEOUT seconds from connect to the last byte, and `cap` bytes (a longer body
    is a MappingError, read no further). Only plain http to an IP address (checked before)."""
    u = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + HTTP_TIMEOUT
    conn = http.client.HTTPConnection(u.hostname or "", u.port or 80, timeout=HTTP_TIMEOUT)
    try:
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        conn.request(method, path, body=body, headers=headers or {})
        lan_ip = conn.sock.getsockname()[0] if conn.sock is not None else ""
        resp = conn.getresponse()
        chunks: list[bytes] = []
        got = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MappingError(f"the router took more than {HTTP_TIMEOUT:.0f} s to answer")
            if conn.sock is not None:
                conn.sock.settimeout(left)
            chunk = resp.read1(min(16384, cap + 1 - got)) if got <= cap else b""
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if got > cap:
                raise MappingError(f"the router's answer is larger than {cap} bytes")
        return resp.status, b"".join(chunks), lan_ip
    except (OSError, http.client.HTTPException) as exc:
        raise MappingError(f"the router's web server failed ({type(exc).__name__})") from None
    finally:
        conn.close()


def _ip(host: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address(host or ""))
    except ValueError:
        return None


def _location(answer: bytes, sender: str) -> str | None:
    """The LOCATION of an SSDP answer, if it is an http URL on the sender's own address."""
    for line in answer.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() != b"location":
            continue
        url = value.strip().decode("ascii", "replace")
        u = urllib.parse.urlsplit(url)
        try:
            ok = u.scheme == "http" and _ip(u.hostname) == _ip(sender) and u.port != 0
        except ValueError:  # a bad port number
            return None
        return url if ok else None
    return None


def discover(ms: int, target: tuple[str, int] = SSDP_GROUP) -> list[str]:
    """The device description URLs of the routers that answer an SSDP search within `ms`."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
        sock.bind(("0.0.0.0", 0))
        for st in SEARCH_TARGETS:
            msg = (
                "M-SEARCH * HTTP/1.1\r\n"
                f"HOST: {SSDP_GROUP[0]}:{SSDP_GROUP[1]}\r\n"
                'MAN: "ssdp:discover"\r\n'
                f"MX: {max(1, ms // 1000)}\r\nST: {st}\r\n\r\n"
            )
            with contextlib.suppress(OSError):  # no route to the group: nothing answers
                sock.sendto(msg.encode(), target)
        deadline = time.monotonic() + ms / 1000
        while len(found) < MAX_LOCATIONS:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            try:
                answer, (sender, _) = sock.recvfrom(MAX_SSDP_ANSWER)
            except TimeoutError:
                break
            except OSError:
                continue
            url = _location(answer, sender)
            if url is not None and url not in found:
                found.append(url)
    return found


def find_igd(location: str) -> _IGD:
    """Read a device description (bounded) and pick its WAN connection service."""
    status, data, lan_ip = _http("GET", location, MAX_DESCRIPTION)
    if status != 200:
        raise MappingError(f"the router's device description: HTTP {status}")
    root = _xml(data, "the router's device description")
    base = _find_text(root, "URLBase") or location
    services: dict[str, str] = {}
    for el in root.iter():
        if _local(el.tag) != "service":
            continue
        fields = {_local(c.tag): (c.text or "").strip() for c in el}
        kind, control = fields.get("serviceType", ""), fields.get("controlURL", "")
        if kind in WAN_SERVICES and control and kind not in services:
            services[kind] = control
    for kind in WAN_SERVICES:
        if kind not in services:
            continue
        url = urllib.parse.urljoin(base, services[kind])
        u, here = urllib.parse.urlsplit(url), urllib.parse.urlsplit(location)
        if u.scheme != "http" or _ip(u.hostname) != _ip(here.hostname):
            raise MappingError("the router's control URL is on another host")
        return _IGD(url, kind, lan_ip)
    raise MappingError("no WAN connection service in the router's description")


class PortMapper:
    """One TCP port mapping on the router, renewed until closed."""

    def __init__(
        self,
        port: int,
        *,
        lease: int = LEASE,
        discover_ms: int = DISCOVER_MS,
        timeout: float = OPEN_TIMEOUT,
        ssdp: tuple[str, int] = SSDP_GROUP,
    ) -> None:
        self.port = port
        self.ssdp = ssdp  # where the search goes (tests: a fake router on 127.0.0.1)
        self.lease = lease
        self.discover_ms = discover_ms
        self.timeout = timeout
        self.mapping: Mapping | None = None
        self.also: list[Mapping] = []  # more ports mapped on the same router (`add`)
        self.lan_ip: str | None = None
        self.renewals = 0
        self._upnp: _IGD | None = None
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
            except Exception as exc:  # pragma: no cover - everything above is a MappingError
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
        t0 = time.monotonic()
        locations = discover(self.discover_ms, self.ssdp)
        if not locations:
            raise MappingError(
                f"no UPnP router answered within {time.monotonic() - t0:.0f} s "
                "(UPnP is off on the router, or there is no router)"
            )
        why = ""
        for location in locations:
            try:
                u = find_igd(location)
                break
            except MappingError as exc:
                why = str(exc)
        else:
            raise MappingError(f"no usable UPnP internet gateway ({why})")
        self._upnp = u
        self.lan_ip = u.lanaddr
        try:
            raw = u.externalipaddress()
        except MappingError as exc:
            raise MappingError(f"the router does not tell its external address ({exc})") from None
        if not raw:
            raise MappingError("the router has no external address (is it online?)")
        ext = _ip(raw)
        if ext is None:
            raise MappingError(
                f"the router's external address is not an IP address ({shown(raw, 40)!r})"
            )
        if ipaddress.ip_address(ext).is_unspecified:
            raise MappingError("the router has no external address (is it online?)")
        ext_port, lease = self._add(self.port)
        if not _is_public(ext):
            log.warning("the router's external address %s is not public (double NAT?)", ext)
        return Mapping(ext, ext_port, self.lan_ip, self.port, lease)

    def _add_one(self, ext_port: int, lease: int, port: int | None = None) -> None:
        if self._upnp is None or self.lan_ip is None:
            raise MappingError("no router to ask")
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

        u = self._upnp

        def work() -> None:
            for other in rest:
                with contextlib.suppress(Exception), self._lock:
                    u.deleteportmapping(other.external_port, "TCP")
            with contextlib.suppress(Exception), self._lock:
                box["ok"] = bool(u.deleteportmapping(m.external_port, "TCP"))

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
