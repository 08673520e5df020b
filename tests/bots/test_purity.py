"""Bots use only their own seeded generator; only the search bots (and the arena) read a clock."""

from __future__ import annotations

from pathlib import Path

import zoo_p2p.bots

BOTS = Path(zoo_p2p.bots.__file__).parent


def test_no_global_random() -> None:
    for f in sorted(BOTS.glob("*.py")):
        src = f.read_text()
        for banned in ("random.random(", "random.choice(", "random.shuffle(", "random.randrange("):
            assert banned not in src, f"{f.name} uses the global random: {banned}"


def test_clock_only_in_search_bots_and_arena() -> None:
    for f in sorted(BOTS.glob("*.py")):
        if f.name in ("hard.py", "expert.py", "arena.py"):
            continue
        src = f.read_text()
        assert "import time" not in src and "perf_counter" not in src, f.name
