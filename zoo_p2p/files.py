"""Opening files safely: the one way zoo opens, creates and replaces a file.

Every file zoo writes (a log, its lock, its `.net` sidecar and `.proofs`, an export, an invite
file, a key, a bot's stderr) is opened here:

- never through a symbolic link (``O_NOFOLLOW``: a link where our file should be is refused, so
  a link planted beside a log cannot make us write, or create, the file it points to);
- only if it is a regular file (opened ``O_NONBLOCK`` and checked with ``fstat`` before a byte
  moves, so a FIFO is refused instead of waited on, a directory or a device too);
- replaced whole or not at all (`write_atomic`: a temporary file in the same folder, fsync'd,
  then ``os.replace`` and an fsync of the folder);
- and every failure is a `FileError`: one sentence with the path and the reason in words
  ("cannot lock g.zoolog.lock: it is a directory, not a regular file"), never a bare OSError.

Reading a path the user names (``zoo verify LOG``) may follow a link (``follow=True``): it
writes nothing, and the user chose the path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from zoo_p2p.errors import FileError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

_WORDS = {
    errno.EISDIR: "it is a directory, not a regular file",
    errno.ENOTDIR: "a part of its path is a file, not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is used up",
    errno.ENOENT: "no such file or directory",
    errno.EEXIST: "it already exists",
    errno.ENAMETOOLONG: "its name is too long",
    errno.EMFILE: "too many files are open",
    errno.EIO: "an input/output error",
}


def kind(mode: int) -> str:
    """What a file of `mode` is when it is not a regular file, as the reason a FileError gives."""
    if stat.S_ISLNK(mode):
        return "it is a symbolic link, which zoo does not follow for its own files"
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return f"it is {name}, not a regular file"
    return "it is not a regular file"


def reason(exc: OSError, path: Path | str, *, follow: bool = False) -> str:
    """Why an OS call on `path` failed, in words (what is in the way, when that says more)."""
    code = exc.errno
    if code == errno.ELOOP:
        if follow:
            return "too many levels of symbolic links"
        return kind(stat.S_IFLNK)
    if code in (errno.ENXIO, errno.EISDIR):  # a FIFO nobody reads, a directory: say which
        with contextlib.suppress(OSError):
            return kind(os.lstat(path).st_mode)
    if code is not None and code in _WORDS:
        return _WORDS[code]
    return exc.strerror or str(exc) or type(exc).__name__


def error(verb: str, path: Path | str, exc: OSError, *, follow: bool = False) -> FileError:
    """The FileError for `exc`, raised while trying to `verb` `path`."""
    return FileError(verb, path, reason(exc, path, follow=follow), code=exc.errno)


def check_absent_or_regular(path: Path | str, verb: str) -> bool:
    """True when `path` is a regular file (itself, not a link to one), False when nothing is
    there; FileError when something else is (a link, a directory, a FIFO…)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise error(verb, path, exc) from None
    if not stat.S_ISREG(mode):
        raise FileError(verb, path, kind(mode))
    return True


def open_fd(
    path: Path | str,
    flags: int = os.O_RDONLY,
    mode: int = 0o644,
    *,
    verb: str = "open",
    follow: bool = False,
) -> int:
    """`os.open` of a regular file, safely (see the module doc): the descriptor, blocking and
    close-on-exec; FileError naming `path` and the reason otherwise (its `code` is the errno:
    ENOENT for a missing file, EEXIST for an `O_EXCL` name taken)."""
    extra = _CLOEXEC | _NONBLOCK | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        raise error(verb, path, exc, follow=follow) from None
    try:
        st_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(st_mode):
            raise FileError(verb, path, kind(st_mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_read(path: Path | str, *, follow: bool = False, buffering: int = -1) -> BinaryIO:
    """A regular file opened for reading (see `open_fd`), as a binary file object."""
    fd = open_fd(path, os.O_RDONLY, verb="read", follow=follow)
    return os.fdopen(fd, "rb", buffering=buffering)


def make_dirs(
    path: Path | str, mode: int = 0o777, *, verb: str = "create", target: Path | str | None = None
) -> None:
    """Create the directory `path` and its parents if missing. FileError if one of them is a
    file (or cannot be made), naming `target` (the file about to go in there, when given: "cannot
    lock a/g.zoolog.lock: a is a file, not a directory") or else `path`."""
    p = Path(path)
    named = p if target is None else target
    try:
        p.mkdir(parents=True, exist_ok=True, mode=mode)
    except FileExistsError:  # a part of the path exists and is no directory
        for part in (p, *p.parents):
            if os.path.lexists(part) and not part.is_dir():
                raise FileError(verb, named, f"{part} is not a directory") from None
        raise FileError(verb, named, f"{p} is not a directory") from None  # pragma: no cover
    except OSError as exc:
        raise FileError(verb, named, f"{p}: {reason(exc, p)}", code=exc.errno) from None


def shared_mode(base: int = 0o666) -> int:
    """The mode a file meant to be shared (an export) gets: `base` less the process's umask, as
    a plain ``open()`` would make it (0644 under the usual umask 022, 0600 under 077). Keys and
    logs keep their own modes; `write_atomic` sets the mode it is given whatever the umask, and
    this one when given none (a sidecar, proofs, an invite file: as `write_text` made them)."""
    umask = None
    with (
        contextlib.suppress(OSError, ValueError),  # Linux: read it without changing it
        open("/proc/self/status", encoding="ascii", errors="replace") as f,
    ):
        for line in f:
            if line.startswith("Umask:"):
                umask = int(line.split()[1], 8)
                break
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return base & ~umask & 0o777


def write_atomic(path: Path | str, data: bytes, *, mode: int | None = None) -> None:
    """Replace the file at `path` with `data`, whole or not at all: a temporary file in the same
    directory, fsync'd, moved over it (``os.replace``), the directory fsync'd. What is at
    `path` must be a regular file or nothing: a link, a directory or a FIFO is refused
    (FileError), never written through. A crash leaves the old file or the new one. Its mode is
    `mode`, or else `shared_mode()` (what a plain ``open()`` gives under the umask)."""
    p = Path(path)
    check_absent_or_regular(p, "write")
    parent = p.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise error("write", p, exc) from None
    try:
        try:
            os.fchmod(fd, shared_mode() if mode is None else mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise error("write", p, exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sync_dir(parent)


def sync_dir(path: Path | str) -> None:
    """fsync a directory, so that a name just created or replaced in it survives a power cut
    (best effort: some file systems cannot)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
    with contextlib.suppress(OSError):
        fd = os.open(path, flags)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
