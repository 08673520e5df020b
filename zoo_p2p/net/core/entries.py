"""What an entry that came on a link can be before its signature is checked (TRANSPORT.md §11):
pure functions of our log and the entry's header."""

from __future__ import annotations

import hashlib

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.text import shown

AHEAD = 16  # entries that came before their predecessor, kept until it comes (seqs ahead)


def links_at(held: list[bytes], seq: int, entry: bytes) -> bool:
    """True if `entry` claims the very prev_hash our entry `seq` has: only then can it be a
    fork of our chain (evidence for the session); otherwise it belongs to another chain."""
    try:
        return decode_entry(entry).prev == hashlib.sha256(held[seq - 1]).digest()
    except RemoteProtocolError:
        return False


def unchecked_drop(
    held: list[bytes], ahead: dict[int, bytes], seq: int, entry: bytes
) -> str | None:
    """Why `entry`, at position `seq` of a message and not a copy of ours (`held`), is dropped
    without a signature check; "" for one beyond our log that we hold (in `ahead`) or cannot
    keep yet (a gap, said by the caller); None when only its check can tell (a new entry, a
    fork candidate, a claim)."""
    try:
        e = decode_entry(entry)
    except RemoteProtocolError as exc:
        return f"it does not decode ({shown(exc.reason)})"
    if e.seq != seq:
        return f"it says it is entry {e.seq}"
    if seq > len(held):
        if seq - len(held) > AHEAD or ahead.get(seq) == entry:
            return ""  # too far ahead to keep, or kept already: ask for the gap
        return None
    if seq == len(held):
        return None
    if seq == 0 or not links_at(held, seq, entry):
        return "it does not chain onto our log (another game's entry)"
    if e.kind != Kind.CLAIM and e.seat != decode_entry(held[seq]).seat:
        # at a seq we hold, another author's entry is no fork of it; only a claim can
        # stand there (PROTOCOL.md §10.3), so no signature can make it matter
        return f"seq {seq} is already taken by another seat's entry"
    return None
