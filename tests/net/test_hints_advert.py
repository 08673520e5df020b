"""The hints flag where a joiner chooses a game (PROTOCOL.md §3.2, TRANSPORT.md "LAN
discovery"): the advert's optional `hints` field (hostile input: exactly 1 or 0), the live
picker's row and the plain `zoo join` list. No sockets here."""

from __future__ import annotations

import pytest
from rich.console import Console

from tests.net.test_discovery_adverts import INV, props
from zoo_p2p.cli.lan import show_games
from zoo_p2p.net.discovery import GameList, parse_txt, txt_for
from zoo_p2p.text import HINTS_ADVERT
from zoo_p2p.tui.pick import LanGame, game_line


def test_a_table_with_hints_says_so_in_its_advert_and_only_then() -> None:
    told = txt_for(INV, name="ann", seats=2, taken=1, variant="standard", hints=True)
    assert told["hints"] == "1"
    assert "hints" not in txt_for(INV, name="ann", seats=2, taken=1, variant="standard")
    assert parse_txt({k.encode(): v.encode() for k, v in told.items()}).hints is True
    assert parse_txt(props()).hints is False  # absent: an older host, or no hints
    assert parse_txt(props(hints="0")).hints is False


@pytest.mark.parametrize(
    "value", ["yes", "true", "11", "01", "1 ", " 1", "1\x00", "", "١", "x" * 300, b"\xff"]
)
def test_a_hints_field_other_than_1_or_0_drops_the_advert(value: str | bytes) -> None:
    with pytest.raises((ValueError, UnicodeDecodeError)):
        parse_txt(props(hints=value))


def test_a_listed_game_cannot_change_its_hints_flag() -> None:
    games = GameList()
    assert games.add("ann._zoo", parse_txt(props(hints="1")))
    assert not games.add("ann._zoo", parse_txt(props()))  # an update that hides the flag
    assert games.games()[0].hints is True and games.dropped == 1
    assert games.add("ann._zoo", parse_txt(props(hints="1", taken="2")))  # seats may change


def _game(hints: bool) -> LanGame:
    return LanGame("[b]ann[/b]", "AAAA-BBBB-CCCC-DDDD", 1, 2, "standard", "zoo://x", hints)


@pytest.mark.parametrize("hints", [True, False])
def test_the_picker_row_says_hints_allowed_within_80_columns(hints: bool) -> None:
    text = game_line(_game(hints))
    assert (HINTS_ADVERT in text.plain) is hints
    assert text.plain.startswith("[b]ann[/b]")  # the name stays data
    assert all(len(line) <= 80 for line in text.plain.splitlines())


def test_the_plain_join_list_has_a_hints_column_when_a_table_allows_them() -> None:
    ads = [
        parse_txt(props(name="ann", hints="1")),
        parse_txt(props(name="bob", fp="AAAA-BBBB-CCCC-DDDD", inv=str(INV).replace(
            INV.fingerprint, "AAAA-BBBB-CCCC-DDDD"))),
    ]  # fmt: skip
    console = Console(record=True, width=100, color_system=None)
    show_games(console, ads)
    lines = console.export_text().splitlines()
    rows = {line.split()[2]: line for line in lines[2:]}
    assert lines[0].split()[-1] == "hints"
    assert rows["ann"].rstrip().endswith("allowed") and "allowed" not in rows["bob"]
    console = Console(record=True, width=100, color_system=None)
    show_games(console, ads[1:])  # no table allows hints: no column
    assert "hints" not in console.export_text()


def test_the_announcer_puts_the_flag_in_what_it_registers() -> None:
    """What `zoo host --hints` hands zeroconf (built, never sent: no socket here)."""
    from zoo_p2p.net.discovery import Announcer

    for hints in (True, False):
        ann = Announcer(INV, name="ann", seats=2, taken=1, variant="standard", hints=hints)
        info = ann._make_info()
        assert parse_txt(dict(info.properties)).hints is hints


def test_the_plain_list_lets_zoo_watch_pick_a_full_game_and_zoo_join_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The only game found is full (played, its host admitting spectators, TRANSPORT.md §3.3):
    with no terminal `zoo join` says every game is full, `zoo watch` takes it; at a terminal
    `zoo watch` is asked which to watch and gets it."""
    from zoo_p2p.cli import lan
    from zoo_p2p.errors import ZooError
    from zoo_p2p.net.discovery import Browse

    full = parse_txt(props(taken="3"))
    assert full is not None and full.free == 0
    monkeypatch.setattr(lan, "browse", lambda seconds: Browse([full], 0, None))
    console = Console(record=True, width=100, color_system=None)
    with pytest.raises(ZooError, match="every game found is full"):
        lan.pick_game(console, 0.1, interactive=False)
    assert lan.pick_game(console, 0.1, interactive=False, watch=True) == full.invite
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) > 1:  # asked again: game 1 was refused
            raise EOFError
        return "1"

    monkeypatch.setattr(console, "input", answer)
    assert lan.pick_game(console, 0.1, interactive=True, watch=True) == full.invite
    assert asked == ["watch which game? (1-1, Enter for 1) "]
