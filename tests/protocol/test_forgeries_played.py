"""Fresh games with resignations and claims, played by honest sessions, then forged (issue 18).

hypothesis draws a game (2-4 seats, either variant, a seed for the moves) and a schedule of
events: seats resign at random points (the statement reaches every other seat, the floor holder
or the stand-in appends it), and at random points every other seat claims against the floor
holder. Every peer's own processing must hold: no session ever raises on an honest entry, every
seat's log verifies `ok` or `incomplete` and convicts nobody, and all logs agree. The logs are
then forged like the samples (`test_forgeries_fuzz.py`): claims and resignations drawn on them
are judged by the oracles written from PROTOCOL.md, so positions the ten sample logs never reach
(two resigned seats, a resignation in a reveal round, a claim after a stand-in entry) are
covered too.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.protocol.forged import Sample
from tests.protocol.helpers import assert_convicts_only_signer
from tests.protocol.test_forgeries_fuzz import Facts, claim_oracle, resign_oracle
from zoo_p2p.errors import LocalProtocolError
from zoo_p2p.protocol.audit import INCOMPLETE, OK, audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack
from zoo_p2p.protocol.events import Floor
from zoo_p2p.protocol.evidence import find_fork
from zoo_p2p.protocol.liveness import vote_bytes
from zoo_p2p.protocol.moves import encode_move
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import setup_game
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import Variant

PLAYED = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _drain(sessions: list[Session], start: list[bytes], sender: int) -> None:
    """Deliver `start` (sent by `sender`) to every other session, then let every session send
    what it owes (stand-in entries, resignations, claims, its commit, reveals, seed, result)
    until nobody owes anything; an honest session never refuses an honest entry."""
    queue = [(sender, raw) for raw in start]
    while True:
        while queue:
            frm, raw = queue.pop(0)
            for i, s in enumerate(sessions):
                if i != frm:
                    s.receive(raw)
        for i, s in enumerate(sessions):
            queue.extend((i, raw) for raw in s.take_outgoing())
        if not queue:
            return


def _late_claim(sessions: list[Session], c: int, voters: list[int], rng: random.Random) -> None:
    """The others vote against `c`; `c` answers late (its answer, and the stand-in entries it
    leads to, stay in its own log: the voters refuse them); the claim reaches everyone and `c`
    adopts it after its late entries (§10.3)."""
    votes = [sessions[v].vote_claim() for v in voters]
    for v in voters:
        for vote in votes:
            sessions[v].add_vote(vote)
    late = sessions[c]
    f = late.floor
    assert f is not None and late.state is not None
    if f.kind == Kind.MOVE:
        late.move(rng.choice(late.state.public().legal_moves()))
    late.take_outgoing()  # (its reveals, seed, result, stand-in entries: its own log only)
    for v in voters:
        out = sessions[v].take_outgoing()
        if out:
            for i, s in enumerate(sessions):
                if i != v:
                    s.receive(out[0])
            break
    adopted = late.take_outgoing()  # the claim, after its late entries (or nothing: its late
    assert all(decode_entry(raw).kind == Kind.CLAIM for raw in adopted)  # answers ended it)


def play(n: int, variant: Variant, seed: int, schedule: list[tuple[str, int]]) -> Sample:
    """Play one game honestly with the events of `schedule` ((what, at step) pairs) and return
    the log of the seat that saw the most, with every key and seed."""
    rng = random.Random(f"played {n} {variant.value} {seed}")
    game = setup_game(n, variant, rng)
    sessions = game.sessions
    events = {step: what for what, step in schedule}
    for step in range(2000):
        live = [i for i, s in enumerate(sessions) if not s.left]
        _drain(sessions, [], 0)
        floor = sessions[live[0]].floor
        if floor is None:
            break
        what = events.get(step)
        if what == "resign":
            r = live[step % len(live)]
            try:
                statement = sessions[r].resign()
            except LocalProtocolError:
                continue
            for i, s in enumerate(sessions):
                if i != r:
                    assert s.add_resignation(statement), "an honest statement was refused"
            continue
        if what == "claim" and floor.seat not in sessions[live[0]].resigned:
            voters = [i for i in live if i != floor.seat]
            if voters and all(sessions[v].can_claim() for v in voters):
                votes = [sessions[v].vote_claim() for v in voters]
                for s in sessions:
                    for vote in votes:
                        s.add_vote(vote)
                for v in voters:  # the voters append the claim before the claimed seat speaks
                    _drain(sessions, sessions[v].take_outgoing(), v)
                continue
        if what == "late" and floor.seat in live:
            c, voters = floor.seat, [i for i in live if i != floor.seat]
            if voters and all(sessions[v].can_claim() for v in voters):
                _late_claim(sessions, c, voters, rng)
                continue
        holder = sessions[floor.seat]
        if floor.kind == Kind.MOVE and floor.seat in live and holder.seat == floor.seat:
            assert holder.state is not None
            move = rng.choice(holder.state.public().legal_moves())
            _drain(sessions, [holder.move(move)], floor.seat)
    logs = [s.entries for s in sessions]
    longest = max(logs, key=len)
    for a in logs:
        for b in logs:
            assert find_fork(a, b) is None, "two honest logs of one game fork"
    for log in logs:
        report = audit(log)
        assert report.verdict in (OK, INCOMPLETE), (report.fault_index, report.fault_reason)
        assert report.cheater is None
        assert not set(report.winners) & set(report.ending.resigned if report.ending else ())
        assert log == longest[: len(log)] or decode_entry(log[-1]).kind == Kind.CLAIM
    return Sample("played", tuple(longest), tuple(game.keys), tuple(game.seeds))


def facts_of(s: Sample) -> Facts:
    obs = Session(s.log[0])
    floors: list[Floor | None] = [None, obs.floor]
    for raw in s.log[1:]:
        obs.receive(raw)
        floors.append(obs.floor)
    resigned: dict[int, int] = {}
    commits: dict[int, list[bytes]] = {}
    for i, raw in enumerate(s.log):
        e = decode_entry(raw)
        if e.kind == Kind.RESIGN:
            resigned[e.body[0]] = i
        if e.kind == Kind.COMMIT:
            commits[e.seat] = e.body[1]
    return Facts(tuple(floors), tuple(decode_entry(r).seat for r in s.log), resigned, commits)


_SCHEDULE = st.lists(
    st.tuples(st.sampled_from(["resign", "resign", "claim", "late"]), st.integers(0, 50)),
    min_size=1,
    max_size=4,
)
_GAME = st.tuples(
    st.integers(2, 4), st.sampled_from([Variant.STANDARD, Variant.GENERAL]), st.integers(0, 99)
)


@PLAYED
@given(game=_GAME, schedule=_SCHEDULE, pick=st.integers(0, 10**6), spoil=st.integers(0, 7))
def test_played_games_and_claims_forged_on_them(
    game: tuple[int, Variant, int], schedule: list[tuple[str, int]], pick: int, spoil: int
) -> None:
    s = play(*game, schedule)
    f = facts_of(s)
    event(f"{s.n} seats, {len(f.resigned)} resigned, ends {decode_entry(s.log[-1]).kind}")
    k = 1 + pick % len(s.log)
    at = max(1, k - pick % 3)
    held = f.floors[at]
    c = 0 if held is None else held.seat
    out = {seat for seat, i in f.resigned.items() if i < at}
    votes = ["good" if v != c and v not in out else "absent" for v in range(s.n)]
    if spoil < s.n:
        votes[spoil] = "zero" if votes[spoil] == "good" else "good"
    resigned_by_k = {seat for seat, i in f.resigned.items() if i < k}
    author_key = "stand-in" if c in resigned_by_k else "seat"
    verdict = claim_oracle(s, f, k, c, author_key, c, at, votes)
    event(f"claim: {verdict.rule}")
    head = sha256(s.log[at - 1])
    body: list[Any] = [c, at, []]
    for v in range(s.n):
        if votes[v] == "good":
            body[2].append([v, s.keys[v].sign(vote_bytes(s.game_id, at, head, c))])
        elif votes[v] == "zero":
            body[2].append([v, bytes(64)])
    key = s.stand_in_key(c) if author_key == "stand-in" else s.keys[c]
    claim = make_entry(key, k, sha256(s.log[k - 1]), c, Kind.CLAIM, body)
    log = [*s.log[:k], claim]
    report = audit(log)
    signers = {c} if author_key == "seat" else set()
    signers |= {v for v in range(s.n) if votes[v] == "good"}
    assert_convicts_only_signer(report, log, signers=signers)
    assert (report.checked == k + 1) == verdict.valid, (verdict, report.fault_reason)
    if verdict.valid:
        assert report.verdict == OK
        assert not set(report.winners) & resigned_by_k, report.winners


@PLAYED
@given(game=_GAME, schedule=_SCHEDULE, pick=st.integers(0, 10**6), r=st.integers(0, 3))
def test_played_games_and_resignations_forged_on_them(
    game: tuple[int, Variant, int], schedule: list[tuple[str, int]], pick: int, r: int
) -> None:
    s = play(*game, schedule)
    f = facts_of(s)
    k = 1 + pick % len(s.log)
    r %= s.n
    floor = f.floors[k] if k < len(s.log) else None
    author, entry_key = (0, "seat") if floor is None else (floor.seat, "seat")
    if floor is not None and floor.seat == r:
        author, entry_key = (1 - r, "seat") if s.n == 2 else (r, "stand-in")
    at = max(1, k - pick % 2)
    stand_in = "nil" if s.n == 2 else "derived"
    verdict = resign_oracle(s, f, k, r, author, entry_key, at, True, stand_in, "seat")
    event(f"resign: {verdict.rule}")
    new_key = None if s.n == 2 else stand_in_public_key(s.game_id, r, s.seeds[r])
    body = s.statement(r, at, stand_in=new_key).to_body()
    key = stand_in_private_key(s.game_id, r, s.seeds[r]) if entry_key == "stand-in" else None
    raw = make_entry(key or s.keys[author], k, sha256(s.log[k - 1]), author, Kind.RESIGN, body)
    log = [*s.log[:k], raw]
    report = audit(log)
    signers = {r} | ({author} if entry_key == "seat" else set())
    assert_convicts_only_signer(report, log, signers=signers)
    assert (report.checked == k + 1) == verdict.valid, (verdict, report.fault_reason)


@PLAYED
@given(game=_GAME, schedule=_SCHEDULE, pick=st.integers(0, 10**6), how=st.integers(0, 3))
def test_played_games_and_their_stand_in_entries_forged(
    game: tuple[int, Variant, int], schedule: list[tuple[str, int]], pick: int, how: int
) -> None:
    """Any other entry at a stand-in's place is refused and convicts nobody (§10.4): another
    body under the stand-in's public key, the computed body under the resigner's own key, the
    computed bytes with another signature, or a live seat's entry there."""
    s = play(*game, [*schedule, ("resign", 3)])
    f = facts_of(s)
    places = [i for i, a in enumerate(f.authors) if a in f.resigned and f.resigned[a] < i]
    event(f"{len(places)} stand-in entries")
    if not places:
        return
    k = places[pick % len(places)]
    e = decode_entry(s.log[k])
    prev = sha256(s.log[k - 1])
    signers: set[int] = set()
    if how == 0:  # another body under the stand-in's key: another move, or garbled links
        if e.kind == Kind.MOVE:
            st_ = Session(s.log[0])
            for raw in s.log[1:k]:
                st_.receive(raw)
            assert st_.state is not None
            others = [m for m in st_.state.legal_moves() if encode_move(m) != e.body]
            body: Any = encode_move(others[0]) if others else [1, 24, 0]
        else:
            body = [[[0, bytes(32)]]] if e.kind == Kind.REVEAL else [bytes(32)]
        raw = make_entry(s.stand_in_key(e.seat), k, prev, e.seat, e.kind, body)
    elif how == 1:  # the computed body under the resigner's own genesis key
        raw = make_entry(s.keys[e.seat], k, prev, e.seat, e.kind, e.body)
        signers = {e.seat}
    elif how == 2:  # the computed payload with 64 zero bytes as its signature
        raw = pack([e.payload, bytes(64)])
    else:  # a live seat signs the stand-in's entry as its own
        live = next(i for i in range(s.n) if i not in f.resigned or f.resigned[i] >= k)
        raw = make_entry(s.keys[live], k, prev, live, e.kind, e.body)
        signers = {live}
    log = [*s.log[:k], raw, *s.log[k + 1 :]]
    report = audit(log)
    assert report.verdict != OK and report.checked == k, (report.verdict, report.fault_reason)
    assert_convicts_only_signer(report, log, signers=signers)
    if how != 3:
        assert report.cheater is None or report.cheater in signers
