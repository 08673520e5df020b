"""Attacks on the host's links (issue 8): stolen routing ids, idle and plain-TCP crowds, endless
multipart messages, resync floods, a joiner that rejects the host. Real processes, 127.0.0.1."""

from __future__ import annotations

import os
import re
import resource
import select
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import msgpack
import pytest
import zmq
from zmq.utils import z85

from tests.net.harness import START, ZOO, Procs, audit_file, log_len, wait_for
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import raw_public
from zoo_p2p.protocol.evidence import find_fork
from zoo_p2p.storage import load_or_create_identity


def _hello(inv: Invite, key: object, curve: bytes, name: str) -> bytes:
    h = wire.Hello(name=name, team=None, pub=raw_public(key), curve=curve, game=None, have=0)  # type: ignore[arg-type]
    sig = key.sign(wire.hello_signed_bytes(inv.server_key, h))  # type: ignore[attr-defined]
    return wire.pack(
        "hello", v=1, name=name, team=None, pub=h.pub, curve=curve, game=None, have=0, sig=sig
    )


def _curve_dealer(
    ctx: zmq.Context[zmq.Socket[bytes]], inv: Invite, rid: bytes | None = None
) -> tuple[zmq.Socket[bytes], bytes]:
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    pub, sec = zmq.curve_keypair()
    s.curve_publickey, s.curve_secretkey = pub, sec
    s.curve_serverkey = z85.encode(inv.server_key)
    if rid is not None:
        s.setsockopt(zmq.ROUTING_ID, rid)
    s.connect(inv.endpoint)
    return s, z85.decode(pub)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_a_stolen_routing_id_neither_aborts_the_host_nor_takes_a_seat(procs: Procs) -> None:
    """A seated player reconnects again and again with the victim's routing id (the old
    `"z" ‖ pub[0:15]`, public from the genesis) and with one fixed id of its own, saying hello
    each time. The host keeps serving every seat; the three logs agree and verify."""
    host, invite_text = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.05")
    inv = Invite.parse(invite_text)
    vkey = load_or_create_identity(procs.tmp / "victim.pem")
    akey = load_or_create_identity(procs.tmp / "attacker.pem")
    victim = procs.bot(
        invite_text, "victim", "--identity", str(procs.tmp / "victim.pem"), quiet=False
    )
    # seated first (the harness makes victim.err before the process even starts: no sign)
    wait_for(lambda: "lobby: 2 of 3" in procs.text("victim"), START, "the victim seated")
    attacker = procs.bot(invite_text, "attacker", "--identity", str(procs.tmp / "attacker.pem"))
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 2, START, "the game to start")

    stolen = b"z" + raw_public(vkey)[:15]
    own = b"z" + raw_public(akey)[:15]
    stop = threading.Event()
    got: list[int] = [0]

    def attack() -> None:
        ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        try:
            i = 0
            while not stop.is_set() and host.poll() is None:
                rid = stolen if i % 2 == 0 else own
                s, curve = _curve_dealer(ctx, inv, rid)
                s.send(_hello(inv, akey, curve, "attacker"))
                if s.poll(30):
                    while s.poll(0):
                        if wire.unpack(s.recv()).get("t") == "entries":
                            got[0] += 1
                s.close(linger=0)
                i += 1
        finally:
            ctx.destroy(linger=0)

    t = threading.Thread(target=attack, daemon=True)
    t.start()
    try:
        assert procs.wait(host, "host", timeout=60) == 0, procs.text("host")
    finally:
        stop.set()
        t.join(10)
    assert procs.wait(victim, "victim") == 0, procs.text("victim")
    assert procs.wait(attacker, "attacker") == 0, procs.text("attacker")
    assert procs.log("victim") == procs.log("host") == procs.log("attacker")
    assert audit_file(procs.tmp / "host.zoolog").ok  # type: ignore[attr-defined]


def test_a_joiner_that_rejects_the_host_never_takes_a_seat(procs: Procs) -> None:
    """The invite's fingerprint is not the host's: the joiner says so and stops before any
    hello; the host shows it; the seat stays free for the right joiner."""
    host, invite_text = procs.host("--players", "2", "--bot", "greedy", "--verbose")
    inv = Invite.parse(invite_text)
    wrong = Invite(
        host=inv.host, port=inv.port, server_key=inv.server_key, fingerprint="AAAA-BBBB-CCCC-DDDD"
    )
    lost = procs.bot(str(wrong), "lost", quiet=False)
    assert procs.wait(lost, "lost", timeout=20) != 0
    assert "is not the one in the invite" in procs.text("lost")
    good = procs.bot(invite_text, "good")
    assert procs.wait(good, "good") == 0, procs.text("good")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert "my invite names another host" in procs.text("host")
    assert audit_file(procs.tmp / "good.zoolog").ok  # type: ignore[attr-defined]


def test_join_with_no_host_says_so_and_gives_up(procs: Procs, tmp_path: Path) -> None:
    """Nobody listens: the joiner says what it waits for, and stops at --give-up."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inv = Invite(
        host="127.0.0.1", port=port, server_key=bytes(range(32)), fingerprint="AAAA-BBBB-CCCC-DDDD"
    )
    p = procs.zoo("bot", str(inv), "--give-up", "3", "--log", str(tmp_path / "x.zoolog"), name="j")
    assert procs.wait(p, "j", timeout=15) != 0
    text = procs.text("j")
    assert f"no answer from 127.0.0.1:{port} yet — is the host running?" in text
    # a line said again every few seconds says how long it has tried, of how long
    assert re.search(r"still trying \(\d of 3 s\), Ctrl-C to stop", " ".join(text.split()))
    assert "after 3 s" in text


def _spawn_host_with_nofile(
    procs: Procs, soft: int, *args: str
) -> tuple[subprocess.Popen[bytes], str]:
    inv_path = procs.tmp / "host.invite"
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    out = open(procs.tmp / "host.out", "wb")  # noqa: SIM115
    err = open(procs.tmp / "host.err", "wb")  # noqa: SIM115
    p = subprocess.Popen(
        [*ZOO, "host", "--bind", "127.0.0.1", "--invite-file", str(inv_path), "--log",
         str(procs.tmp / "host.zoolog"), "--quiet", *args],
        stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=procs.env, cwd=procs.tmp,
        preexec_fn=limit,
    )  # fmt: skip
    out.close()
    err.close()
    procs.procs.append(p)
    wait_for(lambda: inv_path.exists() or p.poll() is not None, START, "the invite")
    assert p.poll() is None, procs.text("host")
    return p, inv_path.read_text().strip()


def test_a_crowd_of_silent_connections_is_dropped_and_the_game_goes_on(procs: Procs) -> None:
    """1,100 plain TCP connections that never speak, against a host started with a soft limit
    of 1,024 file descriptors: the host raises its limit, drops them all (no hello in time),
    and a real joiner still gets in and plays to the end."""
    host, invite_text = _spawn_host_with_nofile(procs, 1024, "--players", "2", "--bot", "greedy")
    inv = Invite.parse(invite_text)
    crowd: list[socket.socket] = []
    try:
        for _ in range(1100):
            crowd.append(socket.create_connection((inv.host, inv.port), timeout=5))
        closed: set[int] = set()
        poller = select.poll()
        by_fd = {c.fileno(): c for c in crowd}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)

        def dropped() -> bool:
            for fd, _ in poller.poll(50):
                try:
                    data = by_fd[fd].recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed.add(fd)
                    poller.unregister(fd)
            return len(closed) == len(crowd)

        t0 = time.monotonic()
        cpu0 = _cpu_s(host.pid)
        wait_for(dropped, 30, "the host to drop 1,100 silent connections")
        took = time.monotonic() - t0
        print(f"CROWD dropped 1100 in {took:.1f} s, host CPU {_cpu_s(host.pid) - cpu0:.1f} s")
        bot = procs.bot(invite_text, "bot1")
        assert procs.wait(bot, "bot1") == 0, procs.text("bot1")
        assert procs.wait(host, "host") == 0, procs.text("host")
    finally:
        for c in crowd:
            c.close()
    assert audit_file(procs.tmp / "bot1.zoolog").ok  # type: ignore[attr-defined]


def _zmtp_null_dealer(host: str, port: int) -> socket.socket:
    """A raw ZMTP 3.0 DEALER with NULL security (what a hostile client can send by hand)."""
    s = socket.create_connection((host, port), timeout=5)
    greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00")
    greeting += b"\x00" + b"\x00" * 31
    s.sendall(greeting)
    got = b""
    while len(got) < 64:
        chunk = s.recv(64 - len(got))
        assert chunk, "the host closed before its greeting"
        got += chunk

    def prop(name: bytes, value: bytes) -> bytes:
        return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value

    body = b"\x05READY" + prop(b"Socket-Type", b"DEALER") + prop(b"Identity", b"")
    s.sendall(b"\x04" + bytes([len(body)]) + body)
    return s


def test_an_endless_multipart_message_is_cut_off(procs: Procs) -> None:
    """Frames with the MORE flag, forever, sent by hand: libzmq holds the parts until the last
    one, so the host watches the bytes the kernel received on each connection against the
    messages it got and drops the flooder; its memory stays bounded and it serves on. (NULL
    security, so that the test can speak ZMTP by hand; the guard does not depend on it.)"""
    host, invite_text = procs.host("--players", "2", "--bot", "greedy", "--no-curve")
    inv = Invite.parse(invite_text, allow_no_curve=True)
    rss0 = _rss_kb(host.pid)
    flood = _zmtp_null_dealer(inv.host, inv.port)
    part = b"\x03" + struct.pack(">Q", 1 << 16) + b"\x00" * (1 << 16)  # MORE | LONG, 64 KiB
    sent = 0
    cut = False
    deadline = time.monotonic() + 20
    flood.settimeout(2)
    while time.monotonic() < deadline and sent < (2 << 30):
        try:
            flood.sendall(part)
        except OSError:  # reset or broken pipe: the host dropped us
            cut = True
            break
        sent += len(part)
    growth_mb = (_rss_kb(host.pid) - rss0) / 1024
    print(f"FLOOD sent={sent >> 20}MiB growth={growth_mb:.1f}MB cut={cut}")
    flood.close()
    assert cut, f"the host took {sent >> 20} MiB of one unfinished message"
    assert growth_mb < 100, f"host grew by {growth_mb:.0f} MB"
    # the host is alive and still greets a newcomer
    assert host.poll() is None, procs.text("host")
    _zmtp_null_dealer(inv.host, inv.port).close()
    assert host.poll() is None, procs.text("host")


def test_resync_requests_are_rate_limited(procs: Procs) -> None:
    """A seated player asks for the whole log 3,000 times: the host answers a handful."""
    host, invite_text = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.1")
    inv = Invite.parse(invite_text)
    key_path = procs.tmp / "bot1.pem"
    key = load_or_create_identity(key_path)
    bot = procs.bot(invite_text, "bot1", "--identity", str(key_path))
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 4, START, "the deal")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        s, curve = _curve_dealer(ctx, inv)
        s.send(_hello(inv, key, curve, "bot1"))
        wait_for(
            lambda: bool(s.poll(50)) and wire.unpack(s.recv())["t"] == "welcome", 10, "welcome"
        )
        t0 = time.monotonic()
        ask = wire.pack("sync", **{"from": 0})
        for _ in range(3000):
            s.send(ask)
        answers = 0
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            if s.poll(50):
                m = wire.unpack(s.recv())
                if m["t"] == "entries" and m["from"] == 0:
                    answers += 1
        elapsed = time.monotonic() - t0
        print(f"RESYNC answers={answers} of 3000 in {elapsed:.1f} s")
        assert answers <= 6 + 2 * elapsed + 1, answers
        s.close()
    finally:
        ctx.destroy(linger=0)
    assert procs.wait(bot, "bot1") == 0, procs.text("bot1")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert os.path.exists(procs.tmp / "host.zoolog")


def _first_welcome(s: zmq.Socket[bytes]) -> dict[str, object]:
    seen: list[dict[str, object]] = []

    def got() -> bool:
        if s.poll(50):
            m = wire.unpack(s.recv())
            if m["t"] == "welcome":
                seen.append(m)
        return bool(seen)

    wait_for(got, 10, "a welcome")
    return seen[0]


def test_a_small_order_identity_key_gets_no_seat(procs: Procs) -> None:
    """A hello from the identity point (anyone can sign for it: R = identity, S = 0) is dropped;
    the knock that follows on the same link is answered, with no seat."""
    host, invite_text = procs.host("--players", "3", "--bot", "greedy", "--verbose")
    inv = Invite.parse(invite_text)
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        s, curve = _curve_dealer(ctx, inv)
        weak = b"\x01" + bytes(31)
        hello = {
            "t": "hello", "v": 1, "name": "nobody", "team": None, "pub": weak, "curve": curve,
            "game": None, "have": 0, "sig": b"\x01" + bytes(63),
        }  # fmt: skip
        s.send(msgpack.packb(hello, use_bin_type=True))
        s.send(wire.pack("knock", v=1))
        assert _first_welcome(s)["seat"] is None
    finally:
        ctx.destroy(linger=0)
    host.kill()
    host.wait(5)
    assert "small-order" in procs.text("host")


def test_silent_links_are_dropped_and_one_identity_keeps_two_links(procs: Procs) -> None:
    """A link that finishes the CURVE handshake but never says hello is dropped within the
    hello timeout; a third link of one identity drops that identity's oldest link."""
    host, invite_text = procs.host("--players", "3", "--bot", "greedy", "--verbose")
    inv = Invite.parse(invite_text)
    key = load_or_create_identity(procs.tmp / "p.pem")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:

        def watched() -> tuple[zmq.Socket[bytes], bytes, zmq.Socket[bytes]]:
            s, curve = _curve_dealer(ctx, inv)
            mon = s.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED)
            return s, curve, mon

        def saw(mon: zmq.Socket[bytes], event: int) -> bool:
            from zmq.utils.monitor import recv_monitor_message

            while mon.poll(50):
                if recv_monitor_message(mon)["event"] == event:
                    return True
            return False

        _silent, _, smon = watched()
        wait_for(lambda: saw(smon, zmq.EVENT_HANDSHAKE_SUCCEEDED), 10, "the silent handshake")
        t0 = time.monotonic()
        links = []
        for _ in range(3):
            s, curve, mon = watched()
            s.send(_hello(inv, key, curve, "p"))
            assert _first_welcome(s)["seat"] == 1
            links.append((s, mon))
        wait_for(lambda: saw(links[0][1], zmq.EVENT_DISCONNECTED), 10, "the oldest link to go")
        wait_for(lambda: saw(smon, zmq.EVENT_DISCONNECTED), 15, "the silent link to go")
        assert time.monotonic() - t0 < 12
    finally:
        ctx.destroy(linger=0)
    host.kill()
    host.wait(5)


@pytest.mark.parametrize("where", ["new", "held"])
def test_a_seat_flooding_forged_entries_does_not_stall_or_bloat_the_host(
    procs: Procs, where: str
) -> None:
    """A second link of a seated player sends `entries` messages packed with entries whose
    signatures fail, as fast as it can: 1 MiB of copies of one entry at the next seq (`new`), or
    every entry the host holds, each on its right predecessor (`held`, issue 18's flood: each
    cost a check). Each message costs the host one signature check at most, and only until the
    seat's budget is spent: then the host drops that seat's links and names it (TRANSPORT.md
    §11); its memory stays bounded, and the game finishes with logs that verify."""
    host, invite_text = procs.host(
        "--players", "2", "--bot", "greedy", "--delay", "0.05", "-v", quiet=False
    )
    inv = Invite.parse(invite_text)
    key_path = procs.tmp / "bot1.pem"
    key = load_or_create_identity(key_path)
    bot = procs.bot(invite_text, "bot1", "--identity", str(key_path), quiet=False)
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 6, START, "the deal")
    from zoo_p2p.storage import read_log

    entries = read_log(procs.tmp / "host.zoolog").entries
    forged = bytearray(max(entries[1:], key=len))
    forged[-3] ^= 1  # the signature is at the end: it no longer holds
    rss0 = _rss_kb(host.pid)
    peak = rss0
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sent = 0
    try:
        s, curve = _curve_dealer(ctx, inv)
        s.sndhwm = 50
        s.send(_hello(inv, key, curve, "bot1"))
        _first_welcome(s)
        n = max(1, min(wire.MAX_BATCH, (wire.MAX_FRAME - 1024) // (len(forged) + 8)))
        end = time.monotonic() + 5
        have = log_len(procs.tmp / "host.zoolog")
        held = [bytes(x[:-3]) + bytes([x[-3] ^ 1]) + bytes(x[-2:]) for x in entries[1:]]
        while time.monotonic() < end and host.poll() is None:
            if sent % 20 == 0:
                have = log_len(procs.tmp / "host.zoolog")
            if where == "held":
                msg = wire.pack("entries", **{"from": 1, "e": held})
            else:
                msg = wire.pack("entries", **{"from": have, "e": [bytes(forged)] * n})
            try:
                s.send(msg, flags=zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                s.poll(10, zmq.POLLOUT)
            peak = max(peak, _rss_kb(host.pid)) if sent % 10 == 0 else peak
    finally:
        ctx.destroy(linger=0)
    growth = (peak - rss0) / 1024
    print(f"ENTRIES-FLOOD sent={sent} messages of ~1 MiB, host peak growth {growth:.0f} MB")
    assert growth < 300, growth
    # The bot holds the flooder's key, so it is cut off with it (below). A bot cut off until the
    # host has claimed and gone stops unfinished (exit 1), saying why: the host silent past its
    # --give-up ("the host is gone"), or back in time only for the host's farewell ("the host
    # closed the game", "the host left"). Each is right for a seat that missed the end.
    bot_rc = procs.wait(bot, "bot1", timeout=60)
    bot_said = procs.text("bot1")
    gone = ("the host is gone", "the host closed the game", "the host left")
    assert bot_rc == 0 or (bot_rc == 1 and any(g in bot_said for g in gone)), bot_said
    assert procs.wait(host, "host", timeout=30) == 0, procs.text("host")
    said = procs.text("host")
    host_r = audit_file(procs.tmp / "host.zoolog")
    assert host_r.ok, (host_r.fault_reason, said)  # type: ignore[attr-defined]
    if bot_rc == 1:
        # It gave up, cut off: its log stops where it was cut off, perhaps with an answer of its
        # own that the host dropped unread (and then claimed against seat 2 for). So: the bot's
        # log verifies as far as it goes, convicts nobody, and forks nobody with the host's;
        # the host's ends with its claim against seat 2.
        bot_r = audit_file(procs.tmp / "bot1.zoolog")
        assert bot_r.verdict in ("ok", "incomplete"), (bot_r.fault_reason, bot_said)  # type: ignore[attr-defined]
        assert not bot_r.convictions and bot_r.fault_seat is None, (bot_r, bot_said)  # type: ignore[attr-defined]
        host_es = read_log(procs.tmp / "host.zoolog").entries
        bot_es = read_log(procs.tmp / "bot1.zoolog").entries
        assert find_fork(host_es, bot_es) is None, (bot_said, said)
        ending = host_r.ending  # type: ignore[attr-defined]
        assert ending is not None and ending.kind == "claimed", (ending, said)
        assert ending.seat == 1 and ending.by == (0,), (ending, said)
        print(f"ENTRIES-FLOOD the bot gave up, cut off; the host's log ends {ending}")
    elif procs.log("bot1") != procs.log("host"):
        # The flooder holds seat 2's key, so seat 2 is the seat cut off (its budget is per seat:
        # TRANSPORT.md §11), and its bot with it: its link is shut and what it sends is dropped
        # unread until the budget holds a check again, after which it must notice and say hello
        # again. Its bot can stay cut off past the reveal clock, and then the host claims against
        # seat 2, and only seat 2. The bot, cut off, may see the host go silent for as long and
        # sign a claim of its own against the host before the host's claim reaches it: that is
        # seat 2's own word in seat 2's own log, which the host refuses (its game is over), and a
        # claim is no conviction. So: the host's log, the flooded seat's, ends with its claim
        # against seat 2; the bot's log verifies; and the two logs fork nobody.
        bot_r = audit_file(procs.tmp / "bot1.zoolog")
        for r in (host_r, bot_r):
            assert r.ok and r.ending is not None, (r.fault_reason, said)  # type: ignore[attr-defined]
            assert r.ending.kind == "claimed" and not r.convictions, (r.ending, said)  # type: ignore[attr-defined]
        assert host_r.ending.seat == 1 and host_r.ending.by == (0,), (host_r.ending, said)  # type: ignore[attr-defined]
        if bot_r.ending.seat == 0:  # type: ignore[attr-defined]  # (the bot's own claim)
            assert bot_r.ending.by == (1,), (bot_r.ending, said)  # type: ignore[attr-defined]
        else:  # (the host's claim, which the bot adopted after its own late answer)
            assert bot_r.ending.seat == 1, (bot_r.ending, said)  # type: ignore[attr-defined]
        host_log = read_log(procs.tmp / "host.zoolog").entries
        bot_log = read_log(procs.tmp / "bot1.zoolog").entries
        assert find_fork(host_log, bot_log) is None
        print(f"ENTRIES-FLOOD the host claimed against seat 2; the bot's log ends {bot_r.ending}")  # type: ignore[attr-defined]
        assert "did not answer within" in said and "seat 2 (" in said, said
    else:
        assert procs.log("bot1") == procs.log("host")
    named = [ln for ln in said.splitlines() if "sent more than 200 signatures" in ln]
    assert all("seat 2 (" in ln and "seat 1 (" not in ln for ln in named), said
    if where == "held":  # cut off by its budget, or first by the flood guard (when the host
        # lags more than FLOOD_SLACK behind the socket on a busy machine)
        assert named or "bytes sent that are no message" in said, said
    assert "internal error" not in said  # (cutting its direct link mid-read once crashed)


def test_a_host_sending_an_endless_multipart_message_is_cut_off() -> None:
    """The joiner's side: a 'host' that greets (ZMTP by hand, NULL security) and then sends
    frames with the MORE flag forever is cut off, and the joiner's memory stays bounded.
    (libzmq's DEALER already resets such a connection after about 3.7 MiB; the joiner's own
    TCP_INFO guard, like the host's, is the second line. In process: the joiner runs in the
    test's thread; the evil host is a plain socket in another.)"""
    from zoo_p2p.driver import NullDriver
    from zoo_p2p.net.peer import Joiner, JoinOptions
    from zoo_p2p.protocol.crypto import fingerprint

    lsock = socket.create_server(("127.0.0.1", 0))
    port = lsock.getsockname()[1]
    result: dict[str, object] = {}

    def evil_host() -> None:
        conn, _ = lsock.accept()
        conn.settimeout(5)
        greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00")
        conn.sendall(greeting + b"\x00" * 32)
        body = b"\x05READY" + bytes([11]) + b"Socket-Type" + struct.pack(">I", 6) + b"ROUTER"
        conn.sendall(b"\x04" + bytes([len(body)]) + body)
        part = b"\x03" + struct.pack(">Q", 1 << 16) + b"\x00" * (1 << 16)
        sent = 0
        try:
            while sent < (1 << 30):
                conn.sendall(part)
                sent += len(part)
        except OSError as exc:
            result["cut"] = repr(exc)
        result["sent"] = sent
        conn.close()

    t = threading.Thread(target=evil_host, daemon=True)
    t.start()
    key = __import__(
        "cryptography.hazmat.primitives.asymmetric.ed25519", fromlist=["x"]
    ).Ed25519PrivateKey.generate()
    inv = Invite(
        host="127.0.0.1", port=port, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD"
    )
    joiner = Joiner(
        inv,
        key=key,
        driver=NullDriver(),
        make_session=lambda g: None,  # type: ignore[arg-type,return-value]
        open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        fingerprint=fingerprint,
        options=JoinOptions(curve=False, give_up=30),
    )
    rss0 = _rss_kb(os.getpid())
    peak = rss0

    def stop_when_cut() -> None:
        nonlocal peak
        peak = max(peak, _rss_kb(os.getpid()))
        if "cut" in result or "sent" in result:
            joiner.leave("test over")
        else:
            joiner.call_later(0.02, stop_when_cut)

    joiner.call_later(0.02, stop_when_cut)
    joiner.run(time.monotonic() + 20)
    t.join(5)
    lsock.close()
    growth = (peak - rss0) / 1024
    print(f"JOINER-FLOOD sent={int(result.get('sent', 0)) >> 20} MiB growth={growth:.1f} MB")
    assert result.get("cut"), result
    assert growth < 100, growth


def test_markup_names_are_shown_literally_and_crash_nobody(procs: Procs) -> None:
    """Joiners named `[/]` and `[link=http://x]host[/link]`: the host, a printing joiner and
    a quiet bot show the names literally (no MarkupError, no hidden link); the game ends."""
    host, invite_text = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.02")
    a = procs.zoo("bot", invite_text, "--name", "[/]", "--log", str(procs.tmp / "a.zoolog"),
                  "--give-up", "20", name="a")  # fmt: skip
    b = procs.zoo("bot", invite_text, "--name", "[link=http://x]host[/link]", "--log",
                  str(procs.tmp / "b.zoolog"), "--give-up", "20", "--quiet", name="b")  # fmt: skip
    assert procs.wait(a, "a") == 0, procs.text("a")
    assert procs.wait(b, "b") == 0, procs.text("b")
    assert procs.wait(host, "host") == 0, procs.text("host")
    text = procs.text("a")
    assert "[link=http://x]host[/link]" in text.replace("\n", "")
    assert "Traceback" not in text + procs.text("b") + procs.text("host")
    assert audit_file(procs.tmp / "a.zoolog").ok  # type: ignore[attr-defined]


def test_a_joiner_whose_connection_breaks_gets_its_link_back_at_once(procs: Procs) -> None:
    """The same DEALER (same routing id, same CURVE key) reconnects after its TCP connection
    was cut: the link moves to the new connection; the hello is welcomed to the same seat."""
    from zmq.utils.monitor import recv_monitor_message

    host, invite_text = procs.host("--players", "3", "--bot", "greedy")
    inv = Invite.parse(invite_text)
    key = load_or_create_identity(procs.tmp / "p.pem")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        s = ctx.socket(zmq.DEALER)
        s.linger = 0
        pub, sec = zmq.curve_keypair()
        s.curve_publickey, s.curve_secretkey = pub, sec
        s.curve_serverkey = z85.encode(inv.server_key)
        s.setsockopt(zmq.ROUTING_ID, b"z" + os.urandom(15))
        s.setsockopt(zmq.RECONNECT_IVL, 300)
        curve = z85.decode(pub)
        mon = s.get_monitor_socket(
            zmq.EVENT_CONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
        )
        s.connect(inv.endpoint)
        fds: list[int] = []

        def until(event: int) -> int:
            got: list[int] = []

            def check() -> bool:
                while mon.poll(20):
                    e = recv_monitor_message(mon)
                    if e["event"] == zmq.EVENT_CONNECTED:
                        fds.append(int(e["value"]))
                    if e["event"] == event:
                        got.append(int(e["value"]))
                return bool(got)

            wait_for(check, 10, f"monitor event {event}")
            return got[0]

        until(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        s.send(_hello(inv, key, curve, "p"))
        assert _first_welcome(s)["seat"] == 1
        cut = socket.socket(fileno=os.dup(fds[-1]))
        cut.shutdown(socket.SHUT_RDWR)
        cut.close()
        until(zmq.EVENT_DISCONNECTED)
        # plain connections take the host's freed descriptor, so the reconnection gets another
        plain = [socket.create_connection((inv.host, inv.port)) for _ in range(4)]
        until(zmq.EVENT_HANDSHAKE_SUCCEEDED)  # reconnected, same routing id and key
        for p in plain:
            p.close()
        s.send(_hello(inv, key, curve, "p"))
        assert _first_welcome(s)["seat"] == 1
    finally:
        ctx.destroy(linger=0)
    host.kill()
    host.wait(5)
