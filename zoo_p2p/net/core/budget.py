"""The budget of signature checks (TRANSPORT.md §11), one per seat: what a seat makes us check
that adds nothing to our log. Without I/O: every call takes the loop turn's `now`."""

from __future__ import annotations

from zoo_p2p.net.bucket import Bucket

# CPU is budgeted per peer like memory (TRANSPORT.md §11): the signature checks one peer makes
# us do that add nothing to our log (refused entries, conflicting copies, votes and statements
# that do not hold, bad cards and proofs) are a token bucket per seat; a peer that runs it dry
# is dropped and named, and what it sends that would need a check is dropped unchecked.
CHECKS_PER_S = 50.0  # wasted signature checks per peer and second ...
CHECKS_BURST = 200.0  # ... and at once
DROP_COST = 0.5  # of a check: an entry dropped unchecked (its message and decoding, bench_flood)
COPY_COST = 0.002  # of a check: a copy of an entry we hold (a compare)
CUT_TOLD_EVERY = 10.0  # seconds between two notices that one peer was cut off


class CheckBudget:
    """Every seat's token bucket of wasted checks, what each cost us, and how often we cut it."""

    def __init__(self) -> None:
        self._checks: dict[int, Bucket] = {}  # seat -> its budget of wasted signature checks
        self.wasted: dict[int, int] = {}  # seat -> signature checks it cost us for nothing
        self.cut: dict[int, int] = {}  # seat -> times we dropped it for exceeding its budget
        self._cut_told: dict[int, float] = {}

    def has(self, seat: int, now: float) -> bool:
        """True if `seat` may cost us a check at `now`."""
        b = self._checks.get(seat)
        return b is None or b.has(now)

    def spend(self, seat: int, n: float, now: float) -> None:
        """`seat` cost us `n` checks' worth (a fraction: work that needed no check)."""
        b = self._checks.get(seat)
        if b is None:
            b = self._checks[seat] = Bucket(CHECKS_PER_S, CHECKS_BURST, now)
        b.spend(now, n)

    def checked(self, seat: int, n: int, now: float) -> None:
        """`seat` made us do `n` signature checks that added nothing."""
        self.spend(seat, n, now)
        self.wasted[seat] = self.wasted.get(seat, 0) + n

    def cut_off(self, seat: int, now: float) -> bool:
        """`seat` ran dry and is cut off once more; True if that is to be said now (at most
        every CUT_TOLD_EVERY seconds)."""
        self.cut[seat] = self.cut.get(seat, 0) + 1
        if now - self._cut_told.get(seat, -CUT_TOLD_EVERY) < CUT_TOLD_EVERY:
            return False
        self._cut_told[seat] = now
        return True
