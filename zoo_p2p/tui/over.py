"""Game over: the breakdown, the whole hidden deal opened, the audit verdict, the log, rematch."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from zoo_p2p.rules import State
from zoo_p2p.rules.board import COLUMNS, N_SQUARES, SIZE
from zoo_p2p.tui.facts import Glyphs, seat_text
from zoo_p2p.tui.table import DealView, Table


def breakdown(st: State, names: list[str], glyphs: Glyphs) -> RichTable:
    """The score of every seat: Zoo cards, characters taken, survivors, total; winners marked."""
    box = None if glyphs.ascii else __import__("rich.box", fromlist=["SIMPLE"]).SIMPLE
    t = RichTable(
        box=box, padding=(0, 1), show_edge=False, title="Final score", title_justify="left"
    )
    for col in ("player", "Zoo cards", "characters", "survivors", "total"):
        t.add_column(col, justify="left" if col == "player" else "right")
    winners = set(st.winners())
    for line in st.scores():
        label = seat_text(st, line.seat, names)
        if line.seat in winners:
            label.append(" wins" if len(winners) == 1 else " shares the win", style="bold")
        t.add_row(label, str(line.zoo), str(line.characters), str(line.survivors), str(line.total))
    return t


def deal_text(deal: DealView) -> Text:
    """The deal opened: each square's top / bottom card, mutants marked with *, and a list of
    where each mutant was."""
    out = Text("The hidden deal (top/bottom, * = hid the mutant):\n", style="bold")
    out.append("    " + "".join(c.center(8) for c in COLUMNS) + "\n")
    where: list[str] = []
    for r in range(SIZE):
        out.append(f" {r + 1}  ")
        for c in range(SIZE):
            q = r * SIZE + c
            top, bot = deal.slot_tokens[q], deal.slot_tokens[N_SQUARES + q]
            cell = Text()
            for i, tok in enumerate((top, bot)):
                if i:
                    cell.append("/")
                cell.append(
                    str(tok // 10), style="bold magenta reverse" if deal.is_mutant(tok) else ""
                )
                cell.append("*" if deal.is_mutant(tok) else "")
                if deal.is_mutant(tok):
                    layer = "top" if i == 0 else "bottom"
                    where.append(f"the {tok // 10} was the {layer} card of {COLUMNS[c]}{r + 1}")
            cell.pad_right(8 - cell.cell_len)
            out.append_text(cell)
        out.append("\n")
    if where:
        out.append("mutants: " + "; ".join(sorted(where)))
    else:
        out.append("General variant: no mutants")
    return out


class GameOverScreen(Screen[str]):
    """The end of a game; dismissed with 'rematch', 'board' or 'quit'."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "rematch"),
        Binding("b,escape", "board", "back to the board"),
        Binding("q", "quit_app", "quit"),
    ]

    def __init__(self, table: Table, glyphs: Glyphs) -> None:
        super().__init__()
        self.table = table
        self.g = glyphs
        self.ready: set[int] = set()
        self.panels = False  # set in on_mount (`is_mounted` turns true only after it)

    def compose(self) -> ComposeResult:
        st = self.table.state
        with VerticalScroll(id="over"):
            head = Text("Game over:", style="bold")
            if st.needs is None and st.is_terminal():
                head.append(" ")
                head.append_text(seat_text(st, st.to_move, self.table.names))
                head.append(" cannot act.")
            yield Static(head, id="over-head")
            with Horizontal(id="over-body"):
                yield Static(
                    breakdown(st, self.table.names, self.g), id="breakdown", classes="panel"
                )
                yield Static(self.deal_text(), id="deal", classes="panel")
            yield Static(self.verdict_text(), id="verdict", classes="panel")
            yield Static(self.keys_text(), id="over-keys")

    def deal_text(self) -> Text:
        end = self.table.ending()
        return deal_text(end.deal) if end.deal else Text("the hidden deal is not opened yet")

    def verdict_text(self) -> Text:
        end = self.table.ending()
        verdict = Text("audit: ", style="bold")
        verdict.append_text(end.verdict)
        for note in end.notes:
            verdict.append("\n" + note)
        log = Text("log: ", style="bold")
        log.append(end.log_path if end.log_path else "none (local games keep no log)")
        return Text("\n").join([verdict, log])

    def update_ending(self) -> None:
        """The deal, the verdict or the log path arrived later (network games).

        The peer loop may report after this screen was pushed and before it is mounted: then
        there is nothing to update yet, and `on_mount` draws the ending as it stands by then."""
        if not self.panels:
            return
        self.query_one("#deal", Static).update(self.deal_text())
        self.query_one("#verdict", Static).update(self.verdict_text())
        self.query_one("#over-keys", Static).update(self.keys_text())

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.panels = True
        self.update_ending()  # what arrived between compose and now

    def keys_text(self) -> Text:
        need = len(self.table.human)
        if self.table.can_rematch:
            t = Text("r rematch (same seats, new deal")
            if need > 1:
                t.append(f"; every player presses r: {len(self.ready)} of {need} ready")
            t.append(")" + self.g.sep)
        else:
            t = Text("(rematch once the result is signed and saved)" + self.g.sep)
        t.append(f"b back to the board{self.g.sep}q quit")
        return t

    def action_rematch(self) -> None:
        """One press per human seat, then a new game."""
        if not self.table.can_rematch:
            return
        self.ready.add(len(self.ready))
        if len(self.ready) < len(self.table.human):
            self.query_one("#over-keys", Static).update(self.keys_text())
            return
        self.dismiss("rematch")

    def action_board(self) -> None:
        """Look at the final position."""
        self.dismiss("board")

    def action_quit_app(self) -> None:
        """Leave."""
        self.dismiss("quit")
