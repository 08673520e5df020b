"""Files: the append-only, fsync'd game log, and the identity key file (0600, user config dir).

`ZOO_HOME`, when set, replaces the platform directories: config in `$ZOO_HOME/config`, data
(logs) in `$ZOO_HOME/data`. The protocol package does no file I/O; this module does it for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import stat
import struct
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

import platformdirs
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import IdentityError, LogError, RemoteProtocolError
from zoo_p2p.protocol.audit import AuditReport, audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import (
    MAX_ENTRY_SIZE,
    MAX_LOG_BYTES,
    MAX_LOG_ENTRIES,
    ZERO_HASH,
    decode_entry,
)
from zoo_p2p.protocol.evidence import MAX_PROOF_SIZE

APP_NAME = "zoo-p2p"
IDENTITY_FILE = "identity.key"


# ---------------------------------------------------------------------- directories
def config_dir() -> Path:
    """The user config directory ($ZOO_HOME/config when ZOO_HOME is set)."""
    home = os.environ.get("ZOO_HOME")
    if home:
        return Path(home) / "config"
    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    """The user data directory ($ZOO_HOME/data when ZOO_HOME is set)."""
    home = os.environ.get("ZOO_HOME")
    if home:
        return Path(home) / "data"
    return Path(platformdirs.user_data_dir(APP_NAME))


def logs_dir() -> Path:
    """Where game logs go by default (created on demand)."""
    d = data_dir() / "logs"
    d.mkdir(parents=True, exist_ok=True)
    return d


# ---------------------------------------------------------------------- identity
def identity_path() -> Path:
    """Path of the long-term identity key file."""
    return config_dir() / IDENTITY_FILE


def load_or_create_identity(path: Path | None = None) -> Ed25519PrivateKey:
    """Load the user's Ed25519 identity, creating it (mode 0600) on first use."""
    path = identity_path() if path is None else path
    if path.exists():
        return load_identity(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return load_identity(path)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
        f.flush()
        os.fsync(f.fileno())
    return key


def load_identity(path: Path) -> Ed25519PrivateKey:
    """Load an identity key file; IdentityError if it is unreadable, malformed or not private."""
    try:
        mode = path.stat().st_mode
        if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise IdentityError(
                f"{path} is readable by others (mode {stat.S_IMODE(mode):o}); run chmod 600 on it"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise IdentityError(f"cannot read identity {path}: {exc}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise IdentityError(f"{path} is not an identity key: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"{path} is not an Ed25519 key")
    return key


# ---------------------------------------------------------------------- log reading
_READ_CHUNK = 64 * 1024
_SIG_HEADER = b"\xc4\x40"
# The largest payload that fits an entry: 0x92, bin16 header (3), payload, sig header (2), sig.
_MAX_FRAME_PAYLOAD = MAX_ENTRY_SIZE - 1 - 3 - 2 - 64


def _open_regular(path: Path | str) -> BinaryIO:
    """Open a file for reading, refusing (LogError) anything but a regular file.

    Opened non-blocking first, so a FIFO is refused instead of waiting for a writer; /dev/zero,
    directories and sockets are refused the same way. FileNotFoundError is passed through.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LogError(f"{path} is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=_READ_CHUNK)
    except BaseException:
        os.close(fd)
        raise


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

    def __init__(self, path: Path | str) -> None:
        """Open `path`; LogError if it is missing, not a regular file, or too large."""
        self.path = Path(path)
        try:
            self._file = _open_regular(path)
        except FileNotFoundError:
            raise LogError(f"cannot read {path}: no such file") from None
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


# ---------------------------------------------------------------------- proofs sidecar
PROOFS_SUFFIX = ".proofs"
MAX_PROOFS = 16
_LEN = struct.Struct(">I")


def proofs_path(log_path: Path | str) -> Path:
    """The evidence sidecar of a log: `<log>.proofs` next to it (PROTOCOL.md §9.3)."""
    p = Path(log_path)
    return p.with_name(p.name + PROOFS_SUFFIX)


def read_proofs(log_path: Path | str) -> list[bytes]:
    """The proofs stored next to a log (none if there is no sidecar).

    The sidecar is `be32(length) ‖ proof` repeated; reading stops at MAX_PROOFS proofs, at a
    length over MAX_PROOF_SIZE, or at a torn last record (all ignored, nothing raised): a proof
    is re-checked by whoever uses it, so a damaged sidecar can only lose evidence, never forge it.
    Raises LogError only if the sidecar exists but cannot be read as a regular file.
    """
    path = proofs_path(log_path)
    if not os.path.lexists(path):
        return []
    try:
        f = _open_regular(path)
    except FileNotFoundError:
        return []
    out: list[bytes] = []
    with f:
        while len(out) < MAX_PROOFS:
            head = f.read(_LEN.size)
            if len(head) < _LEN.size:
                break
            (size,) = _LEN.unpack(head)
            if not 0 < size <= MAX_PROOF_SIZE:
                break
            body = f.read(size)
            if len(body) < size:
                break
            out.append(body)
    return out


def append_proof(log_path: Path | str, proof: bytes) -> bool:
    """Append a proof to the log's sidecar (flushed and fsync'd); False if already held or full.

    The caller checks the proof first (`zoo_p2p.protocol.evidence.check`); this only stores it.
    """
    if not 0 < len(proof) <= MAX_PROOF_SIZE:
        raise LogError(f"refusing to store a proof of {len(proof)} bytes")
    held = read_proofs(log_path)
    if proof in held or len(held) >= MAX_PROOFS:
        return False
    path = proofs_path(log_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, _LEN.pack(len(proof)) + proof)
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


# ---------------------------------------------------------------------- log writing
class LogWriter(_Closing):
    """An append-only log file: every entry must chain onto the last. The one log writer.

    `append(entry)` hands the entry to the kernel at once (killing the process loses nothing)
    and leaves the fsync against power loss to a small background thread, so that a live game
    keeps a 3 ms move; `append(entry, sync=True)` or `sync()` fsyncs before returning (a peer
    does this for its own move before it leaves). `close()` fsyncs what is left.

    Opening an existing file reads it, truncates a torn last entry (reported in `recovered`) and
    continues from its head.
    """

    def __init__(self, path: Path | str) -> None:
        """Open (or create) the log at `path`."""
        self.path = Path(path)
        self.recovered: str | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existing = read_log(self.path) if self.path.exists() else LogRead([])
        size = sum(len(e) for e in existing.entries)
        self._count = len(existing.entries)
        self._head = sha256(existing.entries[-1]) if existing.entries else ZERO_HASH
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if existing.torn:
            os.ftruncate(fd, size)
            os.fsync(fd)
            self.recovered = existing.warning
        os.lseek(fd, 0, os.SEEK_END)
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
        try:
            e = decode_entry(entry)
        except RemoteProtocolError as exc:
            reason = f"refusing to write a malformed entry: {exc.reason}"
            raise LogError(reason, index=self._count) from None
        if e.seq != self._count:
            raise LogError(f"entry has seq {e.seq}, the log expects {self._count}", index=e.seq)
        if e.prev != self._head:
            raise LogError("entry does not chain onto the last one (prev_hash)", index=e.seq)
        view = memoryview(entry)
        while view:
            view = view[os.write(self._fd, view) :]
        self._count += 1
        self._head = sha256(entry)
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
            os.fsync(self._fd)

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


def write_log(path: Path | str, entries: list[bytes]) -> None:
    """Write a whole log to a new file (replacing it), each entry checked and fsync'd."""
    p = Path(path)
    if p.exists():
        p.unlink()
    with LogWriter(p) as w:
        w.extend(entries)


# ---------------------------------------------------------------------- a live game's files
MAX_SIDECAR = 16384  # bytes of a `.net` sidecar read at most (ours are a few hundred)


@dataclass(frozen=True)
class NetSidecar:
    """What `zoo resume` needs beside a log and the log cannot hold: how we were connected.

    Stored as JSON in ``<log>.net``; `role` is ``host`` or ``join``.
    """

    role: str
    port: int = 0
    bind: str = "0.0.0.0"
    curve: bool = True
    invite: str | None = None
    bots_dir: str | None = None  # host: where its bots' keys (0600) and logs live (issue 9)
    bot_level: str = "greedy"
    bot_count: int = 0
    upnp: bool = False  # `--upnp` was asked, so `zoo resume` asks the router again

    def to_json(self) -> str:
        """The sidecar's text."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> NetSidecar:
        """Parse a sidecar; fields of the wrong type fall back to their defaults."""
        try:
            raw = json.loads(text)
        except ValueError:
            raw = {}
        d = raw if isinstance(raw, dict) else {}
        role, port, bind, curve, invite = (
            d.get(k) for k in ("role", "port", "bind", "curve", "invite")
        )
        bots_dir, level, count = (d.get(k) for k in ("bots_dir", "bot_level", "bot_count"))
        upnp = d.get("upnp")  # absent in sidecars written before it: not asked
        return cls(
            role=role if isinstance(role, str) else "join",
            port=port if isinstance(port, int) and not isinstance(port, bool) else 0,
            bind=bind if isinstance(bind, str) else "0.0.0.0",
            curve=curve if isinstance(curve, bool) else True,
            invite=invite if isinstance(invite, str) else None,
            bots_dir=bots_dir if isinstance(bots_dir, str) else None,
            bot_level=level if isinstance(level, str) else "greedy",
            bot_count=count if isinstance(count, int) and 0 <= count <= 4 else 0,
            upnp=upnp is True,
        )


def default_log_path(game_id: bytes) -> Path:
    """``<data dir>/logs/YYYYmmdd-HHMMSS-<gameid8>.zoolog``."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return logs_dir() / f"{stamp}-{game_id.hex()[:8]}.zoolog"


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
        """Let the log go (idempotent): the file is removed while still locked, then closed."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
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


def lock_log(log: Path, command: str) -> LogLock:
    """Take the lock of `log` for this process, running `command` (``zoo host``); raise
    `LogInUse` naming the log and the command holding it when another live process has it.

    A holder that ends removes the file while it still holds the lock: a lock taken on a file
    that is no longer at its path was taken on nothing, and is taken again."""
    path = lock_path(log)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(8):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 64).decode("utf-8", "replace").strip()
            os.close(fd)
            raise LogInUse(f"{log} is in use by another {_holder_words(holder)}") from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{command} {os.getpid()}\n".encode())
            return LogLock(path, fd)
        os.close(fd)
    raise LogInUse(f"{log}: its lock file {path} keeps changing; try again")  # pragma: no cover


def _holder_words(holder: str) -> str:
    """What a lock file says of its holder (``zoo host 1234``), as words; the file's bytes are
    anyone's: only a known command and a number are believed."""
    parts = holder.split()
    if (
        len(parts) == 3
        and parts[0] == "zoo"
        and parts[1] in ("host", "join", "play", "resume")
        and parts[2].isascii()
        and parts[2].isdigit()
        and len(parts[2]) <= 10
    ):
        return f"`zoo {parts[1]}` (process {int(parts[2])})"
    return "zoo command"


def sidecar_path(log: Path) -> Path:
    """Where the sidecar of the log `log` lives: ``<log>.net``."""
    return log.with_name(log.name + ".net")


def write_sidecar(log: Path, sidecar: NetSidecar) -> None:
    """Store the sidecar beside the log."""
    sidecar_path(log).write_text(sidecar.to_json())


def read_sidecar(log: Path) -> NetSidecar | None:
    """The sidecar beside `log`, or None when there is none. Read bounded: a sidecar larger
    than MAX_SIDECAR bytes is refused (ours are a few hundred)."""
    try:
        with sidecar_path(log).open("rb") as f:
            data = f.read(MAX_SIDECAR + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LogError(f"cannot read {sidecar_path(log)}: {exc}") from None
    if len(data) > MAX_SIDECAR:
        raise LogError(f"{sidecar_path(log)} is larger than {MAX_SIDECAR} bytes: not a sidecar")
    return NetSidecar.from_json(data.decode("utf-8", errors="replace"))


def new_game_log(path: Path, sidecar: NetSidecar) -> LogWriter:
    """Open the log of a new live game at `path` (refused if it already holds entries) and
    write its sidecar."""
    if path.exists() and path.stat().st_size > 0:
        raise LogError(f"{path} already holds a log; use `zoo resume {path}` or another --log")
    writer = LogWriter(path)
    write_sidecar(path, sidecar)
    return writer
