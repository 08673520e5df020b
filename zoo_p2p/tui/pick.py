"""``zoo join`` with no invite: the games on the LAN, listed live while a browse runs in the
background, to pick one (or paste an invite).

The screen never touches the network: it is given a *source* that starts a browse and returns
its ``stop``. The source calls ``report(Found)`` from any thread whenever the list changes; the
records are plain and already checked (the CLI turns ``zoo_p2p.net.discovery`` adverts into
them), and every string in them is still shown as data. The screen hands back the chosen
invite's text (the join then checks the host's fingerprint).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from zoo_p2p.text import HINTS_ADVERT, shown

if TYPE_CHECKING:
    from rich.console import Console

    from zoo_p2p.driver import Driver

SEARCH_SECONDS = 5.0  # after this long with nothing found, say so (the browse goes on)
MAX_GAMES = 32  # rows shown, whatever a source reports
INVITE_MAX = 8192


@dataclass(frozen=True)
class LanGame:
    """One game found on the LAN (every field from the advert: hostile, already checked)."""

    name: str
    fingerprint: str
    taken: int
    seats: int
    variant: str
    invite: str
    hints: bool = False  # the advert says the table allows hints

    @property
    def free(self) -> int:
        """Seats still free."""
        return self.seats - self.taken


@dataclass(frozen=True)
class Found:
    """What a browse lists now: the games, how many adverts it dropped, the first network
    trouble (multicast refused), and ``error`` when it cannot browse here at all."""

    games: tuple[LanGame, ...] = ()
    dropped: int = 0
    trouble: str | None = None
    error: str | None = None


Report = Callable[[Found], None]
Source = Callable[[Report], Callable[[], None]]  # start a browse; returns its stop()


def game_line(g: LanGame, *, twin: bool = False) -> Text:
    """One row of the list: name (as data, never markup), fingerprint, seats, variant; `twin`:
    another advert claims the same fingerprint (one of them points elsewhere)."""
    seats = f"{g.free} of {g.seats} free" if g.free > 0 else f"full ({g.taken}/{g.seats})"
    t = Text()
    t.append(f"{shown(g.name, 32):<32}", style="bold")
    t.append(f"  {shown(g.fingerprint, 24)}", style="dim")
    t.append(f"  {shown(seats, 14):<11}  {shown(g.variant, 10)}")  # 76 columns: fits 80
    if g.hints:
        t.append(f"\n  {HINTS_ADVERT}", style="cyan")
    if twin:
        t.append("\n  two adverts claim this fingerprint: ask the host which", style="bold yellow")
    return t


def nothing_found(seconds: float) -> str:
    """The message once a search has found nothing within its bound."""
    return (
        f"no game found on the local network after {seconds:.0f} s (is the host on this "
        "network? mDNS multicast may be blocked here). Paste the invite instead (p), or search "
        "again (r)."
    )


class InviteInput(Input):
    """The invite box: a paste over several lines (the invite is printed in lines) is joined.
    While it is empty, r and q still search again and leave: no invite starts with them."""

    def __init__(self, keys: dict[str, Callable[[], None]], **kw: Any) -> None:
        super().__init__(**kw)
        self.keys = keys

    async def _on_key(self, event: events.Key) -> None:
        act = self.keys.get(event.character or "") if not self.value else None
        if act is not None:
            event.stop()
            event.prevent_default()
            act()

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # not Input's own paste, which keeps the first line only
        text = "".join(event.text.split())[:INVITE_MAX]
        if text:
            self.insert_text_at_cursor(text)


class PickScreen(Screen[str | None]):
    """The games on the LAN, updated live: arrows + Enter (or a click) joins one; p (or just
    pasting) takes an invite; r searches again; q or Esc leaves. Dismissed with the invite's
    text, or None. The browse is stopped on every way out."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "paste", "paste an invite"),
        Binding("r", "search", "search again"),
        Binding("q", "leave", "leave"),
        Binding("escape", "back", "back", show=False),
    ]

    class Browsed(Message):
        """A browse reported (posted from any thread; ``search`` tells stale browses apart)."""

        def __init__(self, search: int, found: Found) -> None:
            super().__init__()
            self.search = search
            self.found = found

    def __init__(
        self,
        source: Source,
        check: Callable[[str], str | None] | None = None,
        *,
        bound: float = SEARCH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.source = source
        self.check = check
        self.bound = bound
        self.clock = clock
        self.search = 0
        self.started = 0.0
        self.found = Found()
        self.games: list[LanGame] = []
        self.chosen: LanGame | None = None  # the listed game picked (None: pasted, or none)
        self.stop: Callable[[], None] | None = None
        self.pasting = False  # the player asked for the invite box (p, or pasted)

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Apocalypse at the Zoo of Carson City: games on the local network", style="bold"),
            id="status",
        )
        yield Static(id="pick-head", markup=False)
        yield Static(id="pick-note", markup=False)
        yield OptionList(id="pick-list")
        yield InviteInput(
            {"r": self.action_search, "q": self.action_leave},
            placeholder="paste the invite here, then Enter (Esc: back)",
            id="pick-invite",
            max_length=INVITE_MAX,
        )
        yield Static(id="pick-error", markup=False)
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        arrows = "up/down" if self.ascii else "↑↓"
        keys = f"{arrows} Enter join   p paste an invite   r search again   q leave"
        self.query_one("#keys", Static).update(Text(keys, style="dim"))
        self.query_one("#pick-invite", Input).display = False
        self.query_one("#pick-list", OptionList).focus()
        self.start_search()
        self.set_interval(0.25, self.show_state)

    def on_unmount(self) -> None:
        self.stop_search()

    # ----- the browse
    def start_search(self) -> None:
        """(Re)start the browse: the list is emptied and filled again as adverts arrive."""
        self.stop_search()
        self.search += 1
        self.started = self.clock()
        self.found = Found()
        self.show_games()
        search = self.search

        def report(found: Found) -> None:  # any thread; after the app closed, a no-op
            with contextlib.suppress(RuntimeError):
                self.post_message(self.Browsed(search, found))

        try:
            self.stop = self.source(report)
        except Exception as exc:  # the source's own failure: say it, keep the paste box
            self.found = Found(error=f"cannot look for games here ({exc})")
            self.show_games()

    def stop_search(self) -> None:
        """Stop the browse (bounded by the source; safe to call twice)."""
        stop, self.stop = self.stop, None
        if stop is not None:
            stop()

    def on_pick_screen_browsed(self, message: Browsed) -> None:
        message.stop()
        if message.search != self.search or self.stop is None:  # a stale or stopped browse
            return
        self.found = message.found
        self.show_games()

    @property
    def elapsed(self) -> float:
        """Seconds since this search began."""
        return max(0.0, self.clock() - self.started)

    @property
    def ascii(self) -> bool:
        """The terminal cannot show UTF-8 (the app's glyphs are ASCII)."""
        return bool(getattr(getattr(self.app, "glyphs", None), "ascii", False))

    @property
    def search_over(self) -> bool:
        """The bound has passed (the browse still listens for games that come and go)."""
        return self.elapsed >= self.bound

    # ----- what is shown
    def show_games(self) -> None:
        """Rebuild the list from the last report, keeping the highlighted game if it is still
        there."""
        lst = self.query_one("#pick-list", OptionList)
        was = lst.highlighted
        keep = self.games[was].invite if was is not None and was < len(self.games) else None
        self.games = list(self.found.games[:MAX_GAMES])
        claims = Counter(g.fingerprint for g in self.games)
        lst.set_options(
            Option(game_line(g, twin=claims[g.fingerprint] > 1), id=str(i), disabled=g.free <= 0)
            for i, g in enumerate(self.games)
        )
        open_rows = [i for i, g in enumerate(self.games) if g.free > 0]
        again = [i for i in open_rows if self.games[i].invite == keep]
        lst.highlighted = again[0] if again else (open_rows[0] if open_rows else None)
        self.show_state()

    def show_state(self) -> None:
        """The status lines: searching (with the count and the seconds), or how it ended."""
        n = len(self.games)
        head = Text()
        if self.found.error:
            head.append(shown(self.found.error, 300), style="bold yellow")
            head.append("\nPaste the invite instead (p).")
        elif not self.search_over:
            frames, dots = ("|/-\\", "...") if self.ascii else ("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏", "…")
            spin = frames[int(self.elapsed * 4) % len(frames)]
            head.append(f"{spin} searching the LAN{dots} {n} found ({self.elapsed:.0f} s)")
            head.stylize("bold")
        elif n:
            head.append(f"{n} game(s) on the local network; pick one to join", style="bold")
            head.append("  (still listening; r searches again)", style="dim")
        else:
            head.append(nothing_found(self.bound), style="bold yellow")
        self.query_one("#pick-head", Static).update(head)
        notes: list[str] = []
        if self.found.trouble and not n:
            notes.append(f"mDNS multicast is blocked here: {shown(self.found.trouble, 120)}")
        if self.found.dropped:
            notes.append(f"({self.found.dropped} malformed or extra advert(s) ignored)")
        self.query_one("#pick-note", Static).update(Text(" ".join(notes), style="dim"))
        self.query_one("#pick-list", OptionList).display = bool(n)
        self.place_focus()

    def place_focus(self) -> None:
        """The list while there is a game to pick; the invite box when there is none after
        the bound (or mDNS is unusable), or when the player asked for it."""
        paste = self.query_one("#pick-invite", Input)
        lst = self.query_one("#pick-list", OptionList)
        pickable = any(g.free > 0 for g in self.games)
        if self.pasting:
            return
        if pickable:
            if paste.display and not paste.value:
                paste.display = False
            if not paste.display and not lst.has_focus:
                lst.focus()
        elif (self.search_over or self.found.error) and not paste.display:
            paste.display = True
            paste.focus()

    # ----- what the player does
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on a game with a free seat: join it."""
        event.stop()
        index = int(event.option.id or "-1")
        if 0 <= index < len(self.games) and self.games[index].free > 0:
            self.chosen = self.games[index]
            self.leave_with(self.chosen.invite)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """An invite typed or pasted, then Enter."""
        event.stop()
        text = "".join(event.value.split())
        if not text:
            return
        why = self.check(text) if self.check is not None else None
        if why:
            self.query_one("#pick-error", Static).update(
                Text(f"that is not an invite: {shown(why, 200)}; paste it again", style="yellow")
            )
            event.input.clear()
            return
        self.leave_with(text)

    def on_paste(self, event: events.Paste) -> None:
        """Pasting while the list has the focus: the text goes to the invite box."""
        event.stop()
        self.action_paste()
        self.query_one("#pick-invite", InviteInput).post_message(events.Paste(event.text))

    def action_paste(self) -> None:
        """Show the invite box and put the cursor in it."""
        self.pasting = True
        paste = self.query_one("#pick-invite", Input)
        paste.display = True
        paste.focus()

    def action_search(self) -> None:
        """Search again from nothing (a fresh browse)."""
        self.query_one("#pick-error", Static).update("")
        self.start_search()

    def action_back(self) -> None:
        """Esc: from the invite box back to the list when there is a game in it; else leave."""
        paste = self.query_one("#pick-invite", Input)
        if paste.display and any(g.free > 0 for g in self.games):
            self.pasting = False
            paste.display = False
            self.query_one("#pick-list", OptionList).focus()
        else:
            self.action_leave()

    def action_leave(self) -> None:
        """Leave without joining."""
        self.leave_with(None)

    def leave_with(self, invite: str | None) -> None:
        """Stop the browse, then hand back `invite` (None: nothing picked)."""
        self.stop_search()
        self.dismiss(invite)


@dataclass
class Pick:
    """What the app needs to let the player pick: a browse ``source``, a check of a pasted
    invite (its error, or None), and ``start(invite)`` giving the peer's run."""

    source: Source
    start: Callable[[str], Callable[[Driver, Console], int]]
    check: Callable[[str], str | None] | None = None
    bound: float = SEARCH_SECONDS
    clock: Callable[[], float] = time.monotonic
