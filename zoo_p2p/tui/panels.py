"""The text of the panels that both the game and the replay show: the seats and the captures.

Plain functions of a position (no screen, no app), so that every screen can use them without
importing another screen."""

from __future__ import annotations

from rich.text import Text

from zoo_p2p.rules import State, Variant
from zoo_p2p.tui.facts import Glyphs, seat_text, took_text, turned


def seats_text(
    st: State,
    names: list[str],
    g: Glyphs,
    presence: list[bool] | None = None,
    clocks: list[str] | None = None,
    notes: list[str] | None = None,
    awaiting: str | None = None,
    links: list[str] | None = None,
    you: int | None = None,
    width: int = 200,
) -> Text:
    """Every seat, in lines that fit ``width`` columns (never wrapped): turn mark, name
    (`you`: this terminal's seat, marked unless its name says so) and score; hand and Zoo pile;
    then, when there is any, presence, how we hear it, clock, the seat's state and captures."""
    out = Text()
    scores = st.scores()
    over = st.is_terminal()
    width = max(24, width)
    for seat in range(st.n_seats):
        if seat:
            out.append("\n")
        mark = g.turn if (not over and seat == st.to_move) else " "
        pts = f" {scores[seat].total} pts"
        name = Text()
        if presence is not None and seat < len(presence):  # a rematch may not have it yet
            up = presence[seat]
            name.append(f"{g.online if up else g.offline} ", style="green" if up else "red")
        name.append_text(seat_text(st, seat, names))
        if seat == you and names[seat] != "you":
            name.append(" (you)", style="bold")
        room = width - 2 - len(pts)
        if name.cell_len > room:
            name.truncate(room - 1)
            name.append("…" if not g.ascii else "~")
        out.append(f"{mark} ", style="bold")
        out.append_text(name)
        out.append(" " * max(1, room - name.cell_len))
        out.append(pts.lstrip(), style="bold")
        zoo = st.captured_zoo(seat)
        hand = " ".join(map(str, st.hand(seat))) or "none"
        cards = f"{len(zoo)} card" + ("" if len(zoo) == 1 else "s")
        line = Text(_fit(f"  hand {hand}{g.sep}Zoo {cards} {sum(zoo)} pts", width))
        extra: list[Text] = []
        if links is not None and seat < len(links) and links[seat]:
            direct = links[seat].startswith("direct")
            extra.append(Text(links[seat], style="green" if direct else "dim"))
        if notes is not None and seat < len(notes) and notes[seat]:
            extra.append(Text(notes[seat], style="bold red"))
        if clocks is not None and seat < len(clocks) and clocks[seat]:
            extra.append(Text(f"{clocks[seat]} to play", style="bold"))
        took = took_text(st, seat)
        if took:
            extra.append(Text(f"took {took}"))
        more = Text(g.sep).join(extra)
        out.append("\n")
        if extra and line.cell_len + len(g.sep) + more.cell_len <= width:
            line.append(g.sep)  # it fits on the hand's line
            line.append_text(more)
            out.append_text(line)
        else:
            out.append_text(line)
            if extra:
                more = Text("  ") + more
                more.truncate(width, overflow="ellipsis")
                out.append("\n")
                out.append_text(more)
    if awaiting:
        out.append(f"\n{awaiting}", style="italic")
    return out


def _fit(line: str, width: int) -> str:
    """``line`` cut to ``width`` columns."""
    return line if len(line) <= width else line[: width - 1] + "…"


def captures_text(st: State, names: list[str]) -> Text:
    """Every seat's captures in full, and how far the mutant hunt has come."""
    out = Text()
    for seat in range(st.n_seats):
        if seat:
            out.append("\n")
        out.append_text(seat_text(st, seat, names))
        zoo = sorted(st.captured_zoo(seat))
        out.append(f"\n  Zoo cards: {' '.join(map(str, zoo)) or 'none'}")
        out.append(f"\n  characters: {took_text(st, seat) or 'none'}")
    if st.variant is Variant.STANDARD:
        tv = turned(st)
        out.append("\n\nturned over: " + ", ".join(f"{v}s {tv[v]}/10" for v in range(4)))
        found = sorted(st.mutants_found)
        out.append("\nmutants found: " + (", ".join(f"the {v}" for v in found) or "none yet"))
    return out
