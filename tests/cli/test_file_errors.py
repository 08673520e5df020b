"""A file error is one red line naming the path and the reason, exit 1 (our error), never
"internal error … report it" (issue 18, item 6): a lock path that is a directory or a FIFO, a
log that is a link or a FIFO, a `--log` whose folder is a file (as root, which no read-only
folder stops), for every command that plays a log: `zoo host`, `play`, `join`, `resume`, `bot`.

One case is the real `zoo` process, as a user runs it; every case runs `main()` (the console
script's entry point) in this process, its stderr and exit status captured: none gets as far as
the network."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.net.harness import ROOT, ZOO
from tests.protocol.conftest import finished_game
from zoo_p2p.net.invite import Invite
from zoo_p2p.storage import lock_path, write_log

INVITE = str(
    Invite(host="127.0.0.1", port=9, server_key=bytes(range(32)), fingerprint="IV7F-M2JN-KPTH-JXDE")
)
NET = ["--bind", "127.0.0.1", "--no-announce"]


def _unfinished(log: Path) -> None:
    write_log(log, finished_game(2).entries[:5])


def _lock_dir(log: Path) -> str:
    lock_path(log).mkdir()
    return f"cannot lock {lock_path(log)}: it is a directory, not a regular file"


def _lock_fifo(log: Path) -> str:
    os.mkfifo(lock_path(log))
    return f"cannot lock {lock_path(log)}: it is a FIFO (named pipe), not a regular file"


def _through_a_file(log: Path) -> str:
    log.parent.parent.joinpath("afile").write_text("a file, not a folder\n")
    return f"cannot lock {lock_path(log)}: {log.parent} is not a directory"


def _log_fifo(log: Path) -> str:
    log.unlink()
    os.mkfifo(log)
    return f"cannot use {log}: it is a FIFO (named pipe), not a regular file"


def _log_link(log: Path) -> str:
    real = log.with_name("real.zoolog")
    log.rename(real)
    log.symlink_to(real)
    return f"cannot use {log}: it is a symbolic link, which zoo does not follow for its own files"


Case = tuple[str, list[str], Callable[[Path], str], bool]
CASES: list[Case] = [
    ("host-dir", ["host", *NET], _lock_dir, False),
    ("host-fifo", ["host", *NET], _lock_fifo, False),
    ("host-file", ["host", *NET], _through_a_file, False),
    ("play-dir", ["play", "--plain"], _lock_dir, False),
    ("play-file", ["play", "--plain"], _through_a_file, False),
    ("join-fifo", ["join", INVITE, "--plain"], _lock_fifo, False),
    ("join-file", ["join", INVITE, "--plain"], _through_a_file, False),
    ("bot-dir", ["bot", INVITE, "--give-up", "3"], _lock_dir, False),
    ("bot-file", ["bot", INVITE, "--give-up", "3"], _through_a_file, False),
    ("resume-dir", ["resume"], _lock_dir, True),
    ("resume-fifo", ["resume"], _log_fifo, True),
    ("resume-link", ["resume"], _log_link, True),
]


def _case(tmp_path: Path, case: Case) -> tuple[list[str], str, Path]:
    """Make the case's bad path: the arguments, the line expected, and the folder to run in."""
    name, args, make, resume = case
    here = tmp_path / name
    here.mkdir()
    folder = here / "afile" if make is _through_a_file else here
    log = folder / "g.zoolog"
    if resume:
        _unfinished(log)
    said = make(log)
    argv = [*args[:1], str(log), *args[1:]] if resume else [*args, "--log", str(log)]
    return argv, said, here


def test_a_file_error_is_one_line_from_the_real_zoo_process(tmp_path: Path) -> None:
    """One case as the user meets it: the console script's own stderr and exit status (the
    others below run the same `main()` in this process)."""
    env = {**os.environ, "ZOO_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env |= {"NO_COLOR": "1", "COLUMNS": "80"}
    argv, said, here = _case(tmp_path, CASES[0])
    p = subprocess.run(
        [*ZOO, *argv], stdin=subprocess.DEVNULL, capture_output=True, env=env, cwd=here, timeout=60
    )
    assert (p.returncode, p.stderr.decode(errors="replace")) == (1, said + "\n"), p


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_file_error_is_one_line_with_the_path_and_the_reason(
    case: Case,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every case through `main()`, the console script's entry point, in this process: what it
    writes on stderr and the status it exits with are what the process would show."""
    from zoo_p2p.cli.app import main

    argv, said, here = _case(tmp_path, case)
    monkeypatch.setenv("ZOO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(here)
    monkeypatch.setattr("sys.argv", ["zoo", *argv])
    with pytest.raises(SystemExit) as ended:
        main()
    out, err = capsys.readouterr()
    assert (ended.value.code, err) == (1, said + "\n"), (case[0], out, err)


def test_a_file_error_nothing_named_is_still_one_line_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last line of defence (`main()`): an OSError that carries a path is a file error."""
    from zoo_p2p.cli.exits import fail

    missing = tmp_path / "gone" / "g.html"
    with pytest.raises(SystemExit) as ended:
        fail(FileNotFoundError(2, "No such file or directory", str(missing)))
    assert ended.value.code == 1
    err = " ".join(capsys.readouterr().err.split())
    assert err == f"cannot use {missing}: no such file or directory"
    with pytest.raises(SystemExit):
        fail(OSError(22, "Invalid argument"))  # no path: a bug of ours, said so
    assert "internal error" in capsys.readouterr().err
