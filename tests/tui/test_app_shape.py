"""The app's own shape (issue 20, item 11): messages up, calls down. The screens post messages
that `ZooApp` handles (a confirmed leave, the game's end, the lobby's leave), and the network
driver talks to a protocol the app implements, so no screen imports the app: the import cycle
`tui/app.py` ↔ `game`/`lobby`/`net`/`replay` is gone. Only the entry points (run.py) build it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "zoo_p2p" / "tui"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_screen_imports_the_app() -> None:
    importers = sorted(
        p.name for p in TUI.glob("*.py") if "zoo_p2p.tui.app" in _imports(p) and p.name != "app.py"
    )
    assert importers == ["run.py"], importers


def test_each_mode_is_its_own_app_class() -> None:
    """`ZooApp` is the shared base and no longer four apps in one: a local game (`TableApp`),
    a replay (`ReplayApp`), a network game (`NetworkApp`) and the LAN list (`PickApp`) are each
    their own class, chosen once by the entry point (run.py), each opening its own first
    screen. The base takes no mode and none of its methods looks at a mode's attributes (it had
    `table=`, `replay=`, `network=`, `pick=` and an if-chain over them in `on_mount` and
    `show_game_over`)."""
    import inspect

    from zoo_p2p.tui.app import NetworkApp, PickApp, ReplayApp, TableApp, ZooApp

    assert list(inspect.signature(ZooApp.__init__).parameters) == ["self", "glyphs", "clock"]
    for cls in (TableApp, ReplayApp, NetworkApp, PickApp):
        assert issubclass(cls, ZooApp) and "open" in vars(cls), cls
    tree = ast.parse((TUI / "app.py").read_text(encoding="utf-8"))
    base = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ZooApp")
    seen = {n.attr for n in ast.walk(base) if isinstance(n, ast.Attribute)}
    modes = {"network", "networked", "pick", "replay_data", "net_driver", "lobby", "net_code"}
    assert not seen & modes, seen & modes
    # run.py builds each mode's own class, never the base
    run = (TUI / "run.py").read_text(encoding="utf-8")
    for cls in (TableApp, ReplayApp, NetworkApp, PickApp):
        assert f"{cls.__name__}(" in run, cls
    assert "ZooApp(" not in run


def test_the_game_panels_draw_themselves_from_their_views() -> None:
    """Widgets own their part of the view: every panel of the game screen is a widget with a
    reactive view that the screen sets and whose watch or render method draws it, in the game
    and in the replay; no `GameScreen.redraw` (or `ReplayScreen.redraw`) builds each panel's
    text and updates it one by one. A seats panel alone in an app, given its view, draws the
    seats cut to its own width, and again at a new width when the terminal is resized (the
    screen used to redraw everything on a resize)."""
    import asyncio

    from textual.app import App, ComposeResult
    from textual.reactive import Reactive

    from tests.tui.conftest import local_table
    from zoo_p2p.tui.board import BoardView, HandBar, Position
    from zoo_p2p.tui.facts import UTF8
    from zoo_p2p.tui.game import GameScreen
    from zoo_p2p.tui.replay import FrameList, MoveInfo, ReplayMessages, ReplayScreen, ReplayStatus
    from zoo_p2p.tui.widgets import (
        CapturesPanel,
        InfoPanel,
        KeysLine,
        MessageLines,
        MovesPanel,
        SeatsPanel,
        SeatsView,
        StatusLine,
    )

    assert not hasattr(GameScreen, "redraw") and not hasattr(ReplayScreen, "redraw")
    for cls, name in (
        (BoardView, "view"),
        (HandBar, "view"),
        (StatusLine, "view"),
        (SeatsPanel, "view"),
        (InfoPanel, "view"),
        (MovesPanel, "lines"),
        (CapturesPanel, "view"),
        (KeysLine, "view"),
        (MessageLines, "state"),
        (ReplayStatus, "view"),
        (MoveInfo, "view"),
        (FrameList, "view"),
        (ReplayMessages, "second"),
    ):
        # its own or inherited (`widgets.ViewStatic`), without the descriptor's __get__
        assert isinstance(inspect.getattr_static(cls, name, None), Reactive), (cls, name)

    class Seats(App[None]):
        def compose(self) -> ComposeResult:
            yield SeatsPanel(UTF8)

    state = local_table(names=("you", "a bot with a rather long name indeed")).state

    async def run() -> tuple[str, str]:
        app = Seats()
        async with app.run_test(size=(100, 24)) as pilot:
            panel = app.query_one(SeatsPanel)
            panel.view = SeatsView(Position(state), ("you", "a bot with a rather long name indeed"))
            await pilot.pause()
            wide = str(panel.content)
            await pilot.resize_terminal(40, 24)
            await pilot.pause()
            return wide, str(panel.content)

    wide, narrow = asyncio.run(run())
    assert "a bot with a rather long name indeed (Blue)" in wide
    assert "you (Yellow)" in narrow and "a bot with a rather long name indeed" not in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 40


# the screens whose panels are widgets with a view (issue 20 item 11), by module
CONVERTED = {
    "game.py": "GameScreen",
    "replay.py": "ReplayScreen",
    "over.py": "GameOverScreen",
    "lobby.py": "LobbyScreen",
    "pick.py": "PickScreen",
}


def _writes_into_a_static(cls: ast.ClassDef) -> list[str]:
    """The screen's methods that update a widget they looked up (``query_one(…).update(…)``):
    a screen building a panel's text and writing it in, instead of setting the panel's view."""
    out = []
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "update"
                and isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Attribute)
                and node.func.value.func.attr in ("query_one", "query", "get_child_by_id")
            ):
                out.append(f"{cls.name}.{fn.name}")
    return out


def test_no_screen_writes_a_panels_text_into_it() -> None:
    """The screens only set their panels' views: none looks a panel up and updates its text
    (the end screen's `update_ending`, `keys_text`, `head_text`, `verdict_text` and `deal_text`
    built the panels' text and wrote it into their Statics; the lobby's `_draw` and
    `keys_text` likewise, and the LAN list's `show_games` and `show_state`), and every panel of
    the end screen, the lobby and the LAN list is a widget with a reactive view."""
    for module, name in CONVERTED.items():
        tree = ast.parse((TUI / module).read_text(encoding="utf-8"))
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
        assert _writes_into_a_static(cls) == [], module
    from textual.reactive import Reactive

    from zoo_p2p.tui.lobby import LobbyKeys, LobbyLog, LobbyScreen, LobbySeats
    from zoo_p2p.tui.over import (
        Breakdown,
        DealPanel,
        GameOverScreen,
        OverHead,
        OverKeys,
        VerdictPanel,
    )
    from zoo_p2p.tui.pick import GameList, PickError, PickKeys, PickScreen, SearchHead, SearchNote

    builders = ("update_ending", "keys_text", "head_text", "verdict_text", "deal_text")
    assert not [b for b in builders if hasattr(GameOverScreen, b)]
    assert not [b for b in ("_draw", "keys_text", "_keys") if hasattr(LobbyScreen, b)]
    assert not [b for b in ("show_games", "show_state") if hasattr(PickScreen, b)]
    for panel, name in (
        (OverHead, "view"),
        (Breakdown, "view"),
        (DealPanel, "view"),
        (VerdictPanel, "view"),
        (OverKeys, "view"),
        (LobbySeats, "view"),
        (LobbyLog, "lines"),
        (LobbyKeys, "view"),
        (SearchHead, "view"),
        (SearchNote, "view"),
        (GameList, "games"),
        (PickKeys, "view"),
        (PickError, "view"),
    ):
        assert isinstance(inspect.getattr_static(panel, name, None), Reactive), (panel, name)
