"""The ``expert`` bot: Monte Carlo tree search over public states with exact chance nodes.

No seat in this game holds a private card: every hidden fact (a bottom card, a mutant flag) is
unknown to everyone and becomes public when it is revealed. A public state is therefore a node
of a perfect-information game with chance, and the search builds that tree:

* a **decision node** is a public state; its edges are the legal moves of the seat to move,
  widened progressively in the order of the one-ply policy, so every legal move can be tried;
* a move that captures a Zoo card is a **chance node**: its children are keyed by what the
  capture reveals (the bottom card's value, whether the captured card was the mutant). Each
  iteration samples the hidden facts from the public state (``State.determinize``: uniform over
  every deal consistent with what is public, so a bottom value ``v`` comes up with chance
  ``remaining(v) / hidden`` and the mutant of ``v`` with chance ``1 / unturned copies of v``) and
  follows the outcome that deal gives: outcomes arrive with their exact probabilities;
* below the tree a playout by the noisy one-ply policy runs for ``rollout`` plies (12 in play:
  many cheap iterations beat fewer complete games at equal budget; the analysis plays to the
  end); every seat's reward (its share of the lead blended with its margin over the best other
  seat, from the score totals where the playout stopped) is backed up, and each edge keeps the
  reward of the seat that moves there (max-n, which is minimax for two players).

The move played is the most visited edge at the root. ``peek`` is the same search told the real
hidden deal (measurement only: how much the hidden information costs).

Budget: ``work`` simulated plies per move (deterministic with a seed), or ``think`` wall seconds
read from an injected clock. ``evaluate`` exposes the per-move statistics for the analysis.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from zoo_p2p import defaults
from zoo_p2p.bots.base import public_position
from zoo_p2p.bots.hard import policy_playout
from zoo_p2p.bots.policy import noisy_best, public_odds, scored_moves
from zoo_p2p.rules import Move, Oracle, Send, State, Variant
from zoo_p2p.rules.board import N_SQUARES, NEIGHBOURS
from zoo_p2p.rules.state import CHAR, EMPTY, MUTANT, UNKNOWN

DEFAULT_THINK = defaults.THINK  # seconds per move (zoo_p2p.defaults)
"""Seconds per move when neither ``think`` nor ``work`` is given."""

WORK_PER_SECOND = 50_000
"""Simulated plies per second of ``think`` when a seed asks for a deterministic budget."""

MARGIN_SCALE = 30.0

SOFT = 5.0
"""Where a playout stops before the end, the reward's win part is the logistic of the margin
over ``SOFT`` points instead of who leads there (a smooth win chance: less noise per iteration;
a playout that reaches the end still scores who won)."""

EXPLORE = 0.35
"""UCB exploration constant (rewards lie in [0, 1])."""

WIDEN_BASE = 1
WIDEN_RATE = 1.0
"""A node with ``n`` visits considers its ``WIDEN_BASE + WIDEN_RATE * sqrt(n)`` best moves."""

PRIOR = 0.01
"""Reward per point of one-ply score added to a root move's mean: prefers the sure thing."""

WIDTH = 12
WORK_PER_CANDIDATE = 1500
"""Root candidates: the policy's best ``max(WIDTH, work / WORK_PER_CANDIDATE)`` moves."""

ROLLOUT = 12
"""Playout plies below a leaf before the score totals are read (fewer plies, more iterations)."""

ITER_COST = 6
"""Work charged per iteration on top of its plies: sampling and copying cost about six plies,
so an equal ``work`` budget means about equal time against the ``hard`` bot."""

STRATUM = 4
"""At the root, a capture that may reveal the mutant meets it in one round of ``STRATUM`` and is
spared it in the others; the two means are weighted by the exact chance (stratified sampling:
the mutant's luck no longer blurs the comparison of the root moves)."""

MUTANT_COST = 1.0
"""Below the tree, playouts turn no card over: each capture of a card that may hide a mutant is
charged the capturing character's value times the card's chance (mean-field mutants)."""

Outcome = tuple[int, bool]
"""What a capture revealed: the exposed bottom value (-1: none) and whether it was the mutant."""


class _Edge:
    __slots__ = ("children", "margin", "n", "prior", "reward", "win")

    def __init__(self, prior: float) -> None:
        self.n = 0
        self.reward = 0.0
        self.win = 0.0
        self.margin = 0.0
        self.prior = prior
        self.children: dict[Outcome, _Node] = {}


class _Node:
    __slots__ = ("edges", "moves", "n", "seat")

    def __init__(self, state: State) -> None:
        self.seat = state.to_move
        scored = scored_moves(state, public_odds(state))
        order = {m: i for i, m in enumerate(state.legal_moves())}
        scored.sort(key=lambda sm: (-sm[0], order[sm[1]]))
        self.moves: list[tuple[float, Move]] = scored
        self.edges: list[_Edge] = []
        self.n = 0


@dataclass(frozen=True)
class MoveStats:
    """What the search learnt about one root move, from the mover's point of view."""

    move: Move
    visits: int
    value: float
    """Mean search reward in [0, 1] (half win share, half clamped margin)."""
    win: float
    """Mean share of the lead where playouts stopped (ties shared): the win chance when
    playouts run to the end of the game (``rollout`` large, as in the analysis)."""
    margin: float
    """Mean margin where playouts stopped: the mover's score minus the best other seat's (the
    expected final margin when playouts run to the end)."""
    prior: float
    """The one-ply policy score of the move (points)."""


def rewards(
    totals: list[float], margin_weight: float, soft: float = 0.0
) -> tuple[list[float], list[float], list[float]]:
    """Each seat's search reward, win share and margin from score totals.

    With ``soft`` > 0 (a playout that stopped before the end) the reward's win part is the
    logistic of the margin over ``soft`` points instead of who leads; the win share returned is
    still who leads.
    """
    best = max(totals)
    n_best = totals.count(best)
    out: list[float] = []
    wins: list[float] = []
    margins: list[float] = []
    for p, t in enumerate(totals):
        win = 1.0 / n_best if t == best else 0.0
        other = max(totals[:p] + totals[p + 1 :])
        m = 0.5 + (t - other) / (2 * MARGIN_SCALE)
        m = 0.0 if m < 0.0 else 1.0 if m > 1.0 else m
        w = win
        if soft > 0.0:
            x = (t - other) / soft
            w = 1.0 / (1.0 + math.exp(-x)) if x > -60.0 else 0.0
        out.append((1 - margin_weight) * w + margin_weight * m)
        wins.append(win)
        margins.append(t - other)
    return out, wins, margins


def _apply(state: State, move: Move) -> Outcome | None:
    """Apply ``move`` on an oracle state; what it revealed when it captured a Zoo card."""
    top, under = state.square_codes()
    to = move.to
    if top[to] >= UNKNOWN:
        state.apply_unchecked(move)
        return None
    hidden = under[to] == UNKNOWN
    state.apply_unchecked(move)
    top, under = state.square_codes()
    return (under[to] if hidden else -1, top[to] >= MUTANT)


class ExpertBot:
    """Tree search with exact chance nodes over the public state; deterministic when seeded."""

    level = "expert"
    peeks = False
    """The arena hands a peeking bot the state with its hidden deal (``peek`` and its partial
    variants, measurement only); every other bot gets the public state."""
    sees_mutants = False
    """Told where the mutants are: no stratified root, no mean-field playouts (nothing to
    average)."""

    def __init__(
        self,
        seed: int | None = None,
        think: float | None = None,
        *,
        work: int | None = None,
        clock: Callable[[], float] | None = time.perf_counter,
        noise: float = 1.5,
        margin_weight: float = 0.5,
        explore: float = EXPLORE,
        rollout: int = ROLLOUT,
        width: int = WIDTH,
        iter_cost: int = ITER_COST,
        stratify: bool = True,
        mean_field: bool = True,
        mutant_cost: float = MUTANT_COST,
        quiesce: bool = True,
        soft: float = SOFT,
    ) -> None:
        self.think = DEFAULT_THINK if think is None else float(think)
        if self.think <= 0:
            raise ValueError("think time must be positive")
        self.rng = random.Random(seed)
        if work is None and (seed is not None or clock is None):
            work = max(1, int(self.think * WORK_PER_SECOND))
        elif work is not None and think is None:
            clock = None  # a pure work budget: deterministic, whatever the machine's load
        self.work = work
        self.clock = clock
        self.noise = noise
        self.margin_weight = margin_weight
        self.explore = explore
        self.rollout = rollout
        self.width = width
        self.iter_cost = iter_cost
        self.stratify = stratify and not self.sees_mutants
        self.mean_field = mean_field and not self.sees_mutants
        self.mutant_cost = mutant_cost
        self.quiesce = quiesce
        self.soft = soft
        self.last_iterations = 0

    # ------------------------------------------------------------------ the public interface
    def choose(self, state: State) -> Move:
        """Search from the public state and play the best move found."""
        _pub, moves = self._position(state)
        if len(moves) == 1:
            return moves[0]
        return self.evaluate(state)[0].move

    def evaluate(
        self,
        state: State,
        focus: Iterable[Move] = (),
        min_visits: int = 0,
        *,
        only: Iterable[Move] | None = None,
    ) -> list[MoveStats]:
        """Search and return the root moves that were searched, best first.

        With ``focus`` (the analysis) no candidate is dropped: every candidate, and each
        ``focus`` move, meets the same sampled deals, at least ``min_visits`` of them.
        ``only`` compares exactly those moves (all legal) and no others.
        """
        pub, _moves = self._position(state)
        root = _Node(pub)
        focus = list(focus)
        if only is not None:
            wanted = set(only)
            cands = [i for i, (_s, m) in enumerate(root.moves) if m in wanted]
            while len(root.edges) <= max(cands):
                root.edges.append(_Edge(root.moves[len(root.edges)][0]))
            focus = list(wanted)
        else:
            cands = self._candidates(root, focus)
        means = self._search(
            pub, root, cands, self._oracles(state), halving=not focus, floor=min_visits
        )
        edges = root.edges
        alive = max(edges[i].n for i in cands)
        out = []
        for i in cands:
            e = edges[i]
            if e.n:
                value, win, margin = means[i]
                out.append(MoveStats(root.moves[i][1], e.n, value, win, margin, root.moves[i][0]))
        # the candidates that met every round first, then by mean reward (a near tie goes to
        # the better one-ply score: the sure thing)
        out.sort(key=lambda s: (s.visits < alive, -(s.value + PRIOR * s.prior)))
        return out

    # ------------------------------------------------------------------ internals
    def _position(self, state: State) -> tuple[State, list[Move]]:
        return public_position(state)

    def _oracles(self, state: State) -> Callable[[State], Oracle]:
        rng = self.rng
        return lambda pub: pub.determinize(rng)

    def _candidates(self, root: _Node, focus: list[Move]) -> list[int]:
        """Root moves to compare: the policy's best ``width`` (more with a larger budget)."""
        width = self.width
        if self.work is not None:
            width = max(width, self.work // WORK_PER_CANDIDATE)
        k = min(len(root.moves), width)
        idx = list(range(k))
        idx += [i for i, (_s, m) in enumerate(root.moves) if m in focus and i >= k]
        while len(root.edges) <= max(idx):
            root.edges.append(_Edge(root.moves[len(root.edges)][0]))
        return idx

    def _search(
        self,
        pub: State,
        root: _Node,
        cands: list[int],
        sample: Callable[[State], Oracle],
        *,
        halving: bool,
        floor: int,
    ) -> dict[int, tuple[float, float, float]]:
        """Paired successive halving at the root, a UCT tree with chance nodes below.

        Each round samples one deal and one playout seed and runs one iteration under every
        live candidate with them (the candidates compare on equal terms); below the root move,
        UCT chooses the moves of every seat (each maximises its own reward) and the outcome of
        each capture is the one the sampled deal gives. The worse half of the candidates is
        dropped after 8, 24, 56... rounds (not with ``halving=False``). Returns each searched
        candidate's mean reward, win share and margin (stratified over the mutant's outcome).
        """
        rng = self.rng
        clock = self.clock
        deadline = None if clock is None else clock() + self.think
        work_left = self.work
        noise = self.noise
        mw = self.margin_weight
        c = self.explore
        limit = self.rollout
        alive = list(cands)
        strata = _strata(pub, root, cands) if self.stratify else {}
        split = {i: [0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0] for i in strata}
        mean_field = self.mean_field
        cost = self.mutant_cost
        quiesce = self.quiesce
        rounds = 0
        next_cut = 8
        iterations = 0
        while True:
            oracle = sample(pub)
            seed = rng.getrandbits(64)
            safe = Oracle(oracle.bottom, _NO_MUTANT, _NO_MUTANT) if mean_field else oracle
            met = rounds % STRATUM == STRATUM - 1
            for i in alive:
                st = strata.get(i)
                det = pub.with_oracle(oracle if st is None else _force(pub, oracle, st, met, rng))
                edge = root.edges[i]
                path: list[tuple[_Node, _Edge]] = [(root, edge)]
                outcome = _apply(det, root.moves[i][1])
                plies = 1
                node: _Node | None = None
                if not det.is_terminal():
                    node = _child(edge, outcome, det)
                while node is not None and not det.is_terminal():
                    j = _select(node, c)
                    e = node.edges[j]
                    outcome = _apply(det, node.moves[j][1])
                    plies += 1
                    path.append((node, e))
                    node = None if det.is_terminal() else _child(e, outcome, det)
                if mean_field and not det.is_terminal():
                    det = det.with_oracle(safe)
                    n_plies, charged = _mean_field_playout(
                        det, random.Random(seed), noise, limit, public_odds(det), cost
                    )
                    plies += n_plies
                    totals = [s.total - charged[k] for k, s in enumerate(det.scores())]
                else:
                    plies += policy_playout(det, random.Random(seed), noise, limit)
                    totals = [float(s.total) for s in det.scores()]
                stopped = not det.is_terminal()  # the playout ended before the game did
                if quiesce and stopped:
                    _take_hanging(det, totals)
                rew, wins, margins = rewards(totals, mw, self.soft if stopped else 0.0)
                if st is not None:
                    acc = split[i]
                    k = 0 if met else 4
                    acc[k] += 1
                    acc[k + 1] += rew[pub.to_move]
                    acc[k + 2] += wins[pub.to_move]
                    acc[k + 3] += margins[pub.to_move]
                root.n += 1
                for nd, e in path:
                    p = nd.seat
                    e.n += 1
                    e.reward += rew[p]
                    e.win += wins[p]
                    e.margin += margins[p]
                    if nd is not root:
                        nd.n += 1
                iterations += 1
                if work_left is not None:
                    work_left -= plies + self.iter_cost
            rounds += 1
            if rounds >= floor and (
                (work_left is not None and work_left <= 0)
                or (deadline is not None and clock is not None and clock() >= deadline)
            ):
                break
            if halving and rounds == next_cut and len(alive) > 2:
                alive.sort(
                    key=lambda j: (-_means(root.edges[j], strata.get(j), split.get(j))[0], j)
                )
                alive = alive[: max(2, (len(alive) + 1) // 2)]
                next_cut = 2 * next_cut + 8
        self.last_iterations = iterations
        return {
            i: _means(root.edges[i], strata.get(i), split.get(i)) for i in cands if root.edges[i].n
        }


_NO_MUTANT = [False] * N_SQUARES

Stratum = tuple[float, int, int, int]
"""A root capture that may reveal a mutant: its chance, the card's value, square and layer."""


def _strata(pub: State, root: _Node, cands: list[int]) -> dict[int, Stratum]:
    """The root candidates whose capture may reveal the mutant, with the exact chance."""
    if pub.variant is not Variant.STANDARD:
        return {}
    odds = public_odds(pub)
    top, under = pub.square_codes()
    out: dict[int, Stratum] = {}
    for i in cands:
        q = root.moves[i][1].to
        v = top[q]
        if 0 <= v < 4 and 0.0 < odds[v] < 1.0:
            out[i] = (odds[v], v, q, 0 if under[q] == EMPTY else 1)
    return out


def _force(pub: State, oracle: Oracle, st: Stratum, mutant: bool, rng: random.Random) -> Oracle:
    """``oracle`` conditioned on the stratum's card hiding the mutant of its value, or not.

    The bottoms are independent of where the mutant of a value hides (it is uniform over the
    cards of that value still in the zoo, whose number is public), so moving only the mutant
    flag samples the conditional deal exactly.
    """
    _p, v, q, layer = st
    flags = oracle.mut_top if layer == 1 else oracle.mut_bottom
    if flags[q] == mutant:
        return oracle
    top, under = pub.square_codes()
    # every card of value v still in the zoo, (square, layer), as State.determinize lists them
    cards: list[tuple[int, int]] = []
    for s in range(N_SQUARES):
        t, u = top[s], under[s]
        uv = oracle.bottom[s] if u == UNKNOWN else u
        if 0 <= t < UNKNOWN:
            if u == EMPTY:
                if t == v:
                    cards.append((s, 0))
                continue
            if t == v:
                cards.append((s, 1))
        if u != EMPTY and uv == v:
            cards.append((s, 0))
    mut_top = oracle.mut_top[:]
    mut_bottom = oracle.mut_bottom[:]
    for s, lay in cards:
        (mut_top if lay == 1 else mut_bottom)[s] = False
    if not mutant:
        others = [c for c in cards if c != (q, layer)]
        q, layer = others[int(rng.random() * len(others))]
    (mut_top if layer == 1 else mut_bottom)[q] = True
    return Oracle(oracle.bottom, mut_top, mut_bottom)


def _means(edge: _Edge, st: Stratum | None, acc: list[float] | None) -> tuple[float, float, float]:
    """A root edge's mean reward, win share and margin; stratified by the mutant's outcome."""
    if st is not None and acc is not None and acc[0] and acc[4]:
        p = st[0]
        return (
            p * acc[1] / acc[0] + (1 - p) * acc[5] / acc[4],
            p * acc[2] / acc[0] + (1 - p) * acc[6] / acc[4],
            p * acc[3] / acc[0] + (1 - p) * acc[7] / acc[4],
        )
    n = edge.n
    return edge.reward / n, edge.win / n, edge.margin / n


def _mean_field_playout(
    state: State,
    rng: random.Random,
    noise: float,
    limit: int,
    odds: list[float],
    cost: float,
) -> tuple[int, list[float]]:
    """The noisy one-ply playout on a deal without mutants, for at most ``limit`` plies.

    Each capture of a card that may hide a mutant (``odds``: the chance of each value at the
    leaf) charges its seat ``cost`` times the capturing character's value times that chance.
    Returns the plies played and each seat's charge.
    """
    rand = rng.random
    charged = [0.0] * state.n_seats
    plies = 0
    top, _under = state.square_codes()
    while plies < limit and not state.is_terminal():
        best_m = noisy_best(state, odds, rand, noise)
        assert best_m is not None
        t = top[best_m.to]
        if 0 <= t < 4 and odds[t]:
            cv = best_m.value if isinstance(best_m, Send) else (top[best_m.frm] - CHAR) % 8
            charged[state.to_move] += cost * odds[t] * cv
        state.apply_unchecked(best_m)
        top, _under = state.square_codes()
        plies += 1
    return plies, charged


def _take_hanging(state: State, totals: list[float]) -> None:
    """Where a playout stopped, the seat to move takes the best character left hanging.

    A truncated playout otherwise counts a character that is about to be captured as safe:
    the largest healthy opponent character the seat to move can take next is moved from its
    owner's total to the taker's (a one-move quiescence).
    """
    p = state.to_move
    top, _under = state.square_codes()
    best = 0
    victim = -1
    for v, q in state.on_board(p).items():
        for n in NEIGHBOURS[q]:
            c = top[n]
            if CHAR <= c < MUTANT:
                s, tv = divmod(c - CHAR, 8)
                if s != p and tv <= v and tv > best:
                    best = tv
                    victim = s
    if victim >= 0:
        totals[p] += best
        totals[victim] -= best


def _child(edge: _Edge, outcome: Outcome | None, det: State) -> _Node | None:
    """The node under ``edge`` for this outcome; a new leaf is created and not descended."""
    key: Outcome = outcome if outcome is not None else (-2, False)
    node = edge.children.get(key)
    if node is None:
        edge.children[key] = _Node(det)
        return None
    return node


def _select(node: _Node, c: float) -> int:
    """UCB1 over the node's widened moves (policy order); an untried move first."""
    edges = node.edges
    allowed = min(len(node.moves), WIDEN_BASE + int(WIDEN_RATE * math.sqrt(node.n)))
    while len(edges) < allowed:
        edges.append(_Edge(node.moves[len(edges)][0]))
    for i, e in enumerate(edges):
        if e.n == 0:
            return i
    log_n = math.log(node.n + 1)
    best = 0
    best_u = -1e18
    for i, e in enumerate(edges):
        u = e.reward / e.n + c * math.sqrt(log_n / e.n)
        if u > best_u:
            best_u = u
            best = i
    return best


class PeekBot(ExpertBot):
    """The expert told the hidden deal: for measurement only, never offered for play.

    Handed a state with an oracle (a ``KnownDeal`` game), it searches with the real bottoms and
    mutants; handed a public state it cannot peek and searches like the expert.
    """

    level = "peek"
    peeks = True
    sees_mutants = True

    def _position(self, state: State) -> tuple[State, list[Move]]:
        _pub, moves = public_position(state)
        return state.clone(), moves

    def _oracles(self, state: State) -> Callable[[State], Oracle]:
        oracle = getattr(state, "_oracle", None)
        if oracle is None:
            return super()._oracles(state)
        return lambda _pub: oracle


class _PartPeekBot(ExpertBot):
    """The expert told part of the hidden deal (measurement only): each iteration's deal is
    ``_told(pub, real)``; handed a public state it cannot peek and searches like the expert."""

    peeks = True

    def _oracles(self, state: State) -> Callable[[State], Oracle]:
        real: Oracle | None = getattr(state, "_oracle", None)
        if real is None:
            return super()._oracles(state)
        return lambda pub: self._told(pub, real)

    def _told(self, pub: State, real: Oracle) -> Oracle:
        raise NotImplementedError


class PeekMutantsBot(_PartPeekBot):
    """The expert told only where the four mutants hide: measurement only (``peek-mutants``).

    Each iteration samples the face-down bottoms given that knowledge (a mutant hiding in a
    bottom card fixes that card's value) and uses the real mutant flags. With ``peek-bottoms``
    it splits what the hidden deal is worth into its two parts.
    """

    level = "peek-mutants"
    sees_mutants = True

    def _told(self, pub: State, real: Oracle) -> Oracle:
        known = {q: real.bottom[q] for q in pub.face_down() if real.mut_bottom[q]}
        bottom = pub.determinize(self.rng, known).bottom
        return Oracle(bottom, real.mut_top, real.mut_bottom)


class PeekBottomsBot(_PartPeekBot):
    """The expert told only the face-down bottom cards: measurement only (``peek-bottoms``).

    The mutants are sampled given the real bottoms, and searched as the expert does (stratified
    root, mean-field playouts).
    """

    level = "peek-bottoms"

    def _told(self, pub: State, real: Oracle) -> Oracle:
        return pub.determinize(self.rng, {q: real.bottom[q] for q in pub.face_down()})
