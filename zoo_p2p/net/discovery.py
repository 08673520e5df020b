"""Find games on the local network: mDNS / DNS-SD adverts of ``_zoo-p2p._tcp`` (python-zeroconf).
What an advert says and how it is checked is `zoo_p2p.net.adverts` (pure); this module runs
mDNS: the announcer, a bounded browse, and the live browse of the full-screen picker.

A host announces one service instance per game. Its TXT record carries (protocol/TRANSPORT.md,
"LAN discovery"):

=========  ===============================================================
``v``      advert version, ``1``
``name``   the host's display name (1-32 printable characters)
``fp``     the host's fingerprint, ``ABCD-EFGH-IJKL-MNOP``
``seats``  seats at the table (2-4)
``taken``  seats already taken (1..seats)
``variant`` ``standard`` or ``general``
``inv``    the invite (at most 255 bytes; addresses that do not fit are left out)
``hints``  optional: ``1`` the table allows hints (PROTOCOL.md §3.2), ``0`` or absent: not
=========  ===============================================================

Everything in an advert is hostile input: every field is checked and bounded, an advert with a
bad field is dropped, and the invite's fingerprint must equal ``fp`` (the joiner then checks the
host's signed welcome against that fingerprint, so an advert can point at a host but never
impersonate one).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zoo_p2p import defaults
from zoo_p2p.errors import ZooError
from zoo_p2p.net.adverts import (
    MAX_ADVERTS,
    SERVICE,
    Advert,
    BrowseState,
    GameList,
    _instance,
    parse_txt,
    txt_for,
)
from zoo_p2p.net.invite import (
    MAX_ADDRESSES,
    Invite,
    InviteError,
)

if TYPE_CHECKING:
    from zeroconf import ServiceBrowser, ServiceInfo, Zeroconf

__all__ = [
    "BROWSE_SECONDS",
    "MAX_ADVERTS",
    "SERVICE",
    "Advert",
    "Announcer",
    "Browse",
    "BrowseState",
    "DiscoveryError",
    "GameList",
    "LiveBrowse",
    "_instance",
    "browse",
    "interface_addresses",
    "local_networks",
    "parse_txt",
    "quiet_zeroconf",
    "txt_for",
]

log = logging.getLogger("zoo_p2p.net.discovery")

BROWSE_SECONDS = defaults.BROWSE_SECONDS
SETTLE = 1.0  # once a game is found, stop after this long without another new one


def interface_addresses() -> list[str]:
    """This machine's addresses another machine could reach: IPv4 except loopback and link-local,
    IPv6 global or unique-local (no link-local: its zone means nothing elsewhere)."""
    import ifaddr

    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            raw = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                addr = ipaddress.ip_address(raw)
            except ValueError:
                continue
            if addr.is_loopback or addr.is_link_local or addr.is_multicast:
                continue
            if addr.version == 6 and not (addr.is_global or addr.is_private):
                continue
            if str(addr) not in out:
                out.append(str(addr))
    out.sort(key=lambda a: ":" in a)  # IPv4 first: what most joiners can reach
    return out


def local_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks this machine's interfaces are on (loopback included)."""
    import ifaddr

    nets: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            raw = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                nets.append(ipaddress.ip_network(f"{raw}/{ip.network_prefix}", strict=False))
            except ValueError:
                continue
    return nets


class DiscoveryError(ZooError):
    """mDNS could not be used at all (no interface, sockets refused); the message says why."""


class _Trouble(logging.Handler):
    """Catches what zeroconf would print (tracebacks included) and keeps one line of it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            exc = record.exc_info[1] if record.exc_info else None
            self.first = (
                f"{type(exc).__name__}: {exc}" if exc is not None else record.getMessage()[:200]
            )


@contextlib.contextmanager
def quiet_zeroconf() -> Iterator[_Trouble]:
    """Keep zeroconf's own warnings and tracebacks off the terminal; collect the first one."""
    zlog = logging.getLogger("zeroconf")
    trouble = _Trouble()
    old = zlog.propagate
    zlog.addHandler(trouble)
    zlog.propagate = False
    try:
        yield trouble
    finally:
        zlog.removeHandler(trouble)
        zlog.propagate = old


def _zeroconf(addresses: list[str] | None) -> Zeroconf:
    from zeroconf import InterfaceChoice, IPVersion, Zeroconf

    try:
        if addresses:
            return Zeroconf(interfaces=addresses, ip_version=IPVersion.V4Only)
        return Zeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
    except (OSError, RuntimeError, ValueError) as exc:
        raise DiscoveryError(
            f"cannot use mDNS on this machine ({exc}); give the other players the invite instead"
        ) from None


class Announcer:
    """Advertise one game on the LAN from a background thread; `update()` the seats; `close()`."""

    def __init__(
        self,
        invite: Invite,
        *,
        name: str,
        seats: int,
        taken: int,
        variant: str,
        interfaces: list[str] | None = None,
        hints: bool = False,
    ) -> None:
        self.invite = invite
        self.name = name
        self.seats = seats
        self.taken = taken
        self.variant = variant
        self.hints = hints
        self.interfaces = interfaces
        self.error: str | None = None
        self.registered = threading.Event()
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._zc: Zeroconf | None = None
        self._info: ServiceInfo | None = None
        self._thread = threading.Thread(target=self._run, name="zoo-announce", daemon=True)
        self._quiet: contextlib.AbstractContextManager[_Trouble] | None = None
        self.trouble: _Trouble | None = None

    def start(self) -> Announcer:
        """Begin announcing (returns at once; `wait()` tells how it went)."""
        self._quiet = quiet_zeroconf()
        self.trouble = self._quiet.__enter__()
        self._thread.start()
        return self

    @property
    def _sent_taken(self) -> int | None:
        """The seat count in the advert as last sent."""
        if self._info is None:
            return None
        raw = self._info.properties.get(b"taken")
        return int(raw) if isinstance(raw, bytes) and raw.isdigit() else None

    def _make_info(self) -> ServiceInfo:
        from zeroconf import ServiceInfo

        ips = [
            socket.inet_pton(socket.AF_INET6 if ":" in h else socket.AF_INET, h)
            for h, _ in self.invite.addresses
            if _is_ip(h)
        ]
        return ServiceInfo(
            SERVICE,
            # the name registered (zeroconf renames the instance on a conflict)
            self._info.name
            if self._info is not None
            else f"{_instance(self.name, self.invite.fingerprint)}.{SERVICE}",
            addresses=ips,
            port=self.invite.port,
            properties=txt_for(
                self.invite,
                name=self.name,
                seats=self.seats,
                taken=self.taken,
                variant=self.variant,
                hints=self.hints,
            ),
            server=f"zoo-{self.invite.fingerprint.lower()}.local.",
        )

    def _run(self) -> None:
        try:
            zc = _zeroconf(self.interfaces)
            info = self._make_info()
            with self._lock:
                self._zc, self._info = zc, info
            zc.register_service(info, allow_name_change=True)
            self.registered.set()
            self._push()  # a seat taken while registering (update() did not send it)
        except DiscoveryError as exc:
            self.error = str(exc)
        except Exception as exc:  # zeroconf's own errors: a clear line, never a traceback
            self.error = f"could not announce the game on the LAN ({type(exc).__name__}: {exc})"
        finally:
            self.done.set()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the advert to be on the network; True if it is."""
        self.done.wait(timeout)
        return self.registered.is_set()

    def update(self, taken: int) -> None:
        """Announce a new count of seats taken, from a background thread (zeroconf takes about
        0.5 s); a count set before the advert is on the network is sent once it is."""
        if taken == self.taken:
            return
        self.taken = taken
        if self.registered.is_set():
            threading.Thread(target=self._push, name="zoo-announce-update", daemon=True).start()

    def _push(self) -> None:
        """Send the current seat count if the advert on the network has another one."""
        with self._lock:
            if self._zc is None or self._info is None or self._sent_taken == self.taken:
                return
            try:
                info = self._make_info()
                self._zc.update_service(info)
                self._info = info
            except Exception as exc:
                log.info("could not update the advert: %s", exc)

    def close(self, timeout: float = 2.0) -> None:
        """Withdraw the advert (bounded) and stop zeroconf."""
        self._thread.join(timeout)

        def stop() -> None:
            with self._lock:
                zc, info = self._zc, self._info
                self._zc = None
            if zc is None:
                return
            with contextlib.suppress(Exception):
                if self.registered.is_set() and info is not None:
                    zc.unregister_service(info)
            with contextlib.suppress(Exception):
                zc.close()

        t = threading.Thread(target=stop, name="zoo-announce-stop", daemon=True)
        t.start()
        t.join(timeout)
        quiet, self._quiet = self._quiet, None
        if quiet is not None:
            quiet.__exit__(None, None, None)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass
class Browse:
    """What one browse found: the valid adverts, how many were dropped, the first network error."""

    games: list[Advert]
    dropped: int
    trouble: str | None


def browse(
    seconds: float = BROWSE_SECONDS,
    *,
    interfaces: list[str] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Browse:
    """Listen for game adverts for `seconds` (bounded, by `clock`). Raises DiscoveryError if
    mDNS cannot be used at all; a send that the network refused is reported in `trouble`."""
    with quiet_zeroconf() as trouble:
        games, bad = _browse(seconds, interfaces, clock)
    return Browse(games, bad, trouble.first)


class _Unreadable(Exception):
    """An advert that could not be read or did not pass the checks."""


def _resolve(zc: Zeroconf, name: str, timeout_ms: int) -> Advert:
    """Ask for one service instance's records (bounded) and check them as hostile input."""
    try:
        info = zc.get_service_info(SERVICE, name, timeout=timeout_ms)
    except Exception as exc:
        raise _Unreadable(f"{type(exc).__name__}: {exc}") from None
    if info is None:
        raise _Unreadable("no answer")
    try:
        port = info.port if isinstance(info.port, int) else 0
        extra = [
            (a, port)
            for a in info.parsed_addresses()[:MAX_ADDRESSES]
            if 0 < port < 65536 and _is_ip(a) and "%" not in a
        ]
        return parse_txt(dict(info.properties), extra)
    except (InviteError, ValueError, UnicodeDecodeError, TypeError) as exc:
        raise _Unreadable(str(exc)) from None


def _browse(
    seconds: float, interfaces: list[str] | None, clock: Callable[[], float]
) -> tuple[list[Advert], int]:
    from zeroconf import ServiceBrowser, ServiceStateChange

    start = clock()
    zc = _zeroconf(interfaces)
    names: list[str] = []
    seen: set[str] = set()
    lock = threading.Lock()

    def on_change(
        zeroconf: object, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
            with lock:
                if name not in seen and len(seen) < MAX_ADVERTS:
                    seen.add(name)
                    names.append(name)

    found: list[Advert] = []
    bad = 0
    browser = None
    try:
        browser = ServiceBrowser(zc, SERVICE, handlers=[on_change])
        done: set[str] = set()
        last_new = 0.0
        while True:
            left = seconds - (clock() - start)
            with lock:
                todo = [n for n in names if n not in done]
            for name in todo:
                spent = clock() - start
                if spent >= seconds:
                    break  # the bound holds even against a flood of adverts
                done.add(name)
                ms = int(max(0.2, seconds - spent) * 1000)
                try:
                    advert = _resolve(zc, name, min(ms, 1500))
                except _Unreadable as exc:
                    log.info("advert %r unreadable: %s", name[:80], exc)
                    bad += 1
                    continue
                # adverts claiming one fingerprint are all kept (a spoofed one must not hide
                # the real one); only the very same invite is listed once
                if all(a.invite != advert.invite for a in found):
                    found.append(advert)
                    last_new = clock()
            now = clock()
            if left <= 0 or (found and now - last_new >= SETTLE and now - start >= SETTLE):
                break
            time.sleep(min(0.1, left))
    finally:
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.cancel()
        with contextlib.suppress(Exception):
            zc.close()
    return found, bad


# ----- browsing without end, for the full-screen picker ----------------------------------------
class LiveBrowse:
    """Listen for game adverts from background threads until `close()`: `report(state)` is
    called (from those threads) each time the list changes, as games appear, fill up or go.

    Bounded: at most `MAX_ADVERTS` games listed, at most `4 * MAX_ADVERTS` events waiting to be
    read (the rest of a flood is dropped), each advert read within 1.5 s, `close()` within
    about twice its timeout.
    """

    RESOLVE_MS = 1500
    MAX_PENDING = 4 * MAX_ADVERTS

    def __init__(
        self, report: Callable[[BrowseState], None], *, interfaces: list[str] | None = None
    ) -> None:
        self.report = report
        self.interfaces = interfaces
        self.list = GameList()
        self.stopping = threading.Event()
        self._events: queue.Queue[tuple[str, bool]] = queue.Queue(self.MAX_PENDING)
        self._lock = threading.Lock()
        self._zc: Zeroconf | None = None
        self._browser: ServiceBrowser | None = None
        self._thread = threading.Thread(target=self._run, name="zoo-browse", daemon=True)
        self._quiet: contextlib.AbstractContextManager[_Trouble] | None = None
        self._trouble: _Trouble | None = None
        self._told_trouble = False

    def start(self) -> LiveBrowse:
        """Begin listening (returns at once)."""
        self._quiet = quiet_zeroconf()
        self._trouble = self._quiet.__enter__()
        self._thread.start()
        return self

    def _tell(self, error: str | None = None) -> None:
        if self.stopping.is_set():
            return
        trouble = self._trouble.first if self._trouble is not None else None
        self._told_trouble = trouble is not None
        state = BrowseState(self.list.games(), self.list.dropped, trouble, error)
        try:
            self.report(state)
        except Exception as exc:  # the receiver is gone (the app closed): stop telling it
            log.info("browse report failed: %s", exc)
            self.stopping.set()

    def _on_change(self, zeroconf: object, service_type: str, name: str, state_change: Any) -> None:
        from zeroconf import ServiceStateChange

        gone = state_change is ServiceStateChange.Removed
        try:
            self._events.put_nowait((name, gone))
        except queue.Full:
            log.info("too many adverts at once: one dropped")

    def _run(self) -> None:
        from zeroconf import ServiceBrowser

        try:
            zc = _zeroconf(self.interfaces)
        except DiscoveryError as exc:
            self._tell(f"cannot look for games here: {exc}")
            return
        with self._lock:
            self._zc = zc
        browser = None
        try:
            browser = ServiceBrowser(zc, SERVICE, handlers=[self._on_change])
            with self._lock:
                self._browser = browser
            self._tell()
            while not self.stopping.is_set():
                self._step(zc)
        except Exception as exc:  # zeroconf's own errors: a clear line, never a traceback
            self._tell(f"cannot look for games here ({type(exc).__name__}: {exc})")
        finally:
            self._shut()

    def _step(self, zc: Zeroconf) -> None:
        """Read one event (or wait 0.2 s for one); tell the receiver if the list changed."""
        try:
            name, gone = self._events.get(timeout=0.2)
        except queue.Empty:
            if self._trouble is not None and self._trouble.first and not self._told_trouble:
                self._tell()
            return
        if self.stopping.is_set():
            return
        before = (self.list.games(), self.list.dropped)
        if gone:
            self.list.remove(name)
        elif not self.list.room_for(name):
            self.list.dropped += 1
        else:
            try:
                self.list.add(name, _resolve(zc, name, self.RESOLVE_MS))
            except _Unreadable as exc:
                log.info("advert %r unreadable: %s", name[:80], exc)
                self.list.dropped += 1
        if (self.list.games(), self.list.dropped) != before:
            self._tell()

    def _shut(self) -> None:
        with self._lock:
            zc, browser = self._zc, self._browser
            self._zc = self._browser = None
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.cancel()
        if zc is not None:
            with contextlib.suppress(Exception):
                zc.close()

    def close(self, timeout: float = 1.0) -> None:
        """Stop listening and close zeroconf, each step bounded by `timeout` seconds."""
        self.stopping.set()
        if self._thread.ident is None:  # never started
            return
        with contextlib.suppress(queue.Full):
            self._events.put_nowait(("", True))  # wake the reader now rather than in 0.2 s
        self._thread.join(timeout)
        if self._thread.is_alive():  # stuck reading an advert: closing zeroconf ends that
            t = threading.Thread(target=self._shut, name="zoo-browse-stop", daemon=True)
            t.start()
            t.join(timeout)
        quiet, self._quiet = self._quiet, None
        if quiet is not None:
            quiet.__exit__(None, None, None)
