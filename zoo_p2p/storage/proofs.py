"""The evidence sidecar of a log: `<log>.proofs`, proofs of cheating stored beside it
(PROTOCOL.md §9.3)."""

from __future__ import annotations

import errno
import struct
from pathlib import Path

from zoo_p2p import files
from zoo_p2p.errors import FileError, LogError
from zoo_p2p.protocol.evidence import MAX_PROOF_SIZE

PROOFS_SUFFIX = ".proofs"
MAX_PROOFS = 16
_LEN = struct.Struct(">I")


def proofs_path(log_path: Path | str) -> Path:
    """The evidence sidecar of a log: `<log>.proofs` next to it (PROTOCOL.md §9.3)."""
    p = Path(log_path)
    return p.with_name(p.name + PROOFS_SUFFIX)


def read_proofs(log_path: Path | str) -> list[bytes]:
    """The proofs stored next to a log (none if there is no sidecar).

    The sidecar is `be32(length) ‖ proof` repeated; reading stops at MAX_PROOFS proofs, at a
    length over MAX_PROOF_SIZE, or at a torn last record (all ignored, nothing raised): a proof
    is re-checked by whoever uses it, so a damaged sidecar can only lose evidence, never forge it.
    Raises LogError (a FileError) only if the sidecar exists but cannot be read as a regular
    file: a link is refused, never followed.
    """
    path = proofs_path(log_path)
    try:
        f = files.open_read(path)
    except FileError as exc:
        if exc.code == errno.ENOENT:
            return []
        raise
    out: list[bytes] = []
    with f:
        while len(out) < MAX_PROOFS:
            head = f.read(_LEN.size)
            if len(head) < _LEN.size:
                break
            (size,) = _LEN.unpack(head)
            if not 0 < size <= MAX_PROOF_SIZE:
                break
            body = f.read(size)
            if len(body) < size:
                break
            out.append(body)
    return out


def append_proof(log_path: Path | str, proof: bytes) -> bool:
    """Add a proof to the log's sidecar; False if already held or full.

    The sidecar is rewritten whole (`files.write_atomic`): a crash leaves the proofs held
    before or after, never a torn record that the next proof would be appended behind. The
    caller checks the proof first (`zoo_p2p.protocol.evidence.check`); this only stores it.
    """
    if not 0 < len(proof) <= MAX_PROOF_SIZE:
        raise LogError(f"refusing to store a proof of {len(proof)} bytes")
    held = read_proofs(log_path)
    if proof in held or len(held) >= MAX_PROOFS:
        return False
    path = proofs_path(log_path)
    files.make_dirs(path.parent, verb="write", target=path)
    files.write_atomic(path, b"".join(_LEN.pack(len(p)) + p for p in [*held, proof]))
    return True
