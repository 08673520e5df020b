"""One wording for a capture, the bottom card it uncovers and whether it was a mutant: the line
mode, the app, a replay (of a log or of a text record) and the HTML export all say it through
``text.zoo_card_words``, ``text.uncovered`` and ``text.mutant_words``, so a player reads the same
sentence wherever they look."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from rich.console import Console

from zoo_p2p.cli.exportcmd import view_text_record
from zoo_p2p.cli.render import describe_move
from zoo_p2p.cli.replay import load_replay
from zoo_p2p.export import record_from_entries, to_html, to_text
from zoo_p2p.storage import read_log
from zoo_p2p.text import mutant_words, uncovered, zoo_card_words
from zoo_p2p.tui.facts import narrate

LOG = Path(__file__).resolve().parents[1] / "replays" / "2p-standard.zoolog"


def _plain(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, width=400, no_color=True).print(renderable)
    return out.getvalue()


def test_every_front_end_says_an_uncovered_bottom_card_the_same_way(tmp_path: Path) -> None:
    record = record_from_entries(read_log(LOG).entries)
    positions = record.positions()
    names = list(record.names)
    page = to_html(record)
    captions = {
        int(n): html.unescape(re.sub(r"<[^>]+>", "", c))
        for n, c in re.findall(r'<p class="caption"><b>(\d+)\.</b>(.*?)</p>', page)
    }
    scenes = {
        s.number: " ".join(t.plain for t in s.lines) for s in load_replay(LOG).scenes if s.move
    }
    shown_record = tmp_path / "game.txt"
    shown_record.write_text(to_text(record))
    out = io.StringIO()
    view_text_record(shown_record, None, True, Console(file=out, width=400, no_color=True))
    viewed = {int(n): line for n, line in re.findall(r"^\s*(\d+)\. (.*)$", out.getvalue(), re.M)}

    checked = mutants = 0
    for n, m in enumerate(record.moves, start=1):
        before, after = positions[n - 1], positions[n]
        target = before.top(m.move.to)
        paths = {
            "line mode": " ".join(
                _plain(t).strip() for t in describe_move(before, after, m.move, names)
            ),
            "app": narrate(before, after, m.move, names, None).plain,
            "html caption": captions[n],
            "zoo replay LOG": scenes[n],
        }
        if target.kind == "zoo":
            assert target.value is not None
            for where, text in paths.items():
                assert zoo_card_words(target.value) in text, (n, where, text)
        paths["zoo replay TEXT"] = viewed[n]
        if m.mutant is not None:
            assert target.value is not None
            if m.mutant:  # what it cost is said as each front end can: "their 5", "the character"
                said = mutant_words(target.value, True, "LOST").split("LOST")[0]
            else:
                said = mutant_words(target.value, False)
            for where, text in paths.items():
                assert re.search(re.escape(said), text, re.I), (n, where, text)
            mutants += m.mutant
        if m.bottom is None:
            continue
        said = uncovered(m.bottom)
        for where, text in paths.items():
            assert re.search(re.escape(said), text, re.I), (n, where, text)
        checked += 1
    assert checked >= 3 and mutants >= 1  # the sample game has both: the checks ran


def test_the_html_caption_keeps_mutant_in_capitals() -> None:
    page = to_html(record_from_entries(read_log(LOG).entries))
    captions = re.findall(r'<p class="caption">(.*?)</p>', page)
    assert any("Under it: " in c for c in captions)
    assert any("was a MUTANT" in c for c in captions)  # str.capitalize() lowercased it
    assert not any("was a mutant" in c for c in captions)
