"""The README's first game, walked in a real terminal: tmux at 80×24, keys typed as a person types.

    python bench/walk_first_game.py [--zoo PATH] [--size 80x24] [--bound 300]

Starts `zoo play` (you against a bot over loopback) in a detached tmux session with its own data
folder, waits for your turn, types the README's first move (`6@C1`, one key at a time), then
plays every later turn by `?` and Enter (the first move of the list), until the end screen. It
checks each step's text on the screen (the title's "your turn", the move in the moves panel, the
`?` list, the end screen's result headline, its column key, `x`'s export beside the log, the
leave question, the lines after the app about the saved and audited log), then runs `zoo verify`
on the log. It prints each step's time, and exits 1 naming the first step whose text did not
come (with the screen as it was). Needs tmux (Debian: tmux). Every wait is bounded; the session
is killed at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SESSION = f"zoo-walk-{os.getpid()}"


class Walk:
    def __init__(self, bound: float) -> None:
        self.bound = bound
        self.start = time.monotonic()
        self.last = self.start

    def tmux(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", *args], capture_output=True, text=True, timeout=10, check=False
        )
        return out.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", SESSION)

    def wait(self, what: str, ok: Callable[[str], bool], limit: float = 60.0) -> str:
        """Poll the screen (every 50 ms, at most `limit` s and the walk's bound) until `ok`."""
        end = min(time.monotonic() + limit, self.start + self.bound)
        while True:
            text = self.screen()
            if ok(text):
                return text
            if time.monotonic() > end:
                raise Missing(what, text)
            time.sleep(0.05)

    def step(self, what: str) -> None:
        now = time.monotonic()
        print(f"{now - self.start:7.2f} s  (+{now - self.last:5.2f})  {what}")
        self.last = now

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", SESSION, *keys)


def _turn(screen: str) -> int:
    """The move number in the title when it says it is your turn, else 0."""
    m = re.search(r"move (\d+): your turn", screen)
    return int(m.group(1)) if m else 0


def _over(screen: str) -> bool:
    return "Final score" in screen


class Missing(Exception):
    def __init__(self, what: str, screen: str) -> None:
        super().__init__(what)
        self.what = what
        self.screen = screen


def walk(zoo: str, size: str, bound: float, data: Path) -> int:
    w, h = size.split("x")
    env = f"XDG_DATA_HOME={shlex.quote(str(data))} XDG_CONFIG_HOME={shlex.quote(str(data))}"
    cmd = f"{env} {shlex.quote(zoo)} play; echo; echo ZOO-EXITED $?; sleep 600"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", SESSION, "-x", w, "-y", h, cmd],
        check=True,
        timeout=10,
    )
    run = Walk(bound)
    try:
        first = run.wait("the game's title says it is your turn", lambda s: _turn(s) > 0, 90)
        run.step("the game is on the screen: your turn")
        for i, key in enumerate("6@C1"):  # typed one key at a time, as a person types
            run.keys(key)
            typed = "6@C1"[: i + 1]
            run.wait(f"'{typed}' in the move box", lambda s, t=typed: t in s, 10)
        run.keys("Enter")
        at = _turn(first)
        text = run.wait(
            "the first move in the moves panel, and your next turn",
            lambda s: (_turn(s) > at and re.search(r"\b\d+ you 6@C1", s) is not None) or _over(s),
        )
        run.step("typed 6@C1: it is in the moves panel")
        turns = 1
        while not _over(text):
            at = _turn(text)
            run.keys("?")
            run.wait("the list of legal moves", lambda s: "legal moves" in s, 10)
            run.keys("Enter")
            text = run.wait(
                "your next turn, or the end screen", lambda s, a=at: _turn(s) > a or _over(s), 60
            )
            turns += 1
        run.step(f"played {turns} turns: the game is over")
        end = run.wait("the end screen", lambda s: "Final score" in s, 30)
        if not re.search(r" wins |share the win", end):
            raise Missing("the end screen's result headline (wins / share the win)", end)
        if "Zoo cards:" not in end or "survivors:" not in end:
            raise Missing("the end screen's key to its columns", end)
        run.step("the end screen leads with the result and explains its columns")
        run.keys("x")
        run.wait(
            "x on the end screen: 'exported N moves: …' in its keys line",
            lambda s: re.search(r"exported \d+ moves", s) is not None,
            30,
        )
        run.step("x exported the game beside the log")
        run.keys("q")
        run.wait("the leave question", lambda s: re.search(r"q or y", s, re.I) is not None, 10)
        run.keys("y")
        after = run.wait("the app closed", lambda s: "ZOO-EXITED" in s, 30)
        saved = re.search(r"log saved: (\S+\.zoolog)", after.replace("\n", ""))
        if not saved or "audit: OK" not in after:
            raise Missing("'log saved: …' and 'audit: OK' after the app", after)
        code = re.search(r"ZOO-EXITED (\d+)", after)
        run.step(f"left: the log is saved and audited; zoo exited {code and code.group(1)}")
        log = Path(saved.group(1))
        for out in (log.with_suffix(".html"), log.with_suffix(".txt")):
            if not out.is_file() or out.stat().st_size == 0:
                raise Missing(f"the export {out} beside the log", after)
        verify = subprocess.run(
            [zoo, "verify", str(log)], capture_output=True, text=True, timeout=60, check=False
        )
        if verify.returncode != 0:
            raise Missing(f"zoo verify {log} exit 0", verify.stdout + verify.stderr)
        run.step("zoo verify of the saved log: exit 0")
        return 0
    except Missing as exc:
        print(f"MISSING: {exc.what}\n--- the screen was:\n{exc.screen}", file=sys.stderr)
        return 1
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], timeout=10, check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zoo", default=str(ROOT / ".venv" / "bin" / "zoo"), help="the zoo command")
    ap.add_argument("--size", default="80x24", help="the terminal, WxH")
    ap.add_argument("--bound", type=float, default=300.0, help="seconds for the whole walk")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("walk_first_game: needs tmux (Debian package tmux)")
    with tempfile.TemporaryDirectory(prefix="zoo-walk-") as data:
        sys.exit(walk(args.zoo, args.size, args.bound, Path(data)))


if __name__ == "__main__":
    main()
