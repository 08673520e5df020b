"""The proof format the mesh sends and keeps: PROTOCOL.md's proofs (`zoo_p2p.protocol.evidence`)
and their sidecar `<log>.proofs` (`zoo_p2p.storage`), behind four small functions.

Until the protocol's evidence module is on main, a minimal implementation of the same format
stands in (a proof is `[1, game_id, chain]`, the chain from seq 1 to the offending entry; the
sidecar is `be32(length) ‖ proof` repeated), so logs written now read the same later.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from zoo_p2p.errors import CheatError, RemoteProtocolError

__all__ = ["Conviction", "check", "keep", "make_proof", "proofs_path", "read_proofs"]

try:  # the protocol's own implementation, once it has landed
    from zoo_p2p.protocol.evidence import (  # type: ignore[import-not-found,unused-ignore]
        Conviction,
        check,
        make_proof,
    )
    from zoo_p2p.storage import (  # type: ignore[attr-defined,unused-ignore]
        append_proof,
        proofs_path,
        read_proofs,
    )

    def keep(log_path: Path, proof: bytes) -> None:
        """Append `proof` to the sidecar next to `log_path` (once)."""
        append_proof(log_path, proof)

except ImportError:  # pragma: no cover - replaced as soon as p1's module is on main
    import msgpack

    from zoo_p2p.protocol.crypto import sha256
    from zoo_p2p.protocol.encoding import decode_entry

    @dataclass(frozen=True, slots=True)
    class Conviction:  # type: ignore[no-redef,unused-ignore]
        """Who a proof convicts and why."""

        seat: int
        reason: str

    def make_proof(held: list[bytes], offending: bytes) -> bytes:  # type: ignore[misc,no-redef,unused-ignore]
        """`[1, game_id, chain]`: the held chain up to the offending entry's seq, then it."""
        e = decode_entry(offending)
        if not 1 <= e.seq <= len(held):
            raise ValueError("the offending entry does not follow the log")
        if e.seq < len(held) and decode_entry(held[e.seq]).seat == e.seat:
            chain = list(held[1 : e.seq + 1])
        else:
            chain = list(held[1 : e.seq])
        chain.append(offending)
        return bytes(msgpack.packb([1, sha256(held[0]), chain], use_bin_type=True))

    def check(proof: bytes, genesis: bytes) -> Conviction:  # type: ignore[misc,no-redef,unused-ignore]
        """Replay the chain on a fresh observer session; the last entry must convict its author."""
        from zoo_p2p.protocol.session import Session

        try:
            version, gid, chain = msgpack.unpackb(proof, raw=False, max_str_len=0)
        except Exception:
            raise RemoteProtocolError("a proof that is not [1, game_id, chain]") from None
        if version != 1 or gid != sha256(genesis) or not chain:
            raise RemoteProtocolError("a proof of another game")
        s = Session(genesis)
        for raw in chain[:-1]:
            s.receive(raw)
        try:
            s.receive(chain[-1])
        except CheatError as exc:
            if exc.seat is None:
                raise RemoteProtocolError("the proof names nobody") from None
            return Conviction(exc.seat, exc.reason)
        raise RemoteProtocolError("the last entry of the proof is valid: it proves nothing")

    def proofs_path(log_path: Path | str) -> Path:  # type: ignore[misc,no-redef,unused-ignore]
        """`<log>.proofs` next to the log."""
        p = Path(log_path)
        return p.with_name(p.name + ".proofs")

    def keep(log_path: Path, proof: bytes) -> None:
        """Append `proof` to the sidecar, fsync'd."""
        fd = os.open(proofs_path(log_path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, struct.pack(">I", len(proof)) + proof)
            os.fsync(fd)
        finally:
            os.close(fd)

    def read_proofs(log_path: Path | str) -> list[bytes]:  # type: ignore[misc,no-redef,unused-ignore]
        """Every proof kept next to the log."""
        path = proofs_path(log_path)
        if not path.exists():
            return []
        data = path.read_bytes()
        out: list[bytes] = []
        while len(data) >= 4:
            (n,) = struct.unpack(">I", data[:4])
            out.append(data[4 : 4 + n])
            data = data[4 + n :]
        return out
