"""The `.net` sidecar of a live game's log: how we were connected, for `zoo resume`; and
`new_game_log`, which opens a new game's log and writes its sidecar."""

from __future__ import annotations

import dataclasses
import errno
import json
from dataclasses import dataclass
from pathlib import Path

from zoo_p2p import files
from zoo_p2p.errors import FileError, LogError
from zoo_p2p.storage.log import LogWriter

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


def sidecar_path(log: Path) -> Path:
    """Where the sidecar of the log `log` lives: ``<log>.net``."""
    return log.with_name(log.name + ".net")


def write_sidecar(log: Path, sidecar: NetSidecar) -> None:
    """Store the sidecar beside the log, replacing the old one whole (`files.write_atomic`)."""
    files.write_atomic(sidecar_path(log), sidecar.to_json().encode())


def read_sidecar(log: Path) -> NetSidecar | None:
    """The sidecar beside `log`, or None when there is none. Read bounded: a sidecar larger
    than MAX_SIDECAR bytes is refused (ours are a few hundred), a link or anything but a
    regular file too (FileError)."""
    try:
        with files.open_read(sidecar_path(log)) as f:
            data = f.read(MAX_SIDECAR + 1)
    except FileError as exc:
        if exc.code == errno.ENOENT:
            return None
        raise
    except OSError as exc:
        raise files.error("read", sidecar_path(log), exc) from None
    if len(data) > MAX_SIDECAR:
        raise LogError(f"{sidecar_path(log)} is larger than {MAX_SIDECAR} bytes: not a sidecar")
    return NetSidecar.from_json(data.decode("utf-8", errors="replace"))


def new_game_log(path: Path, sidecar: NetSidecar) -> LogWriter:
    """Open the log of a new live game at `path` (refused if it already holds entries) and
    write its sidecar."""
    writer = LogWriter(path, new=True)
    try:
        write_sidecar(path, sidecar)
    except BaseException:
        writer.close()
        raise
    return writer
