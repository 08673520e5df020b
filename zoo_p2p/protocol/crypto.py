"""Cryptographic primitives of the protocol: SHA-256, HMAC-SHA256, Ed25519 helpers, fingerprints.

Everything goes through `cryptography` (OpenSSL); nothing here reads a clock or global randomness.
"""

from __future__ import annotations

import base64
import functools

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "InvalidSignature",
    "check_public_key",
    "fingerprint",
    "hmac_sha256",
    "private_key_from_bytes",
    "public_key_bytes",
    "public_key_from_bytes",
    "sha256",
    "verify_signature",
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


def verify_signature(public_key: Ed25519PublicKey, sig: bytes, message: bytes) -> bool:
    """The protocol's Ed25519 verification (PROTOCOL.md §2.4): RFC 8032 §5.1.7 cofactorless, as
    OpenSSL implements it (S < L; R compared byte for byte with the canonical encoding of
    [S]B − [k]A). It does not check the key: keys are checked once, by `check_public_key`, where
    they enter (the genesis, a hello). tests/protocol/test_ed25519_vectors.py pins it against
    Wycheproof and the speccheck cases."""
    try:
        public_key.verify(sig, message)
    except InvalidSignature:
        return False
    return True


def fingerprint(public_key: bytes) -> str:
    """A short fingerprint of a raw public key to compare aloud: 16 base32 chars in 4 groups.

    >>> fingerprint(bytes(32))
    'IV7F-M2JN-KPTH-JXDE'
    """
    digest = sha256(FINGERPRINT_DOMAIN + public_key)
    text = base64.b32encode(digest[:10]).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


# ---------------------------------------------------------------------- public key validation
# Curve25519 in twisted Edwards form -x² + y² = 1 + d·x²·y² over GF(p) (RFC 8032 §5.1).
_P = 2**255 - 19
_D = (-121665 * pow(121666, -1, _P)) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(raw: bytes) -> tuple[int, int]:
    """RFC 8032 §5.1.3 point decoding, strict: y < p, and no `-0` (x = 0 with the sign bit)."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    sign = raw[31] >> 7
    if y >= _P:
        raise ValueError("non-canonical encoding (y is not below p)")
    u = (y * y - 1) % _P
    v = (_D * y * y + 1) % _P
    x = (u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P)) % _P
    if (v * x * x - u) % _P != 0:
        if (v * x * x + u) % _P != 0:
            raise ValueError("not a point of the curve")
        x = (x * _SQRT_M1) % _P
    if x == 0 and sign == 1:
        raise ValueError("non-canonical encoding (x = 0 with the sign bit set)")
    if x & 1 != sign:
        x = _P - x
    return x, y


def _is_small_order(x: int, y: int) -> bool:
    """True when [8](x, y) is the identity: three doublings in projective coordinates."""
    X, Y, Z = x, y, 1
    for _ in range(3):  # dbl-2008-bbjlp for a = -1
        B = (X + Y) * (X + Y) % _P
        C = X * X % _P
        D = Y * Y % _P
        E = -C % _P
        F = (E + D) % _P
        J = (F - 2 * Z * Z) % _P
        X, Y, Z = (B - C - D) * J % _P, F * (E - D) % _P, F * J % _P
    return X == 0 and Y == Z


@functools.lru_cache(maxsize=1024)
def _key_problem(raw: bytes) -> str | None:
    try:
        x, y = _decode_point(raw)
    except ValueError as exc:
        return str(exc)
    if _is_small_order(x, y):
        return "a small-order point (anyone can sign for it)"
    return None


def check_public_key(raw: bytes) -> None:
    """Refuse an Ed25519 public key that anyone could sign for, or that has two encodings.

    Raises ValueError unless `raw` is 32 bytes encoding, canonically (y < p, no negative zero),
    a curve point whose order is not a divisor of 8 (the identity and the other seven small-order
    points are refused). PROTOCOL.md §2.4; used for the genesis seats and the net hello.
    """
    if type(raw) is not bytes or len(raw) != 32:
        raise ValueError("a public key is 32 bytes")
    problem = _key_problem(raw)  # pure, so cached: the same players' keys come back
    if problem is not None:
        raise ValueError(problem)
