"""Live spectators (TRANSPORT.md §12), with real processes on 127.0.0.1: `zoo watch` before the
first move and in the middle of a game, against an equivocating host (tests/net/evil.py), and a
spectator that floods the host and is dropped while the game goes on. Every spectator's log is
checked by `zoo verify`, as a seat's."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import zmq
from zmq.utils import z85

from tests.net.harness import START, ZOO, Procs, log_len, wait_for
from tests.net.test_mesh import _convicted, _evil, _evil_host, _genesis_seats
from zoo_p2p.net import messages, wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.spectators import SPECTATOR_MSGS_BURST


def _watch(procs: Procs, invite: str, name: str, *args: str) -> subprocess.Popen[bytes]:
    return procs.zoo(
        "watch", invite, "--plain", "--log", str(procs.tmp / f"{name}.zoolog"), *args, name=name
    )


def _verify(procs: Procs, name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ZOO, "verify", str(procs.tmp / f"{name}.zoolog")],
        capture_output=True,
        text=True,
        env=procs.env,
        timeout=60,
        check=False,
    )


def test_a_spectator_in_the_lobby_sees_every_entry_and_its_log_verifies(procs: Procs) -> None:
    """Admitted before the genesis: it gets the lobby, then every entry as it is played, hears
    both seats' publishers, ends with the host's very log, and `zoo verify` passes it."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.05")
    watcher = _watch(procs, invite, "watcher")
    wait_for(lambda: "watching: 1 spectator" in procs.text("watcher"), 15, "the admission")
    bot = procs.bot(invite, "bot", "--delay", "0.05")
    assert procs.wait(bot, "bot") == 0, procs.text("bot")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert procs.wait(watcher, "watcher") == 0, procs.text("watcher")
    out = procs.text("watcher")
    assert "lobby: 2 of 2 seats" in out, out
    assert "You are watching" in out and "game over" in out, out
    assert procs.log("watcher") == procs.log("host") == procs.log("bot")
    assert "seat 1 (Yellow): direct" in out and "seat 2 (Blue): direct" in out, out
    r = _verify(procs, "watcher")
    assert r.returncode == 0 and "verdict: OK" in r.stdout, r.stdout + r.stderr


def test_a_spectator_that_comes_in_the_middle_catches_up_from_the_genesis(procs: Procs) -> None:
    """Admitted after 30 entries (the joiner's bot held with SIGSTOP meanwhile, so the game
    is surely under way): it gets the log from entry 0 at once, then the rest live."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.05")
    bot = procs.bot(invite, "bot", "--delay", "0.05")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 30, 30, "30 entries played")
    bot.send_signal(signal.SIGSTOP)
    try:
        held = log_len(procs.tmp / "host.zoolog")
        late = _watch(procs, invite, "late")
        wait_for(lambda: log_len(procs.tmp / "late.zoolog") >= held, 30, "the catch-up")
        assert held < 100 and not (procs.tmp / "host.zoolog.proofs").exists()
    finally:
        bot.send_signal(signal.SIGCONT)
    assert procs.wait(bot, "bot") == 0, procs.text("bot")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert procs.wait(late, "late") == 0, procs.text("late")
    out = procs.text("late")
    assert "moves played; to move" in out, out  # it came into a game under way
    assert procs.log("late") == procs.log("host")
    assert _verify(procs, "late").returncode == 0


def test_a_spectator_keeps_the_proof_of_an_equivocating_host(procs: Procs) -> None:
    """The host signs two moves for one seq (one to seat 3, the other to seat 2 and to the
    spectator): the fork reaches the spectator over the seats' publishers, it keeps the proof
    that convicts seat 1, stops with exit 4, and `zoo verify` on its log names seat 1."""
    _host, invite = _evil_host(procs, "equivocate")
    watcher = _watch(procs, invite, "watcher")
    wait_for(lambda: "watching: 1 spectator" in procs.text("watcher"), 15, "the admission")
    bots = [procs.bot(invite, f"bot{i}", "--delay", "0.03", quiet=False) for i in (1, 2)]
    for i, b in enumerate(bots, 1):
        procs.wait(b, f"bot{i}")
    assert procs.wait(watcher, "watcher") == 4, procs.text("watcher")
    assert _convicted(procs, "watcher") == {0}, procs.text("watcher")
    assert "seat 1 (Yellow) cheated" in procs.text("watcher"), procs.text("watcher")
    r = _verify(procs, "watcher")
    assert r.returncode == 4 and "seat 1" in r.stdout, r.stdout + r.stderr


def test_a_spectator_keeps_the_proof_of_an_illegal_move(procs: Procs) -> None:
    """A joiner signs an illegal move (tests/net/evil.py `illegal`): the spectator's session
    refuses it, its author's signature proves the fault: the spectator ends with that proof
    beside its log (its own, or the seats' that reach it first) and exits 4, and `zoo verify`
    names the cheater (tests/net/test_spectate_proofs.py checks the spectator's own proof)."""
    host, invite = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.03", "-v")
    watcher = _watch(procs, invite, "watcher")
    wait_for(lambda: "watching: 1 spectator" in procs.text("watcher"), 15, "the admission")
    honest = procs.bot(invite, "bot1", "--delay", "0.03", quiet=False)
    wait_for(lambda: "lobby: 2 of 3" in procs.text("bot1"), START, "bot1 in the lobby")
    mallory = _evil(
        procs, "join", "illegal", invite, "--log", str(procs.tmp / "mallory.zoolog"), name="m"
    )
    procs.wait(honest, "bot1")
    procs.wait(host, "host")
    assert procs.wait(watcher, "watcher") == 4, procs.text("watcher")
    mallory.kill()
    cheater = [s[0] for s in _genesis_seats(procs.tmp / "host.zoolog")].index("mallory")
    assert _convicted(procs, "watcher") == {cheater}, procs.text("watcher")
    r = _verify(procs, "watcher")
    assert r.returncode == 4 and f"seat {cheater + 1}" in r.stdout, r.stdout + r.stderr


def _flood(invite: str, stop_after: float) -> tuple[bool, bool, int]:
    """Be a hostile spectator: knock, watch, then send pings as fast as the socket takes them.
    (admitted, cut off by the host, pings sent)."""
    inv = Invite.parse(invite)
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.ROUTING_ID, b"zflood-spectator")
    pub, sec = zmq.curve_keypair()
    s.curve_publickey, s.curve_secretkey = pub, sec
    s.curve_serverkey = z85.encode(inv.server_key)
    mon = s.get_monitor_socket(zmq.EVENT_DISCONNECTED)
    s.connect(inv.endpoint)
    admitted = cut = False
    sent = 0
    deadline = time.monotonic() + stop_after
    try:
        s.send(wire.pack("knock", v=1))
        while time.monotonic() < deadline and not admitted:
            if not s.poll(200):
                continue
            msg = messages.decode(s.recv())
            if isinstance(msg, messages.Welcome):
                s.send(messages.encode(messages.Watch(game=None, have=0)))
            admitted = isinstance(msg, messages.Watching)
        ping = wire.pack("ping")
        while admitted and time.monotonic() < deadline:
            try:
                s.send(ping, flags=zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                pass
            if mon.poll(0):
                cut = True
                break
    finally:
        mon.close(linger=0)
        s.disable_monitor()
        s.close(linger=0)
        ctx.destroy(linger=0)
    return admitted, cut, sent


def test_a_flooding_spectator_is_dropped_and_the_game_goes_on(procs: Procs, tmp_path: Path) -> None:
    """A spectator that sends pings as fast as it can is admitted, then shut by the host once
    it passes its message rate; the host says so, the seats finish with one log, and an honest
    spectator beside it still verifies."""
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--delay", "0.1", quiet=False)
    honest = _watch(procs, invite, "honest")
    wait_for(lambda: "watching: 1 spectator" in procs.text("honest"), 15, "the admission")
    bot = procs.bot(invite, "bot", "--delay", "0.1")
    wait_for(lambda: log_len(procs.tmp / "host.zoolog") >= 10, 30, "the game under way")
    admitted, cut, sent = _flood(invite, 20.0)
    assert admitted and cut and sent > SPECTATOR_MSGS_BURST, (admitted, cut, sent)
    assert procs.wait(bot, "bot") == 0, procs.text("bot")
    assert procs.wait(host, "host") == 0, procs.text("host")
    assert procs.wait(honest, "honest") == 0, procs.text("honest")
    assert "dropped a spectator: more than 50 messages a second" in procs.text("host")
    assert procs.log("host") == procs.log("bot") == procs.log("honest")
    assert _verify(procs, "honest").returncode == 0
