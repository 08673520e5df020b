"""Files: the append-only, fsync'd game log, and the identity key file (0600, user config dir).

`ZOO_HOME`, when set, replaces the platform directories: config in `$ZOO_HOME/config`, data
(logs) in `$ZOO_HOME/data`. The protocol package does no file I/O; this module does it for it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import msgpack
import platformdirs
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import IdentityError, LogError, RemoteProtocolError
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import MAX_ENTRY_SIZE, ZERO_HASH, decode_entry

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


def split_entries(data: bytes) -> LogRead:
    """Split a log's bytes into entries; a torn tail is dropped; garbage raises LogError."""
    unpacker = msgpack.Unpacker(
        raw=False,
        max_buffer_size=max(len(data), 1),
        max_bin_len=MAX_ENTRY_SIZE,
        max_str_len=256,
        max_array_len=64,
        max_map_len=0,
        max_ext_len=0,
    )
    unpacker.feed(data)
    entries: list[bytes] = []
    start = 0
    while True:
        try:
            obj = unpacker.unpack()
        except msgpack.OutOfData:
            break
        except Exception as exc:
            raise LogError(
                f"unreadable bytes at offset {start}: {exc}", index=len(entries)
            ) from None
        end = unpacker.tell()
        if not (isinstance(obj, list) and len(obj) == 2 and all(type(x) is bytes for x in obj)):
            raise LogError("not an entry [payload, sig]", index=len(entries))
        entries.append(data[start:end])
        start = end
    return LogRead(entries, len(data) - start)


def read_log(path: Path | str) -> LogRead:
    """Read every complete entry of a log file (a torn last entry is dropped and reported)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc}") from None
    return split_entries(data)


def iter_entries(path: Path | str) -> Iterator[bytes]:
    """Yield the complete entries of a log file in order."""
    yield from read_log(path).entries


# ---------------------------------------------------------------------- log writing
class LogWriter:
    """An append-only log file: every entry must chain onto the last; flushed and fsync'd each.

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
        self._file = os.fdopen(fd, "ab")

    def __len__(self) -> int:
        return self._count

    @property
    def head(self) -> bytes:
        """SHA-256 of the last entry written (zero bytes when empty)."""
        return self._head

    def append(self, entry: bytes) -> None:
        """Append one entry after checking it chains (seq and prev); flush and fsync it."""
        try:
            e = decode_entry(entry)
        except RemoteProtocolError as exc:
            reason = f"refusing to write a malformed entry: {exc.reason}"
            raise LogError(reason, index=self._count) from None
        if e.seq != self._count:
            raise LogError(f"entry has seq {e.seq}, the log expects {self._count}", index=e.seq)
        if e.prev != self._head:
            raise LogError("entry does not chain onto the last one (prev_hash)", index=e.seq)
        self._file.write(entry)
        self._file.flush()
        os.fsync(self._file.fileno())
        self._count += 1
        self._head = sha256(entry)

    def extend(self, entries: list[bytes]) -> None:
        """Append several entries (each checked, flushed and fsync'd)."""
        for entry in entries:
            self.append(entry)

    def close(self) -> None:
        """Close the file."""
        with contextlib.suppress(OSError):
            self._file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def write_log(path: Path | str, entries: list[bytes]) -> None:
    """Write a whole log to a new file (replacing it), each entry checked and fsync'd."""
    p = Path(path)
    if p.exists():
        p.unlink()
    with LogWriter(p) as w:
        w.extend(entries)
