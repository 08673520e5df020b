"""The replay, the export record and the analysis read a log the same way (one walk through an
observer session); what each does at a duplicate entry, a refused entry and a torn tail."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoo_p2p.bots.analysis import positions_from_entries
from zoo_p2p.cli.replay import load_replay
from zoo_p2p.export import record_from_entries
from zoo_p2p.protocol.samples import sample_game
from zoo_p2p.rules import N_SQUARES, Variant


@pytest.fixture(scope="module")
def entries() -> list[bytes]:
    return sample_game(2, Variant.STANDARD).entries


def _tampered(raw: bytes) -> bytes:
    return raw[:-1] + bytes([raw[-1] ^ 1])  # the last byte of the signature


def _write(tmp: Path, entries: list[bytes], tail: bytes = b"") -> Path:
    p = tmp / "g.zoolog"
    p.write_bytes(b"".join(entries) + tail)
    return p


def test_a_whole_log_reads_the_same_everywhere(entries: list[bytes], tmp_path: Path) -> None:
    rp = load_replay(_write(tmp_path, entries))
    assert rp.fault is None and rp.torn is None
    positions = positions_from_entries(entries)
    assert len(rp.positions) == len(positions) == len(record_from_entries(entries).moves) > 20
    assert [m for _, m in rp.positions] == [m for _, m in positions]
    for (a, _), (b, _) in zip(rp.positions, positions, strict=True):
        assert [a.top(q) for q in range(N_SQUARES)] == [b.top(q) for q in range(N_SQUARES)]


def test_a_duplicate_entry_stops_the_replay_only(entries: list[bytes], tmp_path: Path) -> None:
    k = 30
    dup = [*entries[: k + 1], entries[k], *entries[k + 1 :]]
    rp = load_replay(_write(tmp_path, dup))
    assert rp.fault == f"entry {k + 1}: does not follow entry {k}"
    # the record and the analysis skip it (the audit is what rejects such a log)
    assert len(positions_from_entries(dup)) == len(positions_from_entries(entries))
    assert record_from_entries(dup).moves == record_from_entries(entries).moves


def test_a_refused_entry_ends_every_walk_there(entries: list[bytes], tmp_path: Path) -> None:
    k = 30
    bad = [*entries[:k], _tampered(entries[k]), *entries[k + 1 :]]
    rp = load_replay(_write(tmp_path, bad))
    assert rp.fault is not None and rp.fault.startswith(f"entry {k}: ")
    upto = positions_from_entries(entries[:k])
    assert [m for _, m in rp.positions] == [m for _, m in upto]
    assert [m for _, m in positions_from_entries(bad)] == [m for _, m in upto]
    assert record_from_entries(bad).moves == record_from_entries(entries[:k]).moves


def test_a_torn_tail_counts_the_whole_entries(entries: list[bytes], tmp_path: Path) -> None:
    rp = load_replay(_write(tmp_path, entries[:60], entries[60][:9]))
    assert rp.fault is None
    # 60 whole entries, the genesis (entry 0) included, as `zoo verify` counts them ("entries:
    # 60 of 60 checked"); it said 59, and "after 0 complete entries" for a lone genesis
    assert rp.torn == "dropped a torn last entry (9 bytes) after 60 complete entries"
    lone = load_replay(_write(tmp_path, entries[:1], entries[1][:9]))
    assert lone.torn == "dropped a torn last entry (9 bytes) after 1 complete entry"
    assert lone.title(lone.scenes[0]) == "the start (no move was played)"


def test_garbage_in_the_file_is_a_fault_after_the_good_entries(
    entries: list[bytes], tmp_path: Path
) -> None:
    rp = load_replay(_write(tmp_path, entries[:40], b"\xff" * 200))
    assert rp.fault is not None and "entry 40" in rp.fault, rp.fault
    assert len(rp.positions) == len(positions_from_entries(entries[:40]))
