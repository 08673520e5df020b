"""Simulated dropouts for the re-deal's fairness test and bench (docs/design/PLAY-ON.md §R.9).

Each game: a uniformly random original deal, 3 or 4 seats played by the project's bots (which
see only the public state) to a random ply, then one seat is claimed against and the others
re-deal. From one game we record, once for the original deal and once for the re-dealt one,
the same three observations (each drawn with a generator that knows nothing hidden):

- ``bottom``: a covered square ``q`` picked at random, and the value of the card under it;
- ``bottom_row``: the same, by the square's row (fewer, fuller columns: more power);
- ``mutant``: a value ``v`` whose mutant is unfound, picked at random, the number ``k`` of its
  unturned copies and the index among them of the copy that hides the mutant;
- ``mutant_covered``: for that ``v``, whether its mutant lies under a covered square.

The two samples are compared by Pearson's two-sample χ² test of homogeneity. One observation
per game and statistic keeps the observations independent; even games give the original
sample and odd games the re-dealt one, so both samples come from the same population of public
states and neither shares a game with the other.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from zoo_p2p.bots.simple import RandomBot
from zoo_p2p.protocol.redeal import (
    HiddenPart,
    RedealTables,
    apply_redeal,
    compose_redeal,
    hidden_part,
    public_record,
)
from zoo_p2p.rules import KnownDeal, State, Team, Variant

# A seat's re-deal tables for one game: (hidden part, game number) -> tables in table_ids order.
TableSource = Callable[[HiddenPart, random.Random], list[list[int]]]

STATS = ("bottom", "bottom_row", "mutant", "mutant_covered")


def honest(hidden: HiddenPart, rng: random.Random) -> list[list[int]]:
    """A seat with a fresh random seed: tables derived as PLAY-ON.md says."""
    seed = rng.randbytes(32)
    game_id, claim = rng.randbytes(32), rng.randbytes(32)
    t = RedealTables.from_seed(seed, game_id, claim, hidden, with_salts=False)
    return [list(x) for x in t.tables]


def identity(hidden: HiddenPart, rng: random.Random) -> list[list[int]]:
    """A colluder: the identity (lowest tokens to the lowest squares, the first copy a mutant)."""
    return [list(range(hidden.size(t))) for t in hidden.table_ids()]


def reverse(hidden: HiddenPart, rng: random.Random) -> list[list[int]]:
    """A colluder: the reversal of every table."""
    return [list(range(hidden.size(t)))[::-1] for t in hidden.table_ids()]


@dataclass
class Samples:
    """Per statistic, the observations from the original deals and from the re-deals."""

    original: dict[str, Counter[Hashable]]
    redealt: dict[str, Counter[Hashable]]
    games: int


def _observe(
    deal: KnownDeal, hidden: HiddenPart, pick: random.Random, out: dict[str, Counter[Hashable]]
) -> None:
    slot_of = {tok: s for s, tok in enumerate(deal.slot_tokens)}
    q_slot = hidden.covered[int(pick.random() * len(hidden.covered))]
    value = deal.slot_tokens[q_slot] // 10
    out["bottom"][(q_slot, value)] += 1
    out["bottom_row"][((q_slot - 25) // 5, value)] += 1
    if hidden.copies:
        v, cs = hidden.copies[int(pick.random() * len(hidden.copies))]
        c = deal.mutant_copies[v]
        out["mutant"][(len(cs), cs.index(c))] += 1
        out["mutant_covered"][(v, slot_of[10 * v + c] in hidden.covered)] += 1


def play_to_random_point(rng: random.Random) -> tuple[KnownDeal, State] | None:
    """A random deal played by the random bots to a random ply; None if it ended first."""
    deal = KnownDeal.random(rng)
    n = 3 + int(rng.random() * 2)
    teams = sorted(rng.sample(list(Team), n))
    state = deal.new_state(teams, first_seat=int(rng.random() * n))
    bots = [RandomBot(rng.randrange(2**32)) for _ in range(n)]
    for _ in range(int(rng.random() * 45)):
        if state.is_terminal():
            return None
        state.apply(bots[state.to_move].choose(state))
    if state.is_terminal() or not state.face_down():
        return None
    return deal, state


@dataclass(frozen=True)
class Dropout:
    """One simulated game at the moment of a claim: its original deal and its public record."""

    deal: KnownDeal
    known: dict[int, int]
    reveals: dict[tuple[int, int], bool]
    hidden: HiddenPart
    n_seats: int


def play_games(games: int, seed: int) -> list[Dropout]:
    """``games`` games played to a random point (those that ended first are replaced)."""
    rng = random.Random(seed)
    out: list[Dropout] = []
    while len(out) < games:
        played = play_to_random_point(rng)
        if played is None:
            continue
        deal, state = played
        known, reveals = public_record(deal, state)
        hidden = hidden_part(known, reveals, Variant.STANDARD)
        out.append(Dropout(deal, known, reveals, hidden, state.n_seats))
    return out


def redeal_samples(
    played: Sequence[Dropout], seats: Sequence[TableSource] | None, seed: int
) -> Samples:
    """Re-deal with ``seats`` (None: the n − 1 remaining seats, all honest) and observe.

    The games are split by their index, fixed before anything is seen: an even game gives its
    original deal's observations, an odd game its re-dealt one's. The two samples are then
    independent draws from the same population of public states, so under fairness they are
    draws from one distribution and Pearson's statistic has its χ² law (no pairing between
    them, which would make the test conservative).
    """
    rng = random.Random(seed)
    original: dict[str, Counter[Hashable]] = {s: Counter() for s in STATS}
    redealt: dict[str, Counter[Hashable]] = {s: Counter() for s in STATS}
    for i, d in enumerate(played):
        pick = random.Random(rng.random())  # what to observe: drawn blind to the hidden part
        if i % 2 == 0:
            _observe(d.deal, d.hidden, pick, original)
            continue
        sources = list(seats) if seats is not None else [honest] * (d.n_seats - 1)
        per_seat = [src(d.hidden, rng) for src in sources]
        composed = compose_redeal(d.hidden, per_seat)
        new = apply_redeal(d.hidden, composed, d.known, d.reveals, Variant.STANDARD)
        _observe(new, d.hidden, pick, redealt)
    return Samples(original, redealt, len(played))


# --- Pearson's two-sample χ² and its p-value ------------------------------------------------


def homogeneity(
    a: Counter[Hashable], b: Counter[Hashable], min_column: int = 10
) -> tuple[float, int, float]:
    """(χ², degrees of freedom, p-value) that ``a`` and ``b`` come from one distribution.

    Columns with fewer than ``min_column`` observations in both samples together are left out
    (the test is conditional on the column totals, so leaving some out by their totals keeps
    it valid over the others).
    """
    cols = [k for k in set(a) | set(b) if a[k] + b[k] >= min_column]
    na = sum(a[k] for k in cols)
    nb = sum(b[k] for k in cols)
    if len(cols) < 2 or na == 0 or nb == 0:
        return 0.0, 0, 1.0
    total = na + nb
    x2 = 0.0
    for k in cols:
        n = a[k] + b[k]
        ea, eb = n * na / total, n * nb / total
        x2 += (a[k] - ea) ** 2 / ea + (b[k] - eb) ** 2 / eb
    df = len(cols) - 1
    return x2, df, chi2_sf(x2, df)


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x): the regularized upper incomplete gamma Q(df/2, x/2) (Numerical Recipes)."""
    if x <= 0:
        return 1.0
    a, z = df / 2.0, x / 2.0
    gln = math.lgamma(a)
    if z < a + 1.0:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1.0
            term *= z / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-z + a * math.log(z) - gln))
    # continued fraction for Q (modified Lentz)
    tiny = 1e-300
    b = z + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-z + a * math.log(z) - gln) * h
