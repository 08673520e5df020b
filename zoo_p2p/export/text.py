"""The compact text record of a game (one move per line with tags, in the spirit of PGN).

It is for reading and viewing, not for proof: it carries no signatures (the `.zoolog` does).
`zoo replay` reads it back, replaying every move through the rules engine. Format, version 1:

    [Format "zoo-p2p-text 1"]
    [GameId "9f2c…"]                 optional, 64 hex digits
    [Variant "standard"]             standard | general
    [Hints "allowed"]                optional: the genesis allowed hints (PROTOCOL.md §3.2)
    [OnLeave "play-on"]              optional: the table rule is play-on (PROTOCOL.md §10.7.1)
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
    redeal out=Red by=Yellow,Blue,Green {seat 4 (Red) stopped answering at entry 28; …}
    3. Green B2-B3

A move line is its number, the mover's team, the move in notation, then the facts its capture
revealed (`bottom=V`, `mutant=yes|no`), an optional `mark=WORD` (analysis), and an optional
`{comment}` that readers ignore. Strings are double-quoted with `\\"` and `\\\\` escapes.
Lines starting with `#` and blank lines are ignored.

A **re-deal line** (only with `[OnLeave "play-on"]`) says that a claim played on (PROTOCOL.md
§10.7) after the moves above it: `out=TEAM`, the seat put out (a stand-in plays its moves from
there on), and `by=TEAM,TEAM…`, the live seats that re-dealt what nobody had seen, in seat
order; then, optionally, `{what happened, in words}` (at most 300 characters are kept; without
it the words are made from the two fields). When the claim interrupted a reveal, the move above
the line carries the facts the re-deal revealed.

Reading is strict and bounded (the file is hostile input): lines end at `\n` only (a `\r` before
it is dropped), fields are separated by spaces and tabs, every number is ASCII digits of a bounded
length (`First` one digit, a move number at most three), and anything else is a
`TextFormatError` naming the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from zoo_p2p.errors import NotationError, ZooError
from zoo_p2p.export.record import MAX_REDEAL_WORDS, GameRecord, MoveRecord, Redeal
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

MAX_MUTANTS = 2 * N_SQUARES  # one per card at most (the standard variant has 4)

# ASCII only: `\d` and `\s` would also match "²", "١" or U+2028 in a Python `str` pattern.
_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9]{0,15})((?:[ \t]+"(?:[^"\\]|\\.)*")+)\]\Z', re.ASCII)
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"', re.ASCII)
_MOVE = re.compile(
    r"([0-9]{1,3})\.[ \t]+([A-Za-z]{1,16})[ \t]+([!-~]{1,16})"
    r"((?:[ \t]+[a-z]{1,16}=[a-z0-9]{1,20})*)[ \t]*(?:\{[^}]*\})?\Z",
    re.ASCII,
)
_REDEAL = re.compile(
    r"redeal((?:[ \t]+[a-z]{1,8}=[A-Za-z,]{1,70})*)[ \t]*(?:\{([^}]*)\})?\Z", re.ASCII
)
_WS = " \t"
MAX_REDEALS = 2  # a claim plays on only while two live seats remain: 4 seats, 2 claims at most


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
    if record.play_on:  # the table rule (PROTOCOL.md §10.7.1)
        lines.append('[OnLeave "play-on"]')
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
    lines += [_redeal_line(record, r) for r in record.redeals if r.after == 0]
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
        lines += [_redeal_line(record, r) for r in record.redeals if r.after == n]
    return "\n".join(lines) + "\n"


def _redeal_line(record: GameRecord, r: Redeal) -> str:
    by = ",".join(record.teams[d].label for d in r.dealers)
    return f"redeal out={record.teams[r.seat].label} by={by} {_comment(r.words)}"


def redeal_words(record_teams: tuple[Team, ...], seat: int, dealers: tuple[int, ...]) -> str:
    """The words of a re-deal line that has none: what its two fields say."""
    nums = [str(d + 1) for d in dealers]
    dealt = ", ".join(nums[:-1]) + f" and {nums[-1]}"
    who = f"seat {seat + 1} ({record_teams[seat].label})"
    return (
        f"{who} stopped answering; a stand-in plays on; what nobody had seen was re-dealt by "
        f"seats {dealt}"
    )


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
    redeal_lines: list[tuple[int, int, re.Match[str]]] = []  # (line, moves before it, match)
    for no, raw in enumerate(text.split("\n"), start=1):  # not splitlines: U+2028 is no break
        line = raw.removesuffix("\r").strip(_WS)
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if moves or redeal_lines:
                raise TextFormatError("a tag after the first move", no)
            tm = _TAG.match(line)
            if tm is None:
                raise TextFormatError(f"not a tag: {shown(line, 60)}", no)
            if tm.group(1) in tags:
                raise TextFormatError(f"the tag {tm.group(1)} appears twice", no)
            tags[tm.group(1)] = ([_unquote(v) for v in _STR.findall(tm.group(2))], no)
            continue
        if line.startswith("redeal") and not line[6:7].isalnum():
            rm = _REDEAL.match(line)
            if rm is None:
                raise TextFormatError(
                    f"not a re-deal line (redeal out=TEAM by=TEAM,TEAM…): {shown(line, 60)}", no
                )
            if len(redeal_lines) >= MAX_REDEALS:
                raise TextFormatError(f"more than {MAX_REDEALS} re-deals", no)
            redeal_lines.append((no, len(moves), rm))
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
        except NotationError:
            raise TextFormatError(
                f"Seat{i}: unknown team {shown(values[0], 20)!r}: use yellow, blue, green or red",
                no,
            ) from None
        if not 1 <= len(values[1]) <= MAX_NAME:
            raise TextFormatError(f"Seat{i}: a name has 1 to {MAX_NAME} characters", no)
        names.append(values[1])
    if not 2 <= len(teams) <= 4 or "Seat5" in tags:
        raise TextFormatError(f"a game has 2 to 4 seats (Seat1…), not {len(teams)}")
    hints_t = one("Hints", required=False)
    if hints_t is not None and hints_t[0] != "allowed":
        raise TextFormatError('Hints takes "allowed" (or leave the tag out)', hints_t[1])
    on_leave_t = one("OnLeave", required=False)
    if on_leave_t is not None and on_leave_t[0] != "play-on":
        raise TextFormatError('OnLeave takes "play-on" (or leave the tag out)', on_leave_t[1])
    first_s, no = one("First") or ("", 0)
    if not (re.fullmatch("[1-4]", first_s, re.ASCII) and int(first_s) <= len(teams)):
        raise TextFormatError(f"First must be a seat from 1 to {len(teams)}", no)
    tops = _digits(one("Tops"), "Tops")
    assert tops is not None
    bottoms = _digits(one("Bottoms", required=False), "Bottoms")
    mutant_cards: list[tuple[int, int]] = []
    got_m = one("Mutants", required=False)
    if got_m is not None:
        words = got_m[0].split(" ")
        if len(words) > MAX_MUTANTS:
            raise TextFormatError(f"Mutants: more than {MAX_MUTANTS} cards", got_m[1])
        for word in words if got_m[0] else ():
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
            card = (sq, 1 if layer == "top" else 0)
            if card in mutant_cards:
                raise TextFormatError(f"Mutants: {word} appears twice", got_m[1])
            mutant_cards.append(card)
    game_id = None
    got_id = one("GameId", required=False)
    if got_id is not None:
        if not re.fullmatch(r"[0-9a-f]{64}", got_id[0], re.ASCII):
            raise TextFormatError("GameId must be 64 lower-case hex digits", got_id[1])
        game_id = got_id[0]
    verdict = None
    got_v = one("Verdict", required=False)
    if got_v is not None:
        verdict = shown(got_v[0], 200)
    redeals = [_read_redeal(no, after, rm, tuple(teams)) for no, after, rm in redeal_lines]
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
        for kv in mm.group(4).split():  # ASCII spaces and tabs only (the pattern allows no other)
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
            redeals=tuple(redeals),
            play_on=on_leave_t is not None,
        )
        record.positions()
    except ValueError as exc:
        msg = str(exc)
        at = re.match(r"move (\d+) ", msg)
        lineno = moves[int(at.group(1)) - 1][0] if at else None
        rd = re.match(r"re-deal (\d+): ", msg)
        if rd:
            lineno = redeal_lines[int(rd.group(1)) - 1][0]
        elif msg.startswith("a re-deal in a game") and redeal_lines:
            lineno = redeal_lines[0][0]
            msg += ' (it needs [OnLeave "play-on"])'
        raise TextFormatError(msg, lineno) from None
    return record


def _read_redeal(no: int, after: int, rm: re.Match[str], teams: tuple[Team, ...]) -> Redeal:
    """A re-deal line's fields (checked against the game by `GameRecord`)."""
    fields: dict[str, str] = {}
    for kv in rm.group(1).split():
        k, _, v = kv.partition("=")
        if k in fields:
            raise TextFormatError(f"{k}= given twice", no)
        if k not in ("out", "by"):
            raise TextFormatError(f"unknown field {shown(k, 20)}= (a re-deal has out= by=)", no)
        fields[k] = v
    if set(fields) != {"out", "by"}:
        raise TextFormatError("a re-deal line needs out=TEAM and by=TEAM,TEAM…", no)

    def seat_of(word: str) -> int:
        try:
            team = Team.parse(word)
        except NotationError:
            raise TextFormatError(f"unknown team {shown(word, 20)!r}", no) from None
        if team not in teams:
            raise TextFormatError(f"{team.label} has no seat in this game", no)
        return teams.index(team)

    seat = seat_of(fields["out"])
    dealers = tuple(seat_of(w) for w in fields["by"].split(","))
    words = (rm.group(2) or "").strip(_WS)
    if not words and len(dealers) >= 2:
        words = redeal_words(teams, seat, dealers)
    return Redeal(after, shown(words, MAX_REDEAL_WORDS), seat, dealers)


def _digits(got: tuple[str, int] | None, tag: str) -> tuple[int, ...] | None:
    if got is None:
        return None
    s, no = got
    if not re.fullmatch(f"[0-4]{{{N_SQUARES}}}", s, re.ASCII):
        raise TextFormatError(f"{tag} must be {N_SQUARES} digits 0 to 4", no)
    return tuple(int(c) for c in s)
