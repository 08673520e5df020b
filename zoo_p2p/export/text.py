"""The compact text record of a game (one move per line with tags, in the spirit of PGN).

It is for reading and viewing, not for proof: it carries no signatures (the `.zoolog` does).
`zoo replay` reads it back, replaying every move through the rules engine. Format, version 1:

    [Format "zoo-p2p-text 1"]
    [GameId "9f2c…"]                 optional, 64 hex digits
    [Variant "standard"]             standard | general
    [Hints "allowed"]                optional: the genesis allowed hints (PROTOCOL.md §3.2)
    [Seat1 "Yellow" "alice"]         one per seat, in seat order: team, then name
    [Seat2 "Blue" "bob"]
    [First "1"]                      the seat that moved first, numbered from 1
    [Tops "3012…"]                   25 digits: the top card of A1, B1, … E5 (row by row)
    [Bottoms "1240…"]                optional: the 25 bottom cards, once every seed was opened
    [Mutants "C3:top D4:bottom"]     optional: where the mutants were
    [Verdict "ok"]                   optional: what the audit said of the signed log
    [Result "Yellow 36, Blue 20"]    optional, informative

    1. Yellow 5@C3 bottom=2 mutant=no {takes a 3}
    2. Blue C3-C4

A move line is its number, the mover's team, the move in notation, then the facts its capture
revealed (`bottom=V`, `mutant=yes|no`), an optional `mark=WORD` (analysis), and an optional
`{comment}` that readers ignore. Strings are double-quoted with `\\"` and `\\\\` escapes.
Lines starting with `#` and blank lines are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from zoo_p2p.errors import NotationError, ZooError
from zoo_p2p.export.record import GameRecord, MoveRecord
from zoo_p2p.rules import (
    N_SQUARES,
    Team,
    Variant,
    move_name,
    parse_move,
    parse_square,
    square_name,
)
from zoo_p2p.text import shown

__all__ = ["MAX_TEXT_BYTES", "TextFormatError", "from_text", "to_text"]

FORMAT = "zoo-p2p-text 1"
MAX_TEXT_BYTES = 256 * 1024  # a 4-seat game with comments is under 16 KiB
MAX_NAME = 64
MAX_MOVES = 400  # a game cannot last this long: every move removes a card or moves a character

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9]*)((?:\s+"(?:[^"\\]|\\.)*")+)\]\Z')
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
_MOVE = re.compile(
    r"(\d{1,3})\.\s+([A-Za-z]+)\s+(\S+)((?:\s+[a-z]+=[a-z0-9]+)*)\s*(?:\{[^}]*\})?\Z"
)


class TextFormatError(ZooError, ValueError):
    """A text record that does not follow the format; says at which line."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason if line is None else f"line {line}: {reason}")
        self.line = line


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _comment(s: str) -> str:
    return "{" + s.replace("{", "(").replace("}", ")").replace("\n", " ") + "}"


def to_text(
    record: GameRecord,
    comments: Mapping[int, str] | None = None,
    marks: Mapping[int, str] | None = None,
) -> str:
    """The text record; ``comments``/``marks`` are keyed by move number (from 1)."""
    lines = [f"[Format {_quote(FORMAT)}]"]
    if record.game_id:
        lines.append(f"[GameId {_quote(record.game_id)}]")
    lines.append(f"[Variant {_quote(record.variant.value)}]")
    if record.hints:  # the genesis allowed hints (PROTOCOL.md §3.2)
        lines.append('[Hints "allowed"]')
    for i, (team, name) in enumerate(zip(record.teams, record.names, strict=True), start=1):
        lines.append(f"[Seat{i} {_quote(team.label)} {_quote(name)}]")
    lines.append(f'[First "{record.first_seat + 1}"]')
    lines.append(f'[Tops "{"".join(map(str, record.top_values))}"]')
    if record.bottoms is not None:
        lines.append(f'[Bottoms "{"".join(map(str, record.bottoms))}"]')
        where = " ".join(
            f"{square_name(sq)}:{'top' if layer else 'bottom'}" for sq, layer in record.mutant_cards
        )
        lines.append(f"[Mutants {_quote(where)}]")
    if record.verdict:
        lines.append(f"[Verdict {_quote(record.verdict)}]")
    final = record.positions()[-1]
    if final.is_terminal():
        scores = ", ".join(f"{record.teams[s.seat].label} {s.total}" for s in final.scores())
        lines.append(f"[Result {_quote(scores)}]")
    lines.append("")
    for n, m in enumerate(record.moves, start=1):
        parts = [f"{n}.", record.teams[m.seat].label, move_name(m.move)]
        if m.bottom is not None:
            parts.append(f"bottom={m.bottom}")
        if m.mutant is not None:
            parts.append(f"mutant={'yes' if m.mutant else 'no'}")
        if marks and n in marks and re.fullmatch(r"[a-z0-9]{1,20}", marks[n]):
            parts.append(f"mark={marks[n]}")
        if comments and n in comments:
            parts.append(_comment(comments[n]))
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def from_text(data: bytes | str) -> GameRecord:
    """Read a text record back (hostile input: every field bounded and checked).

    The moves are replayed through the rules engine, so a record whose moves are illegal or
    whose reveals are impossible is refused with the number of the line at fault.
    """
    if isinstance(data, bytes):
        if len(data) > MAX_TEXT_BYTES:
            raise TextFormatError(f"{len(data)} bytes: larger than any game record could be")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TextFormatError(f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
        if len(text) > MAX_TEXT_BYTES:
            raise TextFormatError(f"{len(text)} characters: larger than any game record could be")
    tags: dict[str, tuple[list[str], int]] = {}
    moves: list[tuple[int, re.Match[str]]] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if moves:
                raise TextFormatError("a tag after the first move", no)
            tm = _TAG.match(line)
            if tm is None:
                raise TextFormatError(f"not a tag: {shown(line, 60)}", no)
            if tm.group(1) in tags:
                raise TextFormatError(f"the tag {tm.group(1)} appears twice", no)
            tags[tm.group(1)] = ([_unquote(v) for v in _STR.findall(tm.group(2))], no)
            continue
        mm = _MOVE.match(line)
        if mm is None:
            raise TextFormatError(f"not a move line: {shown(line, 60)}", no)
        if len(moves) >= MAX_MOVES:
            raise TextFormatError(f"more than {MAX_MOVES} moves", no)
        moves.append((no, mm))
    if tags.get("Format", ([""], 0))[0] != [FORMAT]:
        raise TextFormatError(f'the first tag must be [Format "{FORMAT}"]', 1)

    def one(name: str, required: bool = True) -> tuple[str, int] | None:
        got = tags.get(name)
        if got is None:
            if required:
                raise TextFormatError(f"the tag {name} is missing")
            return None
        values, no = got
        if len(values) != 1:
            raise TextFormatError(f"the tag {name} takes one value", no)
        return values[0], no

    variant_s, no = one("Variant") or ("", 0)
    try:
        variant = Variant(variant_s)
    except ValueError:
        raise TextFormatError(f"unknown variant {shown(variant_s, 20)!r}", no) from None
    teams: list[Team] = []
    names: list[str] = []
    for i in range(1, 5):
        got = tags.get(f"Seat{i}")
        if got is None:
            break
        values, no = got
        if len(values) != 2:
            raise TextFormatError(f"Seat{i} takes a team and a name", no)
        try:
            teams.append(Team.parse(values[0]))
        except NotationError as exc:
            raise TextFormatError(str(exc), no) from None
        if not 1 <= len(values[1]) <= MAX_NAME:
            raise TextFormatError(f"Seat{i}: a name has 1 to {MAX_NAME} characters", no)
        names.append(values[1])
    if not 2 <= len(teams) <= 4 or "Seat5" in tags:
        raise TextFormatError(f"a game has 2 to 4 seats (Seat1…), not {len(teams)}")
    hints_t = one("Hints", required=False)
    if hints_t is not None and hints_t[0] != "allowed":
        raise TextFormatError('Hints takes "allowed" (or leave the tag out)', hints_t[1])
    first_s, no = one("First") or ("", 0)
    if not (first_s.isdigit() and 1 <= int(first_s) <= len(teams)):
        raise TextFormatError(f"First must be a seat from 1 to {len(teams)}", no)
    tops = _digits(one("Tops"), "Tops")
    assert tops is not None
    bottoms = _digits(one("Bottoms", required=False), "Bottoms")
    mutant_cards: list[tuple[int, int]] = []
    got_m = one("Mutants", required=False)
    if got_m is not None:
        for word in got_m[0].split():
            sq_s, _, layer = word.partition(":")
            try:
                sq = parse_square(sq_s)
            except NotationError:
                raise TextFormatError(
                    f"Mutants: {shown(word, 20)!r} is not SQUARE:top|bottom", got_m[1]
                ) from None
            if layer not in ("top", "bottom"):
                raise TextFormatError(
                    f"Mutants: {shown(word, 20)!r} is not SQUARE:top|bottom", got_m[1]
                )
            mutant_cards.append((sq, 1 if layer == "top" else 0))
    game_id = None
    got_id = one("GameId", required=False)
    if got_id is not None:
        if not re.fullmatch(r"[0-9a-f]{64}", got_id[0]):
            raise TextFormatError("GameId must be 64 lower-case hex digits", got_id[1])
        game_id = got_id[0]
    verdict = None
    got_v = one("Verdict", required=False)
    if got_v is not None:
        verdict = shown(got_v[0], 200)
    records: list[MoveRecord] = []
    for expect, (no, mm) in enumerate(moves, start=1):
        if int(mm.group(1)) != expect:
            raise TextFormatError(f"move {mm.group(1)} where move {expect} was due", no)
        try:
            team = Team.parse(mm.group(2))
            move = parse_move(mm.group(3))
        except NotationError as exc:
            raise TextFormatError(str(exc), no) from None
        if team not in teams:
            raise TextFormatError(f"{team.label} has no seat in this game", no)
        facts: dict[str, str] = {}
        for kv in mm.group(4).split():
            k, _, v = kv.partition("=")
            if k in facts:
                raise TextFormatError(f"{k}= given twice", no)
            facts[k] = v
        bottom = mutant = None
        for k, v in facts.items():
            if k == "bottom":
                if not (len(v) == 1 and v in "01234"):
                    raise TextFormatError("bottom= takes a Zoo value 0 to 4", no)
                bottom = int(v)
            elif k == "mutant":
                if v not in ("yes", "no"):
                    raise TextFormatError("mutant= takes yes or no", no)
                mutant = v == "yes"
            elif k != "mark":
                raise TextFormatError(f"unknown tag {shown(k, 20)}=", no)
        records.append(MoveRecord(teams.index(team), move, bottom, mutant))
    try:
        record = GameRecord(
            names=tuple(names),
            teams=tuple(teams),
            variant=variant,
            first_seat=int(first_s) - 1,
            top_values=tops,
            moves=tuple(records),
            game_id=game_id,
            verdict=verdict,
            bottoms=bottoms,
            mutant_cards=tuple(sorted(mutant_cards)),
            hints=hints_t is not None,
        )
        record.positions()
    except ValueError as exc:
        msg = str(exc)
        at = re.match(r"move (\d+) ", msg)
        lineno = moves[int(at.group(1)) - 1][0] if at else None
        raise TextFormatError(msg, lineno) from None
    return record


def _digits(got: tuple[str, int] | None, tag: str) -> tuple[int, ...] | None:
    if got is None:
        return None
    s, no = got
    if not re.fullmatch(f"[0-4]{{{N_SQUARES}}}", s):
        raise TextFormatError(f"{tag} must be {N_SQUARES} digits 0 to 4", no)
    return tuple(int(c) for c in s)
