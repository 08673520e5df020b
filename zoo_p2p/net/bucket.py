"""The one rate limit of the network layer: a token bucket, with the time passed in.

Every bound of TRANSPORT.md §10.6 and §11 that says "N a second, M at once" is one of these:
messages read per link, resync answers, `get` requests served, proofs, votes and statements
checked, newer cards taken, and the budget of wasted signature checks (which `spend` may take
below zero). The bucket reads no clock: whoever holds it passes `now` (the transport's clock,
read once per loop turn; a test's fake one).
"""

from __future__ import annotations

__all__ = ["Bucket"]


class Bucket:
    """A token bucket: `rate` tokens a second, at most `burst` at once. It starts full."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: float, at: float = 0.0) -> None:
        self.rate, self.burst, self.tokens = rate, burst, burst
        self.at = at  # when `tokens` was last filled (it starts full: any earlier time will do)

    def _fill(self, now: float) -> None:
        # (a `now` read before the bucket was made must not cost it part of its burst)
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)
        self.at = max(self.at, now)

    def take(self, now: float) -> bool:
        """Take one token if there is one."""
        self._fill(now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def has(self, now: float) -> bool:
        """True if one token is there (nothing taken)."""
        self._fill(now)
        return self.tokens >= 1

    def spend(self, now: float, n: float) -> None:
        """Take `n` tokens after the fact (work already done): the bucket may go below zero,
        down to -burst, so a costly burst is paid back before anything more is allowed."""
        self._fill(now)
        self.tokens = max(-self.burst, self.tokens - n)
