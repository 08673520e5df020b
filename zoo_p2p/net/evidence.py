"""The proofs the mesh sends and keeps: PROTOCOL.md's proof format (`zoo_p2p.protocol.evidence`)
and its sidecar `<log>.proofs` (`zoo_p2p.storage`), in one place for the network layer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zoo_p2p.errors import ZooError
from zoo_p2p.protocol.evidence import Conviction, ProofError, check, convicted_by, make_proof
from zoo_p2p.storage import append_proof, proofs_path, read_proofs

__all__ = [
    "Conviction",
    "ProofError",
    "check",
    "convicted_by",
    "keep",
    "keep_beside",
    "make_proof",
    "proofs_path",
    "read_proofs",
]


def keep(log_path: Path, proof: bytes) -> None:
    """Append `proof` to the sidecar next to `log_path` (a proof already there is not doubled)."""
    append_proof(log_path, proof)


def keep_beside(log_path: Path | None, proof: bytes, notice: Callable[[str], None]) -> Path | None:
    """Keep `proof` next to our log (`keep`): where it is kept, or None when there is no log
    or it cannot be written (then `notice` says why: the game stops all the same)."""
    if log_path is None:
        return None
    try:
        keep(log_path, proof)
    except (OSError, ZooError) as exc:
        notice(f"could not save the proof next to the log: {exc}")
        return None
    saved: Path = proofs_path(log_path)
    return saved
