"""There is one place that builds a host and one that builds a joiner (issue 19):
`zoo_p2p.cli.hosting.build_host` / `build_joiner`, used by host, join, bot, resume and the
networked play. Outside `zoo_p2p/net/` no other code calls `Host(...)` or `Joiner(...)`. A
peer's direct-link publisher is a constructor option (`mesh_setup`); the one thing set after the
fact is the host's, in `build_host`, when the router mapped its port (it can only once the
host's own port is bound and mapped); the old attributes (`mesh_port`, …) are gone."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "zoo_p2p"
BUILDER = PKG / "cli" / "hosting.py"
PEER_CLASSES = {"Host", "Joiner"}
SET_ON_A_PEER = {"mesh_setup", "mesh_port", "mesh_more", "mesh_hidden", "mesh_socks"}


def _outside_net() -> list[Path]:
    return [p for p in sorted(PKG.rglob("*.py")) if p.relative_to(PKG).parts[0] != "net"]


def _calls(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
    return names


def _assigned_attributes(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        out |= {t.attr for t in targets if isinstance(t, ast.Attribute)}
    return out


def test_only_hosting_builds_a_host_or_a_joiner() -> None:
    builders = {
        str(p.relative_to(PKG)): sorted(_calls(ast.parse(p.read_text())) & PEER_CLASSES)
        for p in _outside_net()
    }
    assert {f: c for f, c in builders.items() if c} == {"cli/hosting.py": ["Host", "Joiner"]}


def test_only_hosting_sets_a_peers_direct_links() -> None:
    setters = {
        str(p.relative_to(PKG)): sorted(
            _assigned_attributes(ast.parse(p.read_text())) & SET_ON_A_PEER
        )
        for p in _outside_net()
    }
    assert {f: a for f, a in setters.items() if a} == {"cli/hosting.py": ["mesh_setup"]}


def test_host_join_bot_resume_and_play_reach_the_builders() -> None:
    """The commands' runners call the builders, never the classes."""
    runners = ast.parse((PKG / "cli" / "runners.py").read_text())
    called = _calls(runners)
    assert {"build_host", "build_joiner"} <= called and not called & PEER_CLASSES
