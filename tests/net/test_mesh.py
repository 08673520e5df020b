"""No trusted relay (TRANSPORT.md §10): a cheat's proof ends up on every honest peer's disk, and
`zoo verify` reads it there. Real processes on 127.0.0.1 (tests/net/evil.py plays the cheater).
A host that equivocates or withholds is caught in memory, on a fake clock, by the same cheat:
tests/net/test_mesh_mem.py."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.net.harness import START, Procs, wait_for
from zoo_p2p.net import evidence
from zoo_p2p.storage import read_log

EVIL = [sys.executable, "-m", "tests.net.evil"]
ZOO_MAIN = "from zoo_p2p.cli.app import main; main()"


def _evil(procs: Procs, *args: str, name: str) -> subprocess.Popen[bytes]:
    out = open(procs.tmp / f"{name}.out", "wb")  # noqa: SIM115
    err = open(procs.tmp / f"{name}.err", "wb")  # noqa: SIM115
    p = subprocess.Popen(
        [*EVIL, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=procs.env
    )
    out.close()
    err.close()
    procs.procs.append(p)
    return p


def _evil_host(procs: Procs, mode: str, delay: float = 0.03) -> tuple[subprocess.Popen[bytes], str]:
    inv = procs.tmp / "host.invite"
    p = _evil(
        procs,
        "host",
        mode,
        "--players",
        "3",
        "--delay",
        str(delay),
        "--invite-file",
        str(inv),
        "--log",
        str(procs.tmp / "host.zoolog"),
        name="host",
    )
    wait_for(lambda: inv.exists() or p.poll() is not None, START, "the invite")
    assert p.poll() is None, procs.text("host")
    return p, inv.read_text().strip()


def _convicted(procs: Procs, name: str) -> set[int]:
    """The seats that the proofs kept next to NAME's log convict, each checked from scratch."""
    log = procs.tmp / f"{name}.zoolog"
    path = evidence.proofs_path(log)
    if not path.exists():
        return set()
    genesis = read_log(log).entries[0]
    return {evidence.check(p, genesis).seat for p in evidence.read_proofs(log)}


def _verify(procs: Procs, name: str, seat: int) -> None:
    """`zoo verify LOG` reads the proofs beside the log and names the seat (exit 4)."""
    if importlib.util.find_spec("zoo_p2p.protocol.evidence") is None:
        return  # `zoo verify` learns to read proofs with the protocol's evidence module
    r = subprocess.run(
        [
            *EVIL[:1],
            "-c",
            "from zoo_p2p.cli.app import main; main()",
            "verify",
            str(procs.tmp / f"{name}.zoolog"),
        ],
        capture_output=True,
        env=procs.env,
        timeout=60,
        check=False,
    )
    out = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    assert r.returncode == 4 and f"seat {seat + 1}" in out, out


@pytest.mark.parametrize("mode", ["badreveal", "illegal"])
def test_a_wrong_reveal_or_an_illegal_move_leaves_the_proof_on_every_honest_disk(
    procs: Procs, mode: str
) -> None:
    """A joiner signs a reveal that contradicts its commitment, or an illegal move: the host and
    the other joiner each keep the proof, `zoo verify` names the cheater, and nobody reads
    'host closed'."""
    host, invite = procs.host("--players", "3", "--bot", "greedy", "--delay", "0.03", "-v")
    honest = procs.bot(invite, "bot1", "--delay", "0.03", quiet=False)
    wait_for(lambda: "lobby: 2 of 3" in procs.text("bot1"), START, "bot1 in the lobby")
    mallory = _evil(
        procs, "join", mode, invite, "--log", str(procs.tmp / "mallory.zoolog"), name="m"
    )
    procs.wait(honest, "bot1")
    procs.wait(host, "host")
    mallory.kill()
    seats = [s[0] for s in _genesis_seats(procs.tmp / "host.zoolog")]
    cheater = seats.index("mallory")
    for name in ("host", "bot1"):
        assert _convicted(procs, name) == {cheater}, procs.text(name)
        _verify(procs, name, cheater)
    said = procs.text("bot1")  # the host runs --quiet
    assert f"seat {cheater + 1} (Green) cheated" in said and "host closed" not in said, said


def _genesis_seats(log: Path) -> list[list[object]]:
    from zoo_p2p.protocol.encoding import decode_entry

    body = decode_entry(read_log(log).entries[0]).body
    return list(body[2])
