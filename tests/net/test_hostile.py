"""Hostile input to a live host: garbage, oversized frames, wrong keys, replays. It plays on."""

from __future__ import annotations

import random
import signal

import msgpack
import zmq
from zmq.utils import z85

from tests.net.harness import START, Procs, audit_file, log_len, wait_for
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, step
from zoo_p2p.rules import Team, Variant
from zoo_p2p.storage import load_or_create_identity


def _dealer(
    ctx: zmq.Context[zmq.Socket[bytes]],
    inv: Invite,
    *,
    server_key: bytes | None,
) -> tuple[zmq.Socket[bytes], bytes]:
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.sndtimeo = 1000
    pub, sec = zmq.curve_keypair()
    if server_key is not None:
        s.curve_publickey, s.curve_secretkey = pub, sec
        s.curve_serverkey = z85.encode(server_key)
    s.connect(inv.endpoint)
    return s, z85.decode(pub)


def _hello(inv: Invite, key: object, curve: bytes, name: str = "mallory") -> bytes:
    from zoo_p2p.net.peer import raw_public

    h = wire.Hello(
        name=name,
        team=None,
        pub=raw_public(key),
        curve=curve,
        game=None,  # type: ignore[arg-type]
        have=0,
    )
    sig = key.sign(wire.hello_signed_bytes(inv.server_key, h))  # type: ignore[attr-defined]
    return wire.pack(
        "hello", v=1, name=h.name, team=None, pub=h.pub, curve=h.curve, game=None, have=0, sig=sig
    )


def _foreign_game(procs: Procs, bot_key: object) -> list[bytes]:
    """A different game between the very same two keys (host's and bot1's), 40 entries long."""
    from zoo_p2p.net.peer import raw_public

    host_key = load_or_create_identity(procs.tmp / "home" / "config" / "identity.key")
    keys = [host_key, bot_key]
    seats = [
        SeatInfo(n, raw_public(k), t)  # type: ignore[arg-type]
        for n, k, t in zip(("host", "bot1"), keys, (Team.YELLOW, Team.BLUE), strict=True)
    ]
    rng = random.Random(5)
    genesis = Session.create_genesis(host_key, seats, Variant.STANDARD, None, rng.randbytes(32))
    seeds = [rng.randbytes(32) for _ in keys]
    sessions = [Session(genesis, key=k, seed=sd) for k, sd in zip(keys, seeds, strict=True)]  # type: ignore[arg-type]
    game = LocalGame(keys, seeds, seeds, sessions, [[], []])  # type: ignore[arg-type]
    while len(game.entries) < 40 and step(game, rng):
        pass
    return game.entries


def _until(sock: zmq.Socket[bytes], pred: object, what: str) -> None:
    """Read messages from `sock` until one satisfies `pred` (deadline-bound)."""
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    seen: list[dict[str, object]] = []

    def check() -> bool:
        if poller.poll(50):
            seen.append(wire.unpack(sock.recv()))
        return any(pred(m) for m in seen)  # type: ignore[operator]

    wait_for(check, 10, what)


def test_hostile_frames_do_not_stop_the_game(procs: Procs) -> None:
    """Garbage, oversized, unsigned, foreign-game and wrong-key input: dropped, game completes."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    host, invite_text = procs.host(
        "--players", "2", "--bot", "greedy", "--delay", "0.03", "--verbose",
        "--reveal-time", "600",
    )  # fmt: skip
    inv = Invite.parse(invite_text)
    key_path = procs.tmp / "bot1.pem"
    bot_key = load_or_create_identity(key_path)
    bot = procs.bot(invite_text, "bot1", "--identity", str(key_path))
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 8, START, "the deal")
    # The game stays unfinished until the hostile input is all in: the honest bot is stopped
    # (SIGSTOP) meanwhile, so the game waits for it. At full speed the game ended 0.6-1 s after
    # the last of it on a quiet machine, and a loaded one could end it first (then the host is
    # gone before the resync, and the replays never reach its session). The reveal clock is
    # 600 s, so that no clock runs out on the stopped bot.
    bot.send_signal(signal.SIGSTOP)
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        # 1. no CURVE at all, and CURVE with a wrong server key: the handshake fails
        plain, _ = _dealer(ctx, inv, server_key=None)
        wrong, _ = _dealer(ctx, inv, server_key=bytes(range(32)))
        for s in (plain, wrong):
            s.send(b"\x00" * 10, flags=zmq.NOBLOCK)
        # 2. a proper CURVE link that sends junk
        junk, curve = _dealer(ctx, inv, server_key=inv.server_key)
        rng = random.Random(7)
        junk.send(b"garbage \xc1\xff not msgpack")
        junk.send(msgpack.packb({"t": "nonsense"}))
        junk.send(msgpack.packb([1, 2, 3]))
        junk.send(wire.pack("entries", **{"from": 3, "e": [b"\x92\xc4\x01x\xc4\x01y"]}))
        junk.send(wire.pack("sync", **{"from": 0}))
        junk.send(bytes(rng.getrandbits(8) for _ in range(3000)))
        # a hello signed for another CURVE key, and one with a broken signature
        other = Ed25519PrivateKey.generate()
        junk.send(_hello(inv, other, bytes(32)))
        bad = bytearray(_hello(inv, other, curve))
        bad[-5] ^= 1
        junk.send(bytes(bad))
        # a well-signed newcomer: told the game has started
        junk.send(_hello(inv, other, curve))
        _until(junk, lambda m: m.get("t") == "reject", "a reject for the newcomer")
        # 3. a seat's own key on a second link, replaying entries from another game
        thief, tcurve = _dealer(ctx, inv, server_key=inv.server_key)
        thief.send(_hello(inv, bot_key, tcurve, name="bot1"))
        _until(thief, lambda m: m.get("t") == "welcome", "the thief's welcome")
        foreign = _foreign_game(procs, bot_key)
        n = log_len(procs.tmp / "host.zoolog")
        thief.send(wire.pack("entries", **{"from": n, "e": foreign[n : n + 3]}))
        thief.send(wire.pack("entries", **{"from": 0, "e": foreign[:2]}))
        thief.send(wire.pack("sync", **{"from": 1}))  # answered after the replays were handled
        _until(thief, lambda m: m.get("t") == "entries" and m.get("from") == 1, "a resync")
        # 4. a two-part message (the host drops that connection), an oversized frame (libzmq
        # drops that peer)
        parts, _ = _dealer(ctx, inv, server_key=inv.server_key)
        parts.send_multipart([b"two", b"parts"])
        big, _ = _dealer(ctx, inv, server_key=inv.server_key)
        big.send(b"\x00" * (wire.MAX_FRAME + 10))
        thief.close()
    finally:
        ctx.destroy(linger=0)
        bot.send_signal(signal.SIGCONT)

    assert procs.wait(bot, "bot1") == 0, procs.text("bot1")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert procs.log("bot1") == procs.log("host")
    assert audit_file(procs.tmp / "host.zoolog").ok  # type: ignore[attr-defined]
    err = (procs.tmp / "host.err").read_text()
    assert "dropped a hello with a bad signature" in err
    assert "another game" in err  # the replays reached the session and were refused
    assert "Traceback" not in err


def test_joiner_with_a_wrong_server_key_gives_up_cleanly(procs: Procs) -> None:
    """An invite whose CURVE key was altered: the handshake fails, the joiner says so and stops;
    the host is unharmed and still lets the right joiner in."""
    host, invite_text = procs.host("--players", "2", "--bot", "greedy", "--verbose")
    inv = Invite.parse(invite_text)
    forged = Invite(
        host=inv.host, port=inv.port, server_key=bytes(range(1, 33)), fingerprint=inv.fingerprint
    )
    lost = procs.bot(str(forged), "lost", "--give-up", "1.5", quiet=False)
    assert procs.wait(lost, "lost", timeout=15) != 0
    assert "handshake" in procs.text("lost")
    good = procs.bot(invite_text, "good")
    assert procs.wait(good, "good") == 0, procs.text("good")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert "failed the secure handshake" in procs.text("host")  # the host shows it too
