"""Text that came from a peer or a file, made safe to show, and the one way seats are named.

Every string a peer or a file supplies (a name, a reason, an entry kind, a path) is *data*: it is
never parsed as Rich markup and never allowed to move the cursor or change colours in a terminal.
Front-ends put such strings into the screen only through `shown()` and, for Rich, only inside a
`rich.text.Text` (never an f-string handed to `console.print`).
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "LEGEND",
    "LEGEND_LINES",
    "ZOO_WORDS",
    "hid_mutant",
    "lobby_waiting",
    "mutant_killed",
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


def on_leave_notice(play_on: bool) -> str:
    """What a seat of a 3–4 seat game is told before it signs anything: the genesis' table rule
    (PROTOCOL.md §10.7.1).

    >>> on_leave_notice(False)
    'table rule: if a seat stops answering, the game ends (it loses)'
    """
    if play_on:
        return (
            "table rule: if a seat stops answering, the others re-deal what nobody has seen and "
            "play on"
        )
    return "table rule: if a seat stops answering, the game ends (it loses)"


def out_note(at: int) -> str:
    """How a seat put out by a claim that played on is marked wherever seats are listed
    (PROTOCOL.md §10.7).

    >>> out_note(37)
    'out at entry 37, a stand-in plays on'
    """
    return f"out at entry {at}, a stand-in plays on"


def resigned_note(at: int) -> str:
    """How a seat that resigned at 3–4 seats is marked wherever seats are listed: its stand-in
    plays on (PROTOCOL.md §10.4), as for a seat put out by a claim (`out_note`).

    >>> resigned_note(52)
    'resigned at entry 52, a stand-in plays on'
    """
    return f"resigned at entry {at}, a stand-in plays on"


def replaced_notice(at: int) -> str:
    """What a seat that comes back is told when a claim that played on put it out (PROTOCOL.md
    §10.7): once, in one line.

    >>> replaced_notice(48).split(":")[0]
    'you were replaced at entry 48'
    """
    return (
        f"you were replaced at entry {at}: the others claimed your seat and a stand-in plays it "
        "on (you keep your points, you cannot win); you can watch, not play"
    )


def on_leave_line(rule: str) -> str:
    """How `zoo verify` and `zoo replay` say a game's table rule (PROTOCOL.md §10.7.1).

    >>> on_leave_line("end")
    'on leave: end (a claim against a seat that stops answering ends the game)'
    """
    if rule == "play-on":
        return (
            "on leave: play-on (a seat that stops answering is replaced by a stand-in; the others "
            "re-deal and play on)"
        )
    return "on leave: end (a claim against a seat that stops answering ends the game)"


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


LEGEND_LINES = (
    ("3 ?", "a 3 (3 zombies) over a hidden card"),
    ("Y5 2", "Yellow's 5 (a character) standing on a 2"),
    ("M4", "a mutant character: it was a 4, belongs to nobody, and scores 4 for whoever takes it"),
    ("2*", "a 2 that hides the mutant (only in the hidden deal: replay, end screen, HTML)"),
    ("·", "an empty square"),
)
"""The one notation of a square, and what each code means: the board, the line mode, the replay,
the end screen, the HTML page and the text record all write cards this way. `M` is always
followed by the mutant character's own value (3-6, what it scores when taken), never by the Zoo
card that turned it; a Zoo card that hid the mutant is its value and `*`."""

LEGEND = "; ".join(f"{code} = {words}" for code, words in LEGEND_LINES)
"""The legend on one line (line mode, exports)."""


def hid_mutant(value: int) -> str:
    """The code of a Zoo card of ``value`` that hid the mutant, in every view of the deal.

    >>> hid_mutant(2)
    '2*'
    """
    return f"{shown(value, 8)}*"


def mutant_killed(value: int) -> str:
    """What taking a mutant character is called, with what it scores (its own value), in every
    front end.

    >>> mutant_killed(5)
    'the mutant (it was a 5: +5)'
    """
    v = shown(value, 8)
    return f"the mutant (it was a {v}: +{v})"
