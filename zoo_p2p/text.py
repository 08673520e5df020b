"""Text that came from a peer or a file, made safe to show, and the one way seats are named.

Every string a peer or a file supplies (a name, a reason, an entry kind, a path) is *data*: it is
never parsed as Rich markup and never allowed to move the cursor or change colours in a terminal.
Front-ends put such strings into the screen only through `shown()` and, for Rich, only inside a
`rich.text.Text` (never an f-string handed to `console.print`).
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "ZOO_WORDS",
    "lobby_waiting",
    "mutant_words",
    "seat_word",
    "shown",
    "uncovered",
    "zoo_card_words",
]

# Unicode categories that can never appear on screen as themselves: controls, format characters
# (bidi overrides, zero-width joiners), surrogates, private use, unassigned, line/paragraph seps.
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def shown(text: object, limit: int = 200) -> str:
    """`text` as a single printable line: hidden characters become `\\uXXXX`, long text is cut.

    >>> shown("[b]x[/b]")
    '[b]x[/b]'
    >>> shown("a\\x1b[31mb")
    'a\\\\u001b[31mb'
    >>> shown("x" * 10, limit=4)
    'xxxx…'
    """
    s = text if isinstance(text, str) else str(text)
    out: list[str] = []
    size = 0
    for ch in s:
        if unicodedata.category(ch) in _HIDDEN:
            piece = f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"
        else:
            piece = ch
        if size + len(piece) > limit:
            out.append("…")
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def seat_word(index: int, team_label: str | None = None) -> str:
    """How every screen, message and report names a seat: numbered from 1, with its team.

    Wire formats and JSON carry the 0-based index; people always read `seat 1` for index 0.

    >>> seat_word(0, "Yellow")
    'seat 1 (Yellow)'
    >>> seat_word(2)
    'seat 3'
    """
    return f"seat {index + 1}" if team_label is None else f"seat {index + 1} ({team_label})"


HINTS_ALLOWED = "hints are allowed at this table (every seat may ask the expert)"
"""What a seat is told before it signs anything in a game whose genesis allows hints
(PROTOCOL.md §3.2), and what the lobby says."""


def must_prove(name: str, fingerprint: str) -> str:
    """What a player who picked a listed LAN game is told: the advert's name and fingerprint
    are anyone's to forge, so the host must prove the fingerprint (its signed welcome, checked
    before we take a seat). Both are shown through `shown`.

    >>> must_prove("Ann's game", "AAAA-BBBB-CCCC-DDDD")
    "joining Ann's game — the host must prove fingerprint AAAA-BBBB-CCCC-DDDD"
    """
    return f"joining {shown(name, 32)} — the host must prove fingerprint {shown(fingerprint, 40)}"


HINTS_ALLOWED_LINE = "hints: allowed (every seat agreed in the genesis)"
"""How `zoo verify` and `zoo replay` say that a game's genesis allowed hints."""

HINTS_ADVERT = "hints: allowed (every seat may ask the expert; --no-hints refuses them)"
"""How a game found on the LAN whose advert says it allows hints is shown before joining (the
advert only points: the host's signed welcome and the genesis are what the joiner checks)."""

HINTS_WERE_ALLOWED = "hints were allowed at this table (every seat agreed in the genesis)"
"""How an exported game (HTML, text) says that its genesis allowed hints."""


def lobby_waiting(taken: int, need: int) -> str:
    """What a lobby of ``taken`` of ``need`` seats waits for, in every front end.

    >>> lobby_waiting(2, 3)
    'waiting for 1 more player to join (the game starts when every seat is taken)'
    >>> lobby_waiting(3, 3)
    'every seat is taken: the game is starting'
    """
    left = need - taken
    if left <= 0:
        return "every seat is taken: the game is starting"
    players = "player" if left == 1 else "players"
    return f"waiting for {left} more {players} to join (the game starts when every seat is taken)"


ZOO_WORDS = {0: "an empty place", 1: "1 zombie", 2: "2 zombies", 3: "3 zombies", 4: "an animal"}
"""What a Zoo card of each value shows, in every front end's sentences."""


def zoo_card_words(value: int) -> str:
    """A Zoo card in words, the one way every front end says it.

    >>> zoo_card_words(3)
    'a 3 (3 zombies)'
    >>> zoo_card_words(4)
    'a 4 (an animal)'
    """
    words = ZOO_WORDS.get(value)
    return f"a {shown(value, 8)}" + (f" ({words})" if words else "")


def uncovered(value: int) -> str:
    """How every front end (line mode, app, replay, exports) says that a capture uncovered the
    bottom card of the square it took: one wording, right after the move (in the same sentence
    or on the next line), so the square is the move's own.

    >>> uncovered(2)
    'under it: a 2 (2 zombies)'
    """
    return f"under it: {zoo_card_words(value)}"


def mutant_words(value: int, is_mutant: bool, lost: str = "the character") -> str:
    """How every front end says whether the Zoo card of ``value`` just taken hid the mutant,
    and what a mutant cost (``lost``: "your 5", "their 5", or who took it unsaid).

    >>> mutant_words(2, False)
    'the 2 was not a mutant'
    >>> mutant_words(0, True, "their 5")
    'the 0 was a MUTANT: their 5 is lost'
    """
    if not is_mutant:
        return f"the {shown(value, 8)} was not a mutant"
    return f"the {shown(value, 8)} was a MUTANT: {lost} is lost"
