"""The app's lobby says whom it waits for: a joiner saw "2 of 3 seats" and its own "joining…"
line, and nothing said that the game waits for one more player and then starts by itself."""

from __future__ import annotations

import asyncio

from textual.pilot import Pilot

from zoo_p2p.tui.app import NetworkApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.lobby import LobbyScreen


async def _open_lobby(app: NetworkApp, pilot: Pilot[None]) -> LobbyScreen:
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
        app = NetworkApp(glyphs=UTF8)
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
        app = NetworkApp(glyphs=UTF8)
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


def test_a_wait_said_again_updates_its_line_and_a_lobby_that_closed_closes_the_app() -> None:
    """`zoo join` to a closed port added an identical "no answer… still trying (N of 60 s)"
    line every 5 s, and after giving up the app stayed open until q."""
    from rich.text import Text

    def wait(n: int) -> Text:
        return Text(
            f"no answer from 127.0.0.1:9 yet — is the host running? still trying ({n} of 60 s)"
        )

    async def run() -> tuple[str, bool, int | None]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=(80, 24)) as pilot:
            await _open_lobby(app, pilot)
            for n in (5, 10, 15):
                app.net_notice(wait(n))
            app.net_notice(Text("gave up after 60 s: nobody answered"))
            await pilot.pause()
            text = screen_text(app)
            app.close_after = 0
            app.net_done(1)  # the runner gave up
            for _ in range(5):
                await pilot.pause()
            return text, app.is_running, app.return_value

    text, running, code = asyncio.run(run())
    flat = " ".join(text.split())
    assert flat.count("still trying") == 1 and "(15 of 60 s)" in flat, text
    assert "gave up after 60 s" in flat
    assert not running and code == 1  # closed by itself, with the runner's code


def test_the_invite_is_one_line_with_a_copy_key_and_its_qr_code_an_overlay() -> None:
    """The host's invite came as the runner prints it, in lines (and the QR code as rows in the
    messages); the lobby joins it back into one line, c copies it whole, i shows the QR code
    over the lobby, or says how large the terminal must be."""
    from rich.text import Text

    from zoo_p2p.net.invite import Invite
    from zoo_p2p.tui.overlays import QrOverlay

    def invite(host: str) -> Invite:
        return Invite(
            host=host, port=4242, server_key=bytes(range(32)), fingerprint="ABCD-EFGH-IJKL-MNOP"
        )

    async def run(size: tuple[int, int], inv: Invite) -> tuple[str, str, bool, str]:
        app = NetworkApp(glyphs=UTF8)
        async with app.run_test(size=size) as pilot:
            lobby = await _open_lobby(app, pilot)
            app.net_notice(Text("invite (give this to the other players):"))
            for line in [*inv.lines(40), *inv.qr().splitlines()]:
                app.net_notice(Text(line))
            app.net_notice(Text("waiting for 1 player to join…"))
            await pilot.pause()
            text = screen_text(app)
            await pilot.press("c")
            await pilot.press("i")
            qr = isinstance(app.screen, QrOverlay)
            shown = screen_text(app)
            app.exit(0)
            assert lobby.invite == str(inv)
        return text, app.clipboard, qr, shown

    inv = invite("127.0.0.1")
    text, copied, qr, shown = asyncio.run(run((120, 40), inv))
    assert any(str(inv) in line for line in text.splitlines())  # one line at 120 columns
    assert "▄" not in text  # the QR code is not in the messages
    assert copied == str(inv)
    assert qr and "█" in shown
    _, _, qr, shown = asyncio.run(run((80, 24), inv))  # 23 rows and a line to close it
    assert qr and "█" in shown
    long = invite("fd12:3456:789a:1::abcd:ef01:2345")  # 25 rows: more than 80x24 has
    _, _, qr, shown = asyncio.run(run((80, 24), long))
    assert not qr and "the QR code needs" in shown
