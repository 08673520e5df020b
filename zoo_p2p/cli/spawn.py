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
from zoo_p2p.net.wire import NetError
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
    keep_keys: bool = False,
) -> list[subprocess.Popen[bytes]]:
    """Start `k` bot peers (`zoo bot`) that join `invite`; their logs and stderr go to workdir.

    With `keep_keys`, each bot's identity is `workdir/botN.key` (mode 0600, created on first
    use), so `zoo resume` can restart it from `workdir/botN.zoolog` with the same key."""
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
        if keep_keys:
            args += ["--identity", str(workdir / f"bot{i + 1}.key")]
        procs.append(_popen(args, workdir / f"bot{i + 1}.err"))
    return procs


def _popen(args: list[str], err_path: Path) -> subprocess.Popen[bytes]:
    """Start a bot with its stderr appended to `err_path`, unwrapped: `watch_bots` names its
    last line, which at the default 80 columns was the tail of a wrapped one ("glong/bot1.key
    is readable by others…", the path cut)."""
    import os

    env = {**os.environ, "COLUMNS": "10000"}
    with open(err_path, "ab") as err:
        return subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env
        )


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
                why = shown(lines[-1], 500) if lines else f"it exited with code {code}"
                console.print(Text(f"bot {i + 1} could not start: {why}", style="red"))
                link.leave(f"bot {i + 1} could not start")
                return
        link.call_later(0.5, check)

    link.call_later(0.5, check)


def bots_dir_for(log_path: Path | None) -> tuple[Path, Path | None]:
    """Where a host keeps its bots' keys and logs for the whole game: `<log>.bots/` beside the
    log, or a fresh `bots-…` directory in the logs directory (mode 0700).

    A new game's `<log>.bots/` that already holds files belongs to an earlier game whose log
    is gone: its bots would resume that game's logs. It is renamed to
    `<log>.bots.old`, `<log>.bots.old-2`, … (never deleted); the new name is returned too."""
    import os

    from zoo_p2p import storage

    path = (
        log_path.with_name(log_path.name + ".bots")
        if log_path is not None
        else storage.logs_dir() / f"bots-{os.urandom(4).hex()}"
    )
    moved = None
    if path.is_dir() and any(path.iterdir()):
        for n in range(1, 1000):
            aside = path.with_name(path.name + (".old" if n == 1 else f".old-{n}"))
            if not aside.exists() and not aside.is_symlink():
                path.rename(aside)
                moved = aside
                break
        else:
            raise NetError(f"{path} holds an earlier game's bots: move it aside")
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path, moved


def respawn(invite: Invite, workdir: Path, count: int, level: str) -> list[subprocess.Popen[bytes]]:
    """`zoo resume` of a host: restart every bot of the game from its key and log (a resigned
    seat's stand-in is no process: every peer computes its entries, PROTOCOL.md §10.4)."""
    return spawn_bots(invite, count, level, 0.0, workdir, keep_keys=True) if count else []
