"""Rich rendering of the board, the players, reveals and the final breakdown (fits 80x24)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from zoo_p2p.rules import Card, Move, Send, State, Step, Team, Variant, move_name, square_name
from zoo_p2p.rules.board import COLUMNS, COPIES_PER_VALUE, SIZE
from zoo_p2p.text import mutant_killed, mutant_words, shown, uncovered, zoo_card_words

ZOO_STYLE = {0: "bright_black", 1: "bright_red", 2: "red", 3: "bold red", 4: "bold bright_green"}

LEGEND = (
    "squares: top card, then what lies under it: '3 ?' a 3 over a hidden card, "
    "'Y5 2' Yellow's 5 on a 2, 'M4' a mutant (it was a 4: it scores 4 for whoever takes it), "
    "'·' empty.\n"
    "players: '▶' to move, '*' you; hand: characters left to send; zoo '23 (7)': 23 points "
    "from 7 Zoo cards taken; took: characters taken (M: a mutant)."
)


def team_text(team: Team, text: str | None = None) -> Text:
    """A team's name (or ``text``) in the team colour."""
    return Text(text if text is not None else team.label, style=f"bold {team.colour}")


def seat_label(state: State, seat: int, names: Sequence[str] | None = None) -> Text:
    """'name (Team)' in the seat's colour."""
    team = state.teams[seat]
    if names:
        return team_text(team, f"{shown(names[seat], 40)} ({team.label})")
    return team_text(team)


def _card_text(state: State, card: Card) -> Text:
    if card.kind == "zoo":
        assert card.value is not None
        return Text(str(card.value), style=ZOO_STYLE[card.value])
    if card.kind == "character":
        assert card.seat is not None
        team = state.teams[card.seat]
        return Text(f"{team.name[0]}{card.value}", style=f"bold reverse {team.colour}")
    if card.kind == "mutant":
        return Text(f"M{card.value}", style="bold magenta reverse")
    if card.kind == "unknown":
        return Text("?", style="bright_black")
    return Text("·", style="bright_black")


def cell_text(state: State, sq: int) -> Text:
    """The text of one square: its top card, then what lies under it."""
    top = state.top(sq)
    under = state.under(sq)
    t = _card_text(state, top)
    if under.kind != "empty":
        t.append(" ")
        t.append_text(_card_text(state, under))
    return t


def render_grid(state: State, highlight: Sequence[int] = ()) -> Table:
    """The 5x5 zoo with column letters and row numbers."""
    grid = Table(box=box.SQUARE, show_header=True, padding=(0, 1), header_style="bold")
    grid.add_column("", justify="right", style="bold")
    for col in COLUMNS:
        grid.add_column(col, justify="center", min_width=5)
    for r in range(SIZE):
        cells: list[RenderableType] = [str(r + 1)]
        for c in range(SIZE):
            sq = r * SIZE + c
            t = cell_text(state, sq)
            if sq in highlight:
                t.stylize("underline")
            cells.append(t)
        grid.add_row(*cells)
    return grid


def render_players(
    state: State, names: Sequence[str] | None = None, me: int | None = None
) -> Table:
    """One row per seat: hand, captures, running score; an arrow marks the seat to move."""
    t = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    t.add_column("")
    t.add_column("player")
    t.add_column("hand")
    t.add_column("zoo", justify="right")
    t.add_column("took", justify="right")
    t.add_column("score", justify="right", style="bold")
    scores = state.scores()
    over = state.is_terminal()
    for seat in range(state.n_seats):
        mark = "▶" if (not over and state.needs is None and seat == state.to_move) else ""
        label = seat_label(state, seat, names)
        if me == seat:
            label.append(" *", style="bold")
        hand = " ".join(str(v) for v in state.hand(seat)) or "-"
        took = (
            " ".join(
                (f"M{v}" if mutant else f"{team.name[0]}{v}")
                for team, v, mutant in state.captured_characters(seat)
            )
            or "-"
        )
        zoo = state.captured_zoo(seat)
        t.add_row(mark, label, hand, f"{sum(zoo)} ({len(zoo)})", took, str(scores[seat].total))
    return t


def render_board(
    state: State,
    names: Sequence[str] | None = None,
    me: int | None = None,
    last: Move | None = None,
    legend: bool = False,
) -> RenderableType:
    """The whole table: the zoo, the players, the mutants found so far (and the legend)."""
    highlight: list[int] = []
    if isinstance(last, Step):
        highlight = [last.frm, last.to]
    elif isinstance(last, Send):
        highlight = [last.to]
    info = Text()
    if state.variant.value == "general":
        info.append("General variant: no mutants", style="italic")
    else:
        found = sorted(state.mutants_found)
        info.append("mutants: ", style="magenta")
        if found:
            which = ", ".join(f"the {v}" for v in found)
            info.append(f"{len(found)} of 4 found ({which})")
        else:
            info.append("none of the 4 found yet")
    info.append(f"; Zoo cards left: {state.zoo_cards_left()}")
    parts: list[RenderableType] = [render_grid(state, highlight), render_players(state, names, me)]
    parts.append(info)
    if legend:
        parts.append(Text(LEGEND, style="dim"))
    return Group(*parts)


def describe_move(
    before: State,
    after: State,
    move: Move,
    names: Sequence[str] | None = None,
    me: int | None = None,
) -> list[Text]:
    """Narrate what ``move`` did (capture, exposed bottom card, mutation), from two states;
    the seat `me` is "you"."""
    seat = before.to_move
    mine = seat == me
    who = Text("You") if mine else seat_label(before, seat, names)
    their = "your" if mine else "their"
    lines: list[Text] = []
    if isinstance(move, Send):
        mover_value, dest = move.value, move.to
        verb = f" send{'' if mine else 's'} {move_name(move)}"
    else:
        mc = before.top(move.frm)
        mover_value, dest = mc.value or 0, move.to
        verb = f" move{'' if mine else 's'} {their} {mover_value} {move_name(move)}"
    target = before.top(dest)
    line = Text.assemble(who, verb)
    if target.kind == "zoo":
        assert target.value is not None
        line.append(f" and take{'' if mine else 's'} {zoo_card_words(target.value)}")
    elif target.kind == "character":
        assert target.seat is not None
        line.append(" and take " if mine else " and takes ")
        owner = before.teams[target.seat]
        whose = "your" if target.seat == me else f"{owner.label}'s"
        line.append_text(team_text(owner, f"{whose} {target.value}"))
    elif target.kind == "mutant":
        line.append(f" and kill{'' if mine else 's'} {mutant_killed(target.value or 0)}")
    lines.append(line)
    u_before, u_after = before.under(dest), after.under(dest)
    if u_before.kind == "unknown" and u_after.kind == "zoo":
        assert u_after.value is not None
        lines.append(Text(uncovered(u_after.value), style="cyan"))
    if after.top(dest).kind == "mutant" and before.top(dest).kind != "mutant":
        assert target.value is not None
        lost = f"{their} {mover_value}"
        lines.append(Text(mutant_words(target.value, True, lost), style="bold magenta"))
    elif (
        target.kind == "zoo"
        and target.value is not None
        and target.value < 4
        and (after.variant.value == "standard")
    ):
        lines.append(Text(mutant_words(target.value, False), style="bright_black"))
    return lines


def mutant_chance(state: State, value: int) -> int | None:
    """Taking a face-up Zoo card of `value` now turns over the mutant with chance 1 in N:
    N, or None when it cannot (value 4, the General variant, that mutant already found).

    The mutant of a value hides, with equal odds, behind any copy of that value still in the
    zoo: the face-up ones and the ones never seen (all still under other cards)."""
    if value >= 4 or state.variant is Variant.GENERAL or value in state.mutants_found:
        return None
    face_up = 0
    for sq in range(SIZE * SIZE):
        for card in (state.top(sq), state.under(sq)):
            if card.kind == "zoo" and card.value == value:
                face_up += 1
    n = face_up + COPIES_PER_VALUE - state.seen_count(value)
    return n if n > 0 else None


def _target_note(state: State, sq: int, me: int) -> str:
    """What moving onto `sq` takes: '' for nothing worth a note."""
    top = state.top(sq)
    if top.kind == "character" and top.seat is not None and top.seat != me:
        return f"takes {state.teams[top.seat].label}'s {top.value}"
    if top.kind == "mutant":
        return "kills the mutant"
    if top.kind == "zoo" and top.value is not None:
        n = mutant_chance(state, top.value)
        return f"takes a {top.value}" + (f", 1 in {n} a mutant" if n else "")
    return ""


def hint_text(state: State) -> str:
    """The legal moves of the seat to move, compact, with what each capture takes: sends
    grouped by value, the mutant odds of each Zoo value, then every step with its capture."""
    moves = state.legal_moves()
    me = state.to_move
    sends = [m for m in moves if isinstance(m, Send)]
    steps = [m for m in moves if isinstance(m, Step)]
    lines: list[str] = []
    if sends:
        values = sorted({m.value for m in sends})
        squares = sorted({m.to for m in sends})
        where = (
            " ".join(square_name(q) for q in squares)
            if len(squares) <= 8
            else f"any of the {len(squares)} squares showing a Zoo card"
        )
        example = move_name(Send(values[-1], squares[0]))
        lines.append(f"send {'/'.join(map(str, values))} onto {where} (e.g. {example})")
        shown_values = sorted({v for q in squares if (v := state.top(q).value) is not None})
        risks = []
        for v in shown_values:
            n = mutant_chance(state, v)
            if n is not None:
                risks.append(f"a {v}: 1 in {n}")
        if risks:
            lines.append("mutant risk when you take " + ", ".join(risks))
        elif state.variant is Variant.STANDARD:
            lines.append("no mutant risk on the Zoo cards you can reach")
    if steps:
        parts = []
        for m in steps:
            note = _target_note(state, m.to, me)
            parts.append(f"{move_name(m)} ({note})" if note else move_name(m))
        lines.append("steps: " + ", ".join(parts))
    return "legal: " + ("\n       ".join(lines) if lines else "none")


def legal_summary(state: State) -> str:
    """The legal moves in a compact form: sends grouped by value, then every step."""
    moves = state.legal_moves()
    sends = [m for m in moves if isinstance(m, Send)]
    steps = [move_name(m) for m in moves if isinstance(m, Step)]
    parts = []
    if sends:
        values = sorted({m.value for m in sends})
        squares = sorted({m.to for m in sends})
        where = (
            " ".join(square_name(q) for q in squares)
            if len(squares) <= 8
            else (f"any of the {len(squares)} squares showing a Zoo card")
        )
        parts.append(f"send {'/'.join(map(str, values))} onto {where}")
    if steps:
        parts.append("move " + " ".join(steps))
    return "; ".join(parts) or "no legal move"


def render_scores(state: State, names: Sequence[str] | None = None) -> Table:
    """The final (or current) score breakdown, winners marked."""
    t = Table(title="Final score" if state.is_terminal() else "Score", box=box.ROUNDED)
    t.add_column("player")
    t.add_column("zoo cards", justify="right")
    t.add_column("characters taken", justify="right")
    t.add_column("survivors", justify="right")
    t.add_column("total", justify="right", style="bold")
    winners = set(state.winners()) if state.is_terminal() else set()
    for line in state.scores():
        label = seat_label(state, line.seat, names)
        if line.seat in winners:
            label.append(" — wins" if len(winners) == 1 else " — shared win", style="bold")
        t.add_row(label, str(line.zoo), str(line.characters), str(line.survivors), str(line.total))
    return t
