"""Seat names: exactly which strings a genesis (and a hello) may carry (PROTOCOL.md §3.1).

A name is data, never markup: it is checked here, then always shown through
`zoo_p2p.text.shown()` inside `rich.text.Text`. The rule is defined by Unicode general categories
so that an implementation in another language accepts exactly the same names.
"""

from __future__ import annotations

import unicodedata

__all__ = ["NAME_MAX_CHARS", "UNICODE_VERSION", "check_name", "is_valid_name"]

NAME_MAX_CHARS = 32
# The Unicode database the rule is stated against (Python 3.11's). A character assigned in a later
# version is unassigned (Cn) here, hence refused; implementations MUST use this version's table.
UNICODE_VERSION = "14.0.0"
_ALLOWED = frozenset(
    {
        "Lu", "Ll", "Lt", "Lm", "Lo",  # letters
        "Mn", "Mc", "Me",  # marks (never first)
        "Nd", "Nl", "No",  # numbers
        "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",  # punctuation
        "Sm", "Sc", "Sk", "So",  # symbols
    }
)  # fmt: skip


def check_name(name: object) -> str:
    """Return `name` if it is a valid seat name, else raise ValueError saying why.

    Valid: a `str` in Unicode normalization form NFC, of 1 to 32 code points, each of general
    category L*, M*, N*, P* or S* (Unicode 14.0.0) or the space U+0020; not starting with a mark
    (M*) or a space, not ending with a space. Controls, format characters (bidi overrides,
    zero-width joiners), other spaces, line and paragraph separators, surrogates, private-use
    and unassigned code points are refused.
    """
    if type(name) is not str:
        raise ValueError("a name is a string")
    if not 1 <= len(name) <= NAME_MAX_CHARS:
        raise ValueError(f"a name has 1 to {NAME_MAX_CHARS} characters")
    if unicodedata.normalize("NFC", name) != name:
        raise ValueError("a name must be in Unicode NFC form")
    if name[0] == " " or name[-1] == " ":
        raise ValueError("a name must not start or end with a space")
    if unicodedata.category(name[0]).startswith("M"):
        raise ValueError("a name must not start with a combining mark")
    for ch in name:
        if ch != " " and unicodedata.category(ch) not in _ALLOWED:
            raise ValueError(f"a name must not contain U+{ord(ch):04X}")
    return name


def is_valid_name(name: object) -> bool:
    """True when `check_name` accepts `name`."""
    try:
        check_name(name)
    except ValueError:
        return False
    return True
