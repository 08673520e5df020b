"""A hostile seat cannot buy our CPU with signatures to check (issue 18, live item 2;
TRANSPORT.md §11): entries at seqs we hold are compared before any check, a message ends at the
first entry that adds nothing, and the checks one seat makes us do for nothing are a budget per
seat; the seat that runs it dry is named and dropped, and the honest game goes on. In one
process, the loop turn's time (`now`) set by hand; the signature checks are counted where the
session makes them."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.driver import NullDriver
from zoo_p2p.net import mesh
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import (
    CHECKS_BURST,
    CHECKS_PER_S,
    DROP_COST,
    Host,
    HostOptions,
    Joiner,
    JoinOptions,
    _Conn,
)
from zoo_p2p.protocol import liveness as liveness_mod
from zoo_p2p.protocol import session as session_mod
from zoo_p2p.protocol import standing as standing_mod
from zoo_p2p.protocol.encoding import decode_entry, encode_payload, sign_entry
from zoo_p2p.protocol.liveness import Vote
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, setup_game, step
from zoo_p2p.rules import Variant


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts every signature check a session makes on an entry (`Session._verify`)."""
    count = [0]
    real = session_mod.Session._verify

    def counting(self: Session, e: Any, seat: int) -> None:
        count[0] += 1
        real(self, e, seat)

    monkeypatch.setattr(session_mod.Session, "_verify", counting)
    yield count


def _game(steps: int = 140) -> LocalGame:
    rng = random.Random("zoo-p2p flood")
    game = setup_game(3, Variant.STANDARD, rng)
    for _ in range(steps):
        if not step(game, rng):
            break
    return game


def _observer(genesis: bytes) -> Joiner:
    """A joiner that watches the game (its socket connects nowhere): the joiner's side."""
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    j = Joiner(
        inv, key=Ed25519PrivateKey.generate(), driver=NullDriver(), make_session=Session,
        open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        fingerprint=lambda pub: "x", options=JoinOptions(curve=False), session=Session(genesis),
    )  # fmt: skip
    j.now = 1000.0  # the time of the loop's turn, which the test moves by hand
    return j


def _spoiled(raw: bytes) -> bytes:
    """The same entry with a signature that no longer holds (same header, same chain)."""
    b = bytearray(raw)
    b[-3] ^= 1
    return bytes(b)


def _own_at(key: Ed25519PrivateKey, seat: int, raw: bytes) -> bytes:
    """An entry of `seat`, validly signed with its `key`, at `raw`'s seq on `raw`'s predecessor."""
    e = decode_entry(raw)
    return sign_entry(key, encode_payload(e.seq, e.prev, seat, e.kind, e.body))


def test_a_flood_of_copies_at_held_seqs_costs_at_most_the_budget(
    checks: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """600 messages of 106 entries each at seqs we hold, every one chained on the right
    predecessor with a signature that fails (what cost the host 9.3 s): one check per message
    while seat 2's budget lasts, none after it; seat 2 is named and cut; then seat 3's next
    entry is taken, and seat 2's own entries again once its budget has refilled."""
    game = _game()
    log = game.entries
    j = _observer(log[0])
    try:
        s = j.session
        assert s is not None
        have = len(log) - 2
        assert j.deliver(1, log[1:have], "the host", 0) is None and len(s) == have
        flood = [_spoiled(x) for x in log[1:107]]
        checks[0] = 0
        caplog.set_level(logging.WARNING, logger="zoo_p2p.net")
        for _ in range(600):
            j.deliver(1, flood, "seat 2 (Blue)", 1)
        assert checks[0] <= CHECKS_BURST + 1, checks[0]  # before: 600 × 106 = 63,600
        assert j.wasted[1] == checks[0] and j.cut[1] >= 1
        named = [r.getMessage() for r in caplog.records if "signatures to check" in r.getMessage()]
        assert len(named) == 1 and named[0].startswith("seat 2 (")  # said once, not per message
        assert "seat 1" not in named[0] and "seat 3" not in named[0]  # never anyone else
        assert 0 not in j.wasted and 2 not in j.wasted
        # the game goes on: the next entry, from another seat's link
        assert j.deliver(have, [log[have]], "seat 3 (Green)", 2) is None
        assert len(s) == have + 1
        # while its budget is dry, seat 2's link gets nothing checked, even a good entry
        checks[0] = 0
        j.deliver(have + 1, [log[have + 1]], "seat 2 (Blue)", 1)
        assert checks[0] == 0 and len(s) == have + 1
        j.now += 1.0  # a second later: CHECKS_PER_S checks again
        assert j.deliver(have + 1, [log[have + 1]], "seat 2 (Blue)", 1) is None
        assert s.entries == log
        assert checks[0] == 1  # appended: a check that adds an entry costs no budget
    finally:
        j.close()


def test_entries_at_held_seqs_that_cannot_be_a_fork_cost_no_check(checks: list[int]) -> None:
    """Seat 2 signs, with its own key, other bodies for seqs that other seats hold: validly
    signed, but at a seq we hold only the same author's entry can be a fork (or a claim), so
    none of them is checked; neither is an exact copy, nor an entry of another chain."""
    game = _game()
    log = game.entries
    j = _observer(log[0])
    try:
        s = j.session
        assert s is not None
        assert j.deliver(1, log[1:], "the host", 0) is None
        others = [x for x in log[1:] if decode_entry(x).seat != 1]
        forged = [_own_at(game.keys[1], 1, x) for x in others]
        assert all(decode_entry(x).seat == 1 for x in forged) and len(forged) > 50
        checks[0] = 0
        for _ in range(300):
            for raw in forged:
                j.deliver(decode_entry(raw).seq, [raw], "seat 2 (Blue)", 1)
            j.deliver(1, list(log[1:]), "seat 2 (Blue)", 1)  # copies: a compare each
            j.now += 1.0  # (their decoding costs a little budget too: a second each round)
        assert checks[0] == 0
        assert 1 not in j.wasted and s.entries == log and not j.cut
        # … and one that is its own entry at one of its seqs is a fork candidate: checked once
        mine = next(x for x in log[1:] if decode_entry(x).seat == 1)
        j.deliver(decode_entry(mine).seq, [_spoiled(mine)], "seat 2 (Blue)", 1)
        assert checks[0] == 1 and j.wasted[1] == 1
        # nothing after it in one message is checked: it cannot chain onto our log
        at = decode_entry(mine).seq
        j.deliver(at, [_spoiled(mine), *log[at + 1 :]], "seat 2 (Blue)", 1)
        assert checks[0] == 2 and j.wasted[1] == 2 and s.entries == log
    finally:
        j.close()


class _QuietHost(Host):
    """A host whose sends go nowhere (recorded), so that links stay as the test sets them."""

    sent: list[tuple[bytes, bytes]]

    def _send(self, rid: bytes, data: bytes) -> bool:
        self.sent.append((rid, data))
        return True


def test_the_host_drops_and_names_the_flooder_and_the_game_goes_on(
    checks: list[int], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's side: a seated link flooding new entries whose signatures fail (one check a
    message) is cut after the budget (its links are dropped), named in the log, and no longer
    relayed unchecked; the other seat's link stays and its entry is taken."""
    monkeypatch.setenv("ZOO_MESH", "0")
    game = _game()
    log = game.entries
    notices: list[str] = []

    class Driver(NullDriver):
        def on_notice(self, text: str, link: object = None) -> None:
            notices.append(text)

    # the host (seat 1) at a point where the next entry is seat 2's (the flooder's own)
    have = max(i for i in range(len(log) - 30, len(log)) if decode_entry(log[i]).seat == 1)
    session = Session(log[0], key=game.keys[0], seed=game.seeds[0], nonce=game.nonces[0])
    for raw in log[1:have]:
        session.receive(raw)
    while session.take_outgoing():
        pass
    assert session.entries == log[:have], "the host must owe nothing for this test"
    host = _QuietHost(
        make_genesis=lambda seats: b"", fingerprint=lambda pub: "x",
        options=HostOptions(players=3, curve=False), key=game.keys[0], driver=Driver(),
        make_session=Session, open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        session=session,
    )  # fmt: skip
    host.sent = []
    host.now = 1000.0  # the time of the loop's turn, which the test moves by hand
    try:
        for seat, rid in ((1, b"\x00seat2"), (2, b"\x00seat3")):
            host.conns[rid] = _Conn(rid, b"", session.seats[seat].public_key, seat, host.now)
            host.seat_rid[seat] = rid
        caplog.set_level(logging.WARNING, logger="zoo_p2p.net")
        bad = _spoiled(log[have])
        checks[0] = 0
        for _ in range(1000):
            host.deliver(have, [bad] * 200, host._name(1), 1)
        assert checks[0] <= CHECKS_BURST + 1, checks[0]  # before: 1000 (one a message)
        assert b"\x00seat2" not in host.conns and b"\x00seat3" in host.conns
        who = host._seat_label(1)
        assert any(n.startswith(who) and "dropped its links" in n for n in notices), notices
        assert any(r.getMessage().startswith(who) for r in caplog.records)
        # its entries are no longer relayed before their check
        before = len(host.sent)
        host._relay_early(have, [bad], 1)
        assert len(host.sent) == before
        host._relay_early(have, [log[have]], 2)  # (as it still is for the other seat)
        assert len(host.sent) > before
        # the honest seat's link goes on: the entry that was due is taken and relayed
        host._early = -1
        assert host.deliver(have, [log[have]], host._name(2), 2) is None
        assert session.entries[: have + 1] == log[: have + 1]
        assert 2 not in host.wasted and host.cut == {1: host.cut[1]}
        # a second later seat 2 may cost CHECKS_PER_S more checks, not one more
        host.now += 1.0
        checks[0] = 0
        for _ in range(1000):
            host.deliver(have, [_spoiled(log[have])] * 200, host._name(1), 1)  # a fork?
        assert checks[0] <= CHECKS_PER_S + 1, checks[0]
    finally:
        host.close()


def test_votes_that_fail_and_entries_dropped_unchecked_run_the_budget_dry_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claim votes about our head with signatures that fail, over the host link (which had no
    limit): a check each while the host's budget lasts, then none; and a flood of entries that
    need no check at all (another seat's seqs) still runs a seat dry in the end, unchecked."""
    count = [0]
    real = liveness_mod.signature_ok

    def counting(*args: Any) -> bool:
        count[0] += 1
        return real(*args)

    monkeypatch.setattr(standing_mod, "signature_ok", counting)  # where votes are checked
    game = _game()
    log = game.entries
    j = _observer(log[0])
    try:
        s = j.session
        assert s is not None and j.deliver(1, log[1:-5], "the host", 0) is None
        f = s.floor
        assert f is not None
        voter = next(i for i in range(3) if i != f.seat)
        bad = Vote(f.seat, len(s), voter, bytes(64)).to_bytes()
        for _ in range(1000):
            j._on_vote(None, bad)  # what the host link brings
        assert count[0] <= CHECKS_BURST + 1 and j.cut.get(0, 0) >= 1, count[0]
        # entries that cost no check: a tenth of one each, so 2000 of them run seat 2 dry
        others = [x for x in log[1:] if decode_entry(x).seat != 1]
        forged = [_own_at(game.keys[1], 1, x) for x in others]
        for i in range(int(CHECKS_BURST / DROP_COST) + 10):
            raw = forged[i % len(forged)]
            j.deliver(decode_entry(raw).seq, [raw], "seat 2 (Blue)", 1)
        assert j.cut.get(1, 0) >= 1 and 1 not in j.wasted  # dry, yet never a check
    finally:
        j.close()


def test_a_direct_link_cut_while_it_is_read_is_closed_and_not_read_again() -> None:
    """On a direct link (the mesh), the seat whose entries run its budget dry loses its
    subscription in the middle of the read: the socket is closed, nothing more is read from it
    (it once was: 'Socket operation on non-socket' ended the host), and the seat is no longer
    linked directly."""
    import time

    from tests.net.test_mesh_order import _linked

    oa, ob, a, b = _linked()
    calls: list[int] = []

    def deliver(start: int, entries: list[bytes], source: str, by: int | None = None) -> None:
        calls.append(start)
        assert by == 0
        b.cut(0)  # what the owner does when seat 1's budget runs dry

    ob.deliver = deliver  # type: ignore[assignment,method-assign]
    try:
        s = oa.session
        assert s is not None
        entry = s.entries[0]
        for i in range(5):  # five messages queued on the one subscription
            a.publish(mesh.pack("ent", **{"from": 2 + i, "e": [entry], "h": list(a._head())}))
        deadline = time.monotonic() + 5
        while not calls and time.monotonic() < deadline:
            for sock, _ in ob.poller.poll(50):
                b.on_socket(sock)
        assert calls == [2]  # the first was handed on; the others were never read
        assert b.links() == {0: None} and not b.peers[0].subs
        # unregistered: the loop never polls it again (only our publisher, an XPUB that hears
        # subscriptions arrive, stays on the poller)
        assert [sock for sock, _ in ob.poller.sockets if sock is not b.pub] == []
    finally:
        a.close()
        b.close()
