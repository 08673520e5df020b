"""The text record carries a claim that played on (PROTOCOL.md §10.7, issue 21): the table rule
(`[OnLeave "play-on"]`) and a `redeal` line after the moves it followed, with the seat put out,
the seats that re-dealt and what happened in words; `zoo replay GAME.txt` steps to it (`r`),
says it, and marks the stand-in's moves. Before, the text export left the re-deal out: the
record went from one move to the next as if nothing had happened."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from zoo_p2p.cli.exportcmd import view_text_record
from zoo_p2p.export import from_text, record_from_entries, to_text
from zoo_p2p.export.text import TextFormatError
from zoo_p2p.storage import read_log

REPLAYS = Path(__file__).parents[2] / "replays"
JOINER_OUT = REPLAYS / "4p-standard-play-on.zoolog"  # seat 3 (Green) is put out after move 13
TWICE = REPLAYS / "3p-standard-play-on-twice.zoolog"


def _text(log: Path) -> str:
    return to_text(record_from_entries(read_log(log).entries))


def test_the_text_record_says_the_claim_the_stand_in_and_the_re_deal() -> None:
    record = record_from_entries(read_log(JOINER_OUT).entries)
    (rd,) = record.redeals
    assert (rd.after, rd.seat, rd.dealers) == (13, 2, (0, 1, 3))
    text = to_text(record)
    assert '[OnLeave "play-on"]' in text.split("\n\n")[0]
    lines = text.splitlines()
    at = lines.index(next(ln for ln in lines if ln.startswith("redeal ")))
    assert lines[at - 1].startswith("13. ") and lines[at + 1].startswith("14. ")
    assert lines[at].startswith("redeal out=Green by=Yellow,Blue,Red {seat 3 (Green) stopped")
    assert "a stand-in plays on" in lines[at] and "re-dealt by seats 1, 2 and 4" in lines[at]
    back = from_text(text)
    assert back == record  # moves, deal, seats: as before
    assert back.redeals == record.redeals  # and now the re-deal too, words and all
    assert back.play_on


def test_a_game_without_play_on_writes_neither_the_rule_nor_a_re_deal() -> None:
    text = _text(REPLAYS / "3p-standard.zoolog")
    assert "OnLeave" not in text and "redeal" not in text
    assert from_text(text).redeals == ()


def test_a_second_claim_that_ends_the_game_is_no_re_deal_line() -> None:
    record = record_from_entries(read_log(TWICE).entries)
    (rd,) = record.redeals  # the first claim played on; the second ended the game
    assert rd.dealers == (0, 1) and rd.seat == 2
    assert _text(TWICE).count("\nredeal ") == 1
    assert from_text(_text(TWICE)).redeals == record.redeals


def test_zoo_replay_of_the_text_goes_to_the_re_deal_and_marks_the_stand_in(
    tmp_path: Path,
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(_text(JOINER_OUT))
    out = io.StringIO()
    keys = iter(["r", "n", "q"])
    prompts: list[str] = []

    def ask(label: str) -> str:
        prompts.append(label)
        return next(keys)

    view_text_record(path, None, False, Console(file=out, width=300, no_color=True), ask=ask)
    said = out.getvalue()
    assert "r next re-deal" in prompts[0]
    after_r = said.split("move 13 of 39", 1)
    assert len(after_r) == 2, said  # `r` went from the start to the step of the re-deal
    assert (
        after_r[1]
        .lstrip()
        .split("\n", 2)[1]
        .startswith("re-deal: seat 3 (Green) stopped answering at entry 72; a stand-in plays on")
    )
    assert "move 14 of 39" in after_r[1]
    assert "Chiara (Green) 4@B2  (a stand-in's move)" in after_r[1]


def test_the_dump_says_the_re_deal_between_the_moves(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(_text(JOINER_OUT))
    out = io.StringIO()
    view_text_record(path, None, True, Console(file=out, width=300, no_color=True))
    lines = out.getvalue().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("re-deal: seat 3 (Green)"))
    assert lines[at - 1].lstrip().startswith("13. ") and lines[at + 1].lstrip().startswith("14.")
    green = [ln for ln in lines if "(Green)" in ln and ln.lstrip()[:1].isdigit()]
    stood = [ln for ln in green if "(a stand-in's move)" in ln]
    assert stood and all(int(ln.split(".")[0]) > 13 for ln in stood)
    assert len(stood) == len([ln for ln in green if int(ln.split(".")[0]) > 13])


def _swap(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


LINE = "redeal out=Green by=Yellow,Blue,Red"


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda t: _swap(t, '[OnLeave "play-on"]\n', ""), "not play-on"),
        (lambda t: _swap(t, '[OnLeave "play-on"]', '[OnLeave "end"]'), 'OnLeave takes "play-on"'),
        (lambda t: _swap(t, LINE, "redeal out=Green by=Yellow,Green,Red"), "no live seat"),
        (lambda t: _swap(t, LINE, "redeal out=Green by=Blue,Yellow,Red"), "in seat order"),
        (lambda t: _swap(t, LINE, "redeal out=Green by=Yellow"), "fewer than two seats"),
        (lambda t: _swap(t, LINE, "redeal out=Purple by=Yellow,Blue"), "unknown team"),
        (lambda t: _swap(t, LINE, "redeal by=Yellow,Blue,Red"), "needs out=TEAM"),
        (lambda t: _swap(t, LINE, LINE + " from=Red"), "unknown field from="),
        (lambda t: _swap(t, LINE, LINE + " out=Red"), "out= given twice"),
        (lambda t: _swap(t, LINE, "redeal out = Green"), "not a re-deal line"),
        # the same seat put out twice, and a third claim at 4 seats (only two can play on)
        (lambda t: _swap(t, "\n14. ", f"\n{LINE}\n14. "), "seat 3 was already out"),
        (lambda t: _swap(t, "\n14. ", "\nredeal out=Red by=Yellow,Blue\n14. "), None),
    ],
)
def test_a_bad_re_deal_line_is_refused_at_its_line(edit: object, reason: str | None) -> None:
    text = _text(JOINER_OUT)
    assert callable(edit)
    bad = edit(text)
    if reason is None:  # a second claim that played on (Red out, Yellow and Blue re-deal): fine
        assert [r.seat for r in from_text(bad).redeals] == [2, 3]
        third = _swap(bad, "\n15. ", "\nredeal out=Blue by=Yellow,Red\n15. ")
        with pytest.raises(TextFormatError, match="more than 2 re-deals"):
            from_text(third)
        return
    with pytest.raises(TextFormatError, match=reason) as exc:
        from_text(bad)
    assert exc.value.line is not None, str(exc.value)
    assert bad.splitlines()[exc.value.line - 1].startswith(("redeal", "[OnLeave"))


def test_a_re_deal_line_in_a_two_seat_game_is_refused() -> None:
    text = _text(REPLAYS / "2p-standard.zoolog")
    head, _, moves = text.partition("\n\n")
    bad = head + '\n[OnLeave "play-on"]\n\nredeal out=Red by=Yellow,Yellow\n' + moves
    with pytest.raises(TextFormatError, match="2-seat game") as exc:
        from_text(bad)
    assert exc.value.line is not None
