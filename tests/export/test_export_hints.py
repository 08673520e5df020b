"""An exported game says when its genesis allowed hints (PROTOCOL.md §3.2): the HTML page and the
text record; the text record's `Hints` tag reads back and refuses any other value."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoo_p2p.export import TextFormatError, from_text, record_from_entries, to_html, to_text
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_WERE_ALLOWED

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
HINTS = REPLAYS / "2p-standard-hints.zoolog"
PLAIN = REPLAYS / "2p-standard.zoolog"


@pytest.mark.parametrize(("path", "allowed"), [(HINTS, True), (PLAIN, False)])
def test_the_page_and_the_text_say_hints_only_when_the_genesis_did(
    path: Path, allowed: bool
) -> None:
    rec = record_from_entries(read_log(path).entries)
    assert rec.hints is allowed
    page = to_html(rec)
    assert (f'<span id="hints">{HINTS_WERE_ALLOWED}</span>' in page) is allowed
    assert ("hints were allowed" in page) is allowed
    text = to_text(rec)
    assert ('[Hints "allowed"]' in text) is allowed
    assert from_text(text).hints is allowed


@pytest.mark.parametrize("value", ["yes", "", "allowed allowed", "<b>allowed</b>"])
def test_a_hints_tag_with_another_value_is_refused_at_its_line(value: str) -> None:
    text = to_text(record_from_entries(read_log(HINTS).entries))
    bad = text.replace('[Hints "allowed"]', f'[Hints "{value}"]')
    assert bad != text
    with pytest.raises(TextFormatError, match="Hints") as err:
        from_text(bad)
    assert err.value.line == 4  # Format, GameId, Variant, then Hints
