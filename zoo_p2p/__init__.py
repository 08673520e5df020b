"""zoo-p2p: Apocalypse at the Zoo of Carson City, peer to peer."""

__version__ = "0.1.0"
