"""A simulated home router (network namespaces made by the test): the router namespace does NAT
with nftables and runs a real UPnP IGD daemon (miniupnpd); a host at "home" maps its port, a
joiner on the "internet" joins through the mapped address. Without the daemon, or when the
router refuses, the host says why and what to do, within a bounded time.

miniupnpd refuses to work when its outside address is private, so the router's outside link uses
11.88.2.0/24: those addresses exist only on a veth pair between two of the test's namespaces,
which have no link and no route to anything else, so no packet can leave them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.net.harness import audit_file, wait_for
from tests.net.netns import Lab, NsProcs, lab, need, sh

HOME_IP, ROUTER_LAN = "10.88.1.2", "10.88.1.1"
HOME2_IP = "10.88.1.3"  # a second machine at home, on the same switch
ROUTER_WAN, NET_IP = "11.88.2.1", "11.88.2.2"


def _router(net: Lab, *, daemon: bool, allow: bool = True) -> tuple[str, str, str]:
    """home, router, internet namespaces; NAT on the router; maybe miniupnpd. The router's
    LAN side is a switch (a bridge), so `_second_home` can add another machine at home."""
    nft = need("nft", "nftables")
    home, router, inet = net.machine("h"), net.machine("r"), net.machine("i")
    lan_if = net.bridge(router, f"{ROUTER_LAN}/24")
    net.wire(home, f"{HOME_IP}/24", router, None, bridge=lan_if)
    wan_if, _ = net.wire(router, f"{ROUTER_WAN}/24", inet, f"{NET_IP}/24")
    sh("ip", "route", "add", "default", "via", ROUTER_LAN, ns=home)
    sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=router)
    sh(
        nft,
        "-f",
        "-",
        ns=router,
        stdin=f"""table inet filter {{
  chain miniupnpd {{
  }}
  chain prerouting_miniupnpd {{
  }}
  chain postrouting_miniupnpd {{
  }}
  chain forward {{
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname "{lan_if}" accept
    jump miniupnpd
  }}
  chain prerouting {{
    type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd
  }}
  chain postrouting {{
    type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd
    oifname "{wan_if}" masquerade
  }}
}}
""",
    )
    if daemon:
        conf = net.tmp / "miniupnpd.conf"
        rule = "allow 1024-65535 10.88.1.0/24 1024-65535\n" if allow else ""
        conf.write_text(
            f"ext_ifname={wan_if}\nlistening_ip={lan_if}\nport=0\n"
            "enable_natpmp=no\nenable_upnp=yes\nsecure_mode=yes\nsystem_uptime=yes\n"
            "uuid=4d696e69-5550-6e50-0000-00000000200b\n"
            f"lease_file={net.tmp / 'upnp.leases'}\n"
            "upnp_table_name=filter\nupnp_nat_table_name=filter\n"
            "upnp_forward_chain=miniupnpd\nupnp_nat_chain=prerouting_miniupnpd\n"
            "upnp_nat_postrouting_chain=postrouting_miniupnpd\n"
            f"{rule}deny 0-65535 0.0.0.0/0 0-65535\n"
        )
        daemon_bin = need("miniupnpd", "miniupnpd-nftables")
        net.daemon(
            router,
            daemon_bin,
            "-f",
            str(conf),
            "-P",
            str(net.tmp / "miniupnpd.pid"),
            "-d",
            name="miniupnpd",
        )
    return home, router, inet


def _second_home(net: Lab, router: str) -> str:
    """Another machine on the home switch (HOME2_IP), behind the same router."""
    home2 = net.machine("g")
    net.wire(home2, f"{HOME2_IP}/24", router, None, bridge=f"{net.tag}br")
    sh("ip", "route", "add", "default", "via", ROUTER_LAN, ns=home2)
    return home2


def _host(p: NsProcs, ns: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    return p.host_in(ns, "--upnp", "--no-announce", *extra)


def test_upnp_mapping_lets_an_outside_joiner_in(tmp_path: Path) -> None:
    with lab(tmp_path) as net:
        home, router, inet = _router(net, daemon=True)
        p = NsProcs(tmp_path)
        try:
            host, invite = _host(p, home)
            assert f"{ROUTER_WAN}:" in invite and f"{HOME_IP}:" in invite, p.text("host")
            mapped = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
            assert "dnat" in mapped, mapped
            t0 = time.monotonic()
            joiner = p.zoo_in(
                inet,
                "bot",
                invite,
                "--log",
                str(tmp_path / "bot1.zoolog"),
                "--give-up",
                "20",
                name="bot1",
            )
            assert p.wait(joiner, "bot1", 60) == 0, p.text("bot1") + p.text("host")
            print(f"behind NAT with UPnP: game over after {time.monotonic() - t0:.2f} s")
            assert p.wait(host, "host", 20) == 0, p.text("host")
            assert p.log("bot1") == p.log("host")
            assert audit_file(tmp_path / "host.zoolog").ok  # type: ignore[attr-defined]
            # the host mapped its direct-link port too: the joiner heard it there
            assert "to our direct links" in p.text("host"), p.text("host")
            links = _links((tmp_path / "bot1.out").read_text())
            assert f"seat 1 (Yellow) at tcp://{ROUTER_WAN}:" in links, links
            after = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
            assert "dnat" not in after, f"mapping left on the router:\n{after}"
        finally:
            p.close()


def _advice_within_bound(tmp_path: Path, *, daemon: bool, why: str) -> None:
    with lab(tmp_path) as net:
        home, _, _ = _router(net, daemon=daemon, allow=False)
        p = NsProcs(tmp_path)
        try:
            t0 = time.monotonic()
            host, invite = _host(p, home)
            took = time.monotonic() - t0
            assert ROUTER_WAN not in invite
            out = p.text("host")
            assert "could not map port" in out and why in out, out
            assert "forward TCP port" in out and "Tailscale" in out, out
            assert "ssh -N -R" in out and f"{HOME_IP}:" in out, out
            assert "Traceback" not in out
            assert took < 15, took
            assert host.poll() is None  # still hosting for the LAN
        finally:
            p.close()


def test_no_upnp_daemon_says_so_and_gives_advice(tmp_path: Path) -> None:
    _advice_within_bound(tmp_path, daemon=False, why="no UPnP router answered")


def test_router_that_refuses_says_so_and_gives_advice(tmp_path: Path) -> None:
    _advice_within_bound(tmp_path, daemon=True, why="refused")


RENEW = """
import sys
import time
from zoo_p2p.net.portmap import PortMapper
pm = PortMapper(40777, lease=2, discover_ms=1000)
m = pm.open()
print("mapped", m.external_ip, m.external_port, m.lease, flush=True)
deadline = time.monotonic() + 10
while pm.renewals < 1 and time.monotonic() < deadline:
    time.sleep(0.05)
print("renewals", pm.renewals, flush=True)
print("removed", pm.close(), flush=True)
"""


def test_the_lease_is_renewed_and_the_mapping_removed(tmp_path: Path) -> None:
    with lab(tmp_path) as net:
        home, router, _ = _router(net, daemon=True)
        out = sh(sys.executable, "-c", RENEW, ns=home)
        assert f"mapped {ROUTER_WAN} 40777 2" in out, out
        assert "renewals 0" not in out and "removed True" in out, out
        after = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
        assert "40777" not in after, after


def _mesh_game(
    tmp_path: Path,
    *,
    upnp: bool,
    daemon: bool = True,
    outside: bool = True,
    second_home: bool = False,
    delay: float = 0.15,
    hold: str | None = None,
) -> dict[str, str]:
    """A bot game: the host on the "internet", joiner A at "home" behind the router (maybe
    with --upnp), maybe joiner B on the "internet" too and joiner C on a second machine at
    home (like A); returns what each printed on its standard output. With `hold`, the last
    joiner comes (and the game starts) only once A has printed those words."""
    with lab(tmp_path) as net:
        home, router, inet = _router(net, daemon=daemon)
        where = {"a": home}
        if outside:
            where["b"] = inet
        if second_home:
            where["c"] = _second_home(net, router)
        p = NsProcs(tmp_path)
        try:
            host, invite = p.host_in(inet, "--no-announce", players=1 + len(where))
            procs = [(host, "host")]
            a_out = tmp_path / "a.out"
            for name, ns in where.items():
                if hold is not None and name == list(where)[-1]:
                    # the router's bound (portmap.OPEN_TIMEOUT, 10 s) and A's start-up
                    wait_for(lambda: hold in a_out.read_text(), 30, f"A to say {hold!r}")
                flags = ("--upnp",) if upnp and ns != inet else ()
                log = str(tmp_path / f"{name}.zoolog")
                args = ("--log", log, "--delay", str(delay), "--give-up", "30", "-v", *flags)
                procs.append((p.zoo_in(ns, "bot", invite, *args, name=name), name))
            for proc, name in procs:
                assert p.wait(proc, name, 90) == 0, p.text(name) + p.text("host")
                assert p.log(name) == p.log("host")
            assert audit_file(tmp_path / "host.zoolog").ok  # type: ignore[attr-defined]
            after = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
            assert "dnat" not in after, f"mapping left on the router:\n{after}"
            return {name: (tmp_path / f"{name}.out").read_text() for _, name in procs}
        finally:
            p.close()


def test_joiners_behind_nat_map_their_direct_link_ports(tmp_path: Path) -> None:
    """B (outside) hears A and C (at home, --upnp) directly at the router's mapped endpoints;
    A and C, on one switch, hear each other directly too (at home or through the router)."""
    out = _mesh_game(tmp_path, upnp=True, second_home=True)
    a_err = (tmp_path / "a.err").read_text()
    assert "Traceback" not in "".join(out.values()) + a_err
    assert f"our card says tcp://{HOME_IP}:" in a_err, a_err  # its LAN address, and
    assert f", tcp://{ROUTER_WAN}:" in a_err, a_err  # the router's mapped endpoint
    assert _links(out["b"]).count(f"at tcp://{ROUTER_WAN}:") == 2, out["b"]
    for name in ("a", "c"):
        links = _links(out[name])
        assert "none" not in links and links.count(" at tcp://") == 3, out[name]
    print("A hears C:", _links(out["a"]), "\nC hears A:", _links(out["c"]))


def test_without_upnp_the_outside_joiner_hears_home_only_through_the_host(
    tmp_path: Path,
) -> None:
    out = _mesh_game(tmp_path, upnp=False)
    a_out, b_out = out["a"], out["b"]
    assert f"tcp://{ROUTER_WAN}:" not in a_out + b_out, a_out
    assert "none (host only)" in _links(b_out), b_out
    assert "holds back" not in a_out  # B never heard A's requests: it is not accused


def test_a_joiner_whose_router_will_not_map_says_so_once_and_plays_on(tmp_path: Path) -> None:
    """A hears nothing from a router for about 4 s; a game can be shorter than that (a deal with
    few moves), so B on the "internet" joins, and the game starts, only once A has said it in
    the lobby. A says it once: not again when its direct links start with the game."""
    t0 = time.monotonic()
    why = "could not map our direct-link port"
    out = _mesh_game(tmp_path, upnp=True, daemon=False, delay=0.1, hold=why)
    a_out, host_out = out["a"], out["host"]
    assert a_out.count(why) == 1, a_out
    assert a_out.index(why) < a_out.index("the game is set up"), a_out  # said in the lobby
    line = a_out[a_out.index(why) :]
    assert "no UPnP router answered" in line and "only through the host" in line, a_out
    assert "Tailscale" in a_out, a_out
    assert "seat 2 (Blue): none (host only)" in _links(host_out), host_out
    assert "seat 2 (Blue): none (host only)" in _links(out["b"]), out["b"]
    print(f"no router: game over {time.monotonic() - t0:.1f} s after the lab was made")


def _links(out: str) -> str:
    """The end-of-game line that says which seats were heard directly."""
    lines = [x for x in out.splitlines() if x.startswith("direct links: ")]
    assert len(lines) == 1, out
    return lines[0]


def test_a_joiner_that_used_upnp_maps_again_when_it_resumes(tmp_path: Path) -> None:
    """A at home joins with --upnp, is interrupted mid-game (its mapping removed), and goes on
    with `zoo resume`: the sidecar says --upnp, so it asks the router again; its new card
    carries the mapped endpoint, the outside host hears it there, and nothing is left mapped."""
    import signal

    from tests.net.harness import log_len

    with lab(tmp_path) as net:
        home, router, inet = _router(net, daemon=True)
        p = NsProcs(tmp_path)
        try:
            host, invite = p.host_in(inet, "--no-announce", "--delay", "0.4", "-v")
            log, key = tmp_path / "a.zoolog", tmp_path / "a.pem"
            first = p.zoo_in(
                home, "bot", invite, "--upnp", "--log", str(log), "--identity", str(key),
                "--delay", "0.2", "--give-up", "30", "-v", name="a",
            )  # fmt: skip
            card = f", tcp://{ROUTER_WAN}:"  # the router's mapped endpoint on our card
            wait_for(lambda: card in p.text("a") and log_len(log) >= 6, 30, "A mapped, playing")
            first.send_signal(signal.SIGINT)
            assert p.wait(first, "a", 20) == 130, p.text("a")
            assert "zoo resume" in p.text("a")
            again = p.zoo_in(
                home, "resume", str(log), "--identity", str(key), "--bot", "greedy", "-v",
                name="a2",
            )  # fmt: skip
            assert p.wait(again, "a2", 90) == 0, p.text("a2") + p.text("host")
            assert p.wait(host, "host", 20) == 0, p.text("host")
            out = p.text("a2")
            assert "asking the router to forward our direct-link port" in out, out
            assert card in out, out
            assert f"seat 2 (Blue) at tcp://{ROUTER_WAN}:" in _links(p.text("host")), p.text("host")
            assert p.log("a") == p.log("host")
            after = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
            assert "dnat" not in after, f"mapping left on the router:\n{after}"
        finally:
            p.close()


def test_a_host_that_used_upnp_maps_again_when_it_resumes(tmp_path: Path) -> None:
    """The host at home hosts with --upnp and crashes (kill -9) mid-game; the outside joiner
    keeps reconnecting to the router's address in its invite. `zoo resume` reads --upnp from
    the sidecar, asks the router again for the same port, and the game completes through it."""
    import signal

    from tests.net.harness import log_len

    with lab(tmp_path) as net:
        home, router, inet = _router(net, daemon=True)
        p = NsProcs(tmp_path)
        try:
            host, invite = _host(p, home, "--delay", "0.3", "--move-time", "600")
            assert f"{ROUTER_WAN}:" in invite, p.text("host")
            joiner = p.zoo_in(
                inet, "bot", invite, "--log", str(tmp_path / "b.zoolog"), "--delay", "0.2",
                "--give-up", "60", name="b",
            )  # fmt: skip
            wait_for(lambda: log_len(tmp_path / "host.zoolog") >= 6, 30, "the game under way")
            host.send_signal(signal.SIGKILL)
            host.wait(5)
            again = p.zoo_in(
                home, "resume", str(tmp_path / "host.zoolog"), "--bot", "greedy", name="again"
            )
            assert p.wait(again, "again", 90) == 0, p.text("again") + p.text("b")
            assert p.wait(joiner, "b", 30) == 0, p.text("b")
            out = p.text("again")
            assert "resuming as host" in out and "asking the router to forward the port" in out
            port = invite.split("/")[2].rpartition(":")[2]  # the invite's first (LAN) port
            assert f"router forwards {ROUTER_WAN}:{port} to {HOME_IP}:{port}" in out, out
            assert p.log("b") == p.log("host")
            after = sh("nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd", ns=router)
            assert f"dport {port} " not in after, f"game port left mapped:\n{after}"
        finally:
            p.close()
