"""Before a network game starts: the lobby, and everything the runner and the transport say."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from zoo_p2p.text import lobby_waiting
from zoo_p2p.tui.facts import Glyphs
from zoo_p2p.tui.widgets import ViewStatic

TEAMS = ("Yellow", "Blue", "Green", "Red")


def same_wait(old: str, new: str) -> bool:
    """Is ``new`` the same message as ``old`` with other figures (a count-down, a count of
    seconds tried)? Then it updates that line.

    >>> same_wait("still trying (5 of 60 s)", "still trying (10 of 60 s)")
    True
    >>> same_wait("seat 1 joined", "seat 2 joined"), same_wait("a", "a")
    (False, False)
    """
    if old == new or not re.search(r"\d", new) or "joined" in new:
        return False
    return re.sub(r"\d+", "#", old) == re.sub(r"\d+", "#", new)


TEAM_COLOURS = ("yellow", "blue", "green", "red")

INVITE_HEAD = "invite (give this to the other players)"
_INVITE_END = re.compile(
    r"/[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}\Z"
)  # an invite ends with its fingerprint
_QR = frozenset(" ▀▄█")


Row = tuple[str, str, int]
"""A seat taken: its name and fingerprint (already made safe), and its team."""


# ---------------------------------------------------------------------- the lobby's panels
@dataclass(frozen=True)
class LobbyView:
    """The seats taken so far of the ``need`` the game waits for; ``closed``: the peer's run
    has ended before the game started, nobody is awaited any more."""

    rows: tuple[Row, ...] = ()
    need: int = 0
    closed: bool = False


class LobbySeats(ViewStatic[LobbyView]):
    """The lobby panel: who has joined, and what the game still awaits. Set `view` (until it
    is set, the panel waits for the lobby)."""

    BORDER_TITLE = "lobby"

    def __init__(self, glyphs: Glyphs, *, id: str | None = None, classes: str = "") -> None:
        dots = "..." if glyphs.ascii else "…"
        waiting = Text(f"waiting for the lobby{dots}")
        super().__init__(glyphs, id=id, classes=classes, content=waiting)

    def text(self, v: LobbyView) -> Text:
        t = Text()
        if v.need:
            t.append(f"{len(v.rows)} of {v.need} seats\n")
        for i, (name, fp, team) in enumerate(v.rows):
            t.append(f"seat {i + 1}: ")
            t.append(f"{name} ({TEAMS[team % 4]})", style=f"bold {TEAM_COLOURS[team % 4]}")
            t.append(f"  {fp}\n", style="dim")
        if v.closed:
            t.append("the game link has closed: nobody is awaited any more", style="bold")
        else:
            t.append(lobby_waiting(len(v.rows), v.need), style="italic")
        return t


class LobbyLog(VerticalScroll):
    """The lobby's messages (the invite, the runner's and the transport's notices), the newest
    200, scrolled to the end when one comes. Set `lines`."""

    lines: reactive[tuple[Text, ...]] = reactive((), init=False)

    def __init__(self, *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = "messages"

    def compose(self) -> ComposeResult:
        yield Static(id="lobby-text", markup=False)

    def watch_lines(self) -> None:
        self.query_one("#lobby-text", Static).update(Text("\n").join(self.lines[-200:]))
        self.scroll_end(animate=False)


@dataclass(frozen=True)
class LobbyKeysView:
    """What the keys do in the lobby: ``closed``, q closes at once; else c copies the invite
    (when there is one) and i shows its QR code (when there is one)."""

    closed: bool = False
    invite: bool = False
    qr: bool = False


class LobbyKeys(ViewStatic[LobbyKeysView]):
    """The lobby's keys line. Set `view`."""

    def text(self, v: LobbyKeysView) -> Text:
        if v.closed:
            return Text("q closes the app now", style="dim")
        keys = ["q leave (asks first)"]
        if v.invite:
            keys.append("c copy the invite")
        if v.qr:
            keys.append("i its QR code")
        keys.append("Ctrl-C copies what the mouse selected")
        return Text(self.g.sep.join(keys), style="dim")


class LobbyScreen(Screen[None]):
    """Who has joined, the invite, and the link's messages, until the game starts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave_ask", "leave"),
        Binding("escape", "nothing", show=False),
        Binding("c", "copy_invite", "copy the invite", show=False),
        Binding("i", "show_qr", "the invite as a QR code", show=False),
    ]

    def __init__(self, glyphs: Glyphs) -> None:
        super().__init__()
        self.g = glyphs
        self.lines: list[Text] = []
        self.panels = False  # set in on_mount (`is_mounted` turns true only after it)
        self.rows: list[Row] = []
        self.need = 0
        self.seen = False  # the lobby has been heard of (or the run closed): its view is set
        self.closed = False  # the peer's run has ended: q leaves at once, nothing to lose
        self.invite: str | None = None  # the host's invite, its printed lines joined
        self.invite_at: int | None = None  # its line in `lines` while its lines come in
        self.qr: list[str] = []  # the invite's QR code (zoo host --qr), shown on `i`

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Apocalypse at the Zoo of Carson City: network game", style="bold"), id="status"
        )
        yield LobbySeats(self.g, id="lobby-seats", classes="panel")
        yield LobbyLog(id="lobby-log", classes="panel")
        yield LobbyKeys(self.g, id="keys")

    def on_mount(self) -> None:
        if self.g.ascii:
            self.add_class("-ascii")
        self.panels = True
        self.show()  # what came before the mount

    def show(self) -> None:
        """Calls down: hand every panel its view of the lobby as it is now (a panel whose view
        did not change is not drawn again). Before the mount there is nothing to show it on:
        `on_mount` shows what came by then."""
        if not self.panels:
            return
        if self.seen:
            self.query_one(LobbySeats).view = LobbyView(tuple(self.rows), self.need, self.closed)
        self.query_one(LobbyLog).lines = tuple(self.lines)
        self.query_one(LobbyKeys).view = LobbyKeysView(
            self.closed, self.invite is not None, bool(self.qr)
        )

    def show_lobby(self, rows: list[Row], need: int) -> None:
        """The seats taken so far (names and fingerprints already made safe)."""
        self.rows, self.need, self.seen = rows, need, True
        self.show()

    def show_closed(self) -> None:
        """The peer's run ended before the game started: nothing is awaited any more."""
        self.closed = self.seen = True
        self.show()

    def add_line(self, text: Text) -> None:
        """One message (invite, notices); a wait said again with new figures ("still trying
        (10 of 60 s)") takes the place of the line it updates instead of piling up."""
        plain = text.plain
        if plain.strip() and set(plain) <= _QR:  # a row of the QR code: kept for its overlay
            if not self.qr:
                self.lines.append(Text("(the invite as a QR code: press i to show it)"))
            self.qr.append(plain)
        elif self.invite_at is not None:  # the invite's next printed line: the same invite
            self.invite = (self.invite or "") + plain.strip()
            self.lines[self.invite_at] = Text(self.invite, style="bold")
            if _INVITE_END.search(self.invite):
                self.invite_at = None
        elif plain.startswith(INVITE_HEAD):
            self.lines.append(Text(f"{INVITE_HEAD}; c copies it:", style="bold"))
            self.invite = ""
            self.invite_at = len(self.lines)
            self.lines.append(Text(""))
        elif self.lines and same_wait(self.lines[-1].plain, plain):
            self.lines[-1] = text
        else:
            self.lines.append(text)
        self.show()

    def action_copy_invite(self) -> None:
        """c: the invite to the clipboard (the terminal's, by OSC 52), whole, on one line."""
        if not self.invite:
            self.add_line(Text("there is no invite to copy here (a joiner has none)", style="dim"))
            return
        self.app.copy_to_clipboard(self.invite)
        self.add_line(
            Text(
                "copied the invite (if your terminal allows it: else select it with the mouse)",
                style="green",
            )
        )

    def action_show_qr(self) -> None:
        """i: the invite's QR code over the lobby, when the terminal is large enough."""
        from zoo_p2p.tui.overlays import QrOverlay

        if not self.qr:
            self.add_line(Text("no QR code here: zoo host --qr draws one", style="dim"))
            return
        w, h = max(len(r) for r in self.qr), len(self.qr)
        if w > self.app.size.width or h + 1 > self.app.size.height:
            self.add_line(
                Text(
                    f"the QR code needs {w}×{h + 1}: make the terminal larger, or copy the "
                    "invite (c)",
                    style="yellow",
                )
            )
            return
        self.app.push_screen(QrOverlay(self.qr))

    def action_nothing(self) -> None:
        """Escape: nothing is open here to close (it never leaves)."""

    def action_leave_ask(self) -> None:
        """q: ask once; q or y leaves (before the game starts nobody resigns). Once the link
        has closed there is nothing to lose: q leaves at once."""
        from zoo_p2p.tui.overlays import LEAVE_KEYS, Question

        if self.closed:
            self.action_leave()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.action_leave()

        words = Text(
            "Leave? The game has not started: you take no seat and nothing is resigned "
            "(if it has just started, you resign it and a stand-in plays on)."
        )
        self.app.push_screen(Question(words, LEAVE_KEYS), answered)

    class Leave(Message):
        """The person leaves before the game starts: the app stops the peer and leaves."""

    def action_leave(self) -> None:
        """Leave before the game starts (the app does it: messages go up)."""
        self.post_message(self.Leave())
