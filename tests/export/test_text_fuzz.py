"""hypothesis: a mutated or made-up text record is read or refused with TextFormatError, never a
crash (the text reader is hostile input, like the log reader of tests/protocol/test_fuzz.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zoo_p2p.export import GameRecord, TextFormatError, from_text, record_from_entries, to_text
from zoo_p2p.export.text import MAX_TEXT_BYTES
from zoo_p2p.protocol.audit import audit
from zoo_p2p.storage import read_log

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _record_text(name: str) -> str:
    entries = read_log(REPLAYS / name).entries
    rec = record_from_entries(entries, verdict=audit(entries).verdict)
    return to_text(rec, comments={1: "first {move}"}, marks={2: "blunder"})


TEXTS = [_record_text("3p-standard.zoolog"), _record_text("2p-standard-claimed-move.zoolog")]

# pieces an attacker would try: non-ASCII digits, huge numbers, quotes, brackets, controls
PIECES = st.sampled_from(
    [
        "²", "١", "٣", "𝟙", "Ⅻ", "½", "0", "1", "9" * 5000, "1" * 200_000, "-1", "+1", " ",
        "\t", '"', "\\", "[", "]", "{", "}", "=", "@", "-", ":", "\x00", "\x1b[2J", "\u202e",
        "\u2028", "\x85", "\r", "\n", "top", "bottom", "mutant=yes", "bottom=4", "mark=x",
        "Seat5", "First", "Tops", "Format", "Yellow", "C3", "5@C3", "A1-A2", "é", "\ufeff",
    ]
)  # fmt: skip
_EDIT = st.tuples(
    st.integers(0, 10**9), st.integers(0, 40), st.lists(PIECES | st.text(), max_size=4)
)


def _apply(text: str, edits: list[tuple[int, int, list[str]]]) -> str:
    for pos, cut, pieces in edits:
        at = pos % (len(text) + 1)
        text = text[:at] + "".join(pieces) + text[at + cut :]
    return text


def _only_text_format_errors(data: str | bytes) -> None:
    try:
        rec = from_text(data)
    except TextFormatError as exc:
        n_lines = (data if isinstance(data, str) else data.decode("utf-8", "replace")).count("\n")
        assert exc.line is None or 1 <= exc.line <= n_lines + 1, str(exc)
        assert len(str(exc)) < 1000  # the message quotes hostile text only shortened
        return
    assert isinstance(rec, GameRecord)


@FUZZ
@given(which=st.integers(0, len(TEXTS) - 1), edits=st.lists(_EDIT, min_size=1, max_size=4))
def test_mutated_text_records_only_raise_text_format_error(
    which: int, edits: list[tuple[int, int, list[str]]]
) -> None:
    text = _apply(TEXTS[which], edits)
    _only_text_format_errors(text)
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= MAX_TEXT_BYTES:
        _only_text_format_errors(raw)


@FUZZ
@given(
    lines=st.lists(
        st.one_of(
            st.builds(lambda t, v: f"[{t} {v}]", st.sampled_from(["First", "Tops", "Seat1", "X"]),
                      st.lists(PIECES | st.text(max_size=8), max_size=3).map(" ".join)),
            st.builds(lambda n, rest: f"{n}. {rest}", PIECES | st.text(max_size=4),
                      st.lists(PIECES | st.text(max_size=8), max_size=5).map(" ".join)),
            st.text(max_size=30),
        ),
        max_size=12,
    )
)  # fmt: skip
def test_made_up_text_records_only_raise_text_format_error(lines: list[str]) -> None:
    _only_text_format_errors('[Format "zoo-p2p-text 1"]\n' + "\n".join(lines))
    _only_text_format_errors("\n".join(lines))


TAG_LINES = [i for i, line in enumerate(TEXTS[0].split("\n")) if line.startswith("[")]
MOVE_LINES = [i for i, line in enumerate(TEXTS[0].split("\n")) if line[:1].isdigit()]
VALUE = PIECES | st.text(max_size=8) | st.lists(PIECES, min_size=1, max_size=3).map("".join)


@FUZZ
@given(
    at=st.sampled_from(TAG_LINES),
    values=st.lists(VALUE.map(lambda v: '"' + v.replace('"', '\\"') + '"'), min_size=1, max_size=3),
)
def test_any_tag_value_is_read_or_refused(at: int, values: list[str]) -> None:
    """Every tag of a valid record given hostile values (quoted, so the tag itself parses)."""
    lines = TEXTS[0].split("\n")
    name = lines[at][1:].split()[0]
    lines[at] = f"[{name} {' '.join(values)}]"
    _only_text_format_errors("\n".join(lines))


@FUZZ
@given(
    at=st.sampled_from(MOVE_LINES),
    field=st.integers(0, 4),
    value=VALUE,
)
def test_any_move_field_is_read_or_refused(at: int, field: int, value: str) -> None:
    """A field of a move line (number, team, move, a fact) replaced by a hostile one."""
    lines = TEXTS[0].split("\n")
    parts = lines[at].split(" ")
    if field == 0:
        parts[0] = value + "."
    elif field < len(parts):
        parts[field] = value
    else:
        parts.append(f"bottom={value}" if field == 3 else f"mutant={value}")
    lines[at] = " ".join(parts)
    _only_text_format_errors("\n".join(lines))


def _with_first(value: str) -> str:
    import re

    return re.sub(r'\[First "\d"\]', lambda _: f'[First "{value}"]', TEXTS[0])


@pytest.mark.parametrize(
    "value",
    ["²", "١", "𝟙", "1" * 200_000, "0" * 5000 + "1", "+1", " 1", "01"],
    ids=["superscript", "arabic-indic", "double-struck", "200k digits", "5001 digits", "+1",
         "space", "01"],
)  # fmt: skip
def test_first_takes_one_ascii_digit(value: str) -> None:
    with pytest.raises(TextFormatError, match=r"^line 7: First must be a seat from 1 to 3"):
        from_text(_with_first(value))


def test_move_numbers_are_ascii_digits() -> None:
    text = TEXTS[0].replace("\n1. ", "\n١. ", 1)  # ARABIC-INDIC DIGIT ONE
    with pytest.raises(TextFormatError, match=r"^line \d+: not a move line"):
        from_text(text)


@pytest.mark.parametrize("value", ["²", "1" * 200_000], ids=["superscript", "200k digits"])
def test_zoo_replay_of_a_crafted_record_names_the_line(value: str, tmp_path: Path) -> None:
    """Was "internal error (ValueError)": `isdigit()` then `int()`."""
    from typer.testing import CliRunner

    from zoo_p2p.cli.app import app

    path = tmp_path / "crafted.txt"
    path.write_text(_with_first(value))
    for mode in ("--plain", "--dump"):
        r = CliRunner().invoke(app, ["replay", str(path), mode], env={"COLUMNS": "300"})
        said = " ".join(r.output.split())
        assert r.exit_code == 1, said[:300]
        assert "line 7: First must be a seat from 1 to 3" in said, said[:300]
        assert "internal error" not in said and len(said) < 1000
