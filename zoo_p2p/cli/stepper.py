"""The line-mode stepper of `zoo replay`: a log (`cli/replay.py`) and a text record
(`cli/exportcmd.py`) are stepped through with the same keys, typed at a prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.text import Text

from zoo_p2p.text import shown

KEYS = "Enter/n next move · b back one · N or j N: move N · s start · e end · q quit"
REDEAL_KEY = " · r next re-deal"
"""Offered when the log has a claim that played on (PROTOCOL.md §10.7)."""


def step_through(
    console: Console,
    ask: Callable[[str], str],
    last: int,
    *,
    show: Callable[[int], None],
    end: Callable[[], None],
    span: str,
    redeals: Sequence[int] = (),
) -> None:
    """The line-mode stepper of `zoo replay` (a log or a text record): step `show(i)` for i in
    0..`last`, `end()` after the last one, driven by the KEYS typed at a prompt; end of input or
    `q` stops. ``redeals``: the steps where a claim played on and the seats re-dealt (`r` goes
    to the next one)."""
    keys = KEYS.replace(" · q quit", REDEAL_KEY + " · q quit") if redeals else KEYS
    i = 0
    while True:
        show(i)
        if i == last:
            end()
        try:
            cmd = ask(f"{keys}\nreplay> ").strip().lower()
        except EOFError:
            return
        if cmd in ("q", "quit"):
            return
        if cmd in ("", "n"):
            i = min(i + 1, last)
        elif cmd == "b":
            i = max(i - 1, 0)
        elif cmd == "s":
            i = 0
        elif cmd == "e":
            i = last
        elif cmd == "r" and redeals:
            later = [k for k in redeals if k > i]
            if later:
                i = later[0]
            else:
                console.print(Text("no re-deal after this step", style="yellow"))
        else:
            target = cmd[1:].strip() if cmd.startswith("j") else cmd
            if target.isdigit() and 0 <= int(target) <= last:
                i = int(target)
            else:
                console.print(Text(f"{shown(cmd)!r}: {keys}; moves go from {span}", style="red"))
