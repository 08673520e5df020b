"""Game over: the breakdown, the whole hidden deal opened, the audit verdict, the log, rematch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen

from zoo_p2p.errors import ZooError
from zoo_p2p.export import record_from_entries, to_html, to_text
from zoo_p2p.files import shared_mode, write_atomic
from zoo_p2p.protocol.audit import audit
from zoo_p2p.rules import State
from zoo_p2p.rules.board import COLUMNS, N_SQUARES, SIZE
from zoo_p2p.storage import read_log, read_proofs
from zoo_p2p.text import shown
from zoo_p2p.tui.board import Position
from zoo_p2p.tui.facts import Glyphs, seat_text
from zoo_p2p.tui.overlays import LEAVE_KEYS, Question
from zoo_p2p.tui.table import DealView, Table
from zoo_p2p.tui.widgets import ViewStatic


def breakdown(st: State, names: list[str], glyphs: Glyphs) -> RichTable:
    """The score of every seat: Zoo cards, characters taken, survivors, total; winners marked."""
    box = None if glyphs.ascii else __import__("rich.box", fromlist=["SIMPLE"]).SIMPLE
    t = RichTable(
        box=box, padding=(0, 1), show_edge=False, title="Final score", title_justify="left"
    )
    for col in ("player", "Zoo cards", "characters", "survivors", "total"):
        t.add_column(col, justify="left" if col == "player" else "right")
    t.caption = COLUMNS_EXPLAINED
    t.caption_justify = "left"
    winners = set(st.winners())
    for line in st.scores():
        label = seat_text(st, line.seat, names)
        if line.seat in winners:
            label.append(" wins" if len(winners) == 1 else " shares the win", style="bold")
        t.add_row(label, str(line.zoo), str(line.characters), str(line.survivors), str(line.total))
    return t


COLUMNS_EXPLAINED = (
    "Zoo cards: the points of the Zoo cards the player took · characters: the points of the "
    "characters they took (an opponent's, or a mutant's own value) · survivors: their own "
    "characters still healthy, in hand or on the board · total: the three added up"
)


def headline(st: State, names: list[str], dash: str = "–") -> Text:
    """The result first: "Blue wins 47–40", "Yellow and Blue share the win at 44"."""
    scores = sorted(st.scores(), key=lambda s: -s.total)
    winners = st.winners()
    label = [st.teams[s].label for s in range(st.n_seats)]
    t = Text()
    if len(winners) == 1:
        t.append(f" {label[winners[0]]} wins ", style=f"bold reverse {st.teams[winners[0]].colour}")
    else:
        t.append(
            " " + " and ".join(label[w] for w in winners) + " share the win ", style="bold reverse"
        )
    t.append(" " + dash.join(str(s.total) for s in scores), style="bold")
    t.append("  (" + ", ".join(f"{label[s.seat]} {s.total}" for s in scores) + ")")
    return t


def why_it_ended(st: State, names: list[str]) -> str:
    """Why a finished position is final, in a player's words: the seat to move could not act."""
    seat = st.to_move
    who = f"{shown(names[seat], 40)} ({st.teams[seat].label})"
    own = "your" if names[seat] == "you" else "their"
    hand = st.hand(seat)
    board = [
        q for q in range(N_SQUARES) if st.top(q).kind == "character" and st.top(q).seat == seat
    ]
    zoo_tops = sum(1 for q in range(N_SQUARES) if st.top(q).kind == "zoo")
    left = sum(1 for q in range(N_SQUARES) for c in (st.top(q), st.under(q)) if c.kind == "zoo")
    if not hand and not board:
        why = "has no character left: none in hand, none on the board"
    else:
        parts = []
        if hand:
            parts.append(
                f"{own} {' '.join(map(str, hand))} in hand cannot be sent, since no square shows "
                "a Zoo card on top"
                if not zoo_tops
                else "their hand cannot be sent anywhere"
            )
        if board:
            parts.append(f"none of {own} characters on the board can move")
        elif not hand:
            parts.append("nothing is left to play")
        why = "could not act: " + ", and ".join(parts)
    cards = f"{left} Zoo card" + ("" if left == 1 else "s")
    return (
        f"The game ended because {who}, whose turn it was, {why}. When the player to move "
        f"cannot act, the game ends at once for everyone ({cards} stayed on the board, "
        "scored by nobody)."
    )


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


def export_paths(log: Path) -> tuple[Path, Path]:
    """Where the end screen's export of ``log`` goes: beside it, the log's name with ``.html``
    and ``.txt`` (``game.zoolog`` -> ``game.html``, ``game.txt``), never the log itself."""
    html, text = log.with_suffix(".html"), log.with_suffix(".txt")
    if log.suffix in (".html", ".txt"):  # a log named like an export: keep its whole name
        html, text = log.with_name(log.name + ".html"), log.with_name(log.name + ".export.txt")
    return html, text


def export_log(log: Path) -> tuple[Path, Path, int]:
    """Audit the signed log at ``log`` and write its HTML page and text record beside it
    (`export_paths`), as ``zoo replay LOG --html … --text …`` does: the verdict in both, the
    usual mode of a file meant to be shared. Returns the two paths and the number of moves.
    Raises ZooError (LogError, FileError) or ValueError (a log with nothing played)."""
    read = read_log(log)
    report = audit(read.entries, torn=lambda: read.torn_bytes, proofs=read_proofs(log))
    parts = [report.verdict]
    if report.fault_index is not None:
        parts.append(f"rejected: entry {report.fault_index}: {report.fault_reason}")
    if report.ending_text:
        parts.append(report.ending_text)
    record = record_from_entries(read.entries, verdict="; ".join(parts))
    html, text = export_paths(log)
    write_atomic(html, to_html(record).encode(), mode=shared_mode())
    write_atomic(text, to_text(record).encode(), mode=shared_mode())
    return html, text, len(record.moves)


# ---------------------------------------------------------------------- the end screen's panels
@dataclass(frozen=True)
class OverHeadView:
    """The result and why the game ended: the last position, and how a game ended that has no
    final position (a claim, a resignation)."""

    position: Position
    names: tuple[str, ...]
    ended: str | None = None


class OverHead(ViewStatic[OverHeadView]):
    """The end screen's head: the result, then why the game ended. Set `view`."""

    def text(self, v: OverHeadView) -> Text:
        st, names = v.position.state, list(v.names)
        if st.needs is None and st.is_terminal():
            head = headline(st, names, self.g.dash if self.g.ascii else "–")
            head.append("\n")
            head.append(why_it_ended(st, names))
            return head
        head = Text("Game over", style="bold")
        if v.ended:
            head.append(f": {shown(v.ended, 300)}")
        return head


@dataclass(frozen=True)
class BreakdownView:
    """The final score of every seat."""

    position: Position
    names: tuple[str, ...]


class Breakdown(ViewStatic[BreakdownView]):
    """The score table (`breakdown`). Set `view`."""

    def text(self, v: BreakdownView) -> RichTable:
        return breakdown(v.position.state, list(v.names), self.g)


@dataclass(frozen=True)
class DealPanelView:
    """The hidden deal, once it is opened (None: not yet)."""

    deal: DealView | None = None


class DealPanel(ViewStatic[DealPanelView]):
    """The hidden deal opened (`deal_text`), or that it is not yet. Set `view`."""

    def text(self, v: DealPanelView) -> Text:
        return deal_text(v.deal) if v.deal else Text("the hidden deal is not opened yet")


@dataclass(frozen=True)
class VerdictView:
    """The audit's verdict and its notes, and where the log is (None: a local game)."""

    verdict: Text
    notes: tuple[str, ...] = ()
    log_path: str | None = None


class VerdictPanel(ViewStatic[VerdictView]):
    """The audit's verdict, then the log: where it is, how to replay and export it. Set
    `view`."""

    def text(self, v: VerdictView) -> Text:
        verdict = Text("audit: ", style="bold")
        verdict.append_text(v.verdict)
        for note in v.notes:
            verdict.append("\n" + note)
        log = Text("log: ", style="bold")
        if v.log_path:
            path = shown(v.log_path, 300)
            log.append(path)
            log.append(f"\nreplay it: zoo replay {path}", style="dim")
            html, text = export_paths(Path(v.log_path))
            log.append(
                f"\nexport it: x writes {shown(html.name, 100)} and {shown(text.name, 100)} "
                f"beside the log (or zoo replay {path} --html OUT --text OUT)",
                style="dim",
            )
        else:
            log.append(
                "none: a local game keeps no log, so it cannot be replayed or exported "
                "(zoo play without --local keeps a signed log)"
            )
        return Text("\n").join([verdict, log])


@dataclass(frozen=True)
class OverKeysView:
    """What the keys do on the end screen: a rematch (how many of the ``need`` human seats
    are ``ready``), replay and export when there is a log; ``said``: a line in place of the
    keys (what x or v did, or why not) until the keys change."""

    can_rematch: bool
    need: int
    ready: int = 0
    log: bool = False
    said: Text | None = None


class OverKeys(ViewStatic[OverKeysView]):
    """The end screen's keys line (or what x or v said in its place). Set `view`."""

    def text(self, v: OverKeysView) -> Text:
        if v.said:  # until the keys change
            return v.said
        sep = self.g.sep
        if v.can_rematch:
            t = Text("r rematch (same seats, new deal")
            if v.need > 1:
                t.append(f"; every player presses r: {v.ready} of {v.need} ready")
            t.append(")" + sep)
        else:
            t = Text("(rematch once the result is signed and saved)" + sep)
        if v.log:
            t.append(f"v replay{sep}x export{sep}")
        t.append(f"b/Esc: the final position (e: back here){sep}up/down: scroll{sep}q leave")
        return t


class GameOverScreen(Screen[str]):
    """The end of a game; dismissed with 'rematch', 'board' or 'quit'."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "rematch"),
        Binding("b,escape", "board", "back to the board"),
        Binding("q", "leave_ask", "leave"),
        Binding("v", "replay", "replay the game"),
        Binding("x", "export", "export the game"),
    ]

    def __init__(self, table: Table, glyphs: Glyphs) -> None:
        super().__init__()
        self.table = table
        self.g = glyphs
        self.ready: set[int] = set()
        self.panels = False  # set in on_mount (`is_mounted` turns true only after it)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="over"):
            yield OverHead(self.g, id="over-head")
            with Horizontal(id="over-body"):
                yield Breakdown(self.g, id="breakdown", classes="panel")
                yield DealPanel(id="deal", classes="panel")
            yield VerdictPanel(id="verdict", classes="panel")
        yield OverKeys(self.g, id="over-keys")

    def show(self) -> None:
        """Calls down: hand every panel its view of the table's ending as it is now (the deal,
        the verdict or the log path may arrive later, in a network game).

        The peer loop may report after this screen was pushed and before it is mounted: then
        there is nothing to show it on yet, and `on_mount` shows the ending as it stands by
        then."""
        if not self.panels:
            return
        table = self.table
        position, names, end = Position(table.state), tuple(table.names), table.ending()
        self.query_one(OverHead).view = OverHeadView(position, names, table.ended())
        self.query_one(Breakdown).view = BreakdownView(position, names)
        self.query_one(DealPanel).view = DealPanelView(end.deal)
        self.query_one(VerdictPanel).view = VerdictView(end.verdict, end.notes, end.log_path)
        self.query_one(OverKeys).view = self.keys_view()

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.panels = True
        self.show()  # what arrived between compose and now

    def keys_view(self, said: Text | None = None) -> OverKeysView:
        """The keys line's view now (``said``: a line in its place)."""
        log = bool(self.table.ending().log_path)
        return OverKeysView(
            self.table.can_rematch, len(self.table.human), len(self.ready), log, said
        )

    def action_rematch(self) -> None:
        """One press per human seat, then a new game."""
        if not self.table.can_rematch:
            return
        self.ready.add(len(self.ready))
        if len(self.ready) < len(self.table.human):
            self.query_one(OverKeys).view = self.keys_view()
            return
        self.dismiss("rematch")

    class ReplayAsked(Message):
        """v: the app opens the replay of the log at ``path`` (q in the replay comes back
        here); it answers with ``say`` when the log cannot be read."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def action_replay(self) -> None:
        """v: step through the game's log here (q in the replay comes back)."""
        end = self.table.ending()
        if not end.log_path:
            self.say(Text("a local game keeps no log: there is nothing to replay", style="yellow"))
            return
        self.post_message(self.ReplayAsked(Path(end.log_path)))

    def action_export(self) -> None:
        """x: the game's HTML page and text record, written beside its log; where they went
        (or why not) in the keys line."""
        end = self.table.ending()
        if not end.log_path:
            self.say(Text("a local game keeps no log: there is nothing to export", style="yellow"))
            return
        try:
            html, text, moves = export_log(Path(end.log_path))
        except (ZooError, OSError, ValueError) as exc:
            self.say(Text(f"cannot export the game: {shown(str(exc), 300)}", style="red"))
            return
        said = f"exported {moves} move{'' if moves == 1 else 's'}: {shown(str(html), 200)}"
        self.say(Text(f"{said} and {shown(str(text), 200)}", style="green"))

    def say(self, text: Text) -> None:
        """A line in place of the keys line (until the next change of keys)."""
        self.query_one(OverKeys).view = self.keys_view(said=text)

    def action_board(self) -> None:
        """Look at the final position."""
        self.dismiss("board")

    def action_leave_ask(self) -> None:
        """q: ask once (the game is over: nothing is lost); q or y leaves."""
        end = self.table.ending()
        words = Text("Leave? The game is over.")
        if end.log_path:
            words.append(f" Its log is saved: {shown(end.log_path, 300)}")
        else:
            words.append(" A local game is not saved anywhere (it keeps no log).")

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss("quit")

        self.app.push_screen(Question(words, LEAVE_KEYS), answered)
