"""Two machines on one simulated LAN (network namespaces made by the test): the host advertises,
a joiner with no invite finds it and a bot game completes; with multicast blocked the joiner
says so within a bounded time."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.net.harness import audit_file, log_len, wait_for
from tests.net.netns import NsProcs, lab, need, sh
from zoo_p2p.net.invite import Invite

HOST_IP, HOST_IP6 = "10.231.0.1", "fd00:231::1"
JOIN_IP, JOIN_IP6 = "10.231.0.2", "fd00:231::2"


def _host(
    p: NsProcs, ns: str, *extra: str, players: int = 2
) -> tuple[subprocess.Popen[bytes], str]:
    return p.host_in(ns, "--name", "alice", *extra, players=players)


def test_lan_discovery_then_a_bot_game(tmp_path: Path) -> None:
    """3 seats: one joiner comes in over IPv6 with the invite, one finds the game by mDNS."""
    with lab(tmp_path) as net:
        a, b = net.machine("a"), net.machine("b")
        ia, ib = net.wire(a, f"{HOST_IP}/24", b, f"{JOIN_IP}/24")
        sh("ip", "addr", "add", f"{HOST_IP6}/64", "dev", ia, "nodad", ns=a)
        sh("ip", "addr", "add", f"{JOIN_IP6}/64", "dev", ib, "nodad", ns=b)
        p = NsProcs(tmp_path)
        try:
            host, invite = _host(p, a, players=3)
            assert f"{HOST_IP}:" in invite and f"[{HOST_IP6}]:" in invite, invite
            host_out = p.text("host")
            assert "listening on" in host_out and f"[{HOST_IP6}]:" in host_out, host_out
            v6 = Invite.parse(invite)
            v6 = v6.with_addresses([a for a in v6.addresses if a[0] == HOST_IP6])
            over_v6 = p.zoo_in(
                b, "bot", str(v6), "--log", str(tmp_path / "bot2.zoolog"), name="bot2"
            )
            t0 = time.monotonic()
            joiner = p.zoo_in(
                b,
                "bot",
                "--level",
                "greedy",
                "--log",
                str(tmp_path / "bot1.zoolog"),
                "--give-up",
                "20",
                name="bot1",
            )
            assert p.wait(joiner, "bot1", 60) == 0, p.text("bot1") + p.text("host")
            assert p.wait(over_v6, "bot2", 20) == 0, p.text("bot2")
            print(f"same LAN, discovered: game over after {time.monotonic() - t0:.2f} s")
            assert p.wait(host, "host", 20) == 0, p.text("host")
            assert "failed the secure handshake" not in p.text("host")  # probes are clean
            out = p.text("bot1")
            assert "alice" in out and invite.rsplit("/", 1)[1] in out, out
            assert p.log("bot1") == p.log("host") == p.log("bot2")
            report = audit_file(tmp_path / "host.zoolog")
            assert report.ok, report  # type: ignore[attr-defined]
        finally:
            p.close()


def test_blocked_multicast_is_reported_in_bounded_time(tmp_path: Path) -> None:
    with lab(tmp_path) as net:
        a, b = net.machine("a"), net.machine("b")
        net.wire(a, f"{HOST_IP}/24", b, f"{JOIN_IP}/24")
        sh(
            need("nft", "nftables"),
            "-f",
            "-",
            ns=b,
            stdin="table inet blockmdns {\n"
            " chain o { type filter hook output priority 0; udp dport 5353 drop; }\n"
            " chain i { type filter hook input priority 0; udp dport 5353 drop; }\n"
            "}\n",
        )
        p = NsProcs(tmp_path)
        try:
            _host(p, a)
            t0 = time.monotonic()
            joiner = p.zoo_in(b, "bot", "--log", str(tmp_path / "bot1.zoolog"), name="bot1")
            code = p.wait(joiner, "bot1", 20)
            took = time.monotonic() - t0
            out = " ".join(p.text("bot1").split())
            assert code == 1, out
            assert "no game found on the local network" in out and "zoo join INVITE" in out, out
            assert "Traceback" not in out
            assert took < 15, took
        finally:
            p.close()


SPOOF = """
import sys, time
from zoo_p2p.net.discovery import Announcer
from zoo_p2p.net.invite import Invite
real = Invite.parse(sys.argv[1])
lie = Invite(host=real.host, port=real.port, server_key=real.server_key, fingerprint=sys.argv[2])
a = Announcer(lie, name="alice", seats=2, taken=1, variant="standard",
              interfaces=[real.host]).start()
print("announced", a.wait(10), a.error, flush=True)
time.sleep(30)
"""


def test_a_spoofed_advert_cannot_impersonate_the_host_it_names(tmp_path: Path) -> None:
    """Mallory's own zoo host advertises itself as alice, with alice's fingerprint: the joiner
    that picks it is refused by the fingerprint check and never takes a seat at Mallory's."""
    alice_fp = "AAAA-BBBB-CCCC-DDDD"
    with lab(tmp_path) as net:
        m, b = net.machine("m"), net.machine("b")
        net.wire(m, f"{HOST_IP}/24", b, f"{JOIN_IP}/24")
        p = NsProcs(tmp_path)
        try:
            _, invite = _host(p, m, "--no-announce")
            assert alice_fp not in invite
            spoof = net.daemon(m, sys.executable, "-c", SPOOF, invite, alice_fp, name="spoof")
            wait_for(
                lambda: (
                    "announced" in (tmp_path / "spoof.out").read_text() or spoof.poll() is not None
                ),
                15,
                "the spoofed advert",
            )
            assert "announced True" in (tmp_path / "spoof.out").read_text()
            joiner = p.zoo_in(
                b, "bot", "--log", str(tmp_path / "bot1.zoolog"), "--give-up", "4", name="bot1"
            )
            code = p.wait(joiner, "bot1", 30)
            out = " ".join(p.text("bot1").split())
            assert code != 0, out
            assert alice_fp in out and "fingerprint" in out.split(alice_fp, 1)[1], out
            assert "Traceback" not in out
            assert "joined" not in p.text("host")  # no seat taken at Mallory's table
            assert not (tmp_path / "bot1.zoolog").exists() or log_len(tmp_path / "bot1.zoolog") == 0
        finally:
            p.close()
