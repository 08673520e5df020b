"""Seat names mean the same on every Python: the Unicode 14.0.0 table ships with the package."""

from __future__ import annotations

import glob
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from zoo_p2p.protocol import names
from zoo_p2p.protocol.names import UNICODE_VERSION, char_class, is_valid_name
from zoo_p2p.protocol.samples import ACCEPTED_NAMES, REFUSED_NAMES

ROOT = Path(__file__).resolve().parents[2]

# Code points unassigned in Unicode 14.0.0 (so refused, PROTOCOL.md §3.1) but assigned later,
# with the category a newer Python's unicodedata gives them.
LATER = {
    "\U0001f6dc": "So",  # 15.0 WIRELESS
    "\u0cf3": "Mc",  # 15.0 KANNADA SIGN COMBINING ANUSVARA ABOVE RIGHT
    "\U00011f04": "Lo",  # 15.0 KAWI LETTER A
    "\U0001e030": "Lm",  # 15.0 MODIFIER LETTER CYRILLIC SMALL A
    "\U00031350": "Lo",  # 15.0 CJK UNIFIED IDEOGRAPH-31350
    "\u31ef": "So",  # 15.1 IDEOGRAPHIC DESCRIPTION CHARACTER SUBTRACTION
    "\U0002ebf0": "Lo",  # 15.1 CJK UNIFIED IDEOGRAPH-2EBF0
}
PROBES = [
    *ACCEPTED_NAMES,
    *REFUSED_NAMES,
    *(f"a{ch}" for ch in LATER),
    *(f"Bo{ch}x" for ch in LATER),
    "a\u0301",  # a letter then a combining acute: NFC composes it (á), so refused
    "q\u0301",  # no precomposed form: NFC, valid
    "\u1100\u1161",  # Hangul jamo: NFC composes them, so refused
]


def test_unicode_assigned_later_is_refused_whatever_the_interpreter_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the categories a Python of Unicode 15.1 reports, every name stays as 14.0 rules."""
    real = unicodedata.category
    monkeypatch.setattr(unicodedata, "category", lambda ch: LATER.get(ch) or real(ch))
    for ch in LATER:
        assert char_class(ch) is None, f"U+{ord(ch):04X}"
        assert not is_valid_name(f"a{ch}"), f"U+{ord(ch):04X}"
    assert is_valid_name("Zoë") and is_valid_name("李小龍")


def test_the_shipped_table_is_what_the_script_generates() -> None:
    if unicodedata.unidata_version != UNICODE_VERSION:
        pytest.skip(f"the table is made from Unicode {UNICODE_VERSION} (Python 3.11)")
    res = subprocess.run(
        [sys.executable, str(ROOT / "protocol" / "name_table.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr


def test_the_table_is_unicode_14_categories() -> None:
    """On Python 3.11 (Unicode 14.0.0) the table and unicodedata agree on every code point."""
    if unicodedata.unidata_version != UNICODE_VERSION:
        pytest.skip(f"needs unicodedata {UNICODE_VERSION}")
    for cp in range(0x110000):
        cat = unicodedata.category(chr(cp))
        want = "B" if cat[0] in "LNPS" else "M" if cat[0] == "M" else None
        assert char_class(chr(cp)) == want, f"U+{cp:04X} {cat}"


_CHILD = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("names", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
print(json.dumps([mod.is_valid_name(n) for n in json.loads(sys.stdin.read())]))
"""


def _other_pythons() -> list[str]:
    """Interpreters >= 3.12 on this machine (pyenv's), whose unicodedata is newer than 14.0."""
    found = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.1[2-9]*/bin/python3")))
    return [p for p in found if Path(p).is_file()]


@pytest.mark.parametrize("python", _other_pythons() or [None])
def test_every_interpreter_gives_the_same_answers(python: str | None) -> None:
    """names.py, run by Python 3.12 (Unicode 15.0) and 3.13 (15.1), agrees with this one."""
    if python is None:
        pytest.skip("no Python >= 3.12 on this machine")
    res = subprocess.run(
        [python, "-c", _CHILD, names.__file__],
        input=json.dumps(PROBES),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout)
    ours = [is_valid_name(n) for n in PROBES]
    assert theirs == ours, [n for n, a, b in zip(PROBES, theirs, ours, strict=True) if a != b]
    assert not any(is_valid_name(f"a{ch}") for ch in LATER)
