"""Every default a user can see, defined once: the modules that use them import them from here.

This module imports nothing, so ``zoo --help`` can show the defaults without loading the
protocol, the bots or the network (PROTOCOL.md §10.1 for the clocks). A value here is the one
the code uses: `zoo_p2p.protocol.liveness`, `zoo_p2p.bots`, `zoo_p2p.net.discovery` and the
commands of `zoo_p2p.cli.app` all read it from this page.
"""

MOVE_TIME = 300
"""Seconds a seat has for a move (a person thinking) before the others may claim (§10.1)."""

REVEAL_TIME = 15
"""Seconds for every entry software computes (commit, reveal, seed…) (§10.1)."""

BOT_LEVEL = "greedy"
"""The level of a bot when none is named (`zoo play`, `zoo host --bots`, `zoo bot`)."""

THINK = 0.8
"""A search bot's (hard, expert) seconds per move when no --think is given."""

ANALYSIS_WORK = 20000
"""Simulated plies searched per move by `zoo replay --analyse` (a 40-move game: about 15 s)."""

PLAY_BOT_DELAY = 0.6
"""Seconds `zoo play`'s own bots wait before moving (so a person sees each move); the
``ZOO_BOT_DELAY`` environment variable overrides it."""

BROWSE_SECONDS = 3.0
"""How long `zoo join` with no invite looks for games on the LAN (mDNS)."""

ARENA_GAMES = 100
"""Games `zoo arena` plays when no --games is given."""

ARENA_LEVELS = "expert,hard"
"""The line-up `zoo arena` plays when no --levels is given."""

SPECTATORS = 4
"""How many spectators `zoo host` lets watch when no --spectators is given (TRANSPORT.md §12)."""
