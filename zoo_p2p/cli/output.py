"""What every ``zoo`` command's output obeys: ASCII where UTF-8 cannot go, one red line on error.

`prepare_output()` runs first thing in `main()`. When the locale says C/POSIX or a non-UTF-8
charset, or stdout's encoding is not UTF-8, stdout and stderr are switched to an encoding error
handler that writes ASCII look-alikes (— as -, … as ..., ▶ as >), so nothing ever raises
UnicodeEncodeError; Rich then sees a non-UTF-8 encoding and draws its boxes in ASCII too. Python
coerces a C locale to C.UTF-8 (PEP 538), so the decision reads the locale the user gave.
`NO_COLOR` is honoured by Rich itself.
"""

from __future__ import annotations

import codecs
import os
import sys
import unicodedata

ERRORS = "zoo-ascii"
_LOOKALIKE = {
    "—": "-",
    "–": "-",
    "−": "-",
    "…": "...",
    "·": ".",
    "•": "*",
    "▶": ">",
    "→": "->",
    "←": "<-",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "×": "x",
    "≥": ">=",
    "≤": "<=",
    "✓": "v",
    "✗": "x",
}


def ascii_lookalike(text: str) -> str:
    """`text` with every non-ASCII character replaced by a look-alike (or '?')."""
    out = []
    for ch in text:
        if ord(ch) < 128:
            out.append(ch)
            continue
        sub = _LOOKALIKE.get(ch)
        if sub is None:
            sub = _box(ch) or (
                unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"
            )
        out.append(sub)
    return "".join(out)


def _box(ch: str) -> str:
    """Box drawing as -, | and +; block elements as #; '' for anything else."""
    code = ord(ch)
    if 0x2500 <= code <= 0x257F:
        words = set(unicodedata.name(ch, "").split())
        if words & {"UP", "DOWN", "LEFT", "RIGHT"} or {"HORIZONTAL", "VERTICAL"} <= words:
            return "+"
        return "-" if "HORIZONTAL" in words else "|" if "VERTICAL" in words else "+"
    if 0x2580 <= code <= 0x259F:
        return "#"
    return ""


def _handler(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return ascii_lookalike(err.object[err.start : err.end]), err.end


def utf8_locale(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """False when the locale the user set is C/POSIX or names a charset other than UTF-8."""
    env = os.environ if environ is None else environ
    lc_all, lc_ctype, lang = (env.get(k, "") for k in ("LC_ALL", "LC_CTYPE", "LANG"))
    if not lc_all and lc_ctype == "C.UTF-8" and lang in ("C", "POSIX"):
        return False  # Python coerced LANG=C to C.UTF-8 (PEP 538); the terminal did not
    value = lc_all or lc_ctype or lang
    if value in ("C", "POSIX"):
        return False
    if "." in value:
        charset = value.split(".", 1)[1].split("@", 1)[0].replace("-", "").lower()
        return charset == "utf8"
    return True


def _is_utf8(encoding: str | None) -> bool:
    return (encoding or "").replace("-", "").replace("_", "").lower() in ("utf8", "utf8sig")


def prepare_output() -> None:
    """Make stdout and stderr safe for whatever they are connected to (see the module doc)."""
    try:
        codecs.lookup_error(ERRORS)
    except LookupError:
        codecs.register_error(ERRORS, _handler)
    locale_ok = utf8_locale()
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        if not locale_ok:
            reconfigure(encoding="ascii", errors=ERRORS)
        elif not _is_utf8(getattr(stream, "encoding", None)):
            reconfigure(errors=ERRORS)
