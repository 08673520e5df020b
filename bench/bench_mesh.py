"""What the mesh costs per message it handles (TRANSPORT.md §10.3-§10.4), in one process: a head,
an `ent` of one entry and a `get` answered, each decoded and handled by a seat's `Mesh` (its
direct-link table, `_on_msg`), as when a subscription delivers them; microseconds per message,
and the ratio to decoding the same message alone (`decode_mesh`, the raw cost of the same run).

    python bench/bench_mesh.py [--code DIR] [--n N]

`--code DIR` runs another checkout (the code before a change, for a before/after in the same
session: run both, alternating). The owner is a stub (its `deliver` appends nothing), so what is
measured is the mesh alone, not the session. CPU time (`process_time`): other jobs on the machine
cost it less than wall time would. Run it under `nice`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Any

ap = argparse.ArgumentParser()
ap.add_argument("--code", default=str(Path(__file__).resolve().parents[1]))
ap.add_argument("--n", type=int, default=20000)
A = ap.parse_args()
sys.path.insert(0, A.code)

import zmq  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from zoo_p2p.net import mesh  # noqa: E402
from zoo_p2p.net.messages import decode_mesh  # noqa: E402
from zoo_p2p.net.peer import raw_public  # noqa: E402
from zoo_p2p.protocol.events import SeatInfo  # noqa: E402
from zoo_p2p.protocol.session import Session  # noqa: E402
from zoo_p2p.rules import Team, Variant  # noqa: E402


class Owner:
    """The least a Mesh needs from its peer."""

    def __init__(self, key: Ed25519PrivateKey, session: Session) -> None:
        self.key = key
        self.session: Session | None = session
        self.poller = zmq.Poller()
        self.stopped: Any = None

    def deliver(
        self, start: int, entries: list[bytes], source: str, by: int | None = None
    ) -> int | None:
        return None

    def may_check(self, seat: int) -> bool:
        return True

    def checked(self, seat: int, n: int = 1) -> None:
        pass

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        pass

    def mesh_notice(self, text: str) -> None:
        pass

    def mesh_log_path(self) -> Path | None:
        return None

    def mesh_vote(self, seat: int, data: bytes) -> None:
        pass

    def mesh_resign(self, seat: int, data: bytes) -> None:
        pass

    def mesh_stop(self, verdict: Any) -> None:
        pass


def per_message(m: Any, data: bytes, n: int, step: float) -> float:
    """Microseconds to decode and handle `data` from seat 0, `n` times, the clock at `step` s
    apart (a `get` is answered at most 40 times a second: a second apart, every one is)."""
    now = time.monotonic()  # (a bucket of the code before bucket.py started at the real clock)
    t0 = time.process_time()
    for _ in range(n):
        m._on_msg(0, decode_mesh(data), now)
        now += step
    return (time.process_time() - t0) / n * 1e6


def raw(data: bytes, n: int) -> float:
    """Microseconds to decode `data` alone."""
    t0 = time.process_time()
    for _ in range(n):
        decode_mesh(data)
    return (time.process_time() - t0) / n * 1e6


def main() -> None:
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    seats = [SeatInfo(f"p{i}", raw_public(k), Team(i)) for i, k in enumerate(keys)]
    genesis = Session.create_genesis(keys[0], seats, Variant.STANDARD, 0, os.urandom(32))
    oa, ob = (Owner(k, Session(genesis, key=k, seed=os.urandom(32))) for k in keys)
    a = mesh.Mesh(oa, bind="127.0.0.1", advertise="127.0.0.1")
    b = mesh.Mesh(ob, bind="127.0.0.1", advertise="127.0.0.1")
    try:
        b.on_tunnel(0, a.card_msg)
        b.outgoing = lambda data: b""  # type: ignore[method-assign]  # (dropped)
        assert oa.session is not None
        (commit,) = oa.session.take_outgoing()
        head = [0, hashlib.sha256(genesis).digest()]
        msgs = {
            "head": (mesh.pack("head", h=head, up=[True, True]), 1e-4),
            "ent": (mesh.pack("ent", **{"from": 1, "e": [commit], "h": [1, bytes(32)]}), 1e-4),
            "get": (mesh.pack("get", **{"from": 0, "n": 1, "to": 1}), 1.0),
        }
        print(f"code: {Path(mesh.__file__).parents[2]}")
        for name, (data, step) in msgs.items():
            per_message(b, data, A.n // 10, step)  # warm up
            # the best of 5, each against the raw cost measured just before (a busy machine)
            best = min((per_message(b, data, A.n, step), raw(data, A.n)) for _ in range(5))
            us, base = best
            print(f"{name}: {us:.2f} us a message, decode alone {base:.2f} us", end="")
            print(f", ratio {us / base:.2f}")
    finally:
        a.close()
        b.close()


if __name__ == "__main__":
    main()
