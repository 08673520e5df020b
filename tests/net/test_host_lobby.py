"""A host shows the lobby as it stands before anyone joins: its own seat, "1 of 2 seats" (the
full-screen lobby said "waiting for the lobby…" until a first joiner came). In-process, on
127.0.0.1; nothing waits."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.net.peer import Host, HostOptions, NullDriver
from zoo_p2p.protocol.crypto import fingerprint


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
    finally:
        host.close()
    assert len(driver.lobbies) == 1
    seats, need = driver.lobbies[0]
    assert need == 2 and len(seats) == 1 and seats[0][0] == "hoster"
