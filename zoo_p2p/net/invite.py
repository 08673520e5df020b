"""The invite string: one copy-paste that carries the host's address, CURVE key and fingerprint.

Format (protocol/TRANSPORT.md): ``zoo://HOST:PORT/KEY/FINGERPRINT`` where KEY is the host's
32-byte CURVE server public key in lowercase unpadded base32 (52 characters) and FINGERPRINT the
host's Ed25519 identity fingerprint as printed by ``zoo`` (letters, digits and dashes).

>>> inv = Invite(host="127.0.0.1", port=4040, server_key=bytes(32), fingerprint="ab12-cd34")
>>> Invite.parse(str(inv)) == inv
True
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

from zoo_p2p.errors import ZooError

SCHEME = "zoo://"
_FP = re.compile(r"^[0-9A-Za-z][0-9A-Za-z-]{0,63}$")
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[0-9A-Za-z.-]{1,253})$")


class InviteError(ZooError, ValueError):
    """Text that is not an invite; the message says what is wrong."""


def _b32(key: bytes) -> str:
    return base64.b32encode(key).decode("ascii").rstrip("=").lower()


def _unb32(text: str) -> bytes:
    text = text.upper()
    return base64.b32decode(text + "=" * (-len(text) % 8))


@dataclass(frozen=True, kw_only=True)
class Invite:
    """Where the host listens, its CURVE server key (raw 32 bytes) and its identity fingerprint."""

    host: str
    port: int
    server_key: bytes
    fingerprint: str

    def __str__(self) -> str:
        return f"{SCHEME}{self.host}:{self.port}/{_b32(self.server_key)}/{self.fingerprint}"

    @property
    def endpoint(self) -> str:
        """The ZeroMQ endpoint to connect to."""
        return f"tcp://{self.host}:{self.port}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Read an invite string (surrounding spaces and quotes are forgiven)."""
        text = text.strip().strip("'\"<>")
        if not text.startswith(SCHEME):
            raise InviteError(f"an invite starts with {SCHEME} (got {text[:20]!r})")
        parts = text[len(SCHEME) :].split("/")
        if len(parts) != 3:
            raise InviteError("an invite looks like zoo://HOST:PORT/KEY/FINGERPRINT")
        addr, key, fp = parts
        host, sep, port_text = addr.rpartition(":")
        if not sep or not _HOST.match(host) or not port_text.isdigit():
            raise InviteError(f"bad address {addr!r} (want HOST:PORT)")
        port = int(port_text)
        if not 0 < port < 65536:
            raise InviteError(f"bad port {port}")
        try:
            server_key = _unb32(key)
        except ValueError:
            raise InviteError("bad server key (not base32)") from None
        if len(server_key) != 32:
            raise InviteError("bad server key (not 32 bytes)")
        if not _FP.match(fp):
            raise InviteError("bad fingerprint")
        return cls(host=host, port=port, server_key=server_key, fingerprint=fp)
