"""The mesh's pure part (zoo_p2p/net/gossip.py, links.py, cards.py, holdback.py) without a socket
or a real clock: a `MemoryMesh` on a fake `now`, fed one message at a time, and what it
publishes in answer (TRANSPORT.md §10.2-§10.6). Each test runs in milliseconds."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import RemoteProtocolError
from zoo_p2p.net.cards import CARDS_BURST, CARDS_PER_S, card_signed_bytes, pack, unpack
from zoo_p2p.net.evidence import make_proof
from zoo_p2p.net.gossip import GAP_GRACE, GETS_PER_S, GREET_EVERY, HEAD_EVERY, Verdict
from zoo_p2p.net.holdback import HOLD_BACK
from zoo_p2p.net.memmesh import MemoryMesh
from zoo_p2p.protocol.encoding import decode_entry, make_entry
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, setup_game, step
from zoo_p2p.rules import Variant

T0 = 5000.0  # the fake clock's start


def sha(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


class Owner:
    """The peer a mesh hands things to: it feeds entries to its real session and keeps the
    rest (deliveries, notices, tunnelled messages, statements, the verdict)."""

    def __init__(self, key: Ed25519PrivateKey, session: Session) -> None:
        self.key = key
        self.session: Session | None = session
        self.delivered: list[tuple[int, list[bytes], int | None]] = []
        self.refused: list[RemoteProtocolError] = []
        self.notices: list[str] = []
        self.tunnelled: list[tuple[bytes, int | None]] = []
        self.checks: dict[int, int] = {}
        self.votes: list[tuple[int, bytes]] = []
        self.stopped: Any = None

    def deliver(
        self, start: int, entries: list[bytes], source: str, by: int | None = None
    ) -> int | None:
        self.delivered.append((start, list(entries), by))
        s = self.session
        assert s is not None
        for i, raw in enumerate(entries):
            if start + i > len(s):
                return len(s)  # a gap: the one missing
            try:
                s.receive(raw)
            except RemoteProtocolError as exc:
                self.refused.append(exc)
                return None
        return None

    def may_check(self, seat: int) -> bool:
        return True

    def checked(self, seat: int, n: int = 1) -> None:
        self.checks[seat] = self.checks.get(seat, 0) + n

    def mesh_tunnel(self, data: bytes, to: int | None) -> None:
        self.tunnelled.append((data, to))

    def mesh_notice(self, text: str) -> None:
        self.notices.append(text)

    def mesh_log_path(self) -> Path | None:
        return None

    def mesh_vote(self, seat: int, data: bytes) -> None:
        self.votes.append((seat, data))

    def mesh_resign(self, seat: int, data: bytes) -> None:
        pass

    def mesh_stop(self, verdict: Verdict) -> None:
        self.stopped = verdict


def _game(steps: int = 10) -> LocalGame:
    rng = random.Random("zoo-p2p mesh core")
    game = setup_game(3, Variant.STANDARD, rng)
    for _ in range(steps):
        assert step(game, rng)
    return game


def _mesh(game: LocalGame, seat: int, *, fresh: bool = True) -> tuple[Owner, MemoryMesh]:
    owner = Owner(game.keys[seat], game.sessions[seat])
    return owner, MemoryMesh(owner, now=T0, fresh=fresh, wall=lambda: 1000.0)


def _card(
    game: LocalGame, seat: int, n: int, ep: str | list[str], skey: bytes = b"k" * 32
) -> bytes:
    gid = game.sessions[0].game_id
    sig = game.keys[seat].sign(card_signed_bytes(gid, seat, n, ep, skey))
    return pack("card", seat=seat, n=n, ep=ep, skey=skey, sig=sig)


def _kinds(sent: list[bytes], kind: str) -> list[dict[str, Any]]:
    return [m for m in map(unpack, sent) if m["t"] == kind]


def _linked(game: LocalGame, m: MemoryMesh, seat: int, now: float) -> None:
    """`m` holds `seat`'s card and has heard its publisher (hearing every seat, at our head)."""
    m.tunnel(0, _card(game, seat, 7, f"tcp://10.0.0.{seat + 1}:5000"), now)
    s = m.session
    m.receive(seat, pack("head", h=[len(s) - 1, sha(s.entries[-1])], up=[True] * 3), now)


def test_a_head_we_cannot_place_is_fetched_and_a_split_chain_walked_back_to_the_fork() -> None:
    """Seat 3 advertises a head at a seq we hold with another hash: we ask it for that entry,
    and for each predecessor that does not chain onto our log, until the two chains meet. There
    the session sees two entries of one author at one seq with one predecessor: the proof
    convicts that author, is kept, and is published."""
    game = _game()
    owner, m = _mesh(game, 1)
    log = list(game.sessions[1].entries)
    k = len(log) - 3  # the fork: seat k's author signs another entry there
    first = decode_entry(log[k])
    forged = [make_entry(game.keys[first.seat], k, sha(log[k - 1]), first.seat, first.kind, [1])]
    for seq in (k + 1, k + 2):
        forged.append(make_entry(game.keys[0], seq, sha(forged[-1]), 0, first.kind, [seq]))
    _linked(game, m, 2, T0)
    m.take()
    now = T0 + 1
    out = m.receive(2, pack("head", h=[k + 2, sha(forged[-1])], up=[True] * 3), now)
    asks = [(g["from"], g["n"], g["to"]) for g in _kinds(out, "get")]
    for seq in (k + 2, k + 1, k):
        h = [k + 2, sha(forged[-1])]
        out = m.receive(2, pack("ent", **{"from": seq, "e": [forged[seq - k]], "h": h}), now)
        asks += [(g["from"], g["n"], g["to"]) for g in _kinds(out, "get")]
    assert asks == [(k + 2, 1, 2), (k + 1, 1, 2), (k, 1, 2)]  # walked back, one seq a time
    assert owner.delivered[-1] == (k, [forged[0]], 2)  # where the chains meet: to the session
    assert owner.refused and game.sessions[1].stopped is not None  # the session saw the fork
    verdict = m.on_cheat(forged[0])
    assert verdict is not None and verdict.seat == first.seat and "fork" in verdict.reason
    assert m.kept and _kinds(m.take(), "proof")[0]["p"] == m.kept[0]
    assert (pack("proof", p=m.kept[0]), None) in owner.tunnelled  # and over the host link


def test_a_proof_that_checks_stops_us_and_is_passed_on_and_one_that_does_not_costs_a_check() -> (
    None
):
    game = _game()
    log = list(game.sessions[1].entries)
    k = len(log) - 1
    last = decode_entry(log[k])
    other = make_entry(game.keys[last.seat], k, sha(log[k - 1]), last.seat, last.kind, [2])
    proof = make_proof(log, other)  # two entries of one author at seq k, one prev
    owner, m = _mesh(game, 2)
    _linked(game, m, 1, T0)
    m.take()
    out = m.receive(1, pack("proof", p=b"not a proof"), T0 + 1)
    assert owner.stopped is None and owner.checks == {1: 1} and not out and m.dropped == 1
    out = m.receive(1, pack("proof", p=proof), T0 + 2)
    assert owner.stopped is not None and owner.stopped.seat == last.seat
    assert m.kept == [proof] and _kinds(out, "proof") == [{"t": "proof", "p": proof}]
    assert m.receive(1, pack("proof", p=proof), T0 + 3) == []  # a verdict is held: no more


def test_withholding_is_named_once_and_only_when_the_peer_hears_our_get() -> None:
    """A seat that advertises entries past ours and sends nothing when asked, while it says it
    hears us, is named once after HOLD_BACK. One that does not hear us when we ask, or no
    longer by then, is not (our `get` may never have reached it)."""
    game = _game()
    owner, m = _mesh(game, 1)
    held = len(game.sessions[1])
    for seat in (0, 2):
        _linked(game, m, seat, T0)
    m.take()
    now = T0 + 1
    ahead = [held + 3, bytes(32)]
    out = m.receive(2, pack("head", h=ahead, up=[True, True, True]), now)  # it hears us
    out += m.receive(0, pack("head", h=ahead, up=[True, True, True]), now)  # so far
    asked = {(g["from"], g["to"]) for g in _kinds(out, "get")}
    assert asked == {(held, 2), (held, 0)}
    m.turn(now + HOLD_BACK / 2)
    assert not owner.notices  # not yet
    for t in (now + HOLD_BACK, now + 2 * HOLD_BACK):
        m.receive(2, pack("head", h=ahead, up=[True, True, True]), t)
        m.receive(0, pack("head", h=ahead, up=[True, False, True]), t)  # not any more
        m.turn(t)
    assert owner.notices == [
        f"{m.name(2)} holds back entry {held}: it advertises it but does not send it"
    ]
    _, fresh = _mesh(game, 1)
    for seat in (0, 2):
        _linked(game, fresh, seat, T0)
    fresh.receive(0, pack("head", h=ahead, up=[True, False, True]), now)  # never heard us
    assert not fresh.holdback.asked  # asked, but not held against it


def _behind(game: LocalGame, seat: int, upto: int) -> Session:
    """Seat `seat`'s session holding the game's log up to `upto` entries."""
    log = game.sessions[0].entries
    s = Session(log[0], key=game.keys[seat], seed=game.seeds[seat], nonce=game.nonces[seat])
    for raw in log[1:upto]:
        s.receive(raw)
    return s


def test_an_author_whose_entry_reaches_us_only_from_others_is_named() -> None:
    """Its direct link is up, it spoke well after the entry came, and the entry came only from
    another seat: "did not send us its own entry" (a notice, once)."""
    rng = random.Random("zoo-p2p mesh core author")
    game = setup_game(3, Variant.STANDARD, rng)
    while not (len(game.entries) > 4 and decode_entry(game.entries[-1]).seat != 1):
        assert step(game, rng)
    log = game.entries
    raw = log[-1]
    author = decode_entry(raw).seat
    relay = 2 if author == 0 else 0
    owner = Owner(game.keys[1], _behind(game, 1, len(log) - 1))
    m = MemoryMesh(owner, now=T0, fresh=True)
    for seat in (0, 2):
        _linked(game, m, seat, T0)
    t = T0 + 2 * HOLD_BACK
    head = [len(log) - 1, sha(raw)]
    m.receive(relay, pack("ent", **{"from": head[0], "e": [raw], "h": head}), t)
    assert owner.session is not None and owner.session.entries[-1] == raw  # from the relay
    m.receive(author, pack("head", h=head, up=[True] * 3), t + HOLD_BACK * 0.6)  # still talks
    m.turn(t + HOLD_BACK / 2)
    assert not owner.notices  # not yet
    m.turn(t + HOLD_BACK)
    m.turn(t + 2 * HOLD_BACK)
    assert owner.notices == [
        f"{m.name(author)} did not send us its own entry {head[0]} "
        f"({decode_entry(raw).kind}); it reached us from {m.name(relay)}"
    ]


def test_a_gap_is_asked_for_only_if_it_stays_missing() -> None:
    game = _game()
    log = list(game.sessions[0].entries)
    owner = Owner(game.keys[1], _behind(game, 1, len(log) - 2))
    m = MemoryMesh(owner, now=T0, fresh=True)
    _linked(game, m, 0, T0)
    m.take()
    gap, late = len(log) - 2, len(log) - 1
    h = [late, sha(log[late])]
    out = m.receive(0, pack("ent", **{"from": late, "e": [log[late]], "h": h}), T0 + 1)
    assert not _kinds(out, "get")  # it is most often on its way
    assert m.due() <= T0 + 1 + GAP_GRACE
    assert not _kinds(m.turn(T0 + 1 + GAP_GRACE / 2), "get")
    assert [(g["from"], g["to"]) for g in _kinds(m.turn(T0 + 1 + GAP_GRACE), "get")] == [(gap, 0)]


def test_gets_are_served_for_our_seat_only_and_within_their_rate() -> None:
    game = _game()
    _, m = _mesh(game, 1)
    _linked(game, m, 2, T0)
    m.take()
    log = game.sessions[1].entries
    now = T0 + 1
    assert m.receive(2, pack("get", **{"from": 1, "n": 3, "to": 0}), now) == []  # not ours
    out = m.receive(2, pack("get", **{"from": 1, "n": 3, "to": 1}), now)
    (ent,) = _kinds(out, "ent")
    assert ent["from"] == 1 and ent["e"] == log[1:4] and ent["h"] == [len(log) - 1, sha(log[-1])]
    answered = sum(
        len(m.receive(2, pack("get", **{"from": 1, "n": 1, "to": 1}), now)) for _ in range(60)
    )
    assert answered == GETS_PER_S - 1 and m.dropped == 60 - answered
    assert m.receive(2, pack("get", **{"from": 1, "n": 1, "to": 1}), now + 2 / GETS_PER_S)


def test_a_newer_card_replaces_the_held_one_and_an_equal_or_older_one_changes_nothing() -> None:
    """card/v3 counters (§10.2): only a greater `n` is taken. The same key with another address
    keeps the link that is up while its endpoint is still listed; another key (a restart) starts
    a new race; a replay, however often, opens and closes nothing. The seat itself sending an
    older card is shown the one we hold, once."""
    game = _game(2)
    owner, m = _mesh(game, 1)
    a, b = "tcp://10.0.0.1:5000", "tcp://10.0.0.9:6000"
    m.tunnel(0, _card(game, 0, 10, a), T0)
    assert m.opened == [(0, a)] and m.links() == {0: None}
    m.receive(0, pack("head", h=[0, sha(game.sessions[0].entries[0])], up=[True] * 3), T0)
    assert m.links() == {0: a}  # the link is up
    for _ in range(20):
        m.tunnel(None, _card(game, 0, 10, a), T0)  # gossip of what we hold
        m.tunnel(None, _card(game, 0, 9, b, b"o" * 32), T0)  # an older run's card
    assert m.opened == [(0, a)] and m.closed == [] and m.dropped == 0
    m.tunnel(0, _card(game, 0, 11, [a, b]), T0)  # same key, one more address
    assert m.opened == [(0, a)] and m.links() == {0: a}  # the live link stays
    m.tunnel(0, _card(game, 0, 12, b, b"r" * 32), T0)  # a restart: another key
    assert m.closed == [a] and m.opened[-1] == (0, b) and m.links() == {0: None}
    told = len(owner.tunnelled)
    for _ in range(3):
        m.tunnel(0, _card(game, 0, 8, a), T0)  # the seat itself, with an older card
    assert owner.tunnelled[told:] == [(m.cards[0], 0)]  # shown ours, once
    forged = unpack(_card(game, 0, 13, a))
    forged.pop("t")
    forged["sig"] = bytes(64)
    m.tunnel(0, pack("card", **forged), T0)
    assert m.dropped == 1 and m.card_n[0] == 12  # a bad signature: dropped


def test_a_seat_that_signs_cards_without_end_is_taken_once_a_second_its_newest_waiting() -> None:
    game = _game(2)
    _, m = _mesh(game, 1)
    for i in range(10):
        m.tunnel(0, _card(game, 0, 100 + i, f"tcp://10.0.0.1:{7000 + i}", bytes([i]) * 32), T0)
    assert len(m.opened) == CARDS_BURST and m.card_n[0] == 100 + CARDS_BURST - 1
    m.turn(T0 + 0.5 / CARDS_PER_S)
    assert len(m.opened) == CARDS_BURST  # no token yet: the newest waits
    m.turn(T0 + 1 / CARDS_PER_S)
    assert len(m.opened) == CARDS_BURST + 1 and m.card_n[0] == 109  # the newest, not the next


def test_our_own_card_is_signed_again_above_an_earlier_runs_once() -> None:
    game = _game(2)
    owner, m = _mesh(game, 1)
    assert m.card is not None and m.card.n == 1_000_000  # the wall clock in ms
    ahead = _card(game, 1, 2_000_000, "tcp://10.0.0.2:5000", b"e" * 32)  # an earlier run's
    m.tunnel(0, ahead, T0)
    assert m.card.n == 2_000_001 and owner.tunnelled[-1] == (m.card_msg, None)
    m.tunnel(0, _card(game, 1, 3_000_000, "tcp://10.0.0.2:5000", b"f" * 32), T0)
    assert m.card.n == 2_000_001  # once a run


def test_heads_go_out_every_half_second_and_at_once_when_whom_we_hear_changes() -> None:
    game = _game(2)
    _, m = _mesh(game, 1)
    assert _kinds(m.turn(T0), "head")[0]["up"] == [False, True, False]
    assert not _kinds(m.turn(T0 + HEAD_EVERY / 2), "head")
    _linked(game, m, 0, T0 + HEAD_EVERY / 2)
    heads = _kinds(m.turn(T0 + HEAD_EVERY / 2), "head")
    assert heads and heads[0]["up"] == [True, True, False]  # at once: we hear seat 1 now
    out = m.turn(T0 + HEAD_EVERY / 2 + HEAD_EVERY)
    assert _kinds(out, "head") and not _kinds(out, "card")  # gossiped once, then heads only


PURE = ("bucket", "cards", "gossip", "holdback", "links", "memmesh")


def test_the_pure_part_of_the_mesh_imports_no_socket_and_reads_no_clock() -> None:
    """No zmq, no socket, no clock in the mesh's core: `now` comes in from the transport."""
    import ast

    import zoo_p2p.net

    root = Path(zoo_p2p.net.__file__).parent
    for name in PURE:
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                assert top not in ("zmq", "socket", "time", "select", "selectors"), (name, mod)
                assert mod != "zoo_p2p.net.mesh", name


def test_a_new_subscriber_gets_our_head_and_cards_at_once_at_most_every_greet_interval() -> None:
    game = _game(2)
    _, m = _mesh(game, 1)
    m.turn(T0)
    assert not m.turn(T0 + 0.1)  # no head due
    m.subscribed(T0 + 0.1)
    out = m.turn(T0 + 0.1)
    assert _kinds(out, "head") and _kinds(out, "card")
    m.subscribed(T0 + 0.1 + GREET_EVERY / 2)  # subscribing without end: no faster
    assert not m.turn(T0 + 0.1 + GREET_EVERY / 2)
    m.subscribed(T0 + 0.1 + GREET_EVERY)
    assert _kinds(m.turn(T0 + 0.1 + GREET_EVERY), "head")
