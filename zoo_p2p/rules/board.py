"""Squares, teams, variants and the move notation.

Squares are ints 0..24: columns A..E, rows 1..5, ``sq = (row - 1) * 5 + col``.

>>> square_name(12)
'C3'
>>> parse_move("5@c3")
Send(value=5, to=12)
>>> move_name(parse_move("c3 c4"))
'C3-C4'

``move_name`` is the one way a move is written, for people (every front end, export and
analysis) and in the logs alike; ``parse_move`` reads back everything it writes.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from zoo_p2p.errors import NotationError

SIZE = 5
N_SQUARES = SIZE * SIZE
COLUMNS = "ABCDE"
CHARACTER_VALUES = (3, 4, 5, 6)
ZOO_VALUES = (0, 1, 2, 3, 4)
COPIES_PER_VALUE = 10


class Variant(enum.Enum):
    """The standard game, or the General variant (no mutants)."""

    STANDARD = "standard"
    GENERAL = "general"


class Team(enum.IntEnum):
    """The four teams; each has characters worth 3, 4, 5 and 6."""

    YELLOW = 0
    BLUE = 1
    GREEN = 2
    RED = 3

    @property
    def label(self) -> str:
        """Capitalised colour name, e.g. ``'Yellow'``."""
        return self.name.capitalize()

    @property
    def colour(self) -> str:
        """The rich colour used to draw this team."""
        return ("yellow", "blue", "green", "red")[self.value]

    @property
    def faction(self) -> str:
        """The team's faction in the rulebook."""
        return ("Military", "Natives", "Natives", "Blackwood gang")[self.value]

    @classmethod
    def parse(cls, text: str) -> Team:
        """Parse a team name (``yellow``, ``Y``, ...)."""
        t = text.strip().lower()
        for team in cls:
            if team.name.lower() == t or team.name.lower()[0] == t:
                return team
        raise NotationError(f"unknown team {text!r}: use yellow, blue, green or red")


def square_name(sq: int) -> str:
    """Name of a square, e.g. 12 -> 'C3'."""
    if not 0 <= sq < N_SQUARES:
        raise NotationError(f"no square number {sq}")
    return f"{COLUMNS[sq % SIZE]}{sq // SIZE + 1}"


_SQUARE_RE = re.compile(r"^([A-Ea-e])([1-5])$")


def parse_square(text: str) -> int:
    """Parse a square name ('C3', 'c3') into 0..24."""
    m = _SQUARE_RE.match(text.strip())
    if not m:
        raise NotationError(f"{text.strip()!r} is not a square: columns A-E, rows 1-5, e.g. C3")
    return (int(m.group(2)) - 1) * SIZE + COLUMNS.index(m.group(1).upper())


def _neighbours4(sq: int) -> tuple[int, int, int, int]:
    """Up, down, left, right neighbour of ``sq`` (row 1 is the top row), -1 when off the board."""
    r, c = divmod(sq, SIZE)
    return (
        sq - SIZE if r > 0 else -1,
        sq + SIZE if r < SIZE - 1 else -1,
        sq - 1 if c > 0 else -1,
        sq + 1 if c < SIZE - 1 else -1,
    )


NEIGHBOURS4: tuple[tuple[int, int, int, int], ...] = tuple(
    _neighbours4(s) for s in range(N_SQUARES)
)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(n for n in ns if n >= 0)) for ns in NEIGHBOURS4
)


@dataclass(frozen=True, slots=True)
class Send:
    """Send the character worth ``value`` from your hand onto square ``to``."""

    value: int
    to: int

    def __str__(self) -> str:
        return move_name(self)


@dataclass(frozen=True, slots=True)
class Step:
    """Move your character on square ``frm`` one square orthogonally onto ``to``."""

    frm: int
    to: int

    def __str__(self) -> str:
        return move_name(self)


Move = Send | Step


def move_name(move: Move) -> str:
    """A move in notation, as a person types it: ``5@C3`` (send) or ``C3-C4`` (step); ASCII.

    Every front end writes moves with this one function, so the app, the line mode, a replay,
    an export and an analysis show the same move the same way, and ``parse_move`` reads it back.

    >>> move_name(Send(5, 12)), move_name(Step(12, 13))
    ('5@C3', 'C3-D3')
    """
    if isinstance(move, Send):
        return f"{move.value}@{square_name(move.to)}"
    return f"{square_name(move.frm)}-{square_name(move.to)}"


EXAMPLES = "e.g. 5@C3 (send your 5 onto C3) or C3-C4 (move the character on C3 to C4)"

_SEND_RE = re.compile(r"^([0-9])\s*[@>:\s]?\s*([A-Za-z][0-9])$")
_STEP_RE = re.compile(r"^([A-Za-z][0-9])\s*(?:-|>|\s)?\s*([A-Za-z][0-9])$")


def parse_move(text: str) -> Move:
    """Parse a move: ``5@C3`` (send) or ``C3-C4`` (step); case and separators are lenient."""
    t = text.strip()
    if not t:
        raise NotationError(f"empty move: type a move, {EXAMPLES}")
    m = _SEND_RE.match(t)
    if m:
        value = int(m.group(1))
        if value not in CHARACTER_VALUES:
            raise NotationError(
                f"{t!r}: characters are worth 3, 4, 5 or 6, not {value}; {EXAMPLES}"
            )
        return SENDS[value][_square_or_explain(m.group(2), t)]
    m = _STEP_RE.match(t)
    if m:
        frm = _square_or_explain(m.group(1), t)
        to = _square_or_explain(m.group(2), t)
        if to not in NEIGHBOURS[frm]:
            raise NotationError(
                f"{t!r}: {square_name(frm)} to {square_name(to)} is not one square up, down, "
                f"left or right; {EXAMPLES}"
            )
        return STEPS[frm, to]
    raise NotationError(f"{t!r} is not a move; {EXAMPLES}")


def _square_or_explain(sq: str, whole: str) -> int:
    try:
        return parse_square(sq)
    except NotationError:
        raise NotationError(
            f"{whole!r}: {sq!r} is not a square (columns A-E, rows 1-5); {EXAMPLES}"
        ) from None


# Interned move objects: the engine hands these out instead of building new ones.
SENDS: dict[int, tuple[Send, ...]] = {
    v: tuple(Send(v, s) for s in range(N_SQUARES)) for v in CHARACTER_VALUES
}
STEPS: dict[tuple[int, int], Step] = {
    (s, n): Step(s, n) for s in range(N_SQUARES) for n in NEIGHBOURS[s]
}
