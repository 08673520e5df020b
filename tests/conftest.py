"""Settings of the whole test run.

The `zoo` processes the tests start (hundreds of them: hosts, bots, joiners, `zoo verify`) each
import most of zoo_p2p. With PYTHONDONTWRITEBYTECODE set (the shells of this project's machine
set it) no bytecode is ever cached, so every one of them compiled some 33,000 lines again: about
0.35 s of CPU a process, on top of its 0.6 s of imports. Children of this run write their
bytecode instead, outside the source tree, to a directory of this run's own (deleted at the
end), and so does this process for what it imports from here on (collecting the tests imports
most of zoo_p2p): the children load what is there and compile only the rest, once. What runs is
the same code; only the compiling is shared.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

_PYCACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return  # the caller chose where bytecode goes
    prefix = tempfile.mkdtemp(prefix="zoo-tests-pycache-")
    _PYCACHE.append(prefix)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


def pytest_unconfigure(config: pytest.Config) -> None:
    for prefix in _PYCACHE:
        shutil.rmtree(prefix, ignore_errors=True)
