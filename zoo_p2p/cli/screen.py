"""Which front-end a command shows: the full-screen app or the plain line mode.

Light on purpose (no rich, no textual, no network): `zoo replay`, `zoo play` and the network
commands ask it before they import what they show.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def use_plain(plain: bool) -> bool:
    """The line mode when asked for, or when stdout or stdin is not a terminal."""
    return plain or not (sys.stdout.isatty() and sys.stdin.isatty())


def tui_entry(name: str) -> Callable[..., int] | None:
    """`zoo_p2p.tui.run.<name>` when the full-screen app provides it (and textual imports)."""
    try:
        module = importlib.import_module("zoo_p2p.tui.run")
    except ImportError:
        return None
    fn = getattr(module, name, None)
    return fn if callable(fn) else None
