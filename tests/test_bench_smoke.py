"""The benchmark scripts still run and print their `name: value` figures (no timing asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
FIGURE = re.compile(r"^[\w .+/()'-]+: -?[\d.]+$")


@pytest.mark.parametrize(
    "script, args, expected",
    [
        ("bench_rules.py", ["--seconds", "0.05"], "random 2-player playouts/s"),
        ("bench_protocol.py", ["--games", "1", "--audits", "1"], "audit_vs_raw_verify"),
        ("bench_cli.py", ["--runs", "1"], "zoo --help / import typer+rich"),
        (
            "bench_redeal.py",
            ["--games", "60", "--rounds", "3", "--session-games", "4"],
            "redeal/opening per seat",
        ),
        ("bench_hint.py", ["--positions", "1", "--work", "2000"], "hint ms median (2000 plies)"),
        # every flood for 0.2 simulated seconds at 250 messages a second (in one process, a
        # fake clock): every figure line, an eighth of the default rate's messages
        ("bench_flood.py", ["--seconds", "0.2", "--rate", "250"], "host worst then cpu_s_per_s"),
        # one real 4-peer game on 127.0.0.1 (a few seconds): the traces still parse into stages
        ("bench_net.py", ["--games", "1", "--stages"], "stage verify+apply p50"),
        # one 2-seat game with no spectator and one with 2 (real processes on 127.0.0.1)
        (
            "bench_spectators.py",
            ["--games", "1", "--spectators", "2"],
            "raw pyzmq round trip p50 ms",
        ),
    ],
)
def test_bench_prints_figures(script: str, args: list[str], expected: str) -> None:
    out = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    lines = [line for line in out.splitlines() if line.strip()]
    assert any(line.startswith(expected + ":") for line in lines), out
    bad = [line for line in lines if not FIGURE.match(line)]
    assert not bad, f"not a `name: value` figure: {bad}"


def test_the_wide_area_bench_plays_and_reads_its_traces() -> None:
    """bench_wan.py (root, network namespaces): one short 3-seat game at D = 5 ms still plays
    through the delay emulator and its traces still give every figure against its floor."""
    from tests.net.netns import netns_missing

    why = netns_missing()
    if why:
        pytest.skip(why)
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_wan.py"),
            "--delays",
            "5",
            "--seats",
            "3",
            "--games",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    for figure in (
        "emulator lateness",
        "capture to reveal, a joiner's",
        "opening (commit + open rounds)",
        "whole game",
    ):
        assert any(figure in line and "D" in line for line in out.splitlines()), (figure, out)
    assert "0 packets for no machine of ours dropped" in out, out
