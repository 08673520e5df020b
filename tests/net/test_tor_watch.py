"""Issue 22 item 2 for spectators (TRANSPORT.md §12.7): `zoo watch` of an onion invite on the
private Tor network of tests/net/tornet.py goes through the network's client (`--tor-socks`,
zoo's SOCKS forwarder, never libzmq's SOCKS connecter), hears the host's onion publisher
through a forwarder of its own, follows a game to the end, and its log is the seats' very bytes
and verifies; without a Tor option an onion invite is a usage error.
Skipped without the `tor` package."""

from __future__ import annotations

import base64
import subprocess

from tests.net.harness import ZOO, Procs, wait_for
from tests.net.tornet import TorNet, onion_host
from zoo_p2p.net.torlink import is_onion


def test_a_spectator_watches_an_onion_game_through_tor(procs: Procs, tornet: TorNet) -> None:
    tornet.reach_onion()
    socks = f"127.0.0.1:{tornet.client.socks_port}"
    host, invite = onion_host(procs, tornet, "--delay", "0.05")
    assert len(invite.addresses) == 1 and is_onion(invite.host), invite
    # Reaching a fresh onion through a private Tor network of eight tor processes on a busy
    # 2-core machine once took more than the watcher's default 90 s of trying (the circuit
    # outlived libzmq's 30 s handshake timer, then Tor refused for a while): slow but certain,
    # so the watcher tries for 240 s (--give-up; one invite, so it is also how long a silent
    # source is borne) and the test waits as long.
    watcher = procs.zoo(
        "watch", str(invite), "--tor-socks", socks, "--plain", "-v", "--give-up", "240",
        "--log", str(procs.tmp / "watcher.zoolog"), name="watcher",
    )  # fmt: skip
    wait_for(
        lambda: "watching: 1 spectator" in procs.text("watcher") or watcher.poll() is not None,
        250,
        "the admission over Tor",
    )
    assert watcher.poll() is None, procs.text("watcher")
    bot = procs.bot(str(invite), "bot1", "--tor-socks", socks, "--give-up", "60")
    assert procs.wait(bot, "bot1", timeout=240) == 0, procs.text("bot1") + procs.text("host")
    assert procs.wait(host, "host", timeout=60) == 0, procs.text("host")
    assert procs.wait(watcher, "watcher", timeout=60) == 0, procs.text("watcher")
    out = procs.text("watcher")
    assert f"watching {invite.host}:{invite.port} over Tor" in out, out
    assert "game over" in out, out
    assert procs.log("watcher") == procs.log("host") == procs.log("bot1")
    r = subprocess.run(
        [*ZOO, "verify", str(procs.tmp / "watcher.zoolog")],
        capture_output=True, text=True, env=procs.env, timeout=60, check=False,
    )  # fmt: skip
    assert r.returncode == 0 and "verdict: OK" in r.stdout, r.stdout + r.stderr
    # the host's publisher (its card names only its onion) heard through our own forwarder to
    # the Tor client, as a seat over Tor dials it; nothing else was dialled
    assert "seats heard: seat 1 (Yellow): direct" in out, out
    assert "cannot subscribe" not in out, out


def test_an_onion_invite_to_watch_without_tor_says_how(procs: Procs) -> None:
    """No Tor option: a usage error naming --tor and --tor-socks; the name is never looked up."""
    key = base64.b32encode(bytes(range(1, 33))).decode().lower().rstrip("=")
    invite = f"zoo://{'zoo' * 18}qd.onion:5858/{key}/ABCD-EFGH-IJKL-MNOP"
    p = procs.zoo("watch", invite, "--plain", name="lost")
    assert procs.wait(p, "lost", timeout=30) == 2, procs.text("lost")
    said = procs.text("lost")
    assert "this invite is an onion address: watch with --tor" in said, said
    assert "--tor-socks" in said
