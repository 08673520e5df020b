"""The layering of DESIGN.md, checked on the source: who may import what."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_ast import nodes

PKG = Path(__file__).resolve().parents[1] / "zoo_p2p"

# modules a pure layer may never import (I/O, clock, global randomness, transport, CLI)
IMPURE = {
    "socket",
    "zmq",
    "time",
    "asyncio",
    "typer",
    "threading",
    "subprocess",
    "os",
    "secrets",
    "platformdirs",
    "select",
    "selectors",
}


def imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def files(sub: str) -> list[Path]:
    return sorted((PKG / sub).rglob("*.py")) if sub else sorted(PKG.rglob("*.py"))


@pytest.mark.parametrize("layer", ["rules", "protocol"])
def test_pure_layers_do_no_io(layer: str) -> None:
    for f in files(layer):
        bad = {m for m in imports(f) if m.split(".")[0] in IMPURE}
        assert not bad, f"{f.relative_to(PKG)} imports {bad}"
        src = f.read_text()
        # the random module may be used only through an injected random.Random
        for banned in ("random.random(", "random.choice(", "random.shuffle(", "random.randrange("):
            assert banned not in src, f"{f.relative_to(PKG)} uses the global random: {banned}"


def test_rules_import_nothing_above_them() -> None:
    for f in files("rules"):
        up = {
            m
            for m in imports(f)
            if m.startswith("zoo_p2p.") and not m.startswith(("zoo_p2p.rules", "zoo_p2p.errors"))
        }
        assert not up, f"{f.relative_to(PKG)} imports {up}"


def test_protocol_imports_no_upper_layer() -> None:
    for f in files("protocol"):
        up = {m for m in imports(f) if m.startswith(("zoo_p2p.net", "zoo_p2p.cli", "zoo_p2p.bots"))}
        assert not up, f"{f.relative_to(PKG)} imports {up}"


def test_only_net_imports_zmq_and_only_cli_imports_typer() -> None:
    for f in files(""):
        rel = f.relative_to(PKG).parts
        mods = {m.split(".")[0] for m in imports(f)}
        if rel[0] != "net":
            for net_only in ("zmq", "zeroconf", "miniupnpc", "segno", "ifaddr", "stem"):
                assert net_only not in mods, f"{'/'.join(rel)} imports {net_only}"
        if rel[0] != "cli":
            assert "typer" not in mods, f"{'/'.join(rel)} imports typer"


def test_driver_interface_is_front_end_neutral() -> None:
    """`zoo_p2p.driver` is implemented by the plain mode, the full-screen app and the bots."""
    mods = {m.split(".")[0] for m in imports(PKG / "driver.py")}
    assert not mods & {"zmq", "typer", "rich", "textual"}, mods


def test_only_tui_imports_textual_and_tui_never_imports_typer_or_zmq() -> None:
    for f in files(""):
        rel = f.relative_to(PKG).parts
        mods = {m.split(".")[0] for m in imports(f)}
        if rel[0] != "tui":
            assert "textual" not in mods, f"{'/'.join(rel)} imports textual"
    for f in files("tui"):
        mods = {m.split(".")[0] for m in imports(f)}
        assert not mods & {"typer", "zmq"}, (
            f"{f.relative_to(PKG)} imports {mods & {'typer', 'zmq'}}"
        )
        up = {m for m in imports(f) if m.startswith(("zoo_p2p.cli", "zoo_p2p.net"))}
        assert not up, f"{f.relative_to(PKG)} imports {up}"


def test_export_is_pure_string_building() -> None:
    for f in files("export"):
        bad = {m for m in imports(f) if m.split(".")[0] in IMPURE | {"rich", "textual"}}
        assert not bad, f"{f.relative_to(PKG)} imports {bad}"
        up = {m for m in imports(f) if m.startswith(("zoo_p2p.net", "zoo_p2p.cli", "zoo_p2p.tui"))}
        assert not up, f"{f.relative_to(PKG)} imports {up}"
