"""The bot peers a host starts on this machine (`zoo play`, `zoo host --bots N`): started as
`zoo bot` processes over loopback, watched until the game starts, reaped at the end."""

from __future__ import annotations

import os
import select
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zoo_p2p import storage
from zoo_p2p.driver import GameLink
from zoo_p2p.errors import FileError
from zoo_p2p.files import kind, make_dirs, open_fd
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
    env = {**os.environ, "COLUMNS": "10000"}
    err = open_fd(err_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, verb="write")
    try:
        return subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
    finally:
        os.close(err)


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
    log (mode 0700); a host with bots always knows its log's path before they start
    (`run_host`), and `None` (no log) gets a fresh `bots-…` directory in the logs directory.

    A new game's `<log>.bots/` that already holds files belongs to an earlier game whose log
    is gone: its bots would resume that game's logs. It is renamed to
    `<log>.bots.old`, `<log>.bots.old-2`, … (never deleted); the new name is returned too."""

    path = (
        log_path.with_name(log_path.name + ".bots")
        if log_path is not None
        else storage.logs_dir() / f"bots-{os.urandom(4).hex()}"
    )
    moved = None
    if path.is_symlink():  # our bots' keys go in there: never into a folder a link points at
        raise FileError("use", path, kind(stat.S_IFLNK))
    if path.is_dir() and any(path.iterdir()):
        for n in range(1, 1000):
            aside = path.with_name(path.name + (".old" if n == 1 else f".old-{n}"))
            if not aside.exists() and not aside.is_symlink():
                path.rename(aside)
                moved = aside
                break
        else:
            raise NetError(f"{path} holds an earlier game's bots: move it aside")
    make_dirs(path, mode=0o700)
    return path, moved


END_WAIT = 5.0  # seconds an old bot is given to end after SIGTERM, then again after SIGKILL


def end_old_bots(workdir: Path, count: int) -> list[tuple[int, int]]:
    """Before `zoo resume` restarts a crashed host's bots: end each bot of this game that still
    runs (the host was killed, its bots were not), so that one process, never two, signs for
    each seat. Returns (bot number, process id) of each one ended.

    A bot is found by its log's lock (`zoo bot` holds ``botN.zoolog.lock``; its file names the
    process). Before a signal is sent, that process is checked to be the one holding that very
    lock, a `zoo bot` (`holds_lock`): a process that merely reuses the number is never touched.
    Where that cannot be checked (no /proc, no pidfd), or the holder is something else, or it
    does not end, NetError says so and nothing is restarted: the user ends it, then resumes."""
    ended = []
    for n in range(1, count + 1):
        log = workdir / f"bot{n}.zoolog"
        holder = storage.held_by(log)
        if holder is None:
            continue
        said = storage.lock_holder(holder)
        if said is None or said[0] != "bot":
            raise NetError(
                f"{log} is in use by another {storage.holder_words(holder)}: end it, then resume"
            )
        why = _end_bot(n, said[1], log)
        if why is not None:
            raise NetError(why)
        ended.append((n, said[1]))
    return ended


def _end_bot(n: int, pid: int, log: Path) -> str | None:
    """End bot `n`, the `zoo bot` process `pid` holding the lock of `log`; None when it is gone
    and the lock free, else what stops us, and what the user should do."""
    still = f"bot {n} of this game still runs (process {pid})"
    if not hasattr(os, "pidfd_open") or not Path("/proc/self/fdinfo").is_dir():
        return f"{still}: end it, then resume"  # no race-free way to signal it here
    try:
        pidfd = os.pidfd_open(pid)  # first: a number reused after this cannot be signalled
    except ProcessLookupError:
        pidfd = None
    except OSError as exc:
        return f"{still}: {exc.strerror or exc}; end it, then resume"
    try:
        if pidfd is not None:
            if not holds_lock(pid, storage.lock_path(log)):
                return (
                    f"{log} is in use, and process {pid}, which its lock file names, is not the "
                    "bot holding it: end the process using it, then resume"
                )
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    signal.pidfd_send_signal(pidfd, sig)
                except ProcessLookupError:
                    break
                if select.select([pidfd], [], [], END_WAIT)[0]:  # readable: it has ended
                    break
            else:
                return f"{still}: it did not end on SIGKILL; end it, then resume"
    finally:
        if pidfd is not None:
            os.close(pidfd)
    if storage.held_by(log) is not None:  # someone else has it now
        return f"{log} is still in use: end the process using it, then resume"
    return None


def holds_lock(pid: int, lock: Path) -> bool:
    """True when process `pid` is a `zoo bot` that holds an exclusive flock on the file `lock`
    (Linux /proc: one of its descriptors is that very file, and its fdinfo shows the lock)."""

    proc = Path(f"/proc/{pid}")
    try:
        want = os.lstat(lock)
        argv = (proc / "cmdline").read_bytes().split(b"\0")
        fds = os.listdir(proc / "fd")
    except OSError:
        return False
    if b"bot" not in argv[1:]:
        return False
    for fd in fds:
        try:
            st = os.stat(proc / "fd" / fd)
            info = (proc / "fdinfo" / fd).read_text()
        except OSError:
            continue
        if (st.st_dev, st.st_ino) != (want.st_dev, want.st_ino):
            continue
        for line in info.splitlines():
            words = line.split()
            if words[:1] == ["lock:"] and "FLOCK" in words and "WRITE" in words:
                return True
    return False


def respawn(invite: Invite, workdir: Path, count: int, level: str) -> list[subprocess.Popen[bytes]]:
    """`zoo resume` of a host: restart every bot of the game from its key and log (a resigned
    seat's stand-in is no process: every peer computes its entries, PROTOCOL.md §10.4)."""
    return spawn_bots(invite, count, level, 0.0, workdir, keep_keys=True) if count else []
