"""Start-up cost of the CLI: `zoo --help` against `python -c "import typer, rich.console"`.

The goal (issue 10) is a ratio of at most 1.3: the commands import the network and protocol
stack only when they run. Both are timed in the same run, interleaved, as whole processes; the
median of each is printed, then the ratio. Prints ``name: value`` lines.
Run: python bench/bench_cli.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASE = [sys.executable, "-c", "import typer, rich.console"]
ZOO_HELP = [sys.executable, "-c", "from zoo_p2p.cli.app import main; main()", "--help"]


def run_once(cmd: list[str]) -> float:
    """Wall seconds of one whole process, output thrown away."""
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    run_once(BASE)  # warm the file cache
    run_once(ZOO_HELP)
    base: list[float] = []
    zoo: list[float] = []
    ratios: list[float] = []
    for _ in range(max(1, args.runs)):
        b = run_once(BASE)
        z = run_once(ZOO_HELP)
        base.append(b)
        zoo.append(z)
        ratios.append(z / b)
    print(f"import typer+rich.console ms: {statistics.median(base) * 1000:.1f}")
    print(f"zoo --help ms: {statistics.median(zoo) * 1000:.1f}")
    print(f"zoo --help / import typer+rich: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
