"""Fixtures of the network tests (the helpers live in harness.py)."""

from tests.net.harness import procs

__all__ = ["procs"]
