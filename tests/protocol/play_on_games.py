"""Whole simulated games through `Session` for the re-deal's fairness (PROTOCOL.md §10.7).

Each game is seeded from its number (keys, seeds, nonces, the bots' moves, which seat drops and
when: all injected), 3 or 4 seats with a `play-on` genesis, every seat a `Session` that signs and
checks every entry. The bots (uniformly random legal moves, blind to the hidden part) play a
random number of moves, then a random seat is left holding a reveal floor: the chain waits for
its link, so the round's questions are asked but not answered. Then

- in an **even** game nobody drops: the seat answers and the round is answered from the deal;
- in an **odd** game it stops answering: the others claim against it, re-deal what nobody has
  seen, and the round is asked again of the re-deal (§10.7.4), every link checked by every live
  `Session` against the `redeal` commitments.

Either way we read what the sessions published for that round (`Session.known_tokens`,
`mutant_reveals`), against the hidden part at the point (computed from the public record):

- ``deal_rank``: the rank of the uncovered slot among the covered ones, and the rank of the
  token it shows among the unrevealed ones, each in three bins (thirds): whether they are in
  the same third (a third of the time when fair; a re-deal that keeps any order between the
  slots and the tokens moves weight onto or off it);
- ``deal_rank_diff``: the difference of the two thirds (-2..2), for larger runs;
- ``bottom_row``: the uncovered square's row and the value it shows;
- ``mutant``: for a captured copy of a value whose mutant was unfound, whether it was the
  lowest of its unturned copies, and its flag;
- ``mutant_k``: the same with how many copies were unturned (1, 2, or 3 or more), for larger
  runs (bench/bench_redeal.py).

Odd and even games are different games drawn from one population of public states (the split
is by game number, fixed before anything is seen), so under a fair re-deal the two samples are
draws from one distribution and Pearson's two-sample statistic has its χ² law.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from zoo_p2p.protocol.bodies import ON_LEAVE_PLAY_ON
from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.events import Floor, SeatInfo
from zoo_p2p.protocol.liveness_samples import SAMPLE_CLOCKS
from zoo_p2p.protocol.playon_samples import claim, run_until
from zoo_p2p.protocol.redeal import HiddenPart, RedealTables, hidden_part
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import DEFAULT_NAMES, LocalGame
from zoo_p2p.rules import Team, Variant

STATS = ("deal_rank", "deal_rank_diff", "bottom_row", "mutant", "mutant_k")


def _counters() -> dict[str, Counter[Hashable]]:
    return {s: Counter() for s in STATS}


@dataclass
class Observed:
    """Per statistic, what the games without a dropout and those with one published."""

    kept: dict[str, Counter[Hashable]] = field(
        default_factory=lambda: {s: Counter() for s in STATS}
    )
    redealt: dict[str, Counter[Hashable]] = field(
        default_factory=lambda: {s: Counter() for s in STATS}
    )
    games: int = 0  # games that reached a dropout point (the others ended first)
    claims: int = 0  # odd games whose claim played on (every one must)


def new_game(rng: random.Random) -> LocalGame:
    """3 or 4 seats, a `play-on` genesis, every seat's key material from `rng`."""
    n = 3 + int(rng.random() * 2)
    keys = [private_key_from_bytes(rng.randbytes(32)) for _ in range(n)]
    seeds = [rng.randbytes(32) for _ in range(n)]
    nonces = [rng.randbytes(32) for _ in range(n)]
    teams = sorted(rng.sample(list(Team), n))
    seats = [SeatInfo(DEFAULT_NAMES[i], public_key_bytes(keys[i]), teams[i]) for i in range(n)]
    genesis = Session.create_genesis(
        keys[0], seats, Variant.STANDARD, None, rng.randbytes(32), SAMPLE_CLOCKS,
        on_leave=ON_LEAVE_PLAY_ON,
    )  # fmt: skip
    sessions = [Session(genesis, key=keys[i], seed=seeds[i], nonce=nonces[i]) for i in range(n)]
    return LocalGame(keys, seeds, nonces, sessions, [[] for _ in range(n)])


OnClaim = Callable[[LocalGame, list[int]], None]
"""Told the game and its live seats just before they claim (a test picks its colluders)."""


def play(
    number: int, seed: int, out: Observed, max_moves: int = 6, on_claim: OnClaim | None = None
) -> None:
    """Game `number`: play it to its dropout point (after 0..`max_moves` moves) and record the
    round's answer in `out` (nothing when the game ended first)."""
    rng = random.Random(f"zoo-p2p play-on fairness {seed} {number}")
    game = new_game(rng)
    n = len(game.sessions)
    everyone = list(range(n))
    drop = int(rng.random() * n)
    after = int(rng.random() * (max_moves + 1))
    moves = [0]

    def at_point(f: Floor) -> bool:
        moves[0] += f.kind == Kind.MOVE
        return f.kind == Kind.REVEAL and f.seat == drop and moves[0] > after

    run_until(game, rng, everyone, at_point)
    rest = [i for i in everyone if i != drop]
    s = game.sessions[rest[0]]
    f = s.floor
    if f is None or f.kind != Kind.REVEAL or moves[0] <= after:
        return  # the game ended first
    known, reveals = dict(s.known_tokens), dict(s.mutant_reveals)
    h = hidden_part(known, reveals, Variant.STANDARD)
    dropped = number % 2 == 1
    going_on = everyone
    if dropped:
        if on_claim is not None:
            on_claim(game, rest)
        claim(game, rest)
        if not s.out:
            raise AssertionError(f"game {number}: the claim did not play on")
        out.claims += 1
        going_on = rest
    run_until(game, rng, going_on, lambda f: f.kind not in (Kind.REVEAL, Kind.REDEAL))
    side = out.redealt if dropped else out.kept
    out.games += 1
    new_tokens = {k: v for k, v in s.known_tokens.items() if k not in known}
    for slot, tok in new_tokens.items():
        i, j, m = h.covered.index(slot), h.tokens.index(tok), len(h.covered)
        side["deal_rank"][3 * j // m == 3 * i // m] += 1
        side["deal_rank_diff"][3 * j // m - 3 * i // m] += 1
        side["bottom_row"][((slot - 25) // 5, tok // 10)] += 1
    copies = dict(h.copies)
    for (v, c), flag in s.mutant_reveals.items():
        if (v, c) in reveals or v not in copies:
            continue
        cs = copies[v]
        side["mutant"][(cs.index(c) == 0, flag)] += 1
        side["mutant_k"][(min(len(cs), 3), cs.index(c) == 0, flag)] += 1


def play_many(
    games: int, seed: int, *, parity: int | None = None, on_claim: OnClaim | None = None
) -> Observed:
    """Games 0..`games`−1 of `seed` (those that end before their dropout point record
    nothing); `parity` 0 or 1: only the even (kept) or the odd (re-dealt) ones."""
    out = Observed()
    for number in range(games):
        if parity is None or number % 2 == parity:
            play(number, seed, out, on_claim=on_claim)
    return out


def colluding_tables(honest: set[bytes]) -> Callable[..., RedealTables]:
    """A stand-in for `RedealTables.from_seed`: a seat whose game seed is in `honest` derives
    its tables as the protocol says; every other seat (a colluder) uses the identity (with its
    real salts, so that its commitments and links are checked and accepted as any seat's)."""
    real = RedealTables.from_seed

    def from_seed(
        seed: bytes, game_id: bytes, claim: bytes, hidden: HiddenPart, *, with_salts: bool = True
    ) -> RedealTables:
        tables = real(seed, game_id, claim, hidden, with_salts=with_salts)
        if seed in honest:
            return tables
        ids = hidden.table_ids()
        return RedealTables(hidden, tuple(tuple(range(hidden.size(t))) for t in ids), tables.salts)

    return from_seed
