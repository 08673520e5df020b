"""The exports: the text record round-trips and is read as hostile input; the HTML page is
self-contained, escapes what the log says, and shows the engine's own boards."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import zoo_p2p.protocol.simulate as simulate
from zoo_p2p.export import (
    GameRecord,
    TextFormatError,
    from_text,
    record_from_entries,
    to_html,
    to_text,
)
from zoo_p2p.export.html import card_code
from zoo_p2p.export.text import MAX_TEXT_BYTES
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import N_SQUARES, Variant, square_name
from zoo_p2p.storage import read_log

REPLAYS = sorted((Path(__file__).resolve().parents[2] / "replays").glob("*.zoolog"))
HOSTILE = ["<script>x()</script>", "[/]", "[link=http://x]a[/link]", 'q"\\b']


def sample(path: Path) -> tuple[list[bytes], GameRecord]:
    entries = read_log(path).entries
    return entries, record_from_entries(entries, verdict=audit(entries).verdict)


def hostile_game(monkeypatch: pytest.MonkeyPatch, n: int = 2) -> list[bytes]:
    monkeypatch.setattr(simulate, "DEFAULT_NAMES", HOSTILE)
    game = simulate.play_game(n, Variant.STANDARD, random.Random(7))
    return game.entries


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name)
def test_record_replays_to_the_sessions_own_final_state(path: Path) -> None:
    entries, rec = sample(path)
    session = Session(entries[0])
    for raw in entries[1:]:
        session.receive(raw)
    assert session.state is not None
    final = rec.positions()[-1]
    assert final.digest() == session.state.public().digest()
    assert [str(m.move) for m in rec.moves] == [str(m) for m in session.state.history]
    assert rec.game_id == session.game_id.hex()
    assert (rec.bottoms is not None) == (session.opened_deal is not None)
    if rec.bottoms is None:
        assert rec.mutant_cards == ()
    elif rec.variant is Variant.STANDARD:
        # one mutant per value 0..3, and every revealed mutant is one of them
        values = sorted(
            (rec.top_values if layer else rec.bottoms)[sq] for sq, layer in rec.mutant_cards
        )
        assert values == [0, 1, 2, 3]
    else:
        assert rec.mutant_cards == ()


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name)
def test_text_record_round_trips(path: Path) -> None:
    _, rec = sample(path)
    text = to_text(rec, comments={1: "an opening {with braces}"}, marks={1: "blunder"})
    assert "mark=blunder" in text
    assert from_text(text) == rec
    assert from_text(text.encode()) == rec


def test_text_record_keeps_hostile_names_literally(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = record_from_entries(hostile_game(monkeypatch))
    back = from_text(to_text(rec))
    assert back.names == tuple(HOSTILE[:2])


def _mutate(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


FOUR = next(p for p in REPLAYS if p.name == "4p-standard.zoolog")


@pytest.fixture(scope="module")
def text4() -> str:
    return to_text(sample(FOUR)[1])


def first_move(text: str) -> tuple[int, str, str]:
    """(line number, team, move) of the record's first move line."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("1. "))
    _, team, move = lines[at].split()[:3]
    return at + 1, team, move


def off_board(text: str) -> str:
    _, team, move = first_move(text)
    return _mutate(text, f"\n1. {team} {move}", f"\n1. {team} {move[:-1]}9")


def no_such_team(text: str) -> str:
    _, team, _ = first_move(text)
    return _mutate(text, f"\n1. {team}", "\n1. Purple")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: _mutate(t, "zoo-p2p-text 1", "zoo-p2p-text 9"), "line 1: the first tag"),
        (lambda t: _mutate(t, "\n1. ", "\n2. "), "move 2 where move 1 was due"),
        (lambda t: _mutate(t, '[Variant "standard"]', "[Variant standard]"), "line 3: not a tag"),
        (lambda t: re.sub(r'\[First "\d"\]', '[First "9"]', t), "First must be a seat"),
        (lambda t: _mutate(t, '[Tops "', '[Tops "9'), "Tops must be 25 digits"),
        (lambda t: _mutate(t, "bottom=0", "bottom=7"), "bottom= takes"),
        (lambda t: _mutate(t, "mutant=no", "mutant=perhaps"), "mutant= takes yes or no"),
        (off_board, "9' is not a square"),
        (lambda t: t + '[Late "tag"]\n', "a tag after the first move"),
        (no_such_team, "unknown team"),
    ],
)
def test_text_record_errors_name_the_line(text4: str, change, message: str) -> None:  # type: ignore[no-untyped-def]
    pattern = re.escape(message)
    if not message.startswith("line "):
        pattern = r"line \d+: .*" + pattern
    with pytest.raises(TextFormatError, match=pattern):
        from_text(change(text4))


def test_a_bad_move_line_is_named_by_its_number(text4: str) -> None:
    line, _, _ = first_move(text4)
    with pytest.raises(TextFormatError, match=f"^line {line}: "):
        from_text(off_board(text4))


def test_text_record_refuses_an_illegal_move_at_its_line(text4: str) -> None:
    lines = text4.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("3. "))
    # the third move replaced by a step from an empty square
    lines[at] = "3. Green A5-A4"
    with pytest.raises(TextFormatError, match=rf"line {at + 1}: move 3 \(A5-A4\)"):
        from_text("\n".join(lines))


def test_text_record_refuses_an_impossible_reveal(text4: str) -> None:
    # claim that every 0 taken from a bottom card is the mutant: a second mutant of value 0
    bad = text4.replace("mutant=no", "mutant=yes")
    with pytest.raises(TextFormatError, match="line"):
        from_text(bad)


def test_text_record_bounds_its_input() -> None:
    with pytest.raises(TextFormatError, match="larger than any game record"):
        from_text(b"#" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(TextFormatError, match="not UTF-8"):
        from_text(b'[Format "\xff"]')


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name)
def test_html_shows_every_position_as_the_engine_does(path: Path) -> None:
    _, rec = sample(path)
    page = to_html(rec)
    positions = rec.positions()
    frames = re.findall(r'<div class="pos" id="pos-(\d+)".*?</div>', page, flags=re.S)
    assert [int(f) for f in frames] == list(range(len(positions)))
    # every square of a few boards carries the engine's card codes
    for i in (0, len(positions) // 2, len(positions) - 1):
        frame = re.search(rf'<div class="pos" id="pos-{i}".*?</div>', page, flags=re.S)
        assert frame is not None
        cells = dict(
            (sq, (top, under))
            for sq, top, under in re.findall(
                r'data-sq="(\w\d)" data-top="([^"]+)" data-under="([^"]+)"', frame.group(0)
            )
        )
        assert len(cells) == N_SQUARES
        for sq in range(N_SQUARES):
            st = positions[i]
            assert cells[square_name(sq)] == (card_code(st.top(sq)), card_code(st.under(sq)))
    assert rec.game_id is not None and rec.game_id in page
    assert 'id="verdict" class="ok">ok<' in page


def test_html_is_offline_and_escapes_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = record_from_entries(hostile_game(monkeypatch), verdict="ok <b>")
    page = to_html(rec, marks={1: ("blunder", "<img src=x onerror=alert(1)>")})
    assert "<script>x()" not in page
    assert "&lt;script&gt;x()&lt;/script&gt;" in page
    assert "<img" not in page
    assert "ok &lt;b&gt;" in page
    assert "default-src 'none'" in page
    # nothing outside the page is referenced: no embedding tag, no link out of the page
    assert not re.search(r"<(img|link|iframe|object|embed|audio|video|source)\b", page)
    assert not re.search(r'<[^>]*\s(src|href)="(?!#)', page)
    assert "url(" not in page


def test_html_says_the_result_as_the_result_not_as_the_state_of_move_0() -> None:
    """The line under the board stays while you step through the game: at move 0 it read
    "Game over: … wins." as if the game had ended there."""
    _, rec = sample(next(p for p in REPLAYS if p.name == "2p-standard.zoolog"))
    page = to_html(rec)
    line = re.search(r'<p id="result"><b>(.*?)</b></p>', page)
    assert line is not None and line.group(1).startswith("Result: ") and "wins" in line.group(1)
    assert "Game over" not in page
