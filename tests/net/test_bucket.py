"""The one token bucket of the network layer (zoo_p2p/net/bucket.py), on a fake clock."""

from __future__ import annotations

from zoo_p2p.net.bucket import Bucket


def test_a_bucket_gives_its_burst_then_its_rate_and_reads_no_clock() -> None:
    b = Bucket(2.0, 3.0, at=100.0)
    assert [b.take(100.0) for _ in range(4)] == [True, True, True, False]
    assert not b.has(100.4)  # 0.8 of a token
    assert b.take(100.5) and not b.take(100.5)  # one token after half a second at 2/s
    assert [b.take(1000.0) for _ in range(4)] == [True, True, True, False]  # capped at burst


def test_a_bucket_made_without_a_time_starts_full_at_any_clock() -> None:
    b = Bucket(1.0, 2.0)  # (a fake clock of a test may start anywhere)
    assert b.take(5.0) and b.take(5.0) and not b.take(5.0)
    assert b.take(6.0)


def test_a_time_before_the_last_one_neither_fills_nor_drains() -> None:
    b = Bucket(1.0, 1.0, at=10.0)
    assert b.take(10.0)
    assert not b.take(9.0)  # a `now` read before the last fill gives nothing back
    assert b.take(11.0)


def test_spent_work_is_paid_back_before_anything_more_is_allowed() -> None:
    b = Bucket(10.0, 5.0, at=0.0)
    b.spend(0.0, 100.0)  # far more than the burst: down to -burst, no further
    assert b.tokens == -5.0 and not b.has(0.0)
    assert not b.has(0.55)  # 0.5 tokens
    assert b.has(0.7)
