"""The game log file: `LogReader` streams it entry by entry (a torn tail dropped and said),
`LogWriter` is the one append-only, fsync'd writer, `write_log` replaces a log whole, and
`audit_file` audits a file streaming (PROTOCOL.md §2.3)."""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

from zoo_p2p import files
from zoo_p2p.errors import FileError, LogError, RemoteProtocolError
from zoo_p2p.protocol.audit import AuditReport, audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import (
    MAX_ENTRY_SIZE,
    MAX_LOG_BYTES,
    MAX_LOG_ENTRIES,
    ZERO_HASH,
    decode_entry,
)

_READ_CHUNK = 64 * 1024
_SIG_HEADER = b"\xc4\x40"
# The largest payload that fits an entry: 0x92, bin16 header (3), payload, sig header (2), sig.
_MAX_FRAME_PAYLOAD = MAX_ENTRY_SIZE - 1 - 3 - 2 - 64


class _Closing:
    """A file-like object used in a `with` block: leaving the block closes it."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class LogReader(_Closing):
    """Stream a log file entry by entry with bounded memory (PROTOCOL.md §2.3).

    Iterating yields each entry's bytes. The file must be a regular file of at most
    MAX_LOG_BYTES (else LogError before anything is read). Entries are found by their framing
    alone (`0x92`, a bin8/bin16 payload, `0xc4 0x40` and a 64-byte signature): bytes that cannot
    start an entry raise LogError naming the entry index when they are reached, so every entry
    before them is seen first. A final frame cut short is a **torn tail**: iteration ends and
    `torn_bytes` says how many bytes were dropped.
    """

    def __init__(self, path: Path | str, *, file: BinaryIO | None = None) -> None:
        """Open `path` (a link is followed: the user named it), or read `file`, open on it;
        LogError if it is missing, not a regular file, or too large."""
        self.path = Path(path)
        if file is not None:
            self._file = file
        else:
            try:
                self._file = files.open_read(path, follow=True, buffering=_READ_CHUNK)
            except FileError as exc:
                if exc.code == errno.ENOENT:
                    raise LogError(f"cannot read {path}: no such file") from None
                raise
        size = os.fstat(self._file.fileno()).st_size
        if size > MAX_LOG_BYTES:
            self._file.close()
            raise LogError(
                f"{path} is {size} bytes; no game log can exceed {MAX_LOG_BYTES} bytes "
                f"({MAX_LOG_ENTRIES} entries of at most {MAX_ENTRY_SIZE} bytes)"
            )
        self.size = size
        self.count = 0
        self.offset = 0
        self.torn_bytes = 0
        self._done = False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def _read(self, n: int) -> bytes:
        data = self._file.read(n)
        self.offset += len(data)
        return data

    def _torn(self, got: int) -> None:
        self.torn_bytes = got
        self.close()
        raise StopIteration

    def _garbage(self, start: int, what: str) -> LogError:
        self.close()
        return LogError(f"bytes at offset {start} are not an entry ({what})", index=self.count)

    def __next__(self) -> bytes:
        if self._done:
            raise StopIteration
        start = self.offset
        first = self._read(1)
        if not first:
            self.close()
            raise StopIteration
        if self.count >= MAX_LOG_ENTRIES or start >= MAX_LOG_BYTES:  # a file that grew meanwhile
            raise self._garbage(start, f"no game has more than {MAX_LOG_ENTRIES} entries")
        if first != b"\x92":
            raise self._garbage(start, f"starts with byte 0x{first[0]:02x}, not 0x92")
        tag = self._read(1)
        if not tag:
            self._torn(1)
        if tag == b"\xc4":
            head = self._read(1)
        elif tag == b"\xc5":
            head = self._read(2)
        else:
            raise self._garbage(start, "its payload is not a msgpack bin")
        frame = first + tag + head
        if len(head) < (1 if tag == b"\xc4" else 2):
            self._torn(len(frame))
        plen = int.from_bytes(head, "big")
        if plen > _MAX_FRAME_PAYLOAD:
            raise self._garbage(start, f"a payload of {plen} bytes cannot fit an entry")
        payload = self._read(plen)
        frame += payload
        if len(payload) < plen:
            self._torn(len(frame))
        sig_head = self._read(2)
        frame += sig_head
        if sig_head != _SIG_HEADER[: len(sig_head)]:
            raise self._garbage(start, "its signature is not a 64-byte msgpack bin")
        if len(sig_head) < 2:
            self._torn(len(frame))
        sig = self._read(64)
        frame += sig
        if len(sig) < 64:
            self._torn(len(frame))
        self.count += 1
        return frame

    def close(self) -> None:
        """Close the file (iteration ends)."""
        self._done = True
        with contextlib.suppress(OSError):
            self._file.close()


@dataclass(frozen=True)
class LogRead:
    """The entries read from a log file, and whether a torn last entry was dropped."""

    entries: list[bytes]
    torn_bytes: int = 0

    @property
    def torn(self) -> bool:
        """True when an incomplete last entry was found (and dropped)."""
        return self.torn_bytes > 0

    @property
    def warning(self) -> str | None:
        """A human sentence saying what was dropped, or None."""
        if not self.torn:
            return None
        return (
            f"dropped a torn last entry ({self.torn_bytes} bytes) after {len(self.entries)} "
            "complete entries"
        )


def read_log(path: Path | str) -> LogRead:
    """Read every complete entry of a log file (a torn last entry is dropped and reported).

    LogError if the file is not a regular file, is larger than any game (MAX_LOG_BYTES), or
    holds bytes that cannot be an entry (the error names the entry index).
    """
    with LogReader(path) as reader:
        entries = list(reader)
    return LogRead(entries, reader.torn_bytes)


def iter_entries(path: Path | str) -> Iterator[bytes]:
    """Yield the complete entries of a log file in order (streamed, bounded memory)."""
    with LogReader(path) as reader:
        yield from reader


def audit_file(path: Path | str, *, proofs: Sequence[bytes] = ()) -> AuditReport:
    """Audit a log file streaming (`zoo verify`, `zoo replay`): a verdict, never a traceback.

    LogError only when the file cannot be read at all (missing, not a regular file, too large):
    `zoo verify` calls that *unreadable*. Bytes that cannot be an entry are a fault at that entry
    (reported only if every entry before them checks); a torn tail is reported in the verdict.
    """
    with LogReader(path) as reader:
        return audit(reader, torn=lambda: reader.torn_bytes, proofs=proofs)


class LogWriter(_Closing):
    """An append-only log file: every entry must chain onto the last. The one log writer.

    `append(entry)` hands the entry to the kernel at once (killing the process loses nothing)
    and leaves the fsync against power loss to a small background thread, so that a live game
    keeps a 3 ms move; `append(entry, sync=True)` or `sync()` fsyncs before returning (a peer
    does this for its own move before it leaves). `close()` fsyncs what is left.

    Opening an existing file reads it, truncates a torn last entry (reported in `recovered`) and
    continues from its head; with `new`, a file that already holds bytes is refused. The file
    is opened as every file we write is (`zoo_p2p.files`): a link or anything but a regular
    file at `path` is refused, never written through.
    """

    def __init__(self, path: Path | str, *, new: bool = False) -> None:
        """Open (or create) the log at `path`."""
        self.path = Path(path)
        self.recovered: str | None = None
        files.make_dirs(self.path.parent, verb="write", target=self.path)
        fd = files.open_fd(self.path, os.O_RDWR | os.O_CREAT)
        try:
            if new and os.fstat(fd).st_size > 0:
                raise LogError(
                    f"{path} already holds a log; use `zoo resume {path}` or another --log"
                )
            with LogReader(self.path, file=os.fdopen(os.dup(fd), "rb", _READ_CHUNK)) as reader:
                existing = LogRead(list(reader), reader.torn_bytes)
            size = sum(len(e) for e in existing.entries)
            if existing.torn:
                os.ftruncate(fd, size)
                os.fsync(fd)
                self.recovered = existing.warning
            os.lseek(fd, 0, os.SEEK_END)
        except OSError as exc:
            os.close(fd)
            raise files.error("write", self.path, exc) from None
        except BaseException:
            os.close(fd)
            raise
        self._count = len(existing.entries)
        self._head = sha256(existing.entries[-1]) if existing.entries else ZERO_HASH
        self._fd: int | None = fd
        self._cond = threading.Condition()
        self._dirty = False
        self._closing = False
        self._syncer: threading.Thread | None = None

    def __len__(self) -> int:
        return self._count

    @property
    def head(self) -> bytes:
        """SHA-256 of the last entry written (zero bytes when empty)."""
        return self._head

    def append(self, entry: bytes, sync: bool = False) -> None:
        """Append one entry after checking it chains (seq and prev); fsync now if `sync`,
        else soon on the background thread."""
        if self._fd is None:
            raise LogError("the log is closed", index=self._count)
        head = _chained(entry, self._count, self._head)
        view = memoryview(entry)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            raise files.error("write", self.path, exc) from None
        self._count += 1
        self._head = head
        if sync:
            self.sync()
        else:
            self._sync_soon()

    def extend(self, entries: list[bytes]) -> None:
        """Append several entries (each checked), then fsync once."""
        for entry in entries:
            self.append(entry)
        self.sync()

    def sync(self, wait: bool = True) -> None:
        """fsync everything written so far before returning (or, `wait=False`, soon on the
        background thread)."""
        if not wait:
            self._sync_soon()
        elif self._fd is not None:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise files.error("write", self.path, exc) from None

    def _sync_soon(self) -> None:
        with self._cond:
            self._dirty = True
            if self._syncer is None:
                self._syncer = threading.Thread(
                    target=self._sync_loop, name="zoo-log-fsync", daemon=True
                )
                self._syncer.start()
            self._cond.notify()

    def _sync_loop(self) -> None:
        while True:
            with self._cond:
                while not self._dirty and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                self._dirty = False
                fd = self._fd
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.fsync(fd)

    def close(self) -> None:
        """Stop the background thread, fsync what is left, close the file (idempotent)."""
        with self._cond:
            self._closing = True
            self._cond.notify()
            syncer, self._syncer = self._syncer, None
        if syncer is not None:
            syncer.join(5)
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(fd)
            with contextlib.suppress(OSError):
                os.close(fd)


def _chained(entry: bytes, count: int, head: bytes) -> bytes:
    """Check that `entry` is well formed and comes next after `count` entries ending in `head`
    (LogError naming it otherwise); its hash, the new head."""
    try:
        e = decode_entry(entry)
    except RemoteProtocolError as exc:
        reason = f"refusing to write a malformed entry: {exc.reason}"
        raise LogError(reason, index=count) from None
    if e.seq != count:
        raise LogError(f"entry has seq {e.seq}, the log expects {count}", index=e.seq)
    if e.prev != head:
        raise LogError("entry does not chain onto the last one (prev_hash)", index=e.seq)
    return sha256(entry)


def write_log(path: Path | str, entries: list[bytes]) -> None:
    """Write a whole log, replacing what is at `path` whole or not at all (`files.write_atomic`),
    each entry checked to chain first."""
    head = ZERO_HASH
    for n, entry in enumerate(entries):
        head = _chained(entry, n, head)
    files.make_dirs(Path(path).parent, verb="write", target=path)
    files.write_atomic(path, b"".join(entries))
