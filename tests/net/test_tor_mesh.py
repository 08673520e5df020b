"""Issue 22 items 2 and 6: every peer behind an onion of its own, and nothing else.

Each peer runs in a network namespace that has nothing but its loopback (no veth, no route):
it cannot reach another peer's port at all. What it can reach is the private Tor network of
tests/net/tornet.py, whose relay ports tests/net/nsbridge.py opens inside the namespace. So
every byte between two peers crosses onion services: the host's (game port and direct-link
port) and each joiner's own (its direct links, TRANSPORT.md §10.5). The game is played to the
end, every log byte-identical and verified, and every peer heard every other one directly, at
that seat's onion.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.net.harness import audit_file, wait_for
from tests.net.netns import Lab, NsProcs, lab
from tests.net.nsbridge import NsBridge
from tests.net.tornet import TorNet
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.torlink import is_onion

ONION_LINK = re.compile(r"at tcp://([a-z2-7]{56}\.onion):\d+")


@pytest.fixture
def isolated(tornet: TorNet, tmp_path: Path) -> Iterator[tuple[Lab, NsProcs, list[NsBridge]]]:
    """A lab whose machines reach the private Tor network's relays and nothing else."""
    bridges: list[NsBridge] = []
    with lab(tmp_path) as net:
        procs = NsProcs(tmp_path)
        procs.env = {**procs.env, "ZOO_TOR_TORRC": str(tornet.client_include())}
        try:
            yield net, procs, bridges
        finally:
            procs.close()
            for b in bridges:
                b.close()


def _machine(net: Lab, tornet: TorNet, bridges: list[NsBridge], short: str) -> str:
    ns = net.machine(short)
    ports = [i.or_port for i in tornet.relays] + [a.dir_port for a in tornet.authorities]
    bridges.append(NsBridge(ns, ports))
    return ns


def _cannot_reach(ns: str, port: int) -> bool:
    """True if nothing answers on 127.0.0.1:PORT inside NS (the other machine's port)."""
    probe = (
        "import socket,sys\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
        "except OSError:\n"
        "    sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    r = subprocess.run(
        ["ip", "netns", "exec", ns, "python3", "-c", probe], capture_output=True, timeout=20
    )
    return r.returncode == 0


def test_three_seats_every_peer_only_behind_its_onion(
    tornet: TorNet, isolated: tuple[Lab, NsProcs, list[NsBridge]]
) -> None:
    net, procs, bridges = isolated
    spaces = [_machine(net, tornet, bridges, s) for s in ("h", "a", "b")]
    inv = procs.tmp / "host.invite"
    host = procs.zoo_in(
        spaces[0], "host", "--players", "3", "--bot", "greedy", "--tor",
        "--invite-file", str(inv), "--log", str(procs.tmp / "host.zoolog"), "--give-up", "120",
        name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, 240, "the host's onion invite")
    assert host.poll() is None, procs.text("host")
    invite = Invite.parse(inv.read_text())
    assert len(invite.addresses) == 1 and is_onion(invite.host), invite
    # the joiners' machines have no way to the host's port but its onion
    assert _cannot_reach(spaces[1], invite.port)

    bots = {}
    for name, ns in (("bot1", spaces[1]), ("bot2", spaces[2])):
        bots[name] = procs.zoo_in(
            ns, "bot", str(invite), "--tor", "--name", name, "--give-up", "120",
            "--log", str(procs.tmp / f"{name}.zoolog"),
            name=name,
        )  # fmt: skip
    for name, p in bots.items():
        assert procs.wait(p, name, timeout=400) == 0, procs.text(name) + procs.text("host")
    assert procs.wait(host, "host", timeout=60) == 0, procs.text("host")

    assert procs.log("bot1") == procs.log("host") == procs.log("bot2")
    report = audit_file(procs.tmp / "host.zoolog")
    assert report.ok, report  # type: ignore[attr-defined]
    assert len(report.seats) == 3  # type: ignore[attr-defined]
    onions: dict[str, set[str]] = {}
    for name in ("host", "bot1", "bot2"):
        said = procs.text(name)
        assert "over Tor: your address is hidden from the other players" in said
        links = [ln for ln in said.splitlines() if ln.startswith("direct links:")]
        assert links, said
        # both other seats heard directly, each at an onion (there is no other way here)
        heard = set(ONION_LINK.findall(links[-1]))
        assert len(heard) == 2, links[-1]
        onions[name] = heard
    # three distinct onions, each peer's heard by both others: the host's and one per joiner
    every = set().union(*onions.values())
    assert len(every) == 3 and invite.host in every, onions
