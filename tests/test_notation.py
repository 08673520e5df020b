"""One move notation for people: the line mode, the app, a replay, both exports and the analysis
write the same move the same way (``rules.move_name``), and the move parser reads it back."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from rich.console import Console

from zoo_p2p.bots.analysis import Hint, MoveMark
from zoo_p2p.cli.exportcmd import view_text_record
from zoo_p2p.cli.output import ascii_lookalike
from zoo_p2p.cli.render import describe_move
from zoo_p2p.cli.replay import load_replay
from zoo_p2p.export import record_from_entries, to_html, to_text
from zoo_p2p.rules import Move, Send, Step, move_name, parse_move
from zoo_p2p.storage import read_log
from zoo_p2p.tui.facts import narrate

LOG = Path(__file__).resolve().parents[1] / "replays" / "2p-standard.zoolog"

# Anything that looks like a move written for a person, in any of the notations this program
# has ever used (5@C3, C3-C4, C3→C4, C3->C4, C3>C4, C3 C4): two forms of one move must not hide.
_WRITTEN = re.compile(r"\b[3-6]@[A-E][1-5]\b|\b[A-E][1-5]\s?(?:->|→|-|>| )\s?[A-E][1-5]\b")


def written(text: str) -> list[str]:
    """Every move written in ``text``."""
    return _WRITTEN.findall(text)


def _plain(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, width=400, no_color=True).print(renderable)
    return out.getvalue()


def test_every_front_end_writes_a_move_the_same_way_and_it_reads_back(tmp_path: Path) -> None:
    entries = read_log(LOG).entries
    record = record_from_entries(entries)
    positions = record.positions()
    names = list(record.names)
    moves = [m.move for m in record.moves]
    assert any(isinstance(m, Send) for m in moves) and any(isinstance(m, Step) for m in moves)

    page = to_html(record)
    captions = {
        int(n): html.unescape(re.sub(r"<[^>]+>", "", c))
        for n, c in re.findall(r'<p class="caption"><b>(\d+)\.</b>(.*?)</p>', page)
    }
    listed = {
        int(n): html.unescape(re.sub(r"<[^>]+>", "", c))
        for n, c in re.findall(r'<li><a href="#m(\d+)" data-move="\d+">(.*?)</a>', page)
    }
    text_lines = {
        int(m.group(1)): line
        for line in to_text(record).splitlines()
        if (m := re.match(r"(\d+)\. ", line))
    }
    replay = load_replay(LOG)
    scenes = {s.number: " ".join(t.plain for t in s.lines) for s in replay.scenes if s.move}
    shown_record = tmp_path / "game.txt"
    shown_record.write_text(to_text(record))
    out = io.StringIO()
    view_text_record(shown_record, None, True, Console(file=out, width=400, no_color=True))
    viewed = {int(n): line for n, line in re.findall(r"^\s*(\d+)\. (.*)$", out.getvalue(), re.M)}

    for n, move in enumerate(moves, start=1):
        before, after = positions[n - 1], positions[n]
        plain_line = _plain(describe_move(before, after, move, names)[0])
        paths: dict[str, str] = {
            "line mode": plain_line,
            "line mode, ASCII terminal": ascii_lookalike(plain_line),
            "app": narrate(before, after, move, names, None).plain,
            "html caption": captions[n],
            "html move list": listed[n],
            "text export": text_lines[n],
            "zoo replay LOG": scenes[n],
            "zoo replay TEXT": viewed[n],
            "analysis mark": _mark(n, move).describe(),
            "hint": Hint(move, 0.5, 0.0).describe(),
        }
        for where, text in paths.items():
            assert written(text) == [move_name(move)], (n, where, text)
            assert parse_move(written(text)[0]) == move, (n, where, text)


def _mark(n: int, move: Move) -> MoveMark:
    """A mark that says ``move`` was the best: its line names only that move."""
    return MoveMark(n - 1, 0, move, move, 1.0, 1.0, 0.5, 0.5, 0.0, "", "", False)


def test_the_notation_is_ascii_and_round_trips_for_every_move() -> None:
    from zoo_p2p.rules.board import SENDS, STEPS

    every: list[Move] = [m for row in SENDS.values() for m in row] + list(STEPS.values())
    for move in every:
        name = move_name(move)
        assert name.isascii() and ascii_lookalike(name) == name
        assert parse_move(name) == move and parse_move(name.lower()) == move
        assert str(move) == name  # the wire/log `moves` field (PROTOCOL.md) is unchanged


def test_one_card_notation_board_legend_and_html_deal() -> None:
    """`M4` is a mutant character that was a 4 in every front end; a Zoo card that hid the
    mutant is its value and `*` (the HTML deal view wrote `M0`, `M1`: the card's value after
    an M, which the legend says is a mutant character)."""
    from zoo_p2p.text import LEGEND, LEGEND_LINES
    from zoo_p2p.tui.overlays import legend_text

    record = record_from_entries(read_log(LOG).entries)
    page = to_html(record)
    deal = re.findall(r'data-(?:top|under)="deal:([^"]+)"', page)
    assert deal and not [c for c in deal if c.startswith("M")], deal
    assert sum(c.endswith("*") for c in deal) == len(record.mutant_cards)
    codes = dict(LEGEND_LINES)
    assert "it was a 4" in codes["M4"] and "hides the mutant" in codes["2*"]
    assert "M4 = a mutant character: it was a 4" in LEGEND
    assert "it was a 4" in legend_text().plain and "2*" in legend_text().plain
