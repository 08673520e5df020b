"""`zoo resume` of a joiner that joined with `--upnp` asks the router again: the `.net` sidecar
keeps the flag (sidecars written before it lack the field: not asked). The router is a stand-in
here (asking a real one would send SSDP multicast beyond 127.0.0.1; `test_netns_nat.py` maps
for real inside its namespaces); the host is a real process on 127.0.0.1."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.net.harness import Procs
from zoo_p2p import storage
from zoo_p2p.cli import joining, lan, runners
from zoo_p2p.cli.botdriver import BotDriver
from zoo_p2p.driver import GameLink, NullDriver
from zoo_p2p.errors import LogError
from zoo_p2p.storage import NetSidecar


def test_the_sidecar_keeps_upnp_and_reads_old_and_odd_ones(tmp_path: Path) -> None:
    side = NetSidecar(role="join", invite="zoo://x", upnp=True)
    assert NetSidecar.from_json(side.to_json()) == side
    assert json.loads(side.to_json())["upnp"] is True
    old = {"role": "join", "port": 0, "bind": "0.0.0.0", "curve": True, "invite": "zoo://x"}
    assert NetSidecar.from_json(json.dumps(old)).upnp is False  # written before the field
    for odd in ("yes", 1, None, [True]):
        assert NetSidecar.from_json(json.dumps({**old, "upnp": odd})).upnp is False
    log = tmp_path / "g.zoolog"
    storage.write_sidecar(log, side)
    assert storage.read_sidecar(log) == side
    storage.sidecar_path(log).write_text(" " * (storage.MAX_SIDECAR + 1))
    with pytest.raises(LogError, match="larger than"):
        storage.read_sidecar(log)


class _Router:
    """Stands in for `lan.map_mesh_port`: records each ask; the mapping records its close (the
    joiner is built with the default publisher: nothing is mapped for real)."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.closed = 0

    def __call__(self, console: Console, invite: Any) -> tuple[lan.MeshSetup, _Router]:
        self.asked.append(str(invite))
        return lan.MeshSetup(), self

    def close(self) -> None:
        self.closed += 1


class _LeaveAtOurTurn(NullDriver):
    def on_turn(self, link: GameLink) -> None:
        link.leave("interrupted")


def test_resume_asks_the_router_again_for_a_joiner_that_used_upnp(
    procs: Procs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Join with --upnp (the stand-in router is asked), stop at our first turn; the sidecar
    says upnp; `zoo resume` asks again with the stored invite, plays to the end, and closes the
    mapping."""
    router = _Router()
    monkeypatch.setattr(lan, "map_mesh_port", router)
    _, invite = procs.host("--players", "2", "--bot", "greedy", "--move-time", "600")
    log, key = procs.tmp / "j.zoolog", procs.tmp / "j.pem"
    out = io.StringIO()
    console = Console(file=out, width=100)
    code = joining.run_join(
        invite, name="j", team=None, log_path=log, identity=key, give_up=30,
        driver=_LeaveAtOurTurn(), console=console, ephemeral=False, upnp=True,
    )  # fmt: skip
    assert code == 130, out.getvalue()
    assert router.asked == [invite] and router.closed == 1
    side = storage.read_sidecar(log)
    assert side is not None and side.upnp and side.invite == invite
    code = runners.run_resume(
        log, invite_text=None, port=None, bind=None, identity=key, give_up=30,
        driver=BotDriver("greedy", seed=1, delay=0, think=None, console=None), console=console,
    )  # fmt: skip
    assert code == 0, out.getvalue()
    assert router.asked == [invite, invite] and router.closed == 2
