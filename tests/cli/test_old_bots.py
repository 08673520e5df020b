"""`zoo resume` ends the crashed host's bots by their logs' locks, and never a process that is not
that bot (issue 18, item 3): a lock file's number is anyone's bytes, and a number can be reused.
`zoo bot` holds its log's lock, so a second bot on one log is refused."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.net.harness import ROOT, ZOO
from zoo_p2p.cli.spawn import end_old_bots, holds_lock
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.wire import NetError
from zoo_p2p.storage import lock_log, lock_path

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
FP = "IV7F-M2JN-KPTH-JXDE"
INVITE = str(Invite(host="127.0.0.1", port=9, server_key=bytes(range(32)), fingerprint=FP))


def _holder(log: Path, *argv: str, says: str | None = None) -> subprocess.Popen[bytes]:
    """A process that takes the lock of `log` as `zoo bot` and waits (its argv[1:] is `argv`);
    with `says`, its lock file then says that instead of its own number."""
    code = (
        "import os, sys; from pathlib import Path; from zoo_p2p.storage import lock_log\n"
        f"held = lock_log(Path({str(log)!r}), 'zoo bot')\n"
        f"says = {says!r}\n"
        "if says is not None:\n"
        "    os.ftruncate(held.fd, 0); os.pwrite(held.fd, says.encode(), 0)\n"
        "print('locked', flush=True); sys.stdin.read()"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV
    )
    assert p.stdout is not None
    ready, _, _ = select.select([p.stdout], [], [], 30)
    assert ready and p.stdout.readline() == b"locked\n"
    return p


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(5)


def test_a_bot_of_the_crashed_host_is_ended(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    bot = _holder(tmp_path / "bot2.zoolog", "bot", INVITE)
    started.append(bot)
    assert holds_lock(bot.pid, lock_path(tmp_path / "bot2.zoolog"))
    assert end_old_bots(tmp_path, 2) == [(2, bot.pid)]  # bot1 has no lock: nothing runs
    assert bot.wait(10) != 0  # ended by a signal, while it still waited
    with lock_log(tmp_path / "bot2.zoolog", "zoo bot"):  # and its log is free for the next
        pass


def test_a_holder_that_is_no_bot_is_never_signalled(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    other = _holder(tmp_path / "bot1.zoolog", "not-a-zoo-bot")
    started.append(other)
    with pytest.raises(NetError) as refused:
        end_old_bots(tmp_path, 1)
    assert str(refused.value) == (
        f"{tmp_path / 'bot1.zoolog'} is in use, and process {other.pid}, which its lock file "
        "names, is not the bot holding it: end the process using it, then resume"
    )
    assert other.poll() is None


def test_a_number_in_a_lock_file_is_not_believed(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """A lock file naming another live process (an unrelated one, or a number since reused):
    that process is left alone, whoever holds the lock; a lock nobody holds names nobody."""
    bystander = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()", "bot"], stdin=subprocess.PIPE
    )
    started.append(bystander)
    holder = _holder(tmp_path / "bot1.zoolog", "bot", says=f"zoo bot {bystander.pid}\n")
    started.append(holder)
    with pytest.raises(NetError, match=f"process {bystander.pid}, which its lock file names"):
        end_old_bots(tmp_path, 1)
    assert bystander.poll() is None and holder.poll() is None
    holder.kill()
    holder.wait(10)
    assert lock_path(tmp_path / "bot1.zoolog").read_text() == f"zoo bot {bystander.pid}\n"
    assert end_old_bots(tmp_path, 1) == []  # a lock nobody holds: nothing runs, nobody is hit
    assert bystander.poll() is None


def test_a_second_bot_on_one_log_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "bot1.zoolog"
    with lock_log(log, "zoo bot"):
        r = subprocess.run(
            [*ZOO, "bot", INVITE, "--log", str(log), "--give-up", "3"],
            env={**ENV, "ZOO_HOME": str(tmp_path / "home"), "COLUMNS": "300"},
            capture_output=True,
            timeout=60,
        )
    assert r.returncode == 1
    assert r.stderr.decode() == (
        f"{log} is in use by another `zoo bot` (process {os.getpid()}): wait for it to end, "
        "or use another --log\n"
    )
