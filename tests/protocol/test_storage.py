"""The log file (append-only, fsync'd, torn tail dropped) and the identity key file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.protocol.conftest import finished_game
from zoo_p2p.errors import IdentityError, LogError
from zoo_p2p.protocol.crypto import fingerprint, public_key_bytes
from zoo_p2p.storage import (
    LogWriter,
    config_dir,
    data_dir,
    identity_path,
    load_or_create_identity,
    logs_dir,
    read_log,
    write_log,
)


def test_zoo_home_places_config_and_data(zoo_home: Path) -> None:
    assert config_dir() == zoo_home / "config"
    assert data_dir() == zoo_home / "data"
    assert logs_dir().is_dir()


def test_identity_created_once_with_0600(zoo_home: Path) -> None:
    key = load_or_create_identity()
    path = identity_path()
    assert path.parent == zoo_home / "config"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_identity()
    assert public_key_bytes(again) == public_key_bytes(key)
    fp = fingerprint(public_key_bytes(key))
    assert len(fp) == 19 and fp.count("-") == 3


def test_identity_refused_when_readable_by_others() -> None:
    load_or_create_identity()
    os.chmod(identity_path(), 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create_identity()


def test_identity_refused_when_garbage() -> None:
    p = identity_path()
    p.parent.mkdir(parents=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"not a key")
    os.close(fd)
    with pytest.raises(IdentityError):
        load_or_create_identity()


def test_write_and_read_back(tmp_path: Path) -> None:
    entries = finished_game(2).entries
    path = tmp_path / "g.zoo"
    write_log(path, entries)
    got = read_log(path)
    assert got.entries == entries and not got.torn and got.warning is None


@pytest.mark.parametrize("cut", [1, 10, 70])
def test_torn_last_entry_is_dropped_and_reported(tmp_path: Path, cut: int) -> None:
    entries = finished_game(2).entries[:30]
    path = tmp_path / "g.zoo"
    write_log(path, entries)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - cut])
    got = read_log(path)
    assert got.entries == entries[:-1]
    assert got.torn and got.warning and "torn" in got.warning
    # Reopening for writing truncates the torn tail and continues from the last good entry.
    w = LogWriter(path)
    assert w.recovered is not None and len(w) == 29
    w.append(entries[29])
    w.close()
    assert read_log(path).entries == entries


def test_writer_refuses_what_does_not_chain(tmp_path: Path) -> None:
    entries = finished_game(2).entries
    with LogWriter(tmp_path / "g.zoo") as w:
        w.append(entries[0])
        with pytest.raises(LogError, match="seq"):
            w.append(entries[2])
        other = finished_game(3).entries
        with pytest.raises(LogError, match="chain"):
            w.append(other[1])
        with pytest.raises(LogError, match="malformed"):
            w.append(b"\x92\xc4\x00")
        w.append(entries[1])
        assert len(w) == 2
    assert read_log(tmp_path / "g.zoo").entries == entries[:2]


def test_garbage_in_the_middle_is_an_error(tmp_path: Path) -> None:
    entries = finished_game(2).entries[:3]
    for junk in (b"\xc1", b"\x01"):
        p = tmp_path / "g.zoolog"
        p.write_bytes(entries[0] + junk + entries[1])
        with pytest.raises(LogError, match="entry 1"):
            read_log(p)


def test_missing_file_is_a_log_error(tmp_path: Path) -> None:
    with pytest.raises(LogError):
        read_log(tmp_path / "nope.zoo")
