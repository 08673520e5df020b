"""A host shows the lobby as it stands before anyone joins: its own seat, "1 of 2 seats" (the
full-screen lobby said "waiting for the lobby…" until a first joiner came). In-process, on
127.0.0.1; nothing waits."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.driver import SeatPresence
from zoo_p2p.net.peer import Host, HostOptions, NullDriver
from zoo_p2p.net.wire import NetError
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.session import Session


class _Lobbies(NullDriver):
    def __init__(self) -> None:
        self.lobbies: list[tuple[list[tuple[str, str, int]], int]] = []

    def on_lobby(self, seats: list[tuple[str, str, int]], need: int) -> None:
        self.lobbies.append((list(seats), need))


def test_the_host_shows_its_own_seat_before_anyone_joins() -> None:
    driver = _Lobbies()
    key = Ed25519PrivateKey.generate()
    host = Host(
        key=key,
        driver=driver,
        make_session=lambda g: None,
        open_log=lambda s: None,
        make_genesis=lambda lobby: b"",
        fingerprint=fingerprint,
        options=HostOptions(players=2, bind="127.0.0.1", name="hoster"),
    )
    try:
        host.start_if_ready()
        # a driver without on_seats (the base driver's does nothing): presence still follows
        host._set_seats([SeatPresence("connected"), SeatPresence("lost", 3)])
        assert host.up == [True, False] and "on_seats" not in vars(_Lobbies)
    finally:
        host.close()
    assert len(driver.lobbies) == 1
    seats, need = driver.lobbies[0]
    assert need == 2 and len(seats) == 1 and seats[0][0] == "hoster"


class _Listener:
    """A `LobbyListener` (the LAN advert's interface): what the host told it, in order."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def lobby_changed(self, taken: int, need: int) -> None:
        self.calls.append(f"lobby {taken} of {need}")

    def game_started(self) -> None:
        self.calls.append("started")


def _host(players: int, calls: list[str], driver: NullDriver) -> Host:
    def genesis(lobby: object) -> bytes:
        calls.append("genesis")
        return b""  # not a genesis: the host refuses it (the test stops there)

    def no_session(g: bytes) -> Session:
        raise ValueError("not a genesis")

    return Host(
        key=Ed25519PrivateKey.generate(),
        driver=driver,
        make_session=no_session,
        open_log=lambda s: None,
        make_genesis=genesis,
        fingerprint=fingerprint,
        options=HostOptions(
            players=players, bind="127.0.0.1", name="hoster", lobby=_Listener(calls)
        ),
    )


def test_the_lobby_listener_hears_the_lobby_and_the_full_table_before_the_genesis() -> None:
    # the LAN advert follows the lobby through HostOptions.lobby, not through the driver
    calls: list[str] = []
    driver = _Lobbies()
    host = _host(2, calls, driver)
    try:
        host.start_if_ready()
    finally:
        host.close()
    assert calls == ["lobby 1 of 2"] and len(driver.lobbies) == 1
    # a full table (one seat): the listener hears it before the genesis is written
    calls.clear()
    host = _host(1, calls, NullDriver())
    try:
        with pytest.raises(NetError, match="genesis"):
            host.start_if_ready()
    finally:
        host.close()
    assert calls == ["started", "genesis"]
