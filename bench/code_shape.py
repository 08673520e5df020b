"""The code's shape in figures: the numbers issue 19 is judged by, measured the same way each time.

    python bench/code_shape.py [--top N]

Prints, for the package: lines per file (the largest, and every file in net/), the longest
functions, how often net/ reads the clock, `getattr` on drivers and links (and every getattr or
hasattr, those at the layers' seams, `__getattr__` proxies), imports made inside
functions, and the import cycles between modules (top-level imports only, then with the imports
inside functions too). Reads the source with `ast`; imports nothing of the package.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "zoo_p2p"
GETATTR = re.compile(r"getattr\((self\.)?(driver|link|peer|inner)")
CLOCK = re.compile(r"\btime\.(monotonic|time|perf_counter)\(")


SEAM_WORDS = {"driver", "link", "sink", "peer", "host", "joiner", "table", "mesh", "app", "inner"}


def reflection(tree: ast.AST) -> Iterator[str]:
    """The object of every getattr/hasattr call, as written."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
        ):
            yield ast.unparse(node.args[0])


def seam(obj: str) -> bool:
    """A getattr on one of the layers' seams (tests/test_interfaces.py forbids them)."""
    return obj == "self" or bool(set(re.split(r"[^a-z]+", obj.lower())) & SEAM_WORDS)


def modname(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def edges(path: Path, tree: ast.Module, known: set[str]) -> tuple[set[str], set[str]]:
    """The package modules `path` imports: (at module level, inside functions)."""
    mod = modname(path)
    is_pkg = path.name == "__init__.py"
    inner: set[int] = set()
    for fn in functions(tree):
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Import | ast.ImportFrom):
                inner.add(id(sub))
    top: set[str] = set()
    lazy: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(mod, is_pkg, node)
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        hits = {t for t in targets if t in known and t != mod}
        (lazy if id(node) in inner else top).update(hits)
    return top, lazy - top


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=12, help="how many of the largest to list")
    args = ap.parse_args()
    files = sorted(PKG.rglob("*.py"))
    trees = {f: ast.parse(f.read_text(), filename=str(f)) for f in files}
    known = {modname(f) for f in files}
    lines = {f: len(f.read_text().splitlines()) for f in files}
    rel = {f: str(f.relative_to(PKG.parent)) for f in files}

    print(f"package: {len(files)} files, {sum(lines.values())} lines")
    print(f"\nlargest files (top {args.top}):")
    for f in sorted(files, key=lambda f: -lines[f])[: args.top]:
        print(f"  {lines[f]:5d}  {rel[f]}")
    net = [f for f in files if f.relative_to(PKG).parts[0] == "net"]  # (net/core/ too)
    print(
        f"\nnet/: {len(net)} files, {sum(lines[f] for f in net)} lines, "
        f"largest {max(lines[f] for f in net)}, over 600 lines: "
        f"{sum(lines[f] > 600 for f in net)}"
    )

    fns = [
        (fn.end_lineno - fn.lineno + 1 if fn.end_lineno else 0, rel[f], fn.name, fn.lineno)
        for f, t in trees.items()
        for fn in functions(t)
    ]
    print(f"\nlongest functions (top {args.top}):")
    for n, r, name, line in sorted(fns, reverse=True)[: args.top]:
        print(f"  {n:5d}  {r}:{line} {name}")
    net_fns = [x for x in fns if "/net/" in x[1]]
    print(
        f"net/ functions over 60 lines: {sum(n > 60 for n, *_ in net_fns)}"
        f" (longest {max(n for n, *_ in net_fns)})"
    )

    clock = {rel[f]: len(CLOCK.findall(f.read_text())) for f in net}
    per_file = ", ".join(f"{Path(k).name} {v}" for k, v in sorted(clock.items()) if v)
    print(f"\nclock reads in net/: {sum(clock.values())} ({per_file})")
    ga = sum(len(GETATTR.findall(f.read_text())) for f in files)
    print(f"getattr on drivers, links, peers: {ga}")
    refl = [r for t in trees.values() for r in reflection(t)]
    at_seams = sum(seam(obj) for obj in refl)
    proxies = sum(
        isinstance(n, ast.FunctionDef) and n.name in ("__getattr__", "__getattribute__")
        for t in trees.values()
        for n in ast.walk(t)
    )
    print(
        f"getattr/hasattr calls: {len(refl)}, at seams (on a driver, link, sink, peer, host, "
        f"table, mesh, app or self): {at_seams}; __getattr__ proxies: {proxies}"
    )

    graph_top: dict[str, set[str]] = {}
    graph_all: dict[str, set[str]] = {}
    lazy_count = 0
    for f, t in trees.items():
        top, lazy = edges(f, t, known)
        graph_top[modname(f)] = top
        graph_all[modname(f)] = top | lazy
        lazy_count += sum(
            isinstance(sub, ast.Import | ast.ImportFrom)
            for fn in functions(t)
            for sub in ast.walk(fn)
        )
    print(f"imports inside functions: {lazy_count}")
    for label, g in (("top-level imports", graph_top), ("all imports", graph_all)):
        cyc = cycles(g)
        print(f"import cycles ({label}): {len(cyc)}")
        for c in cyc:
            shown = ", ".join(m.removeprefix("zoo_p2p.") for m in c)
            print(f"  {len(c)} modules: {shown[:300]}{'…' if len(shown) > 300 else ''}")


if __name__ == "__main__":
    main()
