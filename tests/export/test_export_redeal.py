"""The HTML export shows a claim that played on (PROTOCOL.md §10.7): the position after the
last move before the claim says who was put out, that a stand-in plays on and what the seats
that remain re-dealt, and the list of moves has a "re-deal" item that goes there. Before, the
export went from one move to the next as if nothing had happened."""

from __future__ import annotations

import re
from pathlib import Path

from zoo_p2p.export.html import to_html
from zoo_p2p.export.record import record_from_entries
from zoo_p2p.storage import read_log

REPLAYS = Path(__file__).parents[2] / "replays"


def test_the_html_export_shows_the_re_deal_where_it_happened() -> None:
    record = record_from_entries(read_log(REPLAYS / "4p-standard-play-on-host.zoolog").entries)
    assert len(record.redeals) == 1
    after, words = record.redeals[0][:2]
    assert 0 < after < len(record.moves)
    assert "stopped answering at entry 64; a stand-in plays on" in words
    page = to_html(record)
    frame = re.search(rf'<div class="pos" id="pos-{after}".*?</div>', page, re.S)
    assert frame is not None and "Re-deal:</b> seat 1" in frame.group(0)
    assert "re-dealt by seats 2, 3 and 4" in frame.group(0)
    assert f'<li class="redeal"><a href="#m{after}" data-move="{after}">re-deal</a></li>' in page
    assert page.count("Re-deal:") == 1


def test_a_game_without_a_claim_that_played_on_shows_no_re_deal() -> None:
    record = record_from_entries(read_log(REPLAYS / "2p-standard-claimed-move.zoolog").entries)
    assert record.redeals == ()
    assert "re-deal" not in to_html(record).lower()
