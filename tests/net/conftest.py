"""Fixtures of the network tests (the helpers live in harness.py and tornet.py)."""

from tests.net.harness import procs
from tests.net.tornet import tornet

__all__ = ["procs", "tornet"]
