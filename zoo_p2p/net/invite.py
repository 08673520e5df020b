"""The invite: one copy-paste that carries the host's addresses, CURVE key and fingerprint.

Format (protocol/TRANSPORT.md, "Invites")::

    zoo://ADDR[,ADDR...]/KEY/FINGERPRINT
    ADDR = IPV4:PORT | [IPV6]:PORT | DNSNAME:PORT

KEY is the host's 32-byte CURVE server public key in lowercase unpadded base32 (52 characters,
never all zeros); FINGERPRINT the host's Ed25519 identity fingerprint as ``zoo`` prints it (four
groups of four base32 letters, ``ABCD-EFGH-IJKL-MNOP``). An invite with one address is exactly
the old single-address form. All whitespace inside the text is ignored, so an invite printed over
several lines (``Invite.lines()``) or pasted with stray line breaks reads the same.

>>> inv = Invite(host="10.0.0.5", port=4040, server_key=bytes(range(32)),
...              fingerprint="IV7F-M2JN-KPTH-JXDE", also=(("fd00::5", 4040),))
>>> str(inv)[:36]
'zoo://10.0.0.5:4040,[fd00::5]:4040/a'
>>> Invite.parse(" ".join(inv.lines(24))) == inv
True
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zoo_p2p.errors import ZooError

if TYPE_CHECKING:
    import zmq

SCHEME = "zoo://"
MAX_INVITE = 2048  # characters of an invite after whitespace is removed
MAX_ADDRESSES = 8
LINE = 72  # an invite is printed in lines of at most this many characters
_FP = re.compile(r"^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$")
_KEY = re.compile(r"^[a-z2-7]{52}$")
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_WS = re.compile(r"\s+")

Address = tuple[str, int]

log = logging.getLogger("zoo_p2p.net")


class InviteError(ZooError, ValueError):
    """Text that is not an invite; the message says what is wrong."""


def _b32(key: bytes) -> str:
    return base64.b32encode(key).decode("ascii").rstrip("=").lower()


def _unb32(text: str) -> bytes:
    text = text.upper()
    return base64.b32decode(text + "=" * (-len(text) % 8))


def check_host(host: str) -> str:
    """Return the host in canonical form (IPv6 without brackets) or raise InviteError.

    A host is an IPv4 address, an IPv6 address (no zone), or a DNS name of letters, digits and
    inner hyphens in dot-separated labels of 1-63 characters (253 in all).

    >>> check_host("[FD00::1]"), check_host("Example.ORG."), check_host("10.1.2.3")
    ('fd00::1', 'example.org', '10.1.2.3')
    """
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not text:
        raise InviteError("the address has no host")
    if "%" in text:
        raise InviteError(
            f"bad IPv6 address {host!r}: a zone (%…) means nothing on another machine"
        )
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        if ip.is_unspecified or ip.is_multicast:
            raise InviteError(f"{text} cannot be connected to (not one machine's address)")
        return str(ip)
    if text != host or ":" in text:
        raise InviteError(f"bad IPv6 address {host!r}")
    name = text.lower().removesuffix(".")
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        raise InviteError(
            f"bad host {host!r}: not an IP address nor a name of letters, digits and inner dashes"
        )
    if labels[-1].isdigit():
        raise InviteError(f"bad host {host!r}: not an IPv4 address")
    return name


def check_port(text: str | int) -> int:
    """A TCP port 1-65535 (digits only) or InviteError."""
    if isinstance(text, str):
        if not text.isascii() or not text.isdigit() or len(text) > 5:
            raise InviteError(f"bad port {text!r}: want a number 1-65535")
        text = int(text)
    if not 1 <= text <= 65535:
        raise InviteError(f"bad port {text}: want a number 1-65535")
    return text


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def format_address(addr: Address) -> str:
    """``host:port`` with brackets around an IPv6 host."""
    return f"{_url_host(addr[0])}:{addr[1]}"


def parse_address(text: str) -> Address:
    """``HOST:PORT`` or ``[IPV6]:PORT`` into a checked (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise InviteError(f"bad address {text[:60]!r}: want HOST:PORT")
    if ":" in host and not host.startswith("["):
        raise InviteError(f"bad address {text[:60]!r}: write an IPv6 host in brackets, [::1]:PORT")
    return check_host(host), check_port(port)


@dataclass(frozen=True, kw_only=True)
class Invite:
    """Where the host listens, its CURVE server key (raw 32 bytes) and identity fingerprint.

    ``host``/``port`` is the first address; ``also`` the others, tried in turn by a joiner.
    """

    host: str
    port: int
    server_key: bytes
    fingerprint: str
    also: tuple[Address, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "host", check_host(self.host))
        object.__setattr__(self, "port", check_port(self.port))
        others = tuple((check_host(h), check_port(p)) for h, p in self.also)
        object.__setattr__(self, "also", others)
        if len(self.server_key) != 32:
            raise InviteError("bad server key (not 32 bytes)")

    @property
    def addresses(self) -> tuple[Address, ...]:
        """Every address of the invite, the first one first."""
        return ((self.host, self.port), *self.also)

    def __str__(self) -> str:
        addrs = ",".join(format_address(a) for a in self.addresses)
        return f"{SCHEME}{addrs}/{_b32(self.server_key)}/{self.fingerprint}"

    @property
    def endpoint(self) -> str:
        """The ZeroMQ endpoint of the first address."""
        return f"tcp://{format_address((self.host, self.port))}"

    def with_addresses(self, addresses: list[Address] | tuple[Address, ...]) -> Invite:
        """The same invite with these addresses (the first one is connected to)."""
        if not addresses:
            raise InviteError("an invite needs at least one address")
        (host, port), *rest = addresses
        return Invite(
            host=host,
            port=port,
            server_key=self.server_key,
            fingerprint=self.fingerprint,
            also=tuple(rest),
        )

    def lines(self, width: int = LINE) -> list[str]:
        """The invite cut after its separators (``/`` and ``,``) into lines of at most `width`.

        No token is cut unless it alone is longer than `width`; joining the lines (any
        whitespace between them) gives the invite back.
        """
        text = str(self)
        pieces = re.findall(r"[^/,]+[/,]?|[/,]", text)
        out: list[str] = []
        cur = ""
        for piece in pieces:
            if cur and len(cur) + len(piece) > width:
                out.append(cur)
                cur = ""
            while len(piece) > width:
                out.append(piece[:width])
                piece = piece[width:]
            cur += piece
        if cur:
            out.append(cur)
        return out

    def qr(self) -> str:
        """The invite as a QR code drawn with block characters for a terminal."""
        import io

        import segno

        buf = io.StringIO()
        segno.make(str(self), error="m", micro=False).terminal(out=buf, compact=True, border=2)
        return buf.getvalue()

    @classmethod
    def parse(cls, text: str, *, allow_no_curve: bool = False) -> Invite:
        """Read an invite (whitespace anywhere, surrounding quotes and <> are forgiven).

        An all-zero key means the host runs without CURVE; it is refused unless the caller
        asks for that explicitly (`allow_no_curve`), so an invite can never silently turn
        encryption off.
        """
        if len(text) > 4 * MAX_INVITE:
            raise InviteError("that is far too long to be an invite")
        text = _WS.sub("", text).strip("'\"<>`")
        if len(text) > MAX_INVITE:
            raise InviteError("that is far too long to be an invite")
        if not text.lower().startswith(SCHEME):
            raise InviteError(f"an invite starts with {SCHEME} (got {text[:20]!r})")
        parts = text[len(SCHEME) :].split("/")
        if len(parts) != 3:
            raise InviteError("an invite looks like zoo://HOST:PORT/KEY/FINGERPRINT")
        addr_text, key, fp = parts
        addr_list = addr_text.split(",")
        if len(addr_list) > MAX_ADDRESSES:
            raise InviteError(f"too many addresses (at most {MAX_ADDRESSES})")
        addrs = [parse_address(a) for a in addr_list]
        if not _KEY.match(key.lower()):
            raise InviteError("bad server key: want 52 base32 letters (a-z, 2-7)")
        try:
            server_key = _unb32(key)
        except ValueError:
            raise InviteError("bad server key (not base32)") from None
        if len(server_key) != 32 or _b32(server_key) != key.lower():
            raise InviteError("bad server key (not 32 bytes)")
        if server_key == bytes(32) and not allow_no_curve:
            raise InviteError(
                "the invite's key is all zeros, which would turn encryption off; "
                "ask the host for a fresh invite"
            )
        fp = fp.upper()
        if not _FP.match(fp):
            raise InviteError("bad fingerprint: want four groups of four letters, ABCD-EFGH-…")
        dup = {a for a in addrs if addrs.count(a) > 1}
        if dup:
            raise InviteError(f"address {format_address(next(iter(dup)))} is listed twice")
        (host, port), *rest = addrs
        return cls(host=host, port=port, server_key=server_key, fingerprint=fp, also=tuple(rest))


@dataclass
class Attempt:
    """How trying one address went."""

    address: Address
    ok: bool
    seconds: float
    error: str = ""


def close_monitored(
    sock: zmq.Socket[bytes], mon: zmq.Socket[bytes] | None, *, linger: int = 0
) -> None:
    """Close a socket and the PAIR that reads its monitor (if any), monitoring stopped first;
    `linger` (ms) is the socket's, so a last message may still leave.

    Closing the PAIR while the socket is still monitored lets libzmq's I/O thread block for
    good on the next event it sends to it (libzmq#3575): a failed handshake is followed at
    once by a reconnect and its event, so under load every other attempt sharing the context
    then stalled and the real host went unanswered until the timeout. The peers' sockets
    (`zoo_p2p.net.peer`) close the same way."""
    with contextlib.suppress(Exception):  # already stopped, or the socket is gone
        sock.disable_monitor()
    if mon is not None:
        mon.close(linger=0)
    sock.close(linger=linger)


_Live = dict["zmq.Socket[bytes]", tuple[Address, float, "zmq.Socket[bytes]"]]


def _probe_socket(
    ctx: zmq.Context[zmq.Socket[bytes]], server_key: bytes, client: tuple[bytes, bytes]
) -> tuple[zmq.Socket[bytes], zmq.Socket[bytes]]:
    """A DEALER for one attempt of `probe` (CURVE with `client`'s keys unless the invite has
    no server key), not connected yet, and the monitor of its handshake."""
    import zmq
    from zmq.utils import z85

    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IPV6, 1)
    sock.setsockopt(zmq.RECONNECT_IVL, 200)
    if server_key != bytes(32):
        sock.curve_publickey, sock.curve_secretkey = client
        sock.curve_serverkey = z85.encode(server_key)
    wanted = (
        zmq.EVENT_HANDSHAKE_SUCCEEDED
        | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
        | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
        | zmq.EVENT_HANDSHAKE_FAILED_AUTH
        | zmq.EVENT_CONNECT_RETRIED
    )
    return sock, sock.get_monitor_socket(wanted)


def _probe_events(
    ready: list[tuple[zmq.Socket[bytes], int]],
    live: _Live,
    poller: zmq.Poller,
    notes: dict[Address, str],
    attempts: list[Attempt],
    now: float,
) -> Address | None:
    """Read the monitors that the poll named: the address whose handshake succeeded, if one
    did; a failed handshake (another key) ends its attempt, a refused connect is noted."""
    import zmq
    from zmq.utils.monitor import recv_monitor_message

    for mon, _ in ready:
        addr, t0, sock = live[mon]
        ev = recv_monitor_message(mon)["event"]
        if ev == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            attempts.append(Attempt(addr, True, now - t0))
            return addr
        if ev == zmq.EVENT_CONNECT_RETRIED:
            notes[addr] = "no answer (refused or unreachable)"
            continue
        attempts.append(Attempt(addr, False, now - t0, "answered with another key"))
        poller.unregister(mon)
        del live[mon]
        close_monitored(sock, mon)
    return None


def probe(
    invite: Invite,
    *,
    timeout: float = 3.0,
    stagger: float = 0.25,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Address | None, list[Attempt]]:
    """Try the invite's addresses in turn, the next one `stagger` s after the previous one, and
    return the first where a ZeroMQ handshake with the invite's CURVE key succeeds.

    A handshake (not a bare TCP connection) is what counts: it proves that the host at that
    address holds the invite's CURVE secret, and the host sees an ordinary connection that
    closes, never a failed handshake. Every attempt is over within `timeout` s of the start.
    Returns the winner (None if none answered) and what happened to each address. The loop
    reads `clock` once a turn.
    """
    import zmq

    start = clock()
    ctx = zmq.Context()
    client = zmq.curve_keypair()
    todo = list(invite.addresses)
    live: _Live = {}  # monitor -> (address, started, socket)
    notes: dict[Address, str] = {}
    attempts: list[Attempt] = []
    poller = zmq.Poller()
    next_at = start
    winner: Address | None = None
    try:
        while (todo or live) and winner is None:
            now = clock()
            if now - start >= timeout:
                break
            if todo and now >= next_at:
                addr = todo.pop(0)
                next_at = now + stagger
                sock, mon = _probe_socket(ctx, invite.server_key, client)
                poller.register(mon, zmq.POLLIN)
                live[mon] = (addr, now, sock)
                sock.connect(f"tcp://{format_address(addr)}")
                continue
            wait = timeout - (now - start)
            if todo:
                wait = min(wait, next_at - now)
            ready = poller.poll(max(1, int(wait * 1000)))
            winner = _probe_events(ready, live, poller, notes, attempts, clock())
    finally:
        end = clock()
        for mon, (addr, t0, sock) in live.items():
            if addr != winner:
                attempts.append(Attempt(addr, False, end - t0, notes.get(addr, "no answer")))
            close_monitored(sock, mon)
        attempts += [Attempt(addr, False, 0.0, "not tried") for addr in todo]
        ctx.term()
    return winner, attempts


def first_reachable(invite: Invite, notice: Callable[[str], None]) -> Invite:
    """The invite reordered so that the first address where a handshake succeeds comes first
    (each attempt in the log; `notice`, what the player is told when none answered yet)."""
    winner, attempts = probe(invite)
    for a in attempts:
        log.info("address %s: %s", format_address(a.address), "ok" if a.ok else a.error)
    if winner is None:
        tried = "; ".join(f"{format_address(a.address)} {a.error}" for a in attempts)
        notice(f"no address of the invite answered yet ({tried}); still trying")
        return invite
    return invite.with_addresses([winner, *(a for a in invite.addresses if a != winner)])
