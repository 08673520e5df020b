"""Fuzzing live peers (issue 8): random and mutated messages of every kind thrown at a running
host (from strangers and from a second link of a seated player) and at a running joiner (from
a host that plays honestly but also sends garbage). Bounded in time; 0 crashes; the game that
was not attacked finishes and every log verifies."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import zmq
from zmq.utils import z85

from tests.net.harness import START, Procs, audit_file, log_len, wait_for
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import Host, HostOptions, raw_public
from zoo_p2p.storage import load_or_create_identity, read_log

FUZZ_SECONDS = 8.0  # each side's bound

_STRINGS = [
    "",
    "[/]",
    "[link=http://x]host[/link]",
    "\x1b[31mred",
    "a\u202eb",
    "x" * 40,
    "x" * 300,
    "bob",
    "connected",
    "lost",
    "left",
    "\ud800" if False else "\u0000",
    "IV7F-M2JN-KPTH-JXDE",
]


def _value(rng: random.Random, types: tuple[type, ...]) -> Any:
    want = rng.choice(types) if rng.random() < 0.8 else rng.choice([int, str, bytes, list, bool])
    if want is type(None):
        return None
    if want is bool:
        return rng.random() < 0.5
    if want is int:
        return rng.choice([0, 1, 2, 3, 4, 5, 7, -1, 2**31, 2**32 - 1, 2**32, rng.randrange(10**6)])
    if want is str:
        return rng.choice(_STRINGS)
    if want is bytes:
        return rng.randbytes(rng.choice([0, 1, 31, 32, 33, 64, 65, 200]))
    if want is list:
        n = rng.choice([0, 1, 2, 3, 4, 5, 9])
        pick = rng.random()
        if pick < 0.3:
            return [rng.random() < 0.5 for _ in range(n)]
        if pick < 0.5:
            return [rng.choice(["connected", "lost", "left", "x", 3]) for _ in range(n)]
        if pick < 0.7:
            return [
                [rng.choice(_STRINGS), rng.choice(_STRINGS), rng.choice([0, 1, 2, 3, 4, -1, True])]
                for _ in range(n)
            ]
        if pick < 0.85:
            return [rng.choice([0, 1, 5, 2**40]) for _ in range(n)]
        return [rng.randbytes(rng.randrange(1, 300)) for _ in range(n)]
    return None


def fuzz_frame(rng: random.Random, kinds: list[str], samples: list[bytes]) -> bytes:
    """One hostile frame: random bytes, a random message of a known kind, or a mutated sample."""
    r = rng.random()
    if r < 0.1:
        return rng.randbytes(rng.randrange(0, 2000))
    if r < 0.6 or not samples:
        kind = rng.choice(kinds)
        schema = wire._SCHEMA[kind]
        msg: dict[str, Any] = {"t": kind}
        for key, types in schema.items():
            if rng.random() > 0.03:
                msg[key] = _value(rng, types)
        if rng.random() < 0.05:
            msg["extra"] = 1
        return bytes(msgpack.packb(msg, use_bin_type=True))
    data = bytearray(rng.choice(samples))
    for _ in range(rng.randrange(1, 4)):
        op = rng.random()
        if op < 0.5 and data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif op < 0.7 and data:
            del data[rng.randrange(len(data)) :]
        elif op < 0.85:
            data += rng.randbytes(rng.randrange(1, 20))
        else:
            data = data + data
    return bytes(data)


def _samples(log_entries: list[bytes]) -> list[bytes]:
    e = log_entries[1:6] or [b"\x90"]
    return [
        wire.pack("entries", **{"from": 1, "e": e}),
        wire.pack("sync", **{"from": 0}),
        wire.pack("presence", up=[True, False]),
        wire.pack("seats", state=["connected", "lost"], lost=[0, 3]),
        wire.pack("lobby", seats=[["a", "IV7F-M2JN-KPTH-JXDE", 0]], need=2),
        wire.pack("welcome", v=1, pub=bytes(32), sig=bytes(64), seat=1),
        wire.pack("done", have=3),
        wire.pack("knock", v=1),
        wire.pack("ping"),
        wire.pack("mesh", m=b"\x81\xa1t\xa4card"),
    ]


def _curve_dealer(
    ctx: zmq.Context[zmq.Socket[bytes]], inv: Invite
) -> tuple[zmq.Socket[bytes], bytes]:
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.sndhwm = 100
    pub, sec = zmq.curve_keypair()
    s.curve_publickey, s.curve_secretkey = pub, sec
    s.curve_serverkey = z85.encode(inv.server_key)
    s.connect(inv.endpoint)
    return s, z85.decode(pub)


def _hello(inv: Invite, key: Any, curve: bytes, name: str) -> bytes:
    h = wire.Hello(name=name, team=None, pub=raw_public(key), curve=curve, game=None, have=0)
    sig = key.sign(wire.hello_signed_bytes(inv.server_key, h))
    return wire.pack(
        "hello", v=1, name=name, team=None, pub=h.pub, curve=curve, game=None, have=0, sig=sig
    )


def _no_crash(text: str) -> None:
    assert "Traceback" not in text, text
    assert "made us fail" not in text, text


def test_fuzz_a_live_host(procs: Procs) -> None:
    """Strangers and a second link of a seated player send random and mutated messages of
    every kind while the game runs: the host drops them all and the game ends, verified."""
    host, invite_text = procs.host(
        "--players", "2", "--bot", "greedy", "--delay", "0.1", "--verbose"
    )
    inv = Invite.parse(invite_text)
    key_path = procs.tmp / "bot1.pem"
    key = load_or_create_identity(key_path)
    bot = procs.bot(invite_text, "bot1", "--identity", str(key_path), "--delay", "0.1")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 3, START, "the game to start")
    rng = random.Random(8)
    kinds = sorted(wire._SCHEMA)
    sent = 0
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        seated, curve = _curve_dealer(ctx, inv)
        seated.send(_hello(inv, key, curve, "bot1"))
        strangers = [_curve_dealer(ctx, inv)[0] for _ in range(3)]
        end = time.monotonic() + FUZZ_SECONDS
        samples = _samples(read_log(procs.tmp / "host.zoolog").entries)
        while time.monotonic() < end and host.poll() is None:
            for s in [seated, *strangers]:
                try:
                    s.send(fuzz_frame(rng, kinds, samples), flags=zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    pass
                while s.poll(0):
                    s.recv()
            if rng.random() < 0.05:  # now and then a stranger comes back as someone new
                i = rng.randrange(len(strangers))
                strangers[i].close(linger=0)
                strangers[i] = _curve_dealer(ctx, inv)[0]
            time.sleep(0.002)  # pacing the fuzzer, not synchronising
    finally:
        ctx.destroy(linger=0)
    print(f"FUZZ-HOST sent={sent} hostile frames")
    assert sent > 500
    assert procs.wait(bot, "bot1", timeout=60) == 0, procs.text("bot1")
    assert procs.wait(host, "host", timeout=30) == 0, procs.text("host")
    _no_crash(procs.text("host"))
    assert procs.log("bot1") == procs.log("host")
    assert audit_file(procs.tmp / "host.zoolog").ok  # type: ignore[attr-defined]


H = TypeVar("H", bound=Host)


def _host_here(cls: type[H], tmp: Path, *, players: int, delay: float) -> H:
    """A host of class `cls` in this process on 127.0.0.1, a greedy bot at its seat, its log
    tmp/host.zoolog."""
    from zoo_p2p.cli.botdriver import BotDriver
    from zoo_p2p.cli.hosting import genesis_factory, session_factory
    from zoo_p2p.cli.runners import GameFiles
    from zoo_p2p.protocol.crypto import fingerprint
    from zoo_p2p.rules import Variant
    from zoo_p2p.storage import NetSidecar

    key = load_or_create_identity(tmp / "host.pem")
    files = GameFiles(tmp / "host.zoolog", NetSidecar(role="host", port=0, bind="127.0.0.1"))
    return cls(
        key=key,
        driver=BotDriver("greedy", seed=1, delay=delay, console=None),
        make_session=session_factory(key),
        open_log=files.open_new,
        make_genesis=genesis_factory(key, Variant.STANDARD, None),
        fingerprint=fingerprint,
        options=HostOptions(players=players, bind="127.0.0.1", give_up=20),
    )


@contextlib.contextmanager
def _running(host: Host) -> Iterator[list[Any]]:
    """Run `host` in a thread (at most 60 s) for the block; its outcome lands in the list."""
    outcome: list[Any] = []
    t = threading.Thread(target=lambda: outcome.append(host.run(time.monotonic() + 60)))
    t.start()
    try:
        yield outcome
    finally:
        t.join(70)


def test_fuzz_a_live_joiner(procs: Procs, tmp_path: Path) -> None:
    """A host that plays its seat honestly but also sends the joiner random and mutated
    messages of every kind (but a clean reject/bye/leave, which a real host may send to end a
    game): the joiner drops them all, the game ends, and both logs verify."""
    rng = random.Random(9)
    kinds = sorted(set(wire._SCHEMA) - {"reject", "bye", "leave"})

    class FuzzHost(Host):
        fuzzed = 0
        fuzz_until = 0.0

        def tick(self, now: float) -> None:
            super().tick(now)
            s = self.session
            if s is None or s.finished or now > self.fuzz_until:
                return
            samples = _samples(list(s.entries))
            samples = [x for x in samples if wire.unpack(x)["t"] in kinds]
            for rid, conn in list(self.conns.items()):
                if conn.seat is not None:
                    for _ in range(10):
                        frame = fuzz_frame(rng, kinds, samples)
                        try:
                            msg = wire.unpack(frame)
                        except wire.WireError:
                            msg = None
                        if msg is not None and msg["t"] not in kinds:
                            continue  # a mutation that became a clean reject, bye or leave
                        self._send(rid, frame)
                        self.fuzzed += 1

    host = _host_here(FuzzHost, tmp_path, players=2, delay=0.1)
    host.fuzz_until = time.monotonic() + 3600
    with _running(host) as outcome:
        joiner = procs.bot(str(host.invite), "joiner", "--verbose", "--delay", "0.1")
        wait_for(lambda: host.session is not None, 20, "the game to start")
        host.fuzz_until = time.monotonic() + FUZZ_SECONDS
        assert procs.wait(joiner, "joiner", timeout=60) == 0, procs.text("joiner")
    assert outcome and outcome[0].finished, outcome
    print(f"FUZZ-JOINER sent={host.fuzzed} hostile frames")
    assert host.fuzzed > 100
    _no_crash(procs.text("joiner"))
    assert procs.log("joiner") == (tmp_path / "host.zoolog").read_bytes()
    assert audit_file(procs.tmp / "joiner.zoolog").ok  # type: ignore[attr-defined]


def test_a_host_cannot_crash_joiners_with_presence_or_lobby_messages(
    procs: Procs, tmp_path: Path
) -> None:
    """Issue 8's cases: `presence` with 4 entries in a 3-seat game (IndexError before), a
    `seats` message of the wrong size, and `lobby` rows with markup names after the start; the
    two joiners (one printing, one quiet) drop them and the game ends with logs that verify."""
    hostile = [
        wire.pack("presence", up=[True, True, False, True]),
        msgpack.packb({"t": "seats", "state": ["lost"] * 4, "lost": [1] * 4}),
        wire.pack("lobby", seats=[["[/]", "AAAA-BBBB-CCCC-DDDD", 1]], need=2),
        msgpack.packb({"t": "lobby", "seats": [["[link=http://x]h[/link]", "x", 9]], "need": 3}),
    ]

    class BadHost(Host):
        sent = 0

        def tick(self, now: float) -> None:
            super().tick(now)
            s = self.session
            if s is not None and not s.finished and len(s) > 3 and self.sent < 40:
                for rid, conn in list(self.conns.items()):
                    if conn.seat is not None:
                        for frame in hostile:
                            self._send(rid, frame)
                            self.sent += 1

    host = _host_here(BadHost, tmp_path, players=3, delay=0.02)
    with _running(host) as outcome:
        loud = procs.bot(str(host.invite), "loud", "--verbose", quiet=False)
        quiet = procs.bot(str(host.invite), "quiet")
        assert procs.wait(loud, "loud", timeout=60) == 0, procs.text("loud")
        assert procs.wait(quiet, "quiet", timeout=60) == 0, procs.text("quiet")
    assert outcome and outcome[0].finished, outcome
    assert host.sent >= 8
    _no_crash(procs.text("loud") + procs.text("quiet"))
    assert "does not fit the seats" in procs.text("loud")
    for name in ("loud", "quiet"):
        assert audit_file(procs.tmp / f"{name}.zoolog").ok  # type: ignore[attr-defined]
