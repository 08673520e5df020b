"""The public facts the screens show: exact mutant odds, glyph choice, narration."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from zoo_p2p.driver import SeatPresence
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.rules import KnownDeal, Send, Team, Variant
from zoo_p2p.tui.facts import ASCII, UTF8, glyphs_for, mutant_chance, narrate


def test_glyphs_follow_the_encoding() -> None:
    assert glyphs_for("utf-8") is UTF8
    assert glyphs_for("ascii") is ASCII
    assert glyphs_for("latin-1") is ASCII
    assert glyphs_for(None) is ASCII
    for name in ASCII.__dataclass_fields__:
        str(getattr(ASCII, name)).encode("ascii")


def test_mutant_chance_is_one_in_the_unturned_copies() -> None:
    rng = random.Random(3)
    deal = KnownDeal.random(rng)
    st = deal.new_state([Team.YELLOW, Team.RED])
    assert [mutant_chance(st, v) for v in range(5)] == [Fraction(1, 10)] * 4 + [Fraction(0)]
    taken: dict[int, int] = {}
    while not st.is_terminal() and len(st.history) < 40:
        legal = st.legal_moves()
        st.apply(legal[rng.randrange(len(legal))])
        taken = {v: 0 for v in range(5)}
        for seat in range(st.n_seats):
            for v in st.captured_zoo(seat):
                taken[v] += 1
        for v in range(4):
            want = Fraction(0) if v in st.mutants_found else Fraction(1, 10 - taken[v])
            assert mutant_chance(st, v) == want
    assert sum(taken.values()) > 5
    general = KnownDeal.random(random.Random(1), Variant.GENERAL).new_state([Team.RED, Team.BLUE])
    assert all(mutant_chance(general, v) == 0 for v in range(5))


def test_narration_speaks_to_you_and_about_others() -> None:
    deal = KnownDeal.random(random.Random(5))
    st = deal.new_state([Team.YELLOW, Team.BLUE])
    before = st.public()
    move = Send(5, 12)
    st.apply(move)
    mine = narrate(before, st.public(), move, ["you", "bot"], you=0).plain
    theirs = narrate(before, st.public(), move, ["Ada", "bot"], you=None).plain
    assert mine.startswith("You send 5@C3 and take a")
    assert theirs.startswith("Ada (Yellow) sends 5@C3 and takes a")


def test_a_c_locale_means_ascii_even_when_python_coerced_it() -> None:
    from zoo_p2p.tui.facts import locale_utf8

    assert not locale_utf8({"LANG": "C"})
    assert not locale_utf8({"LANG": "C", "LC_CTYPE": "C.UTF-8"})  # PEP 538 coercion
    assert not locale_utf8({"LC_ALL": "en_GB.ISO-8859-1"})
    assert locale_utf8({"LANG": "en_GB.UTF-8"})


@dataclass
class _Session:
    """What the app driver reads of a protocol session."""

    seats: list[SeatInfo]
    seat: int | None = 0
    out: dict[int, int] = field(default_factory=dict)  # no seat put out by a play-on claim
    replaced_at: int | None = None

    def played_on_in(self, events: list[Any]) -> list[Any]:
        return []  # no claim that played on among these events


@dataclass
class _Link:
    """A game link whose awaited list the test sets."""

    session: _Session
    waits: list[tuple[int, str]]

    def awaited(self) -> list[tuple[int, str]]:
        return self.waits


@dataclass
class _App:
    """The app as the driver sees it: runs what it is given on "its thread", as Textual does."""

    is_running: bool = True
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def call_from_thread(self, fn: Any, *args: Any) -> None:
        fn(*args)

    def net_presence(self, up: list[bool]) -> None:
        self.calls.append(("net_presence", (up,)))

    def net_seats(self, notes: list[str], awaiting: str | None) -> None:
        self.calls.append(("net_seats", (notes, awaiting)))

    def net_update(self, snap: Any) -> None:
        self.calls.append(("net_update", (snap,)))


def test_every_seat_shows_connected_lost_or_left_and_what_is_awaited() -> None:
    """Issue 9: presence on every screen, and "waiting for X" says what is awaited from X."""
    import random

    from zoo_p2p.rules import KnownDeal, Team, Variant
    from zoo_p2p.tui.facts import UTF8
    from zoo_p2p.tui.net import AppDriver
    from zoo_p2p.tui.panels import seats_text

    seats = [
        SeatInfo("you", bytes(32), Team.YELLOW),
        SeatInfo("[/]bo", bytes(32), Team.BLUE),
        SeatInfo("cy", bytes(32), Team.GREEN),
    ]
    app = _App()
    driver = AppDriver(app)  # type: ignore[arg-type]
    try:
        link = _Link(_Session(seats), [(1, "a reconnect")])
        states = [SeatPresence("connected"), SeatPresence("lost", 12), SeatPresence("left")]
        driver.on_seats(states, link)  # type: ignore[arg-type]
    finally:
        driver.close()
    assert app.calls == [
        ("net_presence", ([True, False, False],)),
        ("net_seats", (["", "lost 12 s", "left"], "waiting for [/]bo (Blue): a reconnect")),
    ]
    notes, awaiting = app.calls[1][1]
    deal = KnownDeal.random(random.Random(1), Variant.STANDARD)
    st = deal.new_state([Team.YELLOW, Team.BLUE, Team.GREEN], first_seat=0).public()
    text = seats_text(st, ["you", "[/]bo", "cy"], UTF8, [True, False, False], None, notes, awaiting)
    plain = text.plain
    assert "lost 12 s" in plain and "left" in plain
    assert plain.rstrip().endswith("waiting for [/]bo (Blue): a reconnect")


def test_what_is_awaited_follows_the_game_not_only_presence(monkeypatch: Any) -> None:
    """The "waiting for" line is made again with every entry and turn (it stayed on "a
    commitment" for the whole game when only presence changes refreshed it); our own turn is
    not shown as a wait."""

    import zoo_p2p.tui.net as net

    monkeypatch.setattr(net, "snapshot", lambda link: None)
    seats = [SeatInfo("you", bytes(32), Team.YELLOW), SeatInfo("bo", bytes(32), Team.BLUE)]
    app = _App()
    driver = net.AppDriver(app)  # type: ignore[arg-type]

    def awaiting() -> str | None:
        last = [args for name, args in app.calls if name == "net_seats"][-1]
        assert last[0] == ["", ""]
        return last[1]  # type: ignore[no-any-return]

    try:
        link = _Link(_Session(seats), [(1, "a commitment")])
        up = [SeatPresence("connected"), SeatPresence("connected")]
        driver.on_seats(up, link)  # type: ignore[arg-type]
        assert awaiting() == "waiting for bo (Blue): a commitment"
        link.waits = [(0, "a move")]
        driver.on_turn(link)  # type: ignore[arg-type]
        assert awaiting() is None
        link.waits = [(1, "a reveal")]
        driver.on_events([], link)  # type: ignore[arg-type]
        assert awaiting() == "waiting for bo (Blue): a reveal"
        link.waits = [(0, "a reconnect")]
        driver.on_events([], link)  # type: ignore[arg-type]
        assert awaiting() == "waiting for you (Yellow): a reconnect"
    finally:
        driver.close()


def test_every_kind_of_card_has_a_code_and_words() -> None:
    from zoo_p2p.rules.state import Card
    from zoo_p2p.tui.facts import card_code, card_words

    st = KnownDeal.random(random.Random(2)).new_state([Team.YELLOW, Team.BLUE])
    cards = {
        Card("zoo", 2): ("2", "a 2 (2 zombies)"),
        Card("zoo", 4): ("4", "a 4 (an animal)"),
        Card("character", 4, 1): ("B4", "Blue's 4"),
        Card("mutant", 5, 0): ("M5", "the mutant (it was a 5)"),
        Card("unknown"): ("?", "a hidden card"),
        Card("empty"): ("", "nothing"),
    }
    for card, (code, words) in cards.items():
        assert (card_code(st, card), card_words(st, card)) == (code, words), card


def test_a_screen_that_fails_to_draw_does_not_end_the_network_game(caplog: Any) -> None:
    """An exception in a screen update is logged on the app's side, never handed back to the
    peer's loop (which would stop the game and its log over a drawing bug)."""

    from zoo_p2p.tui.net import AppDriver

    class Broken(_App):
        def net_notice(self, text: Any) -> None:
            raise LookupError("No nodes match '#deal'")

    app = Broken()
    driver = AppDriver(app)  # type: ignore[arg-type]
    try:
        driver.on_notice("hello")  # must not raise
        driver.on_presence([True, False], None)  # type: ignore[arg-type]
    finally:
        driver.close()
    assert app.calls == [("net_presence", ([True, False],))]
    assert "could not show an update (net_notice)" in caplog.text


def test_the_seats_panel_marks_this_terminals_seat() -> None:
    """A joiner named 'player' reads which seat is theirs (`zoo play` names it 'you' already)."""
    import random

    from zoo_p2p.rules import KnownDeal, Team, Variant
    from zoo_p2p.tui.facts import UTF8
    from zoo_p2p.tui.panels import seats_text

    deal = KnownDeal.random(random.Random(1), Variant.STANDARD)
    st = deal.new_state([Team.YELLOW, Team.BLUE], first_seat=0).public()
    rows = seats_text(st, ["host", "player"], UTF8, you=1).plain.splitlines()
    assert [r for r in rows if "(you)" in r] == [r for r in rows if "player (Blue) (you)" in r]
    assert len([r for r in rows if "(you)" in r]) == 1
    assert "(you)" not in seats_text(st, ["you", "bot"], UTF8, you=0).plain
    assert "(you)" not in seats_text(st, ["host", "player"], UTF8).plain  # hot seat: nobody
