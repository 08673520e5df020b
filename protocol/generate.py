"""Regenerate `replays/*.zoolog` and `protocol/vectors/*.json` (deterministic, byte for byte).

Run from the repository root:  .venv/bin/python protocol/generate.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from zoo_p2p.net.card_samples import card_vectors  # noqa: E402
from zoo_p2p.protocol.claim_samples import claim_vectors  # noqa: E402
from zoo_p2p.protocol.liveness_samples import (  # noqa: E402
    liveness_logs,
    liveness_vectors,
    stand_in_vectors,
)
from zoo_p2p.protocol.playon_samples import play_on_logs  # noqa: E402
from zoo_p2p.protocol.redeal_samples import redeal_vectors  # noqa: E402
from zoo_p2p.protocol.samples import all_vectors, sample_logs  # noqa: E402
from zoo_p2p.storage import write_log  # noqa: E402


def main() -> None:
    """Write every sample log and vector file."""
    for name, entries in {**sample_logs(), **liveness_logs(), **play_on_logs()}.items():
        write_log(ROOT / "replays" / name, entries)
        print(f"replays/{name}: {len(entries)} entries")
    for name, content in {
        **all_vectors(),
        "liveness.json": liveness_vectors(),
        "stand-in.json": stand_in_vectors(),
        "claims.json": claim_vectors(),
        "cards.json": card_vectors(),
        "redeal.json": redeal_vectors(),
    }.items():
        path = ROOT / "protocol" / "vectors" / name
        path.write_text(json.dumps(content, indent=1) + "\n")
        print(f"protocol/vectors/{name}")


if __name__ == "__main__":
    main()
