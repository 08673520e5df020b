"""Files: the append-only, fsync'd game log, and the identity key file (0600, user config dir).

`ZOO_HOME`, when set, replaces the platform directories: config in `$ZOO_HOME/config`, data
(logs) in `$ZOO_HOME/data`. The protocol package does no file I/O; this module does it for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
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

    def sync(self) -> None:
        """fsync everything written so far, before returning."""
        if self._fd is not None:
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


# ---------------------------------------------------------------------- a live game's files
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
        return cls(
            role=role if isinstance(role, str) else "join",
            port=port if isinstance(port, int) and not isinstance(port, bool) else 0,
            bind=bind if isinstance(bind, str) else "0.0.0.0",
            curve=curve if isinstance(curve, bool) else True,
            invite=invite if isinstance(invite, str) else None,
        )


def default_log_path(game_id: bytes) -> Path:
    """``<data dir>/logs/YYYYmmdd-HHMMSS-<gameid8>.zoolog``."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return logs_dir() / f"{stamp}-{game_id.hex()[:8]}.zoolog"


def sidecar_path(log: Path) -> Path:
    """Where the sidecar of the log `log` lives: ``<log>.net``."""
    return log.with_name(log.name + ".net")


def write_sidecar(log: Path, sidecar: NetSidecar) -> None:
    """Store the sidecar beside the log."""
    sidecar_path(log).write_text(sidecar.to_json())


def read_sidecar(log: Path) -> NetSidecar | None:
    """The sidecar beside `log`, or None when there is none."""
    try:
        return NetSidecar.from_json(sidecar_path(log).read_text())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LogError(f"cannot read {sidecar_path(log)}: {exc}") from None


def new_game_log(path: Path, sidecar: NetSidecar) -> LogWriter:
    """Open the log of a new live game at `path` (refused if it already holds entries) and
    write its sidecar."""
    if path.exists() and path.stat().st_size > 0:
        raise LogError(f"{path} already holds a log; use `zoo resume {path}` or another --log")
    writer = LogWriter(path)
    write_sidecar(path, sidecar)
    return writer
