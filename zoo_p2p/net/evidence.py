"""The proofs the mesh sends and keeps: PROTOCOL.md's proof format (`zoo_p2p.protocol.evidence`)
and its sidecar `<log>.proofs` (`zoo_p2p.storage`), in one place for the network layer."""

from __future__ import annotations

from pathlib import Path

from zoo_p2p.protocol.evidence import Conviction, ProofError, check, convicted_by, make_proof
from zoo_p2p.storage import append_proof, proofs_path, read_proofs

__all__ = [
    "Conviction",
    "ProofError",
    "check",
    "convicted_by",
    "keep",
    "make_proof",
    "proofs_path",
    "read_proofs",
]


def keep(log_path: Path, proof: bytes) -> None:
    """Append `proof` to the sidecar next to `log_path` (a proof already there is not doubled)."""
    append_proof(log_path, proof)
