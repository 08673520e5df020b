"""Cryptographic primitives of the protocol: SHA-256, HMAC-SHA256, Ed25519 helpers, fingerprints.

Everything goes through `cryptography` (OpenSSL); nothing here reads a clock or global randomness.
"""

from __future__ import annotations

import base64

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "InvalidSignature",
    "fingerprint",
    "hmac_sha256",
    "private_key_from_bytes",
    "public_key_bytes",
    "public_key_from_bytes",
    "sha256",
]

_SHA256 = hashes.SHA256()
FINGERPRINT_DOMAIN = b"zoo-p2p/v1/fingerprint\x00"


def sha256(data: bytes) -> bytes:
    """Return the SHA-256 digest of `data`."""
    h = hashes.Hash(_SHA256)
    h.update(data)
    return h.finalize()


def hmac_sha256(key: bytes, data: bytes) -> bytes:
    """Return HMAC-SHA256(key, data)."""
    h = hmac.HMAC(key, _SHA256)
    h.update(data)
    return h.finalize()


def public_key_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """Return the raw 32-byte Ed25519 public key of a private or public key."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_from_bytes(raw: bytes) -> Ed25519PublicKey:
    """Load a raw 32-byte Ed25519 public key (raises ValueError if malformed)."""
    return Ed25519PublicKey.from_public_bytes(raw)


def private_key_from_bytes(raw: bytes) -> Ed25519PrivateKey:
    """Load a raw 32-byte Ed25519 private key (seed form)."""
    return Ed25519PrivateKey.from_private_bytes(raw)


def fingerprint(public_key: bytes) -> str:
    """A short fingerprint of a raw public key to compare aloud: 16 base32 chars in 4 groups.

    >>> fingerprint(bytes(32))
    'IV7F-M2JN-KPTH-JXDE'
    """
    digest = sha256(FINGERPRINT_DOMAIN + public_key)
    text = base64.b32encode(digest[:10]).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))
