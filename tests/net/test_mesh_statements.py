"""Claim votes and resignation statements on the direct links (TRANSPORT.md §10.3, §10.6), in one
process: strict schemas (never a stand-in key), one signature check per statement however many
paths bring it, a bad one dropped and logged, and at most so many taken per peer and second.
The end-to-end games (a host that drops them) are in test_clocks.py."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.livepeer import LivePeer
from zoo_p2p.driver import BaseDriver
from zoo_p2p.net import mesh, wire
from zoo_p2p.net.messages import decode_mesh
from zoo_p2p.net.peer import raw_private, raw_public
from zoo_p2p.protocol.liveness import Resignation, Vote
from zoo_p2p.rules import Team


def test_votes_and_resignations_round_trip_and_carry_nothing_else() -> None:
    for kind, field in (("vote", "v"), ("resign", "r")):
        msg = {"t": kind, field: b"\x94" + b"x" * 100}
        assert mesh.unpack(mesh.pack(kind, **{field: msg[field]})) == msg
        for bad in (
            {"t": kind, field: b""},
            {"t": kind, field: b"x" * (mesh.MAX_STATEMENT + 1)},
            {"t": kind, field: "text"},
            {"t": kind, field: b"x", "key": b"k" * 32},  # a stand-in key never rides the mesh
            {"t": kind},
        ):
            with pytest.raises(wire.WireError):
                mesh.unpack(msgpack.packb(bad, use_bin_type=True))


class _Seat:
    def __init__(self, team: Team) -> None:
        self.team = team


class _Session:
    """What the liveness paths read from a session: counts the signature checks."""

    def __init__(self, valid: bool = True) -> None:
        self.valid = valid
        self.checks = 0
        self.votes: dict[int, Vote] = {}
        self.resigned: dict[int, int] = {}
        self.seats = [_Seat(Team.YELLOW), _Seat(Team.BLUE), _Seat(Team.GREEN)]

    def __len__(self) -> int:
        return 9

    def add_vote(self, vote: Vote) -> bool:
        self.checks += 1
        if self.valid and vote.at == 9:
            self.votes[vote.seat] = vote
            return True
        return False

    def votes_missing(self) -> list[int]:
        return [i for i in (1, 2) if i not in self.votes]

    def add_resignation(self, r: Resignation) -> bool:
        self.checks += 1
        return self.valid

    def seat_key(self, seat: int) -> bytes:
        return b"\0" * 32


class _Driver(BaseDriver):
    def __init__(self) -> None:
        self.notices: list[str] = []

    def on_notice(self, text: str) -> None:
        self.notices.append(text)


class _Link(LivePeer):
    def __init__(self, session: Any) -> None:
        super().__init__(session, _Driver())
        self.sent_to: list[tuple[bytes, int | None]] = []
        self.advanced = 0

    def _liveness_out(self, data: bytes, skip_seat: int | None) -> None:
        self.sent_to.append((data, skip_seat))

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        self.advanced += 1


def _vote(seat: int) -> bytes:
    return Vote(0, 9, seat, bytes([seat]) * 64).to_bytes()


def test_a_vote_is_checked_once_however_often_it_comes_and_still_relayed() -> None:
    link = _Link(_Session())
    link.mesh_vote(2, _vote(2))  # on seat 3's direct link
    link._on_vote(2, _vote(2))  # and again on the host link (a relay, or its re-send)
    link.mesh_vote(2, _vote(2))
    assert link.session.checks == 1 and link.advanced == 1
    assert len(link.sent_to) == 3  # a seat one entry behind may have dropped the first copy
    link.mesh_vote(1, _vote(2))  # seat 2's link cannot speak for seat 3
    assert link.dropped == 1 and link.session.checks == 1


def test_a_vote_that_does_not_hold_is_not_relayed() -> None:
    link = _Link(_Session(valid=False))
    link.mesh_vote(2, _vote(2))
    assert link.session.checks == 1 and link.sent_to == [] and link.advanced == 0


def _resignation(stand_in: Ed25519PrivateKey) -> Resignation:
    return Resignation(2, 5, os.urandom(32), raw_public(stand_in), os.urandom(64))


def test_a_resignation_is_taken_once_and_passed_on_once() -> None:
    link = _Link(_Session())
    stand_in = Ed25519PrivateKey.generate()
    r = _resignation(stand_in)
    link.mesh_resign(1, r.to_bytes())  # seat 2 passes seat 3's statement on
    link.mesh_resign(2, r.to_bytes())  # seat 3's own copy
    assert link.session.checks == 1 and link.advanced == 1 and link.dropped == 0
    assert link.driver.notices == [
        "seat 3 (Green) resigned; a stand-in plays on in its seat (every peer computes its moves)"
    ]
    # the host link of the resigner brings it again: nothing to check again
    link._on_resign(2, r.to_bytes())
    assert link.session.checks == 1 and link.advanced == 1


def test_a_private_key_sent_along_with_a_resignation_is_not_kept() -> None:
    """Older peers sent the host the stand-in's private key with the statement; nobody runs a
    stand-in any more (every peer computes its entries), so such a key is ignored, never kept."""
    link = _Link(_Session())
    key = raw_private(Ed25519PrivateKey.generate())
    link._on_resign(2, _resignation(Ed25519PrivateKey.generate()).to_bytes(), key)
    assert link.session.checks == 1 and link.dropped == 0 and link.advanced == 1
    assert all(repr(key) not in repr(v) for v in vars(link).values())


def test_a_resignation_that_does_not_verify_is_dropped_and_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link = _Link(_Session(valid=False))
    with caplog.at_level(logging.WARNING, logger="zoo_p2p.net"):
        link.mesh_resign(1, _resignation(Ed25519PrivateKey.generate()).to_bytes())
    assert link.dropped == 1 and link.advanced == 0 and link.sent_to == []
    assert "dropped a resignation that does not verify" in caplog.text


class _Owner:
    """Counts the statements a mesh hands its peer."""

    def __init__(self) -> None:
        self.votes = 0
        self.resigns = 0

    def mesh_vote(self, seat: int, data: bytes) -> None:
        self.votes += 1

    def mesh_resign(self, seat: int, data: bytes) -> None:
        self.resigns += 1


def test_statements_from_one_peer_are_bounded_per_second() -> None:
    m = mesh.Mesh.__new__(mesh.Mesh)  # only the receiving path: no sockets needed
    m.owner = _Owner()  # type: ignore[assignment]
    m._statement_rate = {}
    m.dropped = 0
    now = time.monotonic()
    for i in range(200):
        kind = "vote" if i % 2 else "resign"
        m._on_msg(1, decode_mesh(mesh.pack(kind, **{kind[0]: b"x"})), now)
    owner: Any = m.owner
    burst = int(2 * mesh.STATEMENTS_PER_S)
    assert owner.votes + owner.resigns == burst and m.dropped == 200 - burst
    m._on_msg(2, decode_mesh(mesh.pack("vote", v=b"x")), now)  # another peer has its own
    assert owner.votes + owner.resigns == burst + 1
    m._on_msg(1, decode_mesh(mesh.pack("vote", v=b"x")), now + 1.0)  # and it refills
    assert owner.votes + owner.resigns == burst + 2
