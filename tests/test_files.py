"""The files zoo writes are never written through a symbolic link, replace the old file whole or
not at all, and refuse what is not a regular file with one FileError naming the path and the
reason (issue 18, items 5 and 6): the lock, the `.net` sidecar, the `.proofs`, the log, exports,
and one helper (`zoo_p2p.files`) that every writer goes through."""

from __future__ import annotations

import ast
import os
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.protocol.conftest import finished_game
from tests.source_ast import tree
from zoo_p2p import storage
from zoo_p2p.errors import FileError, LogError

PKG = Path(__file__).resolve().parents[1] / "zoo_p2p"
SECRET = b"the user's own file\n"


def _links(tmp_path: Path, at: Path) -> tuple[Path, Path]:
    """A file `target` with SECRET in it and a link at `at` to it; and a dangling link's
    would-be target (`at` is made to point at it by `_dangle`)."""
    target = tmp_path / "target"
    target.write_bytes(SECRET)
    at.symlink_to(target)
    return target, tmp_path / "nowhere"


def _dangle(at: Path, nowhere: Path) -> None:
    at.unlink()
    at.symlink_to(nowhere)


def test_the_lock_is_never_taken_through_a_link(tmp_path: Path) -> None:
    log = tmp_path / "g.zoolog"
    target, nowhere = _links(tmp_path, storage.lock_path(log))
    with pytest.raises(FileError) as refused:
        storage.lock_log(log, "zoo host")
    assert str(refused.value) == (
        f"cannot lock {storage.lock_path(log)}: it is a symbolic link, which zoo does not "
        "follow for its own files"
    )
    assert target.read_bytes() == SECRET  # was: "zoo host PID" written into it
    _dangle(storage.lock_path(log), nowhere)
    with pytest.raises(FileError, match="symbolic link"):
        storage.lock_log(log, "zoo host")
    assert not os.path.lexists(nowhere)  # was: the link's target created


@pytest.mark.parametrize("family", [storage.sidecar_path, storage.proofs_path])
def test_a_link_beside_the_log_is_refused_when_the_lock_is_taken(
    tmp_path: Path, family: object
) -> None:
    """Said at once, before anyone joins, not when the game starts and the file is written."""
    log = tmp_path / "g.zoolog"
    assert callable(family)
    target, _ = _links(tmp_path, family(log))
    with pytest.raises(FileError, match=f"cannot use {family(log)}: it is a symbolic link"):
        storage.lock_log(log, "zoo host")
    assert target.read_bytes() == SECRET


def test_the_sidecar_is_never_written_through_a_link(tmp_path: Path) -> None:
    log = tmp_path / "g.zoolog"
    side = storage.NetSidecar(role="host", port=4040)
    target, nowhere = _links(tmp_path, storage.sidecar_path(log))
    with pytest.raises(FileError, match="symbolic link"):
        storage.write_sidecar(log, side)
    assert target.read_bytes() == SECRET  # was: the JSON sidecar written over it
    with pytest.raises(FileError, match="symbolic link"):
        storage.read_sidecar(log)
    _dangle(storage.sidecar_path(log), nowhere)
    with pytest.raises(FileError, match="symbolic link"):
        storage.new_game_log(log, side)
    assert not os.path.lexists(nowhere)


def test_the_sidecar_is_replaced_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "g.zoolog"
    storage.write_sidecar(log, storage.NetSidecar(role="host", port=1))
    before = storage.sidecar_path(log).read_bytes()
    inode = storage.sidecar_path(log).stat().st_ino
    storage.write_sidecar(log, storage.NetSidecar(role="host", port=2))
    assert storage.read_sidecar(log) == storage.NetSidecar(role="host", port=2)
    assert storage.sidecar_path(log).stat().st_ino != inode  # a new file moved in
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.zoolog.net"]  # no temp left

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    storage.write_sidecar(log, storage.NetSidecar(role="host", port=1))
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(FileError) as refused:
        storage.write_sidecar(log, storage.NetSidecar(role="host", port=3))
    assert str(refused.value) == (
        f"cannot write {storage.sidecar_path(log)}: no space left on the device"
    )
    assert storage.sidecar_path(log).read_bytes() == before  # the old one, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.zoolog.net"]


def test_proofs_are_never_written_through_a_link_and_a_torn_record_loses_no_new_proof(
    tmp_path: Path,
) -> None:
    log = tmp_path / "g.zoolog"
    target, nowhere = _links(tmp_path, storage.proofs_path(log))
    with pytest.raises(FileError, match="symbolic link"):
        storage.append_proof(log, b"p" * 40)
    with pytest.raises(FileError, match="symbolic link"):
        storage.read_proofs(log)
    assert target.read_bytes() == SECRET
    _dangle(storage.proofs_path(log), nowhere)
    with pytest.raises(FileError, match="symbolic link"):
        storage.append_proof(log, b"p" * 40)
    assert not os.path.lexists(nowhere)

    storage.proofs_path(log).unlink()
    first, second = b"a" * 40, b"b" * 50
    # a record cut short (a crash in the middle of an append by an older zoo)
    storage.proofs_path(log).write_bytes(struct.pack(">I", 40) + first + struct.pack(">I", 99))
    assert storage.read_proofs(log) == [first]
    assert storage.append_proof(log, second)
    assert storage.read_proofs(log) == [first, second]  # was: [first], the new proof lost


def test_the_log_is_never_written_through_a_link(tmp_path: Path) -> None:
    log = tmp_path / "g.zoolog"
    target, nowhere = _links(tmp_path, log)
    with pytest.raises(FileError, match=f"cannot open {log}: it is a symbolic link"):
        storage.LogWriter(log)
    with pytest.raises(FileError, match="symbolic link"):
        storage.write_log(log, finished_game(2).entries[:3])
    assert target.read_bytes() == SECRET and log.is_symlink()
    _dangle(log, nowhere)
    with pytest.raises(FileError, match="symbolic link"):
        storage.LogWriter(log)
    assert not os.path.lexists(nowhere)


@pytest.mark.parametrize("what", ["dir", "fifo"])
def test_what_is_not_a_regular_file_is_refused_with_its_name_and_kind(
    tmp_path: Path, what: str
) -> None:
    log = tmp_path / "g.zoolog"
    lock = storage.lock_path(log)
    if what == "dir":
        lock.mkdir()
        said = "it is a directory, not a regular file"
    else:
        os.mkfifo(lock)
        said = "it is a FIFO (named pipe), not a regular file"
    with pytest.raises(FileError) as refused:  # was: IsADirectoryError, OSError(EINVAL)
        storage.lock_log(log, "zoo host")
    assert str(refused.value) == f"cannot lock {lock}: {said}"
    assert isinstance(refused.value, LogError)  # every handler of a bad log handles it


def test_a_path_through_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    log = tmp_path / "afile" / "g.zoolog"
    with pytest.raises(FileError) as refused:  # was: FileExistsError
        storage.lock_log(log, "zoo host")
    assert str(refused.value) == (
        f"cannot lock {storage.lock_path(log)}: {tmp_path / 'afile'} is not a directory"
    )


def test_an_export_is_never_written_through_a_link(tmp_path: Path) -> None:
    from zoo_p2p.cli.app import app

    log = tmp_path / "g.zoolog"
    storage.write_log(log, finished_game(2).entries)
    out = tmp_path / "g.html"
    target, _ = _links(tmp_path, out)
    r = CliRunner().invoke(app, ["replay", str(log), "--html", str(out)], env={"COLUMNS": "300"})
    assert r.exit_code == 1, r.output
    assert " ".join(r.output.split()) == (
        f"cannot write {out}: it is a symbolic link, which zoo does not follow for its own files"
    )
    assert target.read_bytes() == SECRET and out.is_symlink()  # was: the link replaced
    fifo = tmp_path / "g.txt"
    os.mkfifo(fifo)
    r = CliRunner().invoke(app, ["replay", str(log), "--text", str(fifo)], env={"COLUMNS": "300"})
    assert r.exit_code == 1 and "it is a FIFO (named pipe), not a regular file" in r.output
    assert fifo.is_fifo()


# the calls that create or write a file; only zoo_p2p/files.py makes them
_WRITERS = {("os", "open"), ("os", "replace"), ("os", "rename"), ("tempfile", "mkstemp")}
_PATH_WRITERS = {"write_text", "write_bytes"}


def _is_write(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Name):  # open(path, "w")
        return f.id == "open" and _write_mode(call, 1)
    if not isinstance(f, ast.Attribute):
        return False
    if isinstance(f.value, ast.Name) and (f.value.id, f.attr) in _WRITERS:
        return True
    return f.attr in _PATH_WRITERS or (f.attr == "open" and _write_mode(call, 0))


def _writes(tree: ast.AST) -> list[int]:
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_write(n)]


def _write_mode(call: ast.Call, at: int) -> bool:
    args = [*call.args[at : at + 1], *(k.value for k in call.keywords if k.arg == "mode")]
    return any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) and set(a.value) & set("wax+")
        for a in args
    )


def test_every_file_zoo_writes_is_opened_through_the_one_helper() -> None:
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        if path == PKG / "files.py":
            continue
        lines = _writes(tree(path))
        if lines:
            found[str(path.relative_to(PKG))] = lines
    assert found == {}, "open files to write through zoo_p2p.files, not directly"
    assert _writes(ast.parse((PKG / "files.py").read_text()))  # the check can see a write


def test_a_folder_we_may_not_write_in_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root no read-only folder stops us (the CLI test uses a file in the folder's place):
    the kernel's answer for a user is stood in for here."""
    log = tmp_path / "g.zoolog"

    def denied(*args: object, **kw: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(FileError) as refused:  # was: PermissionError
        storage.lock_log(log, "zoo host")
    assert str(refused.value) == f"cannot lock {storage.lock_path(log)}: permission denied"


def test_the_bots_keys_never_go_into_a_folder_a_link_points_at(tmp_path: Path) -> None:
    from zoo_p2p.cli.spawn import bots_dir_for, spawn_bots
    from zoo_p2p.net.invite import Invite

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log = tmp_path / "g.zoolog"
    log.with_name("g.zoolog.bots").symlink_to(elsewhere)
    with pytest.raises(FileError) as refused:  # was: keys and logs made in `elsewhere`
        bots_dir_for(log)
    assert str(refused.value) == (
        f"cannot use {tmp_path / 'g.zoolog.bots'}: it is a symbolic link, which zoo does not "
        "follow for its own files"
    )
    target, _ = _links(tmp_path, tmp_path / "bot1.err")
    with pytest.raises(FileError, match="symbolic link"):  # refused before anything starts
        fp = "IV7F-M2JN-KPTH-JXDE"
        invite = Invite(host="127.0.0.1", port=9, server_key=bytes(range(32)), fingerprint=fp)
        spawn_bots(invite, 1, "greedy", 0.0, tmp_path)
    assert target.read_bytes() == SECRET and list(elsewhere.iterdir()) == []


def test_a_replaced_file_keeps_the_umask_s_privacy(tmp_path: Path) -> None:
    """A sidecar written under umask 077 is the user's alone, as `write_text` made it."""
    log = tmp_path / "g.zoolog"
    old = os.umask(0o077)
    try:
        storage.write_sidecar(log, storage.NetSidecar(role="host"))
    finally:
        os.umask(old)
    assert storage.sidecar_path(log).stat().st_mode & 0o777 == 0o600
