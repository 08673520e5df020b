"""LAN adverts are hostile input: every TXT field is checked and bounded (no sockets here)."""

from __future__ import annotations

import pytest

from zoo_p2p.net.discovery import (
    MAX_ADVERTS,
    SERVICE,
    Advert,
    BrowseState,
    GameList,
    LiveBrowse,
    _instance,
    parse_txt,
    txt_for,
)
from zoo_p2p.net.invite import Invite, InviteError

KEY = bytes(range(1, 33))
FP = "IV7F-M2JN-KPTH-JXDE"
INV = Invite(host="10.0.0.5", port=4040, server_key=KEY, fingerprint=FP)


def props(**over: str | bytes | None) -> dict[bytes, bytes | None]:
    base: dict[str, str | bytes | None] = dict(
        txt_for(INV, name="ann", seats=3, taken=1, variant="standard")
    )
    base.update(over)
    return {
        k.encode(): (v.encode() if isinstance(v, str) else v)
        for k, v in base.items()
        if v is not None or k in over
    }


def test_a_good_advert_reads_back() -> None:
    a = parse_txt(props(), [("10.0.0.6", 4040), ("0.0.0.0", 4040), ("10.0.0.5", 4040)])
    assert (a.name, a.fingerprint, a.seats, a.taken, a.free, a.variant) == (
        "ann",
        FP,
        3,
        1,
        2,
        "standard",
    )
    # addresses from the A records are appended, bad or duplicate ones skipped
    assert a.invite.addresses == (("10.0.0.5", 4040), ("10.0.0.6", 4040))


@pytest.mark.parametrize(
    "over",
    [
        {"v": "2"},
        {"v": None},
        {"name": ""},
        {"name": "x" * 33},
        {"name": "a\x1b[31mb"},
        {"name": b"\xff\xfe"},
        {"seats": "5"},
        {"seats": "-2"},
        {"taken": "0"},
        {"taken": "4"},
        {"seats": "٣"},
        {"variant": "chess"},
        {"fp": "AAAA-BBBB-CCCC-DDDD"},
        {"inv": "zoo://-x:1/a/b"},
        {"inv": "x" * 300},
        {"inv": None},
    ],
)
def test_bad_adverts_are_dropped_with_a_reason(over: dict[str, str | bytes | None]) -> None:
    with pytest.raises((ValueError, InviteError, UnicodeDecodeError)):
        parse_txt(props(**over))


def test_markup_in_a_name_is_kept_as_data() -> None:
    """A name is data: shown literally later through shown(); here it is only bounded."""
    a = parse_txt(props(name="[link=http://x]h[/link]"))
    assert a.name == "[link=http://x]h[/link]"


def test_long_invites_are_trimmed_to_fit_a_txt_string() -> None:
    many = INV.with_addresses([(f"fd00::{i:x}:1234:5678", 40000 + i) for i in range(8)])
    txt = txt_for(many, name="n", seats=2, taken=1, variant="general")
    assert len(("inv=" + txt["inv"]).encode()) <= 255
    assert Invite.parse(txt["inv"]).addresses == many.addresses[: len(txt["inv"].split(","))]


def test_instance_labels_fit_63_bytes() -> None:
    assert len(_instance("é" * 40, FP).encode()) <= 63
    assert _instance("a.b\\c", FP) == f"a_b_c {FP}"


# ----- the live browse's list (the full-screen picker) ---------------------------------------
def advert(taken: int = 1, *, name: str = "ann", inv: Invite = INV, seats: int = 3) -> Advert:
    return parse_txt(props(name=name, taken=str(taken), seats=str(seats), inv=str(inv)))


OTHER_KEY = bytes(range(2, 34))
SPOOF = Invite(host="10.0.0.66", port=4040, server_key=OTHER_KEY, fingerprint=FP)


def test_a_listed_game_may_only_change_its_seats_taken() -> None:
    games = GameList()
    assert games.add("ann._zoo", advert())
    assert games.add("ann._zoo", advert(taken=2))  # a seat taken: shown
    assert games.games()[0].taken == 2
    assert not games.add("ann._zoo", advert(inv=SPOOF))  # a spoofed update under its name
    assert not games.add("ann._zoo", advert(name="mallory"))
    assert games.games() == (advert(taken=2),) and games.dropped == 2


def test_a_spoof_claiming_a_listed_fingerprint_is_listed_beside_it_never_instead() -> None:
    games = GameList()
    games.add("ann._zoo", advert())
    assert games.add("ann (2)._zoo", advert(inv=SPOOF))
    assert [a.invite for a in games.games()] == [INV, SPOOF]  # the first one stays first
    assert not games.add("copy._zoo", advert())  # the very same invite is listed once
    assert games.remove("ann (2)._zoo") and not games.remove("nobody._zoo")
    assert [a.invite for a in games.games()] == [INV]


def test_the_list_is_capped() -> None:
    games = GameList(cap=3)
    for i in range(5):
        games.add(f"g{i}", advert(inv=INV.with_addresses([(f"10.0.1.{i}", 4040)])))
    assert len(games.games()) == 3 and games.dropped == 2
    assert not games.room_for("g4") and games.room_for("g0")
    assert MAX_ADVERTS == 32


class FakeInfo:
    def __init__(self, props: dict[bytes, bytes | None], port: int = 4040) -> None:
        self.properties = props
        self.port = port

    def parsed_addresses(self) -> list[str]:
        return ["10.0.0.7", "fe80::1%eth0"]


class FakeZeroconf:
    """Answers get_service_info from a dict (None: no answer)."""

    def __init__(self) -> None:
        self.records: dict[str, FakeInfo | None] = {}

    def get_service_info(self, type_: str, name: str, timeout: int) -> FakeInfo | None:
        assert timeout <= 1500
        return self.records.get(name)


def test_the_live_browse_reports_games_as_they_come_change_and_go() -> None:
    from zeroconf import ServiceStateChange as S

    told: list[BrowseState] = []
    live = LiveBrowse(told.append)
    zc = FakeZeroconf()
    zc.records["ann"] = FakeInfo(props())
    zc.records["bad"] = FakeInfo(props(name="\x1b[2J"))

    def event(name: str, change: S) -> None:
        live._on_change(None, SERVICE, name, change)
        live._step(zc)  # type: ignore[arg-type]

    event("ann", S.Added)
    assert [a.name for a in told[-1].games] == ["ann"]
    assert told[-1].games[0].invite.addresses == (("10.0.0.5", 4040), ("10.0.0.7", 4040))
    event("bad", S.Added)  # hostile: dropped, counted
    assert len(told[-1].games) == 1 and told[-1].dropped == 1
    zc.records["ann"] = FakeInfo(props(taken="3"))
    event("ann", S.Updated)
    assert told[-1].games[0].free == 0  # full: still listed, shown as full
    n = len(told)
    event("ann", S.Updated)  # nothing changed: nothing told
    assert len(told) == n
    event("ann", S.Removed)
    assert not told[-1].games


def test_a_flood_of_events_is_bounded() -> None:
    from zeroconf import ServiceStateChange as S

    live = LiveBrowse(lambda state: None)
    for i in range(LiveBrowse.MAX_PENDING + 50):
        live._on_change(None, SERVICE, f"g{i}", S.Added)  # never blocks, never grows past it
    assert live._events.qsize() == LiveBrowse.MAX_PENDING


def test_closing_a_browse_that_never_started_is_bounded() -> None:
    live = LiveBrowse(lambda state: None)
    live.stopping.set()
    live.close(timeout=0.1)  # nothing to join, nothing to close: returns
    assert live._zc is None
