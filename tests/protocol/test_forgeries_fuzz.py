"""Property-based forgeries (issue 18): hypothesis re-signs the real sample logs of `replays/`.

Four properties, each on bounded, derandomized examples (seconds):

- honest bytes only (entries reordered, dropped, repeated, spliced from another log of the
  same game or of another game, honest chains as stored proofs): nobody is ever convicted, and
  the verdict is `ok` only for a log that is one of the game's own honest logs;
- an entry signed by a seat the test holds (a real body of any kind, from anywhere in the
  sample, at any seq) convicts nobody but that seat, and never makes a log `ok` that is not an
  honest log or a valid ending;
- claims (§10.3) and resignations (§10.4): each drawn entry is judged by an oracle written
  from PROTOCOL.md alone, here, not from session.py; the auditor must accept exactly the
  entries the oracle accepts, and convict nobody but a signer.

The oracles name the rule that decided each case (`hypothesis.event`: see them with
`--hypothesis-show-statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.protocol.forged import SAMPLE_NAMES, Sample, other_key, sample
from tests.protocol.helpers import assert_convicts_only_signer
from zoo_p2p.protocol.audit import OK, audit
from zoo_p2p.protocol.crypto import sha256
from zoo_p2p.protocol.deal import SeatTables
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry, pack
from zoo_p2p.protocol.events import Floor
from zoo_p2p.protocol.liveness import vote_bytes
from zoo_p2p.protocol.standin import stand_in_private_key, stand_in_public_key
from zoo_p2p.rules import Variant

FORGE = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# the logs of each game: two samples are logs of one game (the claim, and the staller's own)
_GAMES = (
    ("3p-standard-claimed-reveal.zoolog", "3p-standard-claimed-reveal-late.zoolog"),
    *((n,) for n in SAMPLE_NAMES if "claimed-reveal" not in n),
)


@dataclass(frozen=True)
class Facts:
    """What the honest sample says at every log length (read once through an observer)."""

    floors: tuple[Floor | None, ...]  # floors[i]: the floor when the log holds i entries
    authors: tuple[int, ...]
    resigned: dict[int, int]  # seat -> index of its resign entry
    commits: dict[int, list[bytes]]  # seat -> its committed tables


@cache
def facts(name: str) -> Facts:
    s = sample(name)
    obs = s.session(1)
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
    authors = tuple(decode_entry(raw).seat for raw in s.log)
    return Facts(tuple(floors), authors, resigned, commits)


def _convicted(report: Any) -> set[int]:
    out = {c.seat for c in report.convictions}
    if report.fault_seat is not None:
        out.add(report.fault_seat)
    return out


# ------------------------------------------------------------------ honest bytes only
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["swap", "drop", "repeat", "move", "splice", "foreign"]),
        st.integers(1, 400),
        st.integers(1, 400),
    ),
    min_size=1,
    max_size=3,
)


@FORGE
@given(game=st.sampled_from(_GAMES), first=st.integers(0, 1), ops=_OPS)
def test_honest_entries_rearranged_convict_nobody(
    game: tuple[str, ...], first: int, ops: list[tuple[str, int, int]]
) -> None:
    logs = [list(sample(n).log) for n in game]
    log = list(logs[first % len(logs)])
    donor = logs[(first + 1) % len(logs)]
    other = "3p-general.zoolog" if game[0] != "3p-general.zoolog" else "4p-standard.zoolog"
    foreign = sample(other)
    for op, a, b in ops:
        i, j = 1 + a % (len(log) - 1), 1 + b % (len(log) - 1)
        if op == "swap":
            log[i], log[j] = log[j], log[i]
        elif op == "drop":
            del log[i]
        elif op == "repeat":
            log.insert(j, log[i])
        elif op == "move":
            log.insert(j, log.pop(i))
        elif op == "splice":
            log[i:] = donor[min(j, len(donor) - 1) :]
        else:
            log.insert(i, foreign.log[1 + b % (len(foreign.log) - 1)])
        if len(log) < 2:
            log = logs[0][:2]
    report = audit(log)
    assert_convicts_only_signer(report, log, signers=())
    assert not _convicted(report)
    if report.verdict == OK:
        assert log in logs, "a rearranged log verifies ok"


@FORGE
@given(name=st.sampled_from(SAMPLE_NAMES), a=st.integers(1, 400), b=st.integers(0, 400))
def test_honest_chains_as_stored_proofs_convict_nobody(name: str, a: int, b: int) -> None:
    s = sample(name)
    end = 1 + a % (len(s.log) - 1)
    chain = list(s.log[1 : end + 1])
    if b % 3 == 1 and len(chain) > 2:
        del chain[b % (len(chain) - 1)]  # a hole in the chain
    elif b % 3 == 2:
        chain.append(s.log[1 + b % (len(s.log) - 1)])  # a held entry again at the end
    proof = pack([1, s.game_id, chain])
    report = audit(s.log, proofs=[proof])
    assert report.verdict == OK and not report.convictions, report.notes


# ------------------------------------------------------------------ any signed entry
@cache
def _bodies(kind: str) -> list[Any]:
    """Every real body of `kind` in any sample (claims and resignations included)."""
    out = []
    for name in SAMPLE_NAMES:
        for raw in sample(name).log[1:]:
            e = decode_entry(raw)
            if e.kind == kind:
                out.append(e.body)
    return out


_KINDS = sorted(Kind.ALL - {Kind.GENESIS})


@FORGE
@given(
    name=st.sampled_from(SAMPLE_NAMES),
    at=st.integers(1, 400),
    seat=st.integers(0, 3),
    kind=st.sampled_from(_KINDS),
    pick=st.integers(0, 10_000),
    tail=st.booleans(),
    signer=st.sampled_from(["seat", "stand-in", "outsider"]),
)
def test_a_signed_entry_anywhere_convicts_only_its_signer(
    name: str, at: int, seat: int, kind: str, pick: int, tail: bool, signer: str
) -> None:
    s = sample(name)
    seat %= s.n
    k = 1 + at % len(s.log)  # 1..len: at any held seq, or after the end
    bodies = _bodies(kind)
    body = bodies[pick % len(bodies)]
    key = s.keys[seat]
    signers = {seat}
    if signer == "stand-in":
        key, signers = s.stand_in_key(seat), set()
    elif signer == "outsider":
        key, signers = other_key("anywhere"), set()
    bad = make_entry(key, k, sha256(s.log[k - 1]), seat, kind, body)
    log = [*s.log[:k], bad, *(s.log[k:] if tail else ())]
    report = audit(log)
    assert_convicts_only_signer(report, log, signers=signers)
    if report.verdict == OK and log != list(s.log[: len(log)]):
        # only an entry that ends the game can complete a log, and it needs a valid body
        assert kind in (Kind.CLAIM, Kind.RESIGN, Kind.RESULT), (kind, k)
        assert not tail or k == len(s.log), "an honest tail chained on a forged entry"
    if k < len(s.log):
        # the forged entry before the honest one, as a stored proof beside the honest log
        proof = pack([1, s.game_id, [*s.log[1:k], bad, s.log[k]]])
        beside = audit(s.log, proofs=[proof])
        assert_convicts_only_signer(beside, s.log, signers=signers, proofs=[proof])
        assert _convicted(beside) <= signers


# ------------------------------------------------------------------ the claim oracle (§10.3)
VOTE_KINDS = ("good", "absent", "zero", "head", "key", "stand-in")


@dataclass(frozen=True)
class Verdict:
    valid: bool
    rule: str  # the rule that decided it (a letter of issue 18 for a rule it adds)


def claim_oracle(
    s: Sample, f: Facts, k: int, author: int, author_key: str, c: int, at: int, votes: list[str]
) -> Verdict:
    """Is a claim `[c, at, votes]` by `author` at seq `k` on `s.log[:k]` valid (§10.3, rules 1-7
    in their order)? A failure convicts at most its author."""
    resigned_before = {seat for seat, i in f.resigned.items() if i < k}
    if author_key == "outsider" or (author_key == "seat" and author in resigned_before):
        return Verdict(False, "signature")
    if author_key == "stand-in" and author not in resigned_before:
        return Verdict(False, "signature")
    if k >= len(s.log):  # 1: the sample log is complete, nothing may follow its end
        return Verdict(False, "over")
    if not 1 <= at <= k:  # 2
        return Verdict(False, "at")
    if k > at and author != c:  # 3: after the head it votes on, only the claimed seat's own
        return Verdict(False, "after the head")
    floor = f.floors[at]  # 4
    if floor is None or floor.seat != c:
        return Verdict(False, "floor")
    out = {seat for seat, i in f.resigned.items() if i < at}
    if c in out:
        return Verdict(False, "stand-in")
    for i in range(at, k):  # 5: c's late answers, and the stand-in entries they lead to
        a = f.authors[i]
        if a != c and not (a in f.resigned and f.resigned[a] <= i):
            return Verdict(False, "late")
    want = [v for v in range(s.n) if v != c and v not in out]
    if not want:  # 6
        return Verdict(False, "no vote")
    if not all(votes[v] == "good" for v in want) or any(  # 7
        votes[v] != "absent" for v in range(s.n) if v not in want
    ):
        return Verdict(False, "votes")
    return Verdict(True, "valid")


def _vote(s: Sample, kind: str, voter: int, at: int, c: int) -> list[Any] | None:
    head = sha256(s.log[at - 1]) if 1 <= at <= len(s.log) else bytes(32)
    msg = vote_bytes(s.game_id, at, head, c)
    if kind == "absent":
        return None
    if kind == "zero":
        return [voter, bytes(64)]
    if kind == "head":
        return [voter, s.keys[voter].sign(vote_bytes(s.game_id, at, bytes(32), c))]
    if kind == "key":
        return [voter, s.keys[(voter + 1) % s.n].sign(msg)]
    if kind == "stand-in":
        return [voter, s.stand_in_key(voter).sign(msg)]
    return [voter, s.keys[voter].sign(msg)]


_CLAIM_SAMPLES = (
    "3p-standard-resigned.zoolog",
    "3p-standard-claimed-reveal.zoolog",
    "3p-standard-claimed-reveal-late.zoolog",
    "2p-standard-claimed-move.zoolog",
    "2p-standard-resigned.zoolog",
    "4p-standard.zoolog",
)


def _position(name: str, k: int, near: bool) -> int:
    """A seq 1..len(log): anywhere, or (near) at the resignations, the claim and the end."""
    s, f = sample(name), facts(name)
    if near:
        marks = [*f.resigned.values(), len(s.log) - 1, len(s.log)]
        marks += [i + d for i in f.resigned.values() for d in (1, 2, 3)]
        return max(1, min(len(s.log), marks[k % len(marks)]))
    return 1 + k % len(s.log)


@FORGE
@given(
    name=st.sampled_from(_CLAIM_SAMPLES),
    k=st.integers(0, 10**6),
    near=st.booleans(),
    back=st.integers(0, 3),
    c=st.integers(0, 3),
    author=st.sampled_from(["claimed", "claimed", "other"]),
    author_key=st.sampled_from(["seat", "seat", "seat", "stand-in", "outsider"]),
    spoil=st.one_of(
        st.none(),
        st.tuples(st.integers(0, 3), st.sampled_from(VOTE_KINDS)),
    ),
)
def test_claims_against_an_oracle_written_from_the_spec(
    name: str,
    k: int,
    near: bool,
    back: int,
    c: int,
    author: str,
    author_key: str,
    spoil: tuple[int, str] | None,
) -> None:
    """A claim at seq k about log length `at` against `c`: by default with every vote it needs
    and none other (what a valid claim holds), at most one vote spoiled; the floor holder at `at`
    is the claimed seat unless told otherwise."""
    s, f = sample(name), facts(name)
    k = _position(name, k, near)
    at = max(1, k - back)
    held = f.floors[at]
    c = held.seat if held is not None and c < 3 else c % s.n
    out = {seat for seat, i in f.resigned.items() if i < at}
    votes = ["good" if v != c and v not in out else "absent" for v in range(s.n)]
    if spoil is not None:
        votes[spoil[0] % s.n] = spoil[1]
    who = c if author == "claimed" else (c + 1 + k % (s.n - 1)) % s.n
    if author_key == "stand-in" and who not in f.resigned:
        author_key = "seat"
    verdict = claim_oracle(s, f, k, who, author_key, c, at, votes)
    event(verdict.rule)
    body = [c, at, [v for i in range(s.n) if (v := _vote(s, votes[i], i, at, c)) is not None]]
    key = {
        "seat": s.keys[who],
        "stand-in": s.stand_in_key(who),
        "outsider": other_key("claim"),
    }[author_key]
    claim = make_entry(key, k, sha256(s.log[k - 1]), who, Kind.CLAIM, body)
    log = [*s.log[:k], claim]
    report = audit(log)
    signers = {who} if author_key == "seat" else set()
    signers |= {i for i in range(s.n) if votes[i] in ("good", "head")}
    signers |= {(i + 1) % s.n for i in range(s.n) if votes[i] == "key"}
    assert_convicts_only_signer(report, log, signers=signers)
    assert _convicted(report) <= ({who} if author_key == "seat" else set())
    accepted = report.checked == k + 1
    assert accepted == verdict.valid, (verdict, report.fault_reason)
    if verdict.valid:
        assert report.verdict == OK and report.ending is not None
        out = {seat for seat, i in f.resigned.items() if i < k}
        assert not set(report.winners) & out, report.winners  # §10.5: they cannot win
    else:
        assert report.verdict != OK


# ------------------------------------------------------------------ the resignation oracle (§10.4)
def resign_oracle(
    s: Sample,
    f: Facts,
    k: int,
    r: int,
    author: int,
    entry_key: str,
    at: int,
    seed_ok: bool,
    stand_in: str,
    statement_key: str,
) -> Verdict:
    """Is a `resign` entry of `r` by `author` at seq `k` on `s.log[:k]` valid (§10.4, "Where a
    `resign` entry stands", rules 1-8 in their order)? Rule "fault" (8) convicts the resigner;
    every other one at most the entry's author."""
    if k >= len(s.log):
        return Verdict(False, "end")  # nothing may follow the end
    floor = f.floors[k]
    resigned = {seat for seat, i in f.resigned.items() if i < k}
    in_play = (Kind.MOVE, Kind.REVEAL)
    if floor is None or floor.kind not in in_play:  # 1
        if floor is not None and floor.kind in (Kind.SEED, Kind.RESULT):
            return Verdict(False, "decided")  # the game is over (issue 18 C)
        return Verdict(False, "not in play")
    signed_at = f.floors[at] if at <= k else None
    if signed_at is not None and signed_at.kind not in in_play:
        return Verdict(False, "signed outside play")
    if r in resigned or all(i in resigned for i in range(s.n) if i != r):  # 2
        return Verdict(False, "who")
    if floor.seat in resigned:  # 3
        return Verdict(False, "stand-in floor")
    if k < at:  # 4
        return Verdict(False, "at")
    if any(f.authors[i] == r for i in range(at, k)):  # 5
        return Verdict(False, "stale")  # the resigner signed on after its statement (C)
    if floor.seat != r:  # 6
        want_author, want_key = floor.seat, "seat"
    elif s.n == 2:
        want_author, want_key = 1 - r, "seat"
    else:
        want_author, want_key = r, "stand-in"
    if author != want_author:
        return Verdict(False, "author")
    if entry_key != want_key:
        return Verdict(False, "key")  # (issue 18 A: any other signature, even zero bytes)
    if statement_key != "seat":  # 7
        return Verdict(False, "statement")
    if (s.n == 2) != (stand_in == "nil") or stand_in == "other" or not seed_ok:  # 8
        return Verdict(False, "fault")
    return Verdict(True, "valid")


_RESIGN_SAMPLES = (
    "3p-standard.zoolog",
    "4p-standard.zoolog",
    "2p-standard.zoolog",
    "3p-standard-resigned.zoolog",
    "3p-general.zoolog",
)
_RESIGN_FIELDS = ("author", "entry_key", "at", "seed", "stand_in", "statement_key", "r")


@FORGE
@given(
    name=st.sampled_from(_RESIGN_SAMPLES),
    k=st.integers(0, 10**6),
    near=st.sampled_from([True, True, True, False]),
    r=st.integers(0, 3),
    back=st.sampled_from([0, 0, 0, 1, 4]),
    spoil=st.one_of(st.none(), st.tuples(st.sampled_from(_RESIGN_FIELDS), st.integers(0, 3))),
)
def test_resignations_against_an_oracle_written_from_the_spec(
    name: str, k: int, near: bool, r: int, back: int, spoil: tuple[str, int] | None
) -> None:
    """A `resign` entry at seq k: by default the one §10.4 asks for (by the floor holder, or the
    resigner's stand-in at its own floor, carrying a good statement signed at `at` <= k), with
    at most one field spoiled."""
    s, f = sample(name), facts(name)
    k = 1 + k % len(s.log)
    if near:  # in the middle of the game, where a resignation can stand
        k = len(s.log) // 5 + k % (len(s.log) // 2)
    r %= s.n
    floor = f.floors[k] if k < len(s.log) else None
    fields: dict[str, Any] = {
        "author": 0 if floor is None else floor.seat,
        "entry_key": "seat",
        "at": max(1, k - back),
        "seed": True,
        "stand_in": "nil" if s.n == 2 else "derived",
        "statement_key": "seat",
    }
    if floor is not None and floor.seat == r:
        fields["author"] = 1 - r if s.n == 2 else r
        fields["entry_key"] = "seat" if s.n == 2 else "stand-in"
    if spoil is not None:
        what, x = spoil
        choices: dict[str, list[Any]] = {
            "author": list(range(s.n)),
            "entry_key": ["seat", "stand-in", "zero", "zero"],
            "at": [k + 1, k + 2, k - 20, 1],
            "seed": [False],
            "stand_in": ["nil", "derived", "other"],
            "statement_key": ["other", "zero"],
            "r": list(range(s.n)),
        }
        value = choices[what][x % len(choices[what])]
        if what == "r":
            r = value
        else:
            fields[what] = value
    fields["at"] = max(1, fields["at"])
    author, entry_key, at = fields["author"], fields["entry_key"], fields["at"]
    seed_ok, stand_in, statement_key = fields["seed"], fields["stand_in"], fields["statement_key"]
    verdict = resign_oracle(s, f, k, r, author, entry_key, at, seed_ok, stand_in, statement_key)
    event(verdict.rule)
    seed = s.seeds[r] if seed_ok else sha256(b"not the seed" + s.seeds[r])
    new_key = {
        "derived": stand_in_public_key(s.game_id, r, seed),
        "nil": None,
        "other": stand_in_public_key(s.game_id, r, bytes(32)),
    }[stand_in]
    skey = {"seat": s.keys[r], "other": s.keys[(r + 1) % s.n], "zero": s.keys[r]}[statement_key]
    body = s.statement(r, at, seed=seed, stand_in=new_key, key=skey).to_body()
    if statement_key == "zero":
        body[4] = bytes(64)
    prev = sha256(s.log[k - 1])
    if entry_key == "stand-in":
        key = stand_in_private_key(s.game_id, r, seed)
        raw = make_entry(key, k, prev, author, Kind.RESIGN, body)
    else:
        raw = make_entry(s.keys[author], k, prev, author, Kind.RESIGN, body)
        if entry_key == "zero":
            raw = pack([decode_entry(raw).payload, bytes(64)])
    log = [*s.log[:k], raw]
    report = audit(log)
    signers = {author} if entry_key == "seat" else set()
    if statement_key != "zero":
        signers.add(r if statement_key == "seat" else (r + 1) % s.n)
    assert_convicts_only_signer(report, log, signers=signers)
    convicted = _convicted(report)
    if verdict.rule == "fault":  # the resigner signed the fault: it is convicted (§8.2)
        assert convicted == ({r} if statement_key == "seat" else set()), report.fault_reason
    else:
        assert convicted <= ({author} if entry_key == "seat" else set()), report.fault_reason
    accepted = report.checked == k + 1
    assert accepted == verdict.valid, (verdict, report.fault_reason)
    assert report.verdict != OK or verdict.valid


def test_seat_tables_of_the_samples_are_their_commitments() -> None:
    """The oracle's premise: each sample seat's seed gives its committed tables (so `seed_ok`
    means what it says)."""
    for name in ("3p-standard.zoolog", "2p-standard.zoolog"):
        s, f = sample(name), facts(name)
        general = sample(name).session(1).variant is Variant.GENERAL
        for seat in range(s.n):
            tables = SeatTables.from_seed(s.seeds[seat], s.game_id, general=general)
            assert tables.commitments(s.game_id, seat) == f.commits[seat]
