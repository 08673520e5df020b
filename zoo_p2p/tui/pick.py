"""``zoo join`` with no invite: the games on the LAN, listed live while a browse runs in the
background, to pick one (or paste an invite). ``zoo watch`` with no invite lists the same games
(``watch``): any of them may be picked, a full one too (its host keeps a game that is played on
the list as full while it admits spectators, TRANSPORT.md §3.3).

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
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from zoo_p2p.text import HINTS_ADVERT, shown
from zoo_p2p.tui.facts import ASCII, UTF8
from zoo_p2p.tui.widgets import ViewStatic

if TYPE_CHECKING:
    from rich.console import Console

    from zoo_p2p.driver import Driver
    from zoo_p2p.tui.facts import Glyphs

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


# ---------------------------------------------------------------------- the list's panels
@dataclass(frozen=True)
class SearchView:
    """Where the search stands: ``error``, it cannot browse here; ``searching``, the seconds
    since it began while its bound has not passed (None: it has); ``n`` games listed;
    ``verb``: what a pick does ("join", or "watch")."""

    n: int
    bound: float
    searching: float | None = None
    error: str | None = None
    verb: str = "join"


class SearchHead(ViewStatic[SearchView]):
    """The status line of the search: searching (a spinner, the count and the seconds), or
    how it ended. Set `view`."""

    def text(self, v: SearchView) -> Text:
        head = Text()
        if v.error:
            head.append(shown(v.error, 300), style="bold yellow")
            head.append("\nPaste the invite instead (p).")
        elif v.searching is not None:
            frames, dots = ("|/-\\", "...") if self.g.ascii else ("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏", "…")
            spin = frames[int(v.searching * 4) % len(frames)]
            head.append(f"{spin} searching the LAN{dots} {v.n} found ({v.searching:.0f} s)")
            head.stylize("bold")
        elif v.n:
            head.append(f"{v.n} game(s) on the local network; pick one to {v.verb}", style="bold")
            head.append("  (still listening; r searches again)", style="dim")
        else:
            head.append(nothing_found(v.bound), style="bold yellow")
        return head


@dataclass(frozen=True)
class NoteView:
    """What the browse met besides games: multicast refused (``trouble``, said while nothing
    is listed), adverts ``dropped``."""

    trouble: str | None = None
    dropped: int = 0


class SearchNote(ViewStatic[NoteView]):
    """The line under the search's status. Set `view`."""

    def text(self, v: NoteView) -> Text:
        notes: list[str] = []
        if v.trouble:
            notes.append(f"mDNS multicast is blocked here: {shown(v.trouble, 120)}")
        if v.dropped:
            notes.append(f"({v.dropped} malformed or extra advert(s) ignored)")
        return Text(" ".join(notes), style="dim")


class GameList(OptionList):
    """The games listed, one row each (`game_line`), a full one greyed out (unless we watch:
    then every game can be picked); shown only while there is one. Set `games`: the highlighted
    game stays highlighted if it is still listed, else the first that can be picked is."""

    games: reactive[tuple[LanGame, ...]] = reactive((), init=False)

    def __init__(self, *, watch: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.to_watch = watch  # (not `watch`: Textual's DOMNode has a method of that name)
        self.display = False  # nothing listed yet

    def can_pick(self, g: LanGame) -> bool:
        """A game with a free seat, or any game when we watch."""
        return self.to_watch or g.free > 0

    def watch_games(self, old: tuple[LanGame, ...], games: tuple[LanGame, ...]) -> None:
        was = self.highlighted
        keep = old[was].invite if was is not None and was < len(old) else None
        claims = Counter(g.fingerprint for g in games)
        self.set_options(
            Option(
                game_line(g, twin=claims[g.fingerprint] > 1),
                id=str(i),
                disabled=not self.can_pick(g),
            )
            for i, g in enumerate(games)
        )
        open_rows = [i for i, g in enumerate(games) if self.can_pick(g)]
        again = [i for i in open_rows if games[i].invite == keep]
        self.highlighted = again[0] if again else (open_rows[0] if open_rows else None)
        self.display = bool(games)


@dataclass(frozen=True)
class PickKeysView:
    """What the keys do where the focus is: the invite box (``box``) or the list; ``verb``:
    what a pick does ("join", or "watch")."""

    box: bool = False
    verb: str = "join"


class PickKeys(ViewStatic[PickKeysView]):
    """The keys line of the list. Set `view`."""

    def text(self, v: PickKeysView) -> Text:
        if v.box:
            keys = f"Enter: {v.verb} with this invite   Esc: close the box   q (box empty): leave"
        else:
            arrows = "up/down" if self.g.ascii else "↑↓"
            keys = f"{arrows} Enter {v.verb}   p paste an invite   r search again   q leave"
        return Text(keys, style="dim")


@dataclass(frozen=True)
class PickErrorView:
    """What went wrong with the last key: a pasted text that is not an invite (``bad``: why),
    or Esc with nothing to close (``nothing_open``); neither: nothing to say."""

    bad: str | None = None
    nothing_open: bool = False


class PickError(ViewStatic[PickErrorView]):
    """The error line under the invite box. Set `view`."""

    def text(self, v: PickErrorView) -> Text | str:
        if v.bad is not None:
            said = f"that is not an invite: {shown(v.bad, 200)}; paste it again"
            return Text(said, style="yellow")
        if v.nothing_open:
            return Text("nothing to close: q leaves the list, p pastes an invite", style="dim")
        return ""


class PickScreen(Screen[str | None]):
    """The games on the LAN, updated live: arrows + Enter (or a click) joins one; p (or just
    pasting) takes an invite; r searches again; q or Esc leaves. Dismissed with the invite's
    text, or None. The browse is stopped on every way out."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "paste", "paste an invite"),
        Binding("r", "search", "search again"),
        Binding("q", "leave_ask", "leave"),
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
        glyphs: Glyphs | None = None,
        watch: bool = False,
    ) -> None:
        super().__init__()
        self.glyphs = glyphs  # the app's (None: UTF-8)
        self.to_watch = watch  # `zoo watch`: any game listed may be picked, a full one too
        self.verb = "watch" if watch else "join"
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
        self.box_closed = False  # the player closed the invite box (Escape): it stays closed

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Apocalypse at the Zoo of Carson City: games on the local network", style="bold"),
            id="status",
        )
        yield SearchHead(ASCII if self.ascii else UTF8, id="pick-head")
        yield SearchNote(id="pick-note")
        yield GameList(watch=self.to_watch, id="pick-list")
        yield InviteInput(
            {"r": self.action_search, "q": self.action_leave_ask},
            placeholder="paste the invite here, then Enter (Esc: close the box)",
            id="pick-invite",
            max_length=INVITE_MAX,
        )
        yield PickError(id="pick-error")
        yield PickKeys(ASCII if self.ascii else UTF8, id="keys")

    def on_mount(self) -> None:
        self.query_one("#pick-invite", Input).display = False
        self.show_keys()
        self.query_one("#pick-list", OptionList).focus()
        self.start_search()
        self.set_interval(0.25, self.show)

    def on_unmount(self) -> None:
        self.stop_search()

    def show_keys(self) -> None:
        """What the keys do where the focus is now."""
        self.query_one(PickKeys).view = PickKeysView(
            self.query_one("#pick-invite", Input).has_focus, self.verb
        )

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.show_keys()

    # ----- the browse
    def start_search(self) -> None:
        """(Re)start the browse: the list is emptied and filled again as adverts arrive."""
        self.stop_search()
        self.search += 1
        self.started = self.clock()
        self.found = Found()
        self.games = []
        self.show()
        search = self.search

        def report(found: Found) -> None:  # any thread; after the app closed, a no-op
            with contextlib.suppress(RuntimeError):
                self.post_message(self.Browsed(search, found))

        try:
            self.stop = self.source(report)
        except Exception as exc:  # the source's own failure: say it, keep the paste box
            self.found = Found(error=f"cannot look for games here ({exc})")
            self.show()

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
        self.games = list(message.found.games[:MAX_GAMES])
        self.show()

    @property
    def elapsed(self) -> float:
        """Seconds since this search began."""
        return max(0.0, self.clock() - self.started)

    @property
    def ascii(self) -> bool:
        """The terminal cannot show UTF-8 (the app's glyphs are ASCII)."""
        return self.glyphs is not None and self.glyphs.ascii

    @property
    def search_over(self) -> bool:
        """The bound has passed (the browse still listens for games that come and go)."""
        return self.elapsed >= self.bound

    # ----- what is shown
    def show(self) -> None:
        """Calls down: hand every panel its view of the search as it is now (the screen's
        timer calls it 4 times a second, for the spinner and the seconds); a panel whose view
        did not change is not drawn again."""
        n = len(self.games)
        self.query_one(GameList).games = tuple(self.games)
        searching = None if self.search_over else self.elapsed
        view = SearchView(n, self.bound, searching, self.found.error, self.verb)
        self.query_one(SearchHead).view = view
        trouble = self.found.trouble if not n else None
        self.query_one(SearchNote).view = NoteView(trouble, self.found.dropped)
        self.place_focus()

    def place_focus(self) -> None:
        """The list while there is a game to pick; the invite box when there is none after
        the bound (or mDNS is unusable), or when the player asked for it."""
        paste = self.query_one("#pick-invite", Input)
        lst = self.query_one("#pick-list", GameList)
        pickable = any(lst.can_pick(g) for g in self.games)
        if self.pasting:
            return
        if pickable:
            if paste.display and not paste.value:
                paste.display = False
            if not paste.display and not lst.has_focus:
                lst.focus()
        elif (self.search_over or self.found.error) and not paste.display and not self.box_closed:
            paste.display = True
            paste.focus()

    # ----- what the player does
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on a game with a free seat (any game, when we watch): pick it."""
        event.stop()
        index = int(event.option.id or "-1")
        can_pick = self.query_one(GameList).can_pick
        if 0 <= index < len(self.games) and can_pick(self.games[index]):
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
            self.query_one(PickError).view = PickErrorView(bad=why)
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
        self.box_closed = False
        paste = self.query_one("#pick-invite", Input)
        paste.display = True
        paste.focus()

    def action_search(self) -> None:
        """Search again from nothing (a fresh browse)."""
        self.query_one(PickError).view = PickErrorView()
        self.start_search()

    def action_back(self) -> None:
        """Esc: closes the invite box (back to the list, which goes on listening); it never
        leaves the list (q does, after asking)."""
        paste = self.query_one("#pick-invite", Input)
        if paste.display:
            self.pasting = False
            self.box_closed = True
            paste.value = ""
            paste.display = False
            self.query_one("#pick-list", OptionList).focus()
            self.show_keys()
        else:
            self.query_one(PickError).view = PickErrorView(nothing_open=True)

    def action_leave_ask(self) -> None:
        """q: ask once; q or y leaves without joining."""
        from zoo_p2p.tui.overlays import LEAVE_KEYS, Question

        def answered(yes: bool | None) -> None:
            if yes:
                self.action_leave()

        words = Text("Leave the list of games? No game is joined.")
        self.app.push_screen(Question(words, LEAVE_KEYS), answered)

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
    invite (its error, or None), and ``start(invite)`` giving the peer's run; ``watch``: the
    pick is watched (`zoo watch`), so a full game may be picked too."""

    source: Source
    start: Callable[[str], Callable[[Driver, Console], int]]
    check: Callable[[str], str | None] | None = None
    bound: float = SEARCH_SECONDS
    clock: Callable[[], float] = time.monotonic
    watch: bool = False
