"""No import cycles inside a layer (issue 19), beside the layer rules of tests/test_layers.py.

A module's imports are all of them: at module level and inside functions, because an import
moved into a function to dodge a cycle still is one (`cli.exportcmd` -> `cli.replay` ->
`cli.verify` -> `cli.exportcmd` was). A layer is a subpackage of `zoo_p2p` (cli, net, protocol,
rules, bots, export, tui) or the top-level modules together. Read from the source with `ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_ast import nodes

PKG = Path(__file__).resolve().parents[1] / "zoo_p2p"

KNOWN: dict[str, str] = {}
"""Layers whose cycles are known and owned by an open issue; no other layer may have one."""


def modname(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 2 or (PKG / parts[-1]).is_dir() else ""


def imported(path: Path, known: set[str], mod: str = "") -> set[str]:
    """Every module of the package that `path` (the module `mod`) imports, wherever the
    import statement is."""
    mod = mod or modname(path)
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parts = mod.split(".") if is_pkg else mod.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, node.module] if node.module else parts)
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        out |= {t for t in targets if t in known and t != mod}
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_graph() -> dict[str, set[str]]:
    files = {modname(p): p for p in PKG.rglob("*.py")}
    known = set(files)
    return {
        mod: {t for t in imported(path, known) if layer(t) == layer(mod)}
        for mod, path in files.items()
    }


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_lazy_import_counts(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f() -> None:\n    from zoo_p2p.cli import replay\n")
    known = {"zoo_p2p.cli.replay", "zoo_p2p.cli"}
    assert "zoo_p2p.cli.replay" in imported(src, known, "zoo_p2p.cli.m")


def test_no_import_cycle_inside_a_layer() -> None:
    bad = [c for c in cycles(layer_graph()) if layer(c[0]) not in KNOWN]
    assert not bad, f"import cycles inside a layer: {bad}"
