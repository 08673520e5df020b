"""What one hostile seat can cost a peer's CPU (TRANSPORT.md §11, issue 18): CPU seconds per
second of flood, on the host and on a joiner, for the floods that make a peer check signatures.

Each flood is fed through the peer's real handler for what arrives on a link (the host's
`_on_frames` with the frames a ROUTER hands it; the joiner's `_on_msg` after the unpack of its
DEALER loop) as fast as one link may send it: `--rate` messages per simulated second (default
2000, the per-link message cap), on a fake clock, for `--seconds` simulated seconds; CPU is this
process's. The floods, by a seated player who holds its own key:

- held_forks: 106 entries a message at seqs the peer holds, each on the right predecessor with
  a signature that fails (issue 18: 600 of these cost the host 9.3 s);
- new_bad: 200 copies a message of the next entry with a signature that fails;
- held_other: entries at seqs other seats hold, signed by the flooder's own key (valid);
- copies: the whole log the peer holds, again and again (a compare each);
- votes: claim votes about the head with signatures that fail (host only);
- hellos: the seat's own valid hello again and again, `have` 0 (host only: each was answered
  with the whole log);
- proofs: a "proof" whose chain is the whole valid log and whose last entry is valid too (it
  proves nothing only after a replay of every entry), tunnelled over the host link (host only;
  checked at most once a second per seat, and charged to its budget by its chain's length).

A flood that costs more than --max-cpu seconds stops early; its figure is then per simulated
second covered. The raw Ed25519 verify of the same run is the unit (`raw_verify_us`). Run the
old code with `--code DIR` (a checkout of it) for the figures before. Pure CPU: run under `nice`.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import types
from pathlib import Path
from typing import Any

ap = argparse.ArgumentParser()
ap.add_argument("--code", default=str(Path(__file__).resolve().parents[1]))
ap.add_argument("--rate", type=float, default=2000.0)
ap.add_argument("--seconds", type=float, default=3.0)
ap.add_argument("--max-cpu", type=float, default=4.0)
ap.add_argument("--steps", type=int, default=140)
A = ap.parse_args()
sys.path.insert(0, A.code)
os.environ["ZOO_MESH"] = "0"  # the direct links are not what is measured (they share deliver)

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from zoo_p2p.driver import NullDriver  # noqa: E402
from zoo_p2p.net import mesh as mesh_mod  # noqa: E402
from zoo_p2p.net import peer, wire  # noqa: E402
from zoo_p2p.net.invite import Invite  # noqa: E402
from zoo_p2p.protocol.encoding import decode_entry, encode_payload, sign_entry  # noqa: E402
from zoo_p2p.protocol.session import Session  # noqa: E402
from zoo_p2p.protocol.simulate import setup_game, step  # noqa: E402
from zoo_p2p.rules import Variant  # noqa: E402


def _host_msg(data: bytes) -> Any:
    """The joiner's `_on_msg` argument: a typed message since net/messages.py, a map before."""
    if hasattr(peer.Joiner, "_from_host"):
        from zoo_p2p.net.messages import decode

        return decode(data)
    return wire.unpack(data)


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


CLOCK = Clock()
peer.time = types.SimpleNamespace(monotonic=CLOCK, time=time.time)  # type: ignore[assignment]
mesh_mod.time = peer.time  # type: ignore[attr-defined]


class Frame:
    """What the ROUTER hands the host for one frame (no CURVE: no User-Id is read)."""

    def __init__(self, data: bytes) -> None:
        self.bytes = data

    def get(self, what: Any) -> Any:
        raise AttributeError(what)


class QuietHost(peer.Host):
    def _send(self, rid: bytes, data: bytes) -> bool:
        return True


def spoiled(raw: bytes) -> bytes:
    b = bytearray(raw)
    b[-3] ^= 1
    return bytes(b)


def game() -> Any:
    rng = random.Random("zoo-p2p bench flood")
    g = setup_game(3, Variant.STANDARD, rng)
    for _ in range(A.steps):
        if not step(g, rng):
            break
    return g


G = game()
LOG = G.entries
# the host and the joiner hold the game up to an entry of the flooder's (seat 2, index 1)
HAVE = max(i for i in range(len(LOG) - 30, len(LOG)) if decode_entry(LOG[i]).seat == 1)
# for votes: a length at which seat 3 (index 2) holds the floor, so seat 2 may vote against it
VOTE_AT = max(i for i in range(len(LOG) - 30, len(LOG)) if decode_entry(LOG[i]).seat == 2)


def host(upto: int = HAVE) -> Any:
    s = Session(LOG[0], key=G.keys[0], seed=G.seeds[0], nonce=G.nonces[0])
    for raw in LOG[1:upto]:
        s.receive(raw)
    while s.take_outgoing():
        pass
    h = QuietHost(
        make_genesis=lambda seats: b"", fingerprint=lambda pub: "x",
        options=peer.HostOptions(players=3, curve=False), key=G.keys[0], driver=NullDriver(),
        make_session=Session, open_log=lambda s: None, session=s,
    )  # fmt: skip
    h.clock = CLOCK
    return h


def joiner() -> Any:
    s = Session(LOG[0], key=G.keys[2], seed=G.seeds[2], nonce=G.nonces[2])
    for raw in LOG[1:HAVE]:
        s.receive(raw)
    while s.take_outgoing():
        pass
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    j = peer.Joiner(
        inv, key=G.keys[2], driver=NullDriver(), make_session=Session,
        open_log=lambda s: None, fingerprint=lambda pub: "x",
        options=peer.JoinOptions(curve=False), session=s,
    )  # fmt: skip
    j.clock = CLOCK
    j.host_pub = s.seats[0].public_key
    return j


def seat_link(h: Any) -> bytes:
    """A seated link of the flooder (seat 2) on the host, as after its hello."""
    rid = b"\x00flooder"
    pub = h.session.seats[1].public_key
    conn = h.conns[rid] = peer._Conn(rid, b"", pub, 1, CLOCK.t)
    seat_msgs = getattr(h, "_seat_msgs", None)  # (as its hello does; older code: none)
    if seat_msgs is not None:
        conn.msgs = seat_msgs.setdefault(1, conn.msgs)
    h.seat_rid[1] = rid
    return rid


def flood(kind: str, s: Session) -> list[bytes]:
    """The messages of one flood (sent round and round)."""
    if kind == "held_forks":
        return [wire.pack("entries", **{"from": 1, "e": [spoiled(x) for x in LOG[1:107]]})]
    if kind == "new_bad":
        return [wire.pack("entries", **{"from": HAVE, "e": [spoiled(LOG[HAVE])] * 200})]
    if kind == "held_other":  # every such entry, one a message (old code: a check each)
        other = [x for x in LOG[1:HAVE] if decode_entry(x).seat != 1]
        return [
            wire.pack("entries", **{"from": decode_entry(x).seq, "e": [own_at(x)]}) for x in other
        ]
    if kind == "proofs":
        from zoo_p2p.net import mesh
        from zoo_p2p.protocol.evidence import make_proof

        proof = make_proof(LOG[:HAVE], LOG[HAVE])
        return [wire.pack("mesh", m=mesh.pack("proof", p=proof))]
    if kind == "copies":
        return [wire.pack("entries", **{"from": 1, "e": LOG[1:HAVE]})]
    if kind == "votes":
        return [wire.pack("claim", vote=bad_vote(s))]
    return [hello_msg()]


def own_at(raw: bytes) -> bytes:
    """Seat 2's own entry (validly signed) at `raw`'s seq, on `raw`'s predecessor."""
    e = decode_entry(raw)
    return sign_entry(G.keys[1], encode_payload(e.seq, e.prev, 1, e.kind, e.body))


def bad_vote(s: Session) -> bytes:
    import msgpack

    f = s.floor
    assert f is not None and f.seat != 1
    return bytes(msgpack.packb([f.seat, len(s), 1, bytes(64)]))


def hello_msg() -> bytes:
    from zoo_p2p.net.peer import raw_public

    key = G.keys[1]
    h = wire.Hello(
        name="flooder", team=None, pub=raw_public(key), curve=bytes(32), game=None, have=0
    )
    sig = key.sign(wire.hello_signed_bytes(peer.NO_CURVE, h))
    return wire.pack(
        "hello", v=1, name="flooder", team=None, pub=h.pub, curve=bytes(32), game=None,
        have=0, sig=sig,
    )  # fmt: skip


def run(side: str, kind: str) -> tuple[float, float]:
    """CPU seconds per simulated second of one flood: in its first second, and after it."""
    p = (host(VOTE_AT if kind == "votes" else HAVE)) if side == "host" else joiner()
    try:
        msgs = flood(kind, p.session)
        if kind == "proofs":  # (its mesh checks proofs; the others need none)
            p._start_mesh()
        rid = seat_link(p) if side == "host" else b""
        dt = 1.0 / A.rate
        n = int(A.seconds * A.rate)
        cpu0 = time.process_time()
        first: float | None = None
        done = 0
        for i in range(n):
            if i == int(A.rate):
                first = time.process_time() - cpu0
            CLOCK.t += dt
            p.now = CLOCK.t  # (the loop turn's time: what the core reads since issue 19)
            data = msgs[i % len(msgs)]
            if side == "host":  # (the ROUTER loop's call)
                p._on_frames([Frame(rid), Frame(data)])
                if rid not in p.conns:  # cut off: it says hello again on a new link at once
                    seat_link(p)
            else:  # what the DEALER loop (`_drain`) does with each message, older code too
                rate = getattr(p, "_host_rate", None)
                dry = getattr(p, "dry", None)
                if (rate is None or rate.take(CLOCK.t)) and (dry is None or not dry(0)):
                    p._on_msg(_host_msg(data))
            done += 1
            if done % 50 == 0 and time.process_time() - cpu0 > A.max_cpu:
                break
        cpu = time.process_time() - cpu0
        if first is None:  # (it stopped within its first second)
            return cpu / (done * dt), cpu / (done * dt)
        return first, (cpu - first) / ((done - A.rate) * dt)
    finally:
        p._host_gone = True  # (a joiner would wait for the host's farewell)
        p.close()


def raw_verify_us() -> float:
    k = Ed25519PrivateKey.generate()
    pub = k.public_key()
    data = os.urandom(200)
    sig = k.sign(data)
    best = []
    for _ in range(5):  # CPU time, as the floods are measured (the machine may be busy)
        t = time.process_time()
        for _ in range(1000):
            pub.verify(sig, data)
        best.append((time.process_time() - t) / 1000 * 1e6)
    return min(best)


def main() -> None:
    unit = raw_verify_us()
    print(f"raw_verify_us: {unit:.1f}")
    print(f"log_entries: {HAVE}")
    print(f"rate_msgs_per_s: {A.rate:g}")
    worst = {"host": 0.0, "joiner": 0.0}
    for side, kinds in (
        ("host", ("held_forks", "new_bad", "held_other", "copies", "votes", "hellos", "proofs")),
        ("joiner", ("held_forks", "new_bad", "held_other", "copies")),
    ):
        for kind in kinds:
            first, then = run(side, kind)
            worst[side] = max(worst[side], then)
            print(f"{side} {kind} first second cpu_s: {first:.4f}")
            print(f"{side} {kind} then cpu_s_per_s: {then:.4f}")
            print(f"{side} {kind} then raw_verifies_per_s: {then / unit * 1e6:.0f}")
    for side, cps in worst.items():
        print(f"{side} worst then cpu_s_per_s: {cps:.4f}")
        print(f"{side} worst then raw_verifies_per_s: {cps / unit * 1e6:.0f}")


if __name__ == "__main__":
    main()
