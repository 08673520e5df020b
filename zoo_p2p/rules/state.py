"""The game state: one mutable ``State`` changed by ``apply``, with hidden facts as inputs.

The engine never invents a hidden fact. After a Zoo capture it may need the value of the
bottom card it just exposed and whether the captured card hides the mutant; it then sets
``needs`` and waits for ``reveal``. A ``KnownDeal`` attaches an oracle that answers at once.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zoo_p2p.errors import IllegalMoveError, ZooError
from zoo_p2p.rules.board import (
    CHARACTER_VALUES,
    COPIES_PER_VALUE,
    N_SQUARES,
    NEIGHBOURS,
    NEIGHBOURS4,
    SENDS,
    STEPS,
    Move,
    Send,
    Step,
    Team,
    Variant,
    square_name,
)

# Square codes. Zoo cards are their value 0..4; characters and mutants carry seat and value.
EMPTY = -1
UNKNOWN = 5  # a face-down Zoo card whose value nobody knows yet (only ever under something)
CHAR = 8  # healthy character: CHAR + 8 * seat + value  (11..38)
MUTANT = 40  # mutant: MUTANT + 8 * former seat + value  (43..70)
_N_CODES = 72  # codes -1..70, tables are indexed by code + 1


class RevealError(ZooError, ValueError):
    """A supplied hidden fact that does not answer the question or is impossible."""


def char_code(seat: int, value: int) -> int:
    """Square code of ``seat``'s healthy character worth ``value``."""
    return CHAR + 8 * seat + value


@dataclass(frozen=True, slots=True)
class Needs:
    """Hidden facts the engine needs after a Zoo capture on ``square``.

    ``layer`` is the physical card captured (1 = the square's original top card, 0 = its
    bottom card); ``bottom`` asks the value of the bottom card just exposed; ``mutant_value``
    (when not None) asks whether the captured card of that value hides the mutant.
    """

    square: int
    layer: int
    bottom: bool
    mutant_value: int | None


@dataclass(frozen=True, slots=True)
class Card:
    """What is seen on a square: kind is empty, zoo, unknown, character or mutant."""

    kind: str
    value: int | None = None
    seat: int | None = None

    @classmethod
    def from_code(cls, code: int) -> Card:
        """Describe a square code."""
        if code == EMPTY:
            return cls("empty")
        if code == UNKNOWN:
            return cls("unknown")
        if code < UNKNOWN:
            return cls("zoo", code)
        if code < MUTANT:
            seat, value = divmod(code - CHAR, 8)
            return cls("character", value, seat)
        seat, value = divmod(code - MUTANT, 8)
        return cls("mutant", value, seat)


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One seat's score: Zoo cards + captured characters + own survivors."""

    seat: int
    zoo: int
    characters: int
    survivors: int

    @property
    def total(self) -> int:
        """The seat's total score."""
        return self.zoo + self.characters + self.survivors


class Oracle:
    """The hidden part of a deal: bottom values and each physical card's mutant flag."""

    __slots__ = ("bottom", "mut_bottom", "mut_top")

    def __init__(
        self, bottom: Sequence[int], mut_top: Sequence[bool], mut_bottom: Sequence[bool]
    ) -> None:
        self.bottom = list(bottom)
        self.mut_top = list(mut_top)
        self.mut_bottom = list(mut_bottom)


def _can_take_table() -> list[list[tuple[bool, ...]]]:
    """``TAKE[seat][value][code + 1]``: may seat's character of ``value`` step onto ``code``?"""
    out: list[list[tuple[bool, ...]]] = []
    for seat in range(4):
        per_value: list[tuple[bool, ...]] = []
        for value in range(7):
            row = []
            for code in range(-1, _N_CODES - 1):
                if code in (EMPTY, UNKNOWN):
                    ok = False
                elif code < UNKNOWN or code >= MUTANT:
                    ok = True
                else:
                    s, v = divmod(code - CHAR, 8)
                    ok = s != seat and v <= value
                row.append(ok)
            per_value.append(tuple(row))
        out.append(per_value)
    return out


TAKE = _can_take_table()


class State:
    """A position: board, hands, piles, whose turn, and any hidden fact awaited."""

    __slots__ = (
        "_caps",
        "_hands",
        "_history",
        "_needs",
        "_oracle",
        "_pos",
        "_seen",
        "_term",
        "_to_move",
        "_top",
        "_under",
        "_zoo",
        "_zoo_idx",
        "_zoo_sqs",
        "mutants_found",
        "n_seats",
        "teams",
        "variant",
    )

    teams: tuple[Team, ...]
    n_seats: int
    variant: Variant
    mutants_found: set[int]
    _top: list[int]
    _under: list[int]
    _hands: list[list[int]]
    _pos: list[dict[int, int]]
    _zoo: list[list[int]]
    _caps: list[list[int]]
    _zoo_sqs: list[int]
    _zoo_idx: list[int]
    _seen: list[int]
    _to_move: int
    _needs: Needs | None
    _oracle: Oracle | None
    _term: bool | None
    _history: list[Move]

    @classmethod
    def _fresh(
        cls,
        teams: tuple[Team, ...],
        top_values: list[int],
        variant: Variant,
        first_seat: int,
        oracle: Oracle | None,
        seen: list[int],
    ) -> State:
        s = cls.__new__(cls)
        s.teams = teams
        s.n_seats = len(teams)
        s.variant = variant
        s.mutants_found = set()
        s._top = top_values
        s._under = [UNKNOWN] * N_SQUARES
        s._hands = [[3, 4, 5, 6] for _ in teams]
        s._pos = [{} for _ in teams]
        s._zoo = [[] for _ in teams]
        s._caps = [[] for _ in teams]
        s._zoo_sqs = list(range(N_SQUARES))
        s._zoo_idx = list(range(N_SQUARES))
        s._seen = seen
        s._to_move = first_seat
        s._needs = None
        s._oracle = oracle
        s._term = None
        s._history = []
        return s

    @classmethod
    def new(
        cls,
        teams: Sequence[Team],
        top_values: Sequence[int],
        *,
        variant: Variant = Variant.STANDARD,
        first_seat: int = 0,
        oracle: Oracle | None = None,
    ) -> State:
        """Start a game: one distinct team per seat, the 25 public top values."""
        teams = tuple(Team(t) for t in teams)
        if not 2 <= len(teams) <= 4:
            raise ValueError(f"2 to 4 players, not {len(teams)}")
        if len(set(teams)) != len(teams):
            raise ValueError("each player needs a distinct team")
        if len(top_values) != N_SQUARES or any(v not in range(5) for v in top_values):
            raise ValueError("top_values must be 25 Zoo values 0..4")
        seen = [0] * 5
        for v in top_values:
            seen[v] += 1
        if max(seen) > COPIES_PER_VALUE:
            raise ValueError("more than ten Zoo cards of one value")
        if not 0 <= first_seat < len(teams):
            raise ValueError(f"first seat {first_seat} out of range")
        return cls._fresh(teams, list(top_values), variant, first_seat, oracle, seen)

    # ------------------------------------------------------------------ copying
    def clone(self) -> State:
        """A deep copy (shares the oracle, which is never mutated)."""
        s = State.__new__(State)
        s.teams = self.teams
        s.n_seats = self.n_seats
        s.variant = self.variant
        s.mutants_found = set(self.mutants_found)
        s._top = self._top[:]
        s._under = self._under[:]
        s._hands = [h[:] for h in self._hands]
        s._pos = [dict(p) for p in self._pos]
        s._zoo = [z[:] for z in self._zoo]
        s._caps = [c[:] for c in self._caps]
        s._zoo_sqs = self._zoo_sqs[:]
        s._zoo_idx = self._zoo_idx[:]
        s._seen = self._seen[:]
        s._to_move = self._to_move
        s._needs = self._needs
        s._oracle = self._oracle
        s._term = self._term
        s._history = self._history[:]
        return s

    def public(self) -> State:
        """A copy without hidden facts: what every seat may see."""
        s = self.clone()
        s._oracle = None
        return s

    def view(self, seat: int) -> State:
        """What ``seat`` may see: the public state (hands and piles are open information)."""
        if not 0 <= seat < self.n_seats:
            raise ValueError(f"no seat {seat}")
        return self.public()

    def with_oracle(self, oracle: Oracle) -> State:
        """A copy whose hidden facts are answered by ``oracle`` (for simulations)."""
        s = self.clone()
        s._oracle = oracle
        if s._needs is not None:
            s._answer_from_oracle()
        return s

    @property
    def has_oracle(self) -> bool:
        """True when hidden facts are answered automatically."""
        return self._oracle is not None

    # ------------------------------------------------------------------ inspection
    @property
    def to_move(self) -> int:
        """The seat whose turn it is."""
        return self._to_move

    @property
    def needs(self) -> Needs | None:
        """Hidden facts awaited before play goes on, or None."""
        return self._needs

    @property
    def history(self) -> list[Move]:
        """The moves applied so far."""
        return list(self._history)

    def top(self, sq: int) -> Card:
        """The card on top of square ``sq``."""
        return Card.from_code(self._top[sq])

    def under(self, sq: int) -> Card:
        """The card under the top card of ``sq`` (empty, unknown or a known Zoo card)."""
        return Card.from_code(self._under[sq])

    def hand(self, seat: int) -> list[int]:
        """Values of ``seat``'s characters still in hand."""
        return list(self._hands[seat])

    def on_board(self, seat: int) -> dict[int, int]:
        """``seat``'s healthy characters in the zoo: value -> square."""
        return dict(self._pos[seat])

    def captured_zoo(self, seat: int) -> list[int]:
        """Values of the Zoo cards ``seat`` captured."""
        return list(self._zoo[seat])

    def captured_characters(self, seat: int) -> list[tuple[Team, int, bool]]:
        """Characters ``seat`` captured: (their team, value, was a mutant)."""
        out = []
        for code in self._caps[seat]:
            c = Card.from_code(code)
            assert c.seat is not None and c.value is not None
            out.append((self.teams[c.seat], c.value, c.kind == "mutant"))
        return out

    def zoo_cards_left(self) -> int:
        """How many Zoo cards are still in the zoo (on top or underneath)."""
        return sum(1 for c in self._top if 0 <= c < UNKNOWN) + sum(
            1 for c in self._under if c != EMPTY
        )

    def seen_count(self, value: int) -> int:
        """How many Zoo cards of ``value`` have been seen face up so far."""
        return self._seen[value]

    def square_codes(self) -> tuple[list[int], list[int]]:
        """Raw codes of tops and unders (for fast bots); do not mutate."""
        return self._top, self._under

    # ------------------------------------------------------------------ moves
    def _moves_for(self, p: int) -> list[Move]:
        out: list[Move] = []
        if self._zoo_sqs:
            zsqs = sorted(self._zoo_sqs)
            for v in self._hands[p]:
                sends = SENDS[v]
                out.extend(sends[s] for s in zsqs)
        top = self._top
        steps: list[tuple[int, int]] = []
        for v, sq in self._pos[p].items():
            take = TAKE[p][v]
            steps.extend((sq, n) for n in NEIGHBOURS[sq] if take[top[n] + 1])
        steps.sort()
        out.extend(STEPS[k] for k in steps)
        return out

    def legal_moves(self) -> list[Move]:
        """All legal moves of the seat to move, in a fixed order (sends, then steps)."""
        if self._needs is not None or self.is_terminal():
            return []
        return self._moves_for(self._to_move)

    def _can_act(self, p: int) -> bool:
        if self._hands[p] and self._zoo_sqs:
            return True
        top = self._top
        for v, sq in self._pos[p].items():
            take = TAKE[p][v]
            for n in NEIGHBOURS[sq]:
                if take[top[n] + 1]:
                    return True
        return False

    def is_terminal(self) -> bool:
        """True when the seat to move cannot act: the game is over for everyone."""
        if self._needs is not None:
            return False
        if self._term is None:
            self._term = not self._can_act(self._to_move)
        return self._term

    def check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` saying why ``move`` is illegal now; return if legal."""
        if self._needs is not None:
            raise IllegalMoveError("a hidden card must be revealed before the next move")
        if self.is_terminal():
            raise IllegalMoveError("the game is over")
        p = self._to_move
        team = self.teams[p]
        if isinstance(move, Send):
            v, to = move.value, move.to
            if v not in CHARACTER_VALUES:
                raise IllegalMoveError(f"there is no character worth {v}")
            if not 0 <= to < N_SQUARES:
                raise IllegalMoveError(f"no square number {to}")
            if v not in self._hands[p]:
                raise IllegalMoveError(f"your {v} is not in your hand ({self._where(p, v)})")
            self._check_send_target(to)
        elif isinstance(move, Step):
            frm, to = move.frm, move.to
            if not (0 <= frm < N_SQUARES and 0 <= to < N_SQUARES):
                raise IllegalMoveError("no such square")
            c = Card.from_code(self._top[frm])
            if c.kind != "character" or c.seat != p:
                if c.kind == "mutant" and c.seat == p:
                    raise IllegalMoveError(
                        f"the mutant on {square_name(frm)} is no longer yours and can never move"
                    )
                raise IllegalMoveError(
                    f"{square_name(frm)} does not hold one of your ({team.label}) characters"
                )
            if to not in NEIGHBOURS[frm]:
                raise IllegalMoveError(
                    f"{square_name(frm)} to {square_name(to)} is not one square up, down, "
                    "left or right"
                )
            d = Card.from_code(self._top[to])
            name = square_name(to)
            if d.kind == "empty":
                raise IllegalMoveError(f"{name} is empty: a character cannot move onto nothing")
            if d.kind == "character":
                assert d.seat is not None and d.value is not None and c.value is not None
                if d.seat == p:
                    raise IllegalMoveError(f"{name} holds your own {d.value}")
                if d.value > c.value:
                    raise IllegalMoveError(
                        f"your {c.value} cannot take {self.teams[d.seat].label}'s {d.value} "
                        f"on {name}: it is worth more"
                    )
        else:
            raise IllegalMoveError(f"not a move: {move!r}")

    def _where(self, p: int, v: int) -> str:
        if v in self._pos[p]:
            return f"it is on {square_name(self._pos[p][v])}"
        code = char_code(p, v)
        if any(code in caps for caps in self._caps):
            return "it was captured"
        if MUTANT + 8 * p + v in self._top or any(MUTANT + 8 * p + v in c for c in self._caps):
            return "it mutated"
        return "it is not in play"

    def _check_send_target(self, to: int) -> None:
        d = Card.from_code(self._top[to])
        name = square_name(to)
        if d.kind == "empty":
            raise IllegalMoveError(f"{name} is empty: send onto a square showing a Zoo card")
        if d.kind == "character":
            assert d.seat is not None
            raise IllegalMoveError(
                f"{name} holds {self.teams[d.seat].label}'s {d.value}: a character can only be "
                "sent onto a Zoo card (move onto a character to take it)"
            )
        if d.kind == "mutant":
            raise IllegalMoveError(
                f"{name} holds a mutant: it can only be taken by moving onto it, never by a send"
            )

    def apply(self, move: Move) -> None:
        """Play ``move`` for the seat to move; raises ``IllegalMoveError`` saying why if illegal."""
        self.check(move)
        self.apply_unchecked(move)

    def apply_unchecked(self, move: Move) -> None:
        """Play a move known to be legal (fast path for search)."""
        p = self._to_move
        if isinstance(move, Send):
            self._send(p, move.value, move.to)
        else:
            self._step(p, move.frm, move.to)
        self._history.append(move)

    # internal move execution ---------------------------------------------------
    def _send(self, p: int, v: int, to: int) -> None:
        self._hands[p].remove(v)
        self._capture_zoo(p, v, to)

    def _step(self, p: int, frm: int, to: int) -> None:
        top = self._top
        under = self._under
        mover = top[frm]
        v = mover - CHAR - 8 * p
        # leave frm: whatever was underneath shows
        below = under[frm]
        top[frm] = below
        under[frm] = EMPTY
        if 0 <= below < UNKNOWN:
            self._zoo_idx[frm] = len(self._zoo_sqs)
            self._zoo_sqs.append(frm)
        target = top[to]
        if target < UNKNOWN:
            self._capture_zoo(p, v, to)
            return
        # a character or a mutant
        self._caps[p].append(target)
        if target < MUTANT:
            s, tv = divmod(target - CHAR, 8)
            del self._pos[s][tv]
        top[to] = mover
        self._pos[p][v] = to
        self._end_turn()

    def _capture_zoo(self, p: int, v: int, sq: int) -> None:
        top = self._top
        under = self._under
        zv = top[sq]
        self._zoo[p].append(zv)
        # remove sq from the zoo-topped squares
        zs = self._zoo_sqs
        zi = self._zoo_idx
        i = zi[sq]
        last = zs.pop()
        if last != sq:
            zs[i] = last
            zi[last] = i
        zi[sq] = -1
        top[sq] = CHAR + 8 * p + v
        self._pos[p][v] = sq
        u = under[sq]
        need_mutant = zv < 4 and self.variant is Variant.STANDARD and zv not in self.mutants_found
        o = self._oracle
        if o is not None:
            # fast path: answer the hidden facts at once
            if u == UNKNOWN:
                b = o.bottom[sq]
                under[sq] = b
                self._seen[b] += 1
            if need_mutant and (o.mut_top[sq] if u != EMPTY else o.mut_bottom[sq]):
                del self._pos[p][v]
                top[sq] = MUTANT + 8 * p + v
                self.mutants_found.add(zv)
        elif u == UNKNOWN or need_mutant:
            self._needs = Needs(
                sq, 1 if u != EMPTY else 0, u == UNKNOWN, zv if need_mutant else None
            )
            self._term = None
            return
        self._to_move = (p + 1) % self.n_seats
        self._term = None

    def _answer_from_oracle(self) -> None:
        n = self._needs
        o = self._oracle
        assert n is not None and o is not None
        bottom = o.bottom[n.square] if n.bottom else None
        mutant = None
        if n.mutant_value is not None:
            mutant = o.mut_top[n.square] if n.layer == 1 else o.mut_bottom[n.square]
        self._resolve(n, bottom, mutant)

    def _end_turn(self) -> None:
        self._to_move = (self._to_move + 1) % self.n_seats
        self._term = None

    def reveal(self, *, bottom: int | None = None, mutant: bool | None = None) -> None:
        """Supply the hidden facts that ``needs`` asks for; ``RevealError`` if they do not fit."""
        n = self._needs
        if n is None:
            raise RevealError("no hidden card is awaited")
        if n.bottom != (bottom is not None):
            raise RevealError(
                f"the bottom card of {square_name(n.square)} "
                + ("must be given" if n.bottom else "was not asked for")
            )
        if (n.mutant_value is not None) != (mutant is not None):
            raise RevealError(
                "the mutant flag " + ("must be given" if mutant is None else "was not asked for")
            )
        if bottom is not None:
            if bottom not in range(5):
                raise RevealError(f"a Zoo card is worth 0..4, not {bottom}")
            if self._seen[bottom] >= COPIES_PER_VALUE:
                raise RevealError(f"an eleventh Zoo card worth {bottom} cannot exist")
        v = n.mutant_value
        if v is not None and mutant is False:
            # One copy of each value 0..3 hides the mutant: if every copy of v has now been turned
            # over (all ten captured, the mutant still unfound), this last one must be it.
            turned = sum(z.count(v) for z in self._zoo)
            if turned >= COPIES_PER_VALUE:
                raise RevealError(
                    f"the last Zoo card worth {v} to be turned over must hide the mutant"
                )
        self._resolve(n, bottom, mutant)

    def _resolve(self, n: Needs, bottom: int | None, mutant: bool | None) -> None:
        sq = n.square
        if bottom is not None:
            self._under[sq] = bottom
            self._seen[bottom] += 1
        if mutant:
            p = self._to_move
            code = self._top[sq]
            v = code - CHAR - 8 * p
            del self._pos[p][v]
            self._top[sq] = MUTANT + 8 * p + v
            assert n.mutant_value is not None
            self.mutants_found.add(n.mutant_value)
        self._needs = None
        self._end_turn()

    # ------------------------------------------------------------------ scoring
    def scores(self) -> list[ScoreLine]:
        """Each seat's score breakdown (meaningful at any time, final when terminal)."""
        out = []
        for p in range(self.n_seats):
            chars = sum((c - CHAR) % 8 if c < MUTANT else (c - MUTANT) % 8 for c in self._caps[p])
            surv = sum(self._hands[p]) + sum(self._pos[p])
            out.append(ScoreLine(p, sum(self._zoo[p]), chars, surv))
        return out

    def winners(self) -> list[int]:
        """Seats with the highest total (a tie is a shared win)."""
        totals = [s.total for s in self.scores()]
        best = max(totals)
        return [p for p, t in enumerate(totals) if t == best]

    def digest(self) -> bytes:
        """SHA-256 of the canonical public state (no hidden facts)."""
        b = bytearray()
        b += bytes([self.n_seats, *self.teams, self.variant is Variant.GENERAL, self._to_move])
        b += bytes(c + 1 for c in self._top)
        b += bytes(c + 1 for c in self._under)
        for seq in (*self._hands, *self._zoo, *self._caps):
            b += bytes([255, *seq])
        b += bytes([254, *sorted(self.mutants_found)])
        n = self._needs
        if n is not None:
            mv = 255 if n.mutant_value is None else n.mutant_value
            b += bytes([253, n.square, n.layer, n.bottom, mv])
        return hashlib.sha256(bytes(b)).digest()

    # ------------------------------------------------------------------ simulations
    def face_down(self) -> list[int]:
        """The squares whose bottom card is still face down (its value known to nobody)."""
        under = self._under
        return [q for q in range(N_SQUARES) if under[q] == UNKNOWN]

    def determinize(self, rng: random.Random, known: Mapping[int, int] | None = None) -> Oracle:
        """Sample hidden facts consistent with everything public (uniform over such deals).

        ``known`` fixes the value of some face-down bottom cards (square -> value; for the
        arena's measurement bots, which are told part of the deal): the other bottoms and the
        mutants are sampled uniformly given those. ``ValueError`` if it names a square that is
        not face down or more copies of a value than are hidden.
        """
        top, under = self._top, self._under
        remaining: list[int] = []
        for v in range(5):
            remaining += [v] * (COPIES_PER_VALUE - self._seen[v])
        hidden = self.face_down()
        bottom = [0] * N_SQUARES
        if known:
            for q, v in known.items():
                if q not in hidden or v not in remaining:
                    raise ValueError(f"square {q} cannot hold a hidden {v} here")
                remaining.remove(v)
                bottom[q] = v
            hidden = [q for q in hidden if q not in known]
        rng.shuffle(remaining)
        for q, v in zip(hidden, remaining, strict=False):
            bottom[q] = v
        mut_top = [False] * N_SQUARES
        mut_bottom = [False] * N_SQUARES
        if self.variant is Variant.STANDARD:
            # every Zoo card still in the zoo: (value, square, layer)
            cands: list[list[tuple[int, int]]] = [[] for _ in range(4)]
            for q in range(N_SQUARES):
                t, u = top[q], under[q]
                if 0 <= t < UNKNOWN:
                    if u == EMPTY:
                        if t < 4:
                            cands[t].append((q, 0))
                    else:
                        if t < 4:
                            cands[t].append((q, 1))
                        uv = bottom[q] if u == UNKNOWN else u
                        if uv < 4:
                            cands[uv].append((q, 0))
                elif u != EMPTY:
                    uv = bottom[q] if u == UNKNOWN else u
                    if uv < 4:
                        cands[uv].append((q, 0))
            for v in range(4):
                if v in self.mutants_found or not cands[v]:
                    continue
                q, layer = cands[v][int(rng.random() * len(cands[v]))]
                (mut_top if layer == 1 else mut_bottom)[q] = True
        return Oracle(bottom, mut_top, mut_bottom)

    def playout(self, rng: random.Random, max_plies: int = 1000) -> None:
        """Play uniformly random legal moves to the end (needs an oracle for hidden facts).

        The fast path for search: one inlined loop. Candidate moves are drawn uniformly from
        (hand x Zoo-topped squares) + (characters x 4 directions) and illegal steps rejected,
        which keeps the choice uniform over the legal moves; after a few rejections it falls
        back to the full move list. Tests check it against the checked ``apply`` path.
        """
        o = self._oracle
        if o is None or self._needs is not None:
            raise ZooError("a playout needs the hidden facts: use a KnownDeal or with_oracle()")
        rand = rng.random
        top, under = self._top, self._under
        zoo_sqs, zoo_idx = self._zoo_sqs, self._zoo_idx
        hands, poss, zoo, caps = self._hands, self._pos, self._zoo, self._caps
        seen, found, history = self._seen, self.mutants_found, self._history
        o_bottom, o_mut_top, o_mut_bottom = o.bottom, o.mut_top, o.mut_bottom
        std = self.variant is Variant.STANDARD
        n = self.n_seats
        p = self._to_move
        terminal = False
        for _ in range(max_plies):
            hand = hands[p]
            pos = poss[p]
            nz = len(zoo_sqs)
            ns = len(hand) * nz
            total = ns + 4 * len(pos)
            if total == 0:
                terminal = True
                break
            items = None
            kind = 0
            v = sq = frm = 0
            for _attempt in range(6):
                r = int(rand() * total)
                if r < ns:
                    v = hand[r // nz]
                    sq = zoo_sqs[r % nz]
                    hand.remove(v)
                    history.append(SENDS[v][sq])
                    kind = 1
                    break
                r -= ns
                if items is None:
                    items = list(pos.items())
                v, frm = items[r >> 2]
                sq = NEIGHBOURS4[frm][r & 3]
                if sq >= 0 and TAKE[p][v][top[sq] + 1]:
                    history.append(STEPS[frm, sq])
                    kind = 2
                    break
            if kind == 0:
                self._to_move = p
                moves = self._moves_for(p)
                if not moves:
                    terminal = True
                    break
                self.apply_unchecked(moves[int(rand() * len(moves))])
                p = self._to_move
                continue
            if kind == 2:
                mover = top[frm]
                below = under[frm]
                top[frm] = below
                under[frm] = EMPTY
                if 0 <= below < UNKNOWN:
                    zoo_idx[frm] = len(zoo_sqs)
                    zoo_sqs.append(frm)
                target = top[sq]
                if target > UNKNOWN:  # a character or a mutant
                    caps[p].append(target)
                    if target < MUTANT:
                        ts, tv = divmod(target - CHAR, 8)
                        del poss[ts][tv]
                    top[sq] = mover
                    pos[v] = sq
                    p = (p + 1) % n
                    continue
            # a Zoo capture on sq by p's character worth v
            zv = top[sq]
            zoo[p].append(zv)
            i = zoo_idx[sq]
            last = zoo_sqs.pop()
            if last != sq:
                zoo_sqs[i] = last
                zoo_idx[last] = i
            zoo_idx[sq] = -1
            u = under[sq]
            if u == UNKNOWN:
                b = o_bottom[sq]
                under[sq] = b
                seen[b] += 1
                mutant = o_mut_top[sq]
            else:
                mutant = o_mut_bottom[sq]
            if mutant and std and zv < 4 and zv not in found:
                top[sq] = MUTANT + 8 * p + v
                found.add(zv)
                if kind == 2:
                    del pos[v]
            else:
                top[sq] = CHAR + 8 * p + v
                pos[v] = sq
            p = (p + 1) % n
        self._to_move = p
        self._term = True if terminal else None
