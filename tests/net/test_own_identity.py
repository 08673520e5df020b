"""A second terminal on the host's machine joins with the same default key: the host turns it
away, and the joiner now reads what to do (a key of its own: --identity), not only that it was
"the host's own identity". Real processes on 127.0.0.1."""

from __future__ import annotations

import subprocess

from tests.net.harness import Procs


def test_joining_with_the_hosts_own_key_says_to_use_another(procs: Procs) -> None:
    host, invite = procs.host("--players", "2", "--bot", "greedy", "--no-announce")
    same = procs.zoo(  # the host's key (one ZOO_HOME); a keyboard that stays open
        "join", invite, "--plain", "--give-up", "20", name="same", stdin=subprocess.PIPE
    )
    assert procs.wait(same, "same", timeout=30) != 0, procs.text("same")
    said = " ".join(procs.text("same").split())
    assert "the host's own identity" in said and "zoo join --identity PATH" in said, said
    assert host.poll() is None  # the host still waits for a player
