"""The long-term identity: the Ed25519 key file (0600, in the user config directory)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p import files
from zoo_p2p.errors import FileError, IdentityError
from zoo_p2p.storage.paths import config_dir

IDENTITY_FILE = "identity.key"
_MAX_IDENTITY = 16384  # bytes of a key file read at most (ours are 119)


def identity_path() -> Path:
    """Path of the long-term identity key file."""
    return config_dir() / IDENTITY_FILE


def load_or_create_identity(path: Path | None = None) -> Ed25519PrivateKey:
    """Load the user's Ed25519 identity, creating it (mode 0600) on first use."""
    path = identity_path() if path is None else path
    if os.path.lexists(path):
        return load_identity(path)
    files.make_dirs(path.parent, mode=0o700, verb="create", target=path)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        fd = files.open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, verb="create")
    except FileError as exc:
        if exc.code == errno.EEXIST:  # another process created it first: use theirs
            return load_identity(path)
        raise IdentityError(str(exc)) from None
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
        f.flush()
        os.fsync(f.fileno())
    return key


def load_identity(path: Path) -> Ed25519PrivateKey:
    """Load an identity key file; IdentityError if it is unreadable, malformed or not private."""
    try:
        with files.open_read(path, follow=True) as f:  # the user's own path: a link is theirs
            mode = os.fstat(f.fileno()).st_mode
            if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise IdentityError(
                    f"{path} is readable by others (mode {stat.S_IMODE(mode):o}); "
                    "run chmod 600 on it"
                )
            data = f.read(_MAX_IDENTITY + 1)
    except FileError as exc:
        raise IdentityError(f"cannot read identity {path}: {exc.why}") from None
    except OSError as exc:
        raise IdentityError(f"cannot read identity {path}: {files.reason(exc, path)}") from None
    if len(data) > _MAX_IDENTITY:
        raise IdentityError(f"{path} is not an identity key: larger than {_MAX_IDENTITY} bytes")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise IdentityError(f"{path} is not an identity key: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"{path} is not an Ed25519 key")
    return key
