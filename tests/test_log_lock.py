"""The lock of a log's name (`storage.lock_log`): one live process plays a log; a second is
refused with a line naming the log and its holder; the lock goes with its holder however it ends
(kill -9 too) and a lock file's bytes are never believed beyond a known command and a number."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from zoo_p2p.storage import LogInUse, lock_log, lock_path

ROOT = Path(__file__).resolve().parents[1]


def test_a_second_lock_is_refused_naming_the_log_and_its_holder(tmp_path: Path) -> None:
    log = tmp_path / "game.zoolog"
    with lock_log(log, "zoo host"):
        assert lock_path(log).read_text() == f"zoo host {os.getpid()}\n"
        with pytest.raises(LogInUse) as refused:
            lock_log(log, "zoo host")
        assert (
            str(refused.value) == f"{log} is in use by another `zoo host` (process {os.getpid()})"
        )
    assert not lock_path(log).exists()  # released: the file goes with it
    with lock_log(log, "zoo resume"):  # and the name is free again
        pass


def test_a_lock_file_left_behind_blocks_nothing_and_its_bytes_are_not_believed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "game.zoolog"
    lock_path(log).write_text("\x1b[31m[red]zoo host 1\n")  # no live holder: not a lock
    with lock_log(log, "zoo host") as held:
        assert held.fd is not None
    lock_path(log).write_text("zoo host 12")
    fd = os.open(lock_path(log), os.O_RDWR)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"\x1b[2Jrm -rf 99\n", 0)  # whatever a holder wrote
        with pytest.raises(LogInUse) as refused:
            lock_log(log, "zoo host")
        assert str(refused.value) == f"{log} is in use by another zoo command"
    finally:
        os.close(fd)


def test_a_holder_killed_with_sigkill_leaves_the_log_free(tmp_path: Path) -> None:
    log = tmp_path / "game.zoolog"
    code = (
        "import sys; from pathlib import Path; from zoo_p2p.storage import lock_log\n"
        f"lock_log(Path({str(log)!r}), 'zoo host'); print('locked', flush=True); sys.stdin.read()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 20)
        assert ready and holder.stdout.readline() == b"locked\n"
        with pytest.raises(LogInUse, match=f"process {holder.pid}"):
            lock_log(log, "zoo host")
        holder.send_signal(signal.SIGKILL)
        assert holder.wait(10) == -signal.SIGKILL
        assert lock_path(log).exists()  # nobody removed it
        with lock_log(log, "zoo host"):  # yet the kernel dropped the lock with its holder
            pass
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(5)
