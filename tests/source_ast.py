"""The package's source parsed once a test run: the checks on the source (layers, import
cycles, interfaces, file writes) each walked every file's syntax tree again, some 10 parses of
the whole package (about 1 s each on a loaded machine). Keyed by the file's text, so a file
that changes is parsed again; the trees are shared, so no caller may change one."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _parsed(text: str, filename: str) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    tree = ast.parse(text, filename=filename)
    return tree, tuple(ast.walk(tree))


def tree(path: Path) -> ast.Module:
    """The file's syntax tree (shared: read it, never change it)."""
    return _parsed(path.read_text(), str(path))[0]


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in `ast.walk` order."""
    return _parsed(path.read_text(), str(path))[1]
