"""Files: the append-only, fsync'd game log, its sidecars, its lock, and the identity key file.

`ZOO_HOME`, when set, replaces the platform directories: config in `$ZOO_HOME/config`, data
(logs) in `$ZOO_HOME/data`. The protocol package does no file I/O; this package does it for it.
Every name is importable from here (`from zoo_p2p.storage import LogWriter`); each lives in one
module:

- `paths`: where files live (`config_dir`, `data_dir`, `logs_dir`, `default_log_path`);
- `identity`: the Ed25519 identity key file (0600);
- `log`: the log file, read (`LogReader`, `read_log`, `audit_file`) and written (`LogWriter`,
  `write_log`);
- `proofs`: the `<log>.proofs` evidence sidecar;
- `sidecar`: the `<log>.net` sidecar of a live game (`NetSidecar`) and `new_game_log`;
- `lock`: the `<log>.lock` of the one process that plays a log (`lock_log`, `held_by`).
"""

from __future__ import annotations

from zoo_p2p.storage.identity import (
    IDENTITY_FILE,
    identity_path,
    load_identity,
    load_or_create_identity,
)
from zoo_p2p.storage.lock import (
    LOCK_COMMANDS,
    LogInUse,
    LogLock,
    game_files,
    held_by,
    holder_words,
    lock_holder,
    lock_log,
    lock_path,
)
from zoo_p2p.storage.log import (
    LogRead,
    LogReader,
    LogWriter,
    audit_file,
    iter_entries,
    read_log,
    write_log,
)
from zoo_p2p.storage.paths import APP_NAME, config_dir, data_dir, default_log_path, logs_dir
from zoo_p2p.storage.proofs import MAX_PROOFS, PROOFS_SUFFIX, append_proof, proofs_path, read_proofs
from zoo_p2p.storage.sidecar import (
    MAX_SIDECAR,
    NetSidecar,
    new_game_log,
    read_sidecar,
    sidecar_path,
    write_sidecar,
)

__all__ = [
    "APP_NAME",
    "IDENTITY_FILE",
    "LOCK_COMMANDS",
    "MAX_PROOFS",
    "MAX_SIDECAR",
    "PROOFS_SUFFIX",
    "LogInUse",
    "LogLock",
    "LogRead",
    "LogReader",
    "LogWriter",
    "NetSidecar",
    "append_proof",
    "audit_file",
    "config_dir",
    "data_dir",
    "default_log_path",
    "game_files",
    "held_by",
    "holder_words",
    "identity_path",
    "iter_entries",
    "load_identity",
    "load_or_create_identity",
    "lock_holder",
    "lock_log",
    "lock_path",
    "logs_dir",
    "new_game_log",
    "proofs_path",
    "read_log",
    "read_proofs",
    "read_sidecar",
    "sidecar_path",
    "write_log",
    "write_sidecar",
]
