"""The bot peers a host starts on this machine (`zoo play`, `zoo host --bots N`): started as
`zoo bot` processes over loopback, watched until the game starts, reaped at the end."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zoo_p2p.driver import GameLink
from zoo_p2p.net.invite import Invite
from zoo_p2p.text import shown

SPAWN = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()"]


def spawn_bots(
    invite: Invite,
    k: int,
    level: str,
    delay: float,
    workdir: Path,
    quiet: bool = True,
    think: float | None = None,
) -> list[subprocess.Popen[bytes]]:
    """Start `k` bot peers (`zoo bot`) that join `invite`; their logs and stderr go to workdir."""
    procs = []
    for i in range(k):
        args = [
            *SPAWN,
            "bot",
            str(invite),
            "--level",
            level,
            "--name",
            f"{level} bot {i + 1}",
            "--delay",
            str(delay),
            "--log",
            str(workdir / f"bot{i + 1}.zoolog"),
            "--give-up",
            "30",
        ]
        if quiet:
            args.append("--quiet")
        if think is not None:
            args += ["--think", str(think)]
        err = open(workdir / f"bot{i + 1}.err", "wb")  # noqa: SIM115 - handed to the child
        procs.append(
            subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        )
        err.close()
    return procs


def reap(procs: Sequence[subprocess.Popen[bytes]], timeout: float = 5.0) -> None:
    """Wait for the bot processes to end; terminate, then kill, what does not."""
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(1)
            except subprocess.TimeoutExpired:
                p.kill()


def watch_bots(
    link: GameLink, procs: Sequence[subprocess.Popen[bytes]], workdir: Path, console: Console
) -> None:
    """Check every half second, until the game has started, that each bot we started still
    runs; one that died says why (the last line of its stderr) and stops the host."""

    def check() -> None:
        if link.stopped is not None or link.session is not None:
            return
        for i, p in enumerate(procs):
            code = p.poll()
            if code is not None:
                err = workdir / f"bot{i + 1}.err"
                lines = err.read_text(errors="replace").strip().splitlines() if err.exists() else []
                why = shown(lines[-1]) if lines else f"it exited with code {code}"
                console.print(Text(f"bot {i + 1} could not start: {why}", style="red"))
                link.leave(f"bot {i + 1} could not start")
                return
        link.call_later(0.5, check)

    link.call_later(0.5, check)
