"""A real `zoo host` whose joiner never sends its first commit (PROTOCOL.md §3.2, §10.5): the
host stops without a claim, its closing lines say the game never started (no win, no `zoo
resume` hint), and `zoo verify` on its log agrees. Real processes on 127.0.0.1; bounded waits."""

from __future__ import annotations

import subprocess
import sys

from tests.net.harness import START, Procs, wait_for
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.storage import read_log

STALLER = [sys.executable, "-m", "tests.net.staller"]


def test_zoo_host_ends_a_game_that_never_started_without_a_win_or_a_resume(
    procs: Procs,
) -> None:
    inv = procs.tmp / "host.invite"
    log = procs.tmp / "host.zoolog"
    host = procs.zoo(
        "host", "--bind", "127.0.0.1", "--invite-file", str(inv), "--no-announce", "--plain",
        "--log", str(log), "--players", "2", "--reveal-time", "2", "--name", "host",
        name="host", stdin=subprocess.PIPE,  # the test is its keyboard: it types nothing
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    invite = inv.read_text().strip()
    quiet = procs.start(
        [*STALLER, "join", "nocommit", invite, "--log", str(procs.tmp / "q.zoolog")], name="quiet"
    )
    assert procs.wait(host, "host", 40) == 1, procs.text("host")
    quiet.kill()
    out = " ".join((procs.tmp / "host.out").read_text(errors="replace").split())
    assert "the game never started: seat 2" in out and "no result" in out, procs.text("host")
    assert "zoo resume" not in out and "wins" not in out and "win)" not in out, out
    assert "Traceback" not in procs.text("host")
    kinds = [decode_entry(e).kind for e in read_log(log).entries]
    assert kinds == [Kind.GENESIS, Kind.COMMIT]  # no claim was signed
    verify = procs.zoo("verify", str(log), name="verify")
    assert procs.wait(verify, "verify", 30) == 3  # incomplete
    said = " ".join((procs.tmp / "verify.out").read_text(errors="replace").split())
    assert "signed nothing in this game: never started, no result" in said, said
    assert "won by" not in said and "wins" not in said
