"""The app's lobby says whom it waits for: a joiner saw "2 of 3 seats" and its own "joining…"
line, and nothing said that the game waits for one more player and then starts by itself."""

from __future__ import annotations

import asyncio

from textual.pilot import Pilot

from zoo_p2p.tui.app import ZooApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.lobby import LobbyScreen


async def _open_lobby(app: ZooApp, pilot: Pilot[None]) -> LobbyScreen:
    """Show the app's lobby screen, as a peer does before its game starts."""
    lobby = LobbyScreen(UTF8)
    app.lobby = lobby
    await app.push_screen(lobby)
    await pilot.pause()
    return lobby


def _lobby(rows: list[tuple[str, str, int]] | None, need: int, *, closed: bool = False) -> str:
    """The app's screen after the lobby got ``rows`` (if any) for ``need`` seats, and then,
    with ``closed``, the peer's run ending before the game (an error, the host left)."""

    async def run() -> str:
        app = ZooApp(glyphs=UTF8)
        async with app.run_test(size=(100, 24)) as pilot:
            await _open_lobby(app, pilot)
            if rows is not None:
                app.net_lobby(rows, need)
            if closed:
                app.net_done(1)
            await pilot.pause()
            text = screen_text(app)
            app.exit(0)
        return text

    return asyncio.run(run())


def _lobby_after(rows: list[tuple[str, str, int]], need: int) -> str:
    return _lobby(rows, need)


def test_the_lobby_names_how_many_players_are_still_awaited() -> None:
    two = [("alice", "AB-CD", 0), ("bob", "EF-GH", 1)]
    assert "waiting for 1 more player to join" in _lobby_after(two, 3)
    assert "waiting for 2 more players to join" in _lobby_after(two, 4)
    full = _lobby_after(two, 2)
    assert "every seat is taken" in full and "waiting for" not in full


def _lobby_closed(rows: list[tuple[str, str, int]] | None) -> str:
    return _lobby(rows, 3, closed=True)


def test_a_closed_lobby_stops_saying_it_waits() -> None:
    """`zoo resume` of a corrupt log in the app: the error came, and the lobby panel went on
    saying "waiting for the lobby…"."""
    for rows in (None, [("alice", "AB-CD", 0), ("bob", "EF-GH", 1)]):
        text = _lobby_closed(rows)
        assert "waiting for" not in text and "game link has closed" in text, text
    assert "bob (Blue)" in _lobby_closed([("alice", "AB-CD", 0), ("bob", "EF-GH", 1)])


def test_ctrl_c_over_a_selected_invite_copies_it_and_a_second_one_leaves() -> None:
    """The host's invite is on the lobby's screen; a person selects it with the mouse and presses
    Ctrl-C to copy it, as in any terminal: that left the game. Now it copies; Ctrl-C with nothing
    selected still leaves (exit 130)."""
    from rich.text import Text
    from textual.selection import Selection
    from textual.widgets import Static

    invite = "zoo://127.0.0.1:4242/abcdefgh/ABCD-EFGH-IJKL-MNOP"

    async def run() -> tuple[str, bool, str, int | None]:
        app = ZooApp(glyphs=UTF8)
        async with app.run_test(size=(100, 24)) as pilot:
            lobby = await _open_lobby(app, pilot)
            lobby.add_line(Text(invite))
            await pilot.pause()
            lobby.selections = {lobby.query_one("#lobby-text", Static): Selection(None, None)}
            keys = screen_text(app).splitlines()[-1]
            await pilot.press("ctrl+c")
            await pilot.pause()
            running, said = app.is_running, screen_text(app)
            await pilot.press("ctrl+c")
            await pilot.pause()
        return keys, running, said + "\n" + app.clipboard, app.return_value

    keys, running, said, code = asyncio.run(run())
    assert "Ctrl-C copies" in keys, keys
    assert running and "copied the selected text" in said, said
    assert said.endswith(invite)  # the clipboard holds the invite
    assert code == 130  # nothing selected: Ctrl-C leaves, as before
