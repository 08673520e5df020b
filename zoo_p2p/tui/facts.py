"""What the screens say about a position, computed from public state only (no textual here).

Glyphs for UTF-8 and ASCII terminals, the exact chance that a Zoo card hides a mutant, the cell
text of a square, hints for legal targets, and the narration of a move.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rich.text import Text

from zoo_p2p.rules import Card, Move, Send, State, Team, Variant, move_name, square_name
from zoo_p2p.rules.board import COPIES_PER_VALUE
from zoo_p2p.text import ZOO_WORDS, mutant_killed, mutant_words, shown, uncovered


@dataclass(frozen=True)
class Glyphs:
    """The few non-letter characters the screens draw, in UTF-8 or plain ASCII."""

    turn: str
    empty: str
    online: str
    offline: str
    arrow: str
    dash: str
    h: str
    v: str
    tl: str
    tm: str
    tr: str
    ml: str
    mm: str
    mr: str
    bl: str
    bm: str
    br: str
    sep: str
    ascii: bool


UTF8 = Glyphs(
    "▶",
    "·",
    "●",
    "○",
    "→",
    "—",
    "─",
    "│",
    "┌",
    "┬",
    "┐",
    "├",
    "┼",
    "┤",
    "└",
    "┴",
    "┘",
    " · ",
    False,
)
ASCII = Glyphs(
    ">",
    ".",
    "*",
    "o",
    "->",
    "-",
    "-",
    "|",
    "+",
    "+",
    "+",
    "+",
    "+",
    "+",
    "+",
    "+",
    "+",
    " | ",
    True,
)


def glyphs_for(encoding: str | None) -> Glyphs:
    """UTF-8 glyphs when ``encoding`` can encode them all, else ASCII.

    >>> glyphs_for("utf-8").ascii, glyphs_for("ascii").ascii, glyphs_for(None).ascii
    (False, True, True)
    """
    if not encoding:
        return ASCII
    try:
        codecs.lookup(encoding)
        "".join(str(getattr(UTF8, f)) for f in UTF8.__dataclass_fields__ if f != "ascii").encode(
            encoding
        )
    except (LookupError, UnicodeEncodeError):
        return ASCII
    return UTF8


def locale_utf8(env: Mapping[str, str]) -> bool:
    """False when the locale the user set is C/POSIX or names a charset other than UTF-8
    (Python turns LANG=C into C.UTF-8 for itself; the terminal still cannot show UTF-8).

    >>> locale_utf8({"LANG": "C"}), locale_utf8({"LANG": "en_GB.UTF-8"}), locale_utf8({})
    (False, True, True)
    """
    lc_all, lc_ctype, lang = (env.get(k, "") for k in ("LC_ALL", "LC_CTYPE", "LANG"))
    if not lc_all and lc_ctype == "C.UTF-8" and lang in ("C", "POSIX"):
        return False
    value = lc_all or lc_ctype or lang
    if value in ("C", "POSIX"):
        return False
    if "." in value:
        charset = value.split(".", 1)[1].split("@", 1)[0].replace("-", "").lower()
        return charset == "utf8"
    return True


def turned(state: State) -> list[int]:
    """How many Zoo cards of each value 0..4 have been captured (and so turned over)."""
    out = [0] * 5
    for seat in range(state.n_seats):
        for v in state.captured_zoo(seat):
            out[v] += 1
    return out


def mutant_chance(state: State, value: int) -> Fraction:
    """The exact chance that capturing a Zoo card of ``value`` now reveals the mutant.

    Exactly one of the ten copies of each value 0..3 hides the mutant, equally likely any of
    them as far as anyone can tell; captured copies were turned over, so until it is found the
    mutant hides under one of the unturned copies: the chance is 1 in (10 - turned).
    """
    if state.variant is Variant.GENERAL or value >= 4 or value in state.mutants_found:
        return Fraction(0)
    left = COPIES_PER_VALUE - turned(state)[value]
    return Fraction(1, left) if left > 0 else Fraction(0)


def chance_words(p: Fraction) -> str:
    """'1 in 9 (11%)' or 'none'."""
    if p == 0:
        return "none"
    return f"{p.numerator} in {p.denominator} ({float(p):.0%})"


# what a card shows, by kind: its code on the board and its words in sentences
_CODES = {"zoo": "{value}", "character": "{initial}{value}", "mutant": "M{value}", "unknown": "?"}
_WORDS = {
    "zoo": "a {value} ({zoo})",
    "character": "{team}'s {value}",
    "mutant": "the mutant (it was a {value})",
    "unknown": "a hidden card",
}


def _card_form(forms: dict[str, str], state: State, card: Card, empty: str) -> str:
    """The form for the card's kind filled in with its value and team, else `empty`."""
    form = forms.get(card.kind)
    if form is None:
        return empty
    team = state.teams[card.seat] if card.seat is not None else None
    return form.format(
        value=card.value,
        initial=team.name[0] if team is not None else "",
        team=team.label if team is not None else "",
        zoo=ZOO_WORDS.get(card.value, "") if card.value is not None else "",
    )


def card_code(state: State, card: Card) -> str:
    """Short code of a card: '3', 'Y5', 'M4', '?', or '' for empty."""
    return _card_form(_CODES, state, card, "")


def card_words(state: State, card: Card, names: Sequence[str] | None = None) -> str:
    """A card in words: 'a 2 (2 zombies)', "Blue's 4", 'the mutant (it was a 5)'."""
    return _card_form(_WORDS, state, card, "nothing")


def seat_name(state: State, seat: int, names: Sequence[str]) -> str:
    """'you (Yellow)' or 'greedy bot 1 (Blue)' (names are peer-supplied: made safe)."""
    return f"{shown(names[seat], 40)} ({state.teams[seat].label})"


def seat_text(state: State, seat: int, names: Sequence[str]) -> Text:
    """The seat's name in its team colour, as data (never markup)."""
    return Text(seat_name(state, seat, names), style=f"bold {state.teams[seat].colour}")


def square_words(state: State, sq: int, names: Sequence[str]) -> str:
    """What stands on a square, in words."""
    top, under = state.top(sq), state.under(sq)
    if top.kind == "empty":
        return f"{square_name(sq)}: empty"
    s = f"{square_name(sq)}: {card_words(state, top, names)}"
    if top.kind == "character" and top.seat is not None:
        who = shown(names[top.seat], 40)
        s += " (yours)" if who == "you" else f" ({who})"
    if under.kind == "unknown":
        s += " over a hidden card"
    elif under.kind == "zoo":
        s += f" over {card_words(state, under, names)}"
    return s


def target_hint(state: State, move: Move) -> str:
    """What a legal move would take, with the mutant risk: "takes Blue's 4"."""
    target = state.top(move.to)
    if target.kind == "character":
        return f"takes {card_words(state, target)}"
    if target.kind == "mutant":
        return f"kills {mutant_killed(target.value or 0)}"
    assert target.value is not None
    p = mutant_chance(state, target.value)
    if state.variant is Variant.GENERAL or target.value >= 4 or p == 0:
        return f"takes {card_words(state, target)}, no mutant risk"
    return f"takes a {target.value}, mutant chance {chance_words(p)}"


def is_character_capture(state: State, move: Move) -> bool:
    """Does ``move`` capture a character (an opponent's or a mutant)?"""
    return state.top(move.to).kind in ("character", "mutant")


def narrate(before: State, after: State, move: Move, names: Sequence[str], you: int | None) -> Text:
    """One line: who did what, what it took, and what was revealed (grammatical for 'you'); a
    move whose reveal never came (``after.needs``: the log stops there) says so."""
    seat = before.to_move
    mine = seat == you
    line = Text()
    line.append_text(
        Text("You", style=f"bold {before.teams[seat].colour}")
        if mine
        else seat_text(before, seat, names)
    )
    own = "your" if mine else "their"
    if isinstance(move, Send):
        mover = move.value
        line.append(f" {'send' if mine else 'sends'} {move_name(move)}")
    else:
        mover = before.top(move.frm).value or 0
        verb = "move" if mine else "moves"
        line.append(f" {verb} {own} {mover} {move_name(move)}")
    target = before.top(move.to)
    take = "take" if mine else "takes"
    if target.kind == "mutant":
        line.append(f" and {'kill' if mine else 'kills'} {mutant_killed(target.value or 0)}")
    else:
        line.append(f" and {take} {card_words(before, target)}")
    if after.needs is not None:
        line.append("; what it hid was never revealed", style="dim")
        return line
    u_before, u_after = before.under(move.to), after.under(move.to)
    if u_before.kind == "unknown" and u_after.kind == "zoo":
        assert u_after.value is not None
        line.append(f"; {uncovered(u_after.value)}")
    if after.top(move.to).kind == "mutant" and target.kind == "zoo":
        assert target.value is not None
        line.append(f"; {mutant_words(target.value, True, f'{own} {mover}')}", style="bold magenta")
    elif (
        target.kind == "zoo"
        and target.value is not None
        and target.value < 4
        and (after.variant is Variant.STANDARD and target.value not in before.mutants_found)
    ):
        line.append(f"; {mutant_words(target.value, False)}", style="dim")
    return line


def took_text(state: State, seat: int) -> str:
    """Captured characters of a seat: 'B4 M5' or ''."""
    return " ".join(
        (f"M{v}" if mutant else f"{team.name[0]}{v}")
        for team, v, mutant in state.captured_characters(seat)
    )


def team_initial(team: Team) -> str:
    """'Y', 'B', 'G' or 'R'."""
    return team.name[0]


def short_narrate(
    before: State, after: State, move: Move, names: Sequence[str], you: int | None
) -> Text:
    """The moves panel's line for a move, short enough for one line of a narrow panel: who
    (you, or the team), the move, what it took and what the capture showed. The whole
    sentence (`narrate`) is the status line's."""
    seat = before.to_move
    team = before.teams[seat]
    line = Text()
    line.append("you" if seat == you else team.label, style=f"bold {team.colour}")
    line.append(f" {move_name(move)}: ")
    target = before.top(move.to)
    if target.kind == "mutant":
        line.append(f"kills the mutant (+{target.value})", style="bold")
    elif target.kind == "character":
        line.append(f"takes {card_words(before, target)}", style="bold")
    else:
        line.append(f"takes a {target.value}")
    if after.needs is not None:
        line.append(", never revealed", style="dim")
        return line
    u_before, u_after = before.under(move.to), after.under(move.to)
    if u_before.kind == "unknown" and u_after.kind == "zoo":
        line.append(f", under {u_after.value}")
    if after.top(move.to).kind == "mutant" and target.kind == "zoo":
        mover = move.value if isinstance(move, Send) else (before.top(move.frm).value or 0)
        line.append(f", MUTANT: the {mover} is lost", style="bold magenta")
    return line
