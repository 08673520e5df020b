"""The private Tor network of the tests (tests/net/tornet.py): it comes up, an onion service is
reachable through its client, libzmq reaches a ROUTER behind the onion through the client's
SocksPort (with CURVE, the `.onion` name sent unresolved), and no tor process has a socket
anywhere but 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.net.tornet import ONION_VIRTUAL_PORT, TorNet, socks5_connect


def test_onion_reachable_through_the_client(tornet: TorNet) -> None:
    tornet.reach_onion()
    with socket.socket() as srv:
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", tornet.onion_target_port))
        srv.listen()
        srv.settimeout(30)
        with socks5_connect(tornet.socks, tornet.onion_hostname, ONION_VIRTUAL_PORT) as c:
            conn, peer = srv.accept()
            with conn:
                c.sendall(b"ping over tor")
                conn.settimeout(30)
                assert conn.recv(64) == b"ping over tor"
                conn.sendall(b"pong")
                c.settimeout(30)
                assert c.recv(64) == b"pong"
        # the service sees the connection come from its own tor process, never the client
        assert peer[0] == "127.0.0.1"


def test_unknown_onion_is_refused_by_the_client(tornet: TorNet) -> None:
    """An onion nobody published: the SOCKS reply says so (no descriptor), nothing hangs."""
    fake = "a" * 55 + "d.onion"  # right length, bad checksum: tor refuses it at once
    try:
        socks5_connect(tornet.socks, fake, ONION_VIRTUAL_PORT, timeout=60).close()
    except OSError as e:
        assert "reply code" in str(e) or "closed" in str(e)
    else:
        raise AssertionError("a made-up onion was reachable")


def _socket_inodes(pid: int) -> set[str]:
    out: set[str] = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[8:-1])
    return out


def _tcp_table() -> dict[str, tuple[str, str]]:
    """inode -> (local address hex, remote address hex) of every TCP socket of the machine."""
    table: dict[str, tuple[str, str]] = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for ln in lines:
            f = ln.split()
            table[f[9]] = (f[1].split(":")[0], f[2].split(":")[0])
    return table


def _is_loopback_or_any(hexaddr: str) -> bool:
    if len(hexaddr) == 8:  # IPv4, little-endian: 127.x.x.x ends in 7F
        return hexaddr.endswith("7F") or hexaddr == "00000000"
    return hexaddr in ("0" * 32, "0" * 24 + "01000000")  # :: and ::1


def test_no_tor_socket_leaves_loopback(tornet: TorNet) -> None:
    """Every TCP socket of the 8 tor processes is on 127.0.0.1: the network is ours alone."""
    table = _tcp_table()
    seen = 0
    for pid in tornet.pids():
        for inode in _socket_inodes(pid):
            if inode not in table:
                continue  # a Unix or UDP socket
            local, remote = table[inode]
            seen += 1
            assert _is_loopback_or_any(local), (pid, local)
            assert _is_loopback_or_any(remote), (pid, remote)
    assert len(tornet.pids()) == 8
    assert seen >= 8 * 2  # listeners and live links between them were looked at


def test_every_instance_names_only_our_authorities(tornet: TorNet) -> None:
    for inst in tornet.instances:
        torrc = inst.torrc.read_text()
        assert "UseDefaultFallbackDirs 0" in torrc
        dir_auths = [ln for ln in torrc.splitlines() if ln.startswith("DirAuthority ")]
        assert len(dir_auths) == 3
        assert all(" 127.0.0.1:" in ln for ln in dir_auths)
        if inst.role in ("authority", "relay"):
            assert "ExitPolicy reject *:*" in torrc


ZMQ_THROUGH_ONION = textwrap.dedent(
    """
    import sys, zmq
    target, socks_host, socks_port, onion, vport, curve = sys.argv[1:7]
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    dealer = ctx.socket(zmq.DEALER)
    if curve == "1":
        spub, ssec = zmq.curve_keypair()
        cpub, csec = zmq.curve_keypair()
        router.curve_server = True
        router.curve_secretkey = ssec
        dealer.curve_serverkey = spub
        dealer.curve_publickey = cpub
        dealer.curve_secretkey = csec
    router.bind("tcp://127.0.0.1:" + target)
    dealer.setsockopt(zmq.SOCKS_PROXY, (socks_host + ":" + socks_port).encode())
    dealer.connect("tcp://" + onion + ":" + vport)
    dealer.send(b"hello through tor")
    if not router.poll(60000):
        print("no message in 60 s"); sys.stdout.flush(); import os; os._exit(3)
    rid, msg = router.recv_multipart()
    router.send_multipart([rid, b"welcome " + msg])
    if not dealer.poll(60000):
        print("no answer in 60 s"); sys.stdout.flush(); import os; os._exit(4)
    print(dealer.recv().decode())
    for s in (dealer, router):
        s.close(linger=0)
    ctx.term()
    """
)


def _zmq_via_onion(tornet: TorNet, curve: bool) -> subprocess.CompletedProcess[str]:
    # in a child: a failed SOCKS attempt would abort the whole process on close (item 5)
    tornet.reach_onion()
    return subprocess.run(
        [
            sys.executable,
            "-c",
            ZMQ_THROUGH_ONION,
            str(tornet.onion_target_port),
            *map(str, tornet.socks),
            tornet.onion_hostname,
            str(ONION_VIRTUAL_PORT),
            "1" if curve else "0",
        ],
        capture_output=True,
        text=True,
        timeout=150,
    )


def test_zmq_dealer_reaches_router_behind_onion_with_curve(tornet: TorNet) -> None:
    """libzmq hands the `.onion` name to the proxy unresolved: there is no DNS for it, so the
    connection works only that way."""
    r = _zmq_via_onion(tornet, curve=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "welcome hello through tor"


def test_zmq_dealer_reaches_router_behind_onion_without_curve(tornet: TorNet) -> None:
    r = _zmq_via_onion(tornet, curve=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "welcome hello through tor"


def test_a_network_that_does_not_come_up_says_what_is_missing(tmp_path: Path) -> None:
    """A bound of 1 s: the error names the instances still waiting, and nothing is left running."""
    from tests.net.tornet import tor_missing

    why = tor_missing()
    if why is not None:
        import pytest

        pytest.skip(why)
    net = TorNet(tmp_path / "net")
    try:
        net.start(timeout=1.0)
    except RuntimeError as e:
        msg = str(e)
    else:
        raise AssertionError("a private Tor network bootstrapped in 1 s")
    assert "did not come up in 1 s" in msg
    assert "zooclient not bootstrapped" in msg
    assert "zooonion" in msg
    assert net.pids() == []
    for inst in net.instances:
        assert inst.proc is not None and inst.proc.returncode is not None
