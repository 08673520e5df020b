"""The lock of a log's name (`<log>.lock`, an advisory flock) held by the one process that plays
it, and what a lock file says of its holder."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from zoo_p2p import files
from zoo_p2p.errors import FileError, LogError
from zoo_p2p.storage.proofs import proofs_path
from zoo_p2p.storage.sidecar import sidecar_path


class LogInUse(LogError):
    """Another live process (a `zoo host`, a `zoo resume`) holds the lock of this log."""


@dataclass
class LogLock:
    """The lock of one log's name, held by the one process that plays it: its log, sidecar and
    `<log>.bots/` folder are that process's while it runs. An advisory `flock` on
    ``<log>.lock``: the kernel drops it when the process ends in any way (kill -9 too), so a
    stale lock file never blocks a later game."""

    path: Path
    fd: int | None

    def release(self) -> None:
        """Let the log go (idempotent): the file is removed while still locked (if the name is
        still that file), then closed."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            if _same_file(self.path, self.fd):
                self.path.unlink()
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_path(log: Path) -> Path:
    """Where the lock of the log `log` lives: ``<log>.lock``."""
    return log.with_name(log.name + ".lock")


def _same_file(path: Path, fd: int) -> bool:
    """True when the name `path` (itself, not a link) is the file open on `fd`."""
    try:
        st, held = os.lstat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


def game_files(log: Path) -> tuple[Path, ...]:
    """The files of one game's name that we write: the log, its lock, sidecar and proofs."""
    return (log, lock_path(log), sidecar_path(log), proofs_path(log))


def lock_log(log: Path, command: str) -> LogLock:
    """Take the lock of `log` for this process, running `command` (``zoo host``); raise
    `LogInUse` naming the log and the command holding it when another live process has it.

    Before anything is written, each file of the game's name (`game_files`) must be a regular
    file or absent: a link, a directory or a FIFO there is a FileError naming it, said now and
    not when the game starts. A holder that ends removes the file while it still holds the
    lock: a lock taken on a file that is no longer at its path was taken on nothing, and is
    taken again."""
    path = lock_path(log)
    files.make_dirs(path.parent, verb="lock", target=path)
    for p in game_files(log):
        files.check_absent_or_regular(p, "lock" if p == path else "use")
    for _ in range(8):
        fd = files.open_fd(path, os.O_RDWR | os.O_CREAT, verb="lock")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                raise files.error("lock", path, exc) from None
            holder = os.read(fd, 64).decode("utf-8", "replace").strip()
            os.close(fd)
            raise LogInUse(f"{log} is in use by another {holder_words(holder)}") from None
        if _same_file(path, fd):
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{command} {os.getpid()}\n".encode())
            except OSError as exc:
                os.close(fd)
                raise files.error("lock", path, exc) from None
            return LogLock(path, fd)
        os.close(fd)
    raise LogInUse(f"{log}: its lock file {path} keeps changing; try again")  # pragma: no cover


def held_by(log: Path) -> str | None:
    """Whether a live process holds the lock of `log`: then what its lock file says of it
    (``zoo bot 1234``, anyone's bytes: see `lock_holder`), else None. Probing takes the lock
    for an instant when it is free and lets it go at once."""
    path = lock_path(log)
    try:
        fd = files.open_fd(path, os.O_RDONLY, verb="lock")
    except FileError as exc:
        if exc.code == errno.ENOENT:
            return None
        raise
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise files.error("lock", path, exc) from None
            return os.read(fd, 64).decode("utf-8", "replace").strip()
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


LOCK_COMMANDS = ("host", "join", "play", "resume", "bot")


def lock_holder(holder: str) -> tuple[str, int] | None:
    """What a lock file says of its holder (``zoo bot 1234``): (command, pid), or None. The
    file's bytes are anyone's: only a known command and a number are believed."""
    parts = holder.split()
    if (
        len(parts) == 3
        and parts[0] == "zoo"
        and parts[1] in LOCK_COMMANDS
        and parts[2].isascii()
        and parts[2].isdigit()
        and len(parts[2]) <= 10
    ):
        return parts[1], int(parts[2])
    return None


def holder_words(holder: str) -> str:
    """What a lock file says of its holder, as words (`zoo host` (process 1234))."""
    said = lock_holder(holder)
    if said is None:
        return "zoo command"
    return f"`zoo {said[0]}` (process {said[1]})"
