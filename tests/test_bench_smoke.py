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
        ("bench_hint.py", ["--positions", "1", "--work", "2000"], "hint ms median (2000 plies)"),
        # one real 4-peer game on 127.0.0.1 (a few seconds): the traces still parse into stages
        ("bench_net.py", ["--games", "1", "--stages"], "stage verify+apply p50"),
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
