"""The HTML export in a real headless Chromium (the OS package, driven by Playwright).

Skipped, with the reason, where Playwright or a Chromium binary is missing; `.ci/run` installs
both so CI runs it. The browser gets no network: every request but the page itself is aborted
and counted.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zoo_p2p.export import record_from_entries, to_html
from zoo_p2p.export.html import card_code
from zoo_p2p.protocol.audit import audit
from zoo_p2p.rules import N_SQUARES, square_name
from zoo_p2p.storage import read_log

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

CHROMIUM = os.environ.get("ZOO_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
if CHROMIUM is None:
    pytest.skip(
        "no Chromium binary (apt-get install chromium, or set ZOO_CHROMIUM)",
        allow_module_level=True,
    )

LOG = Path(__file__).resolve().parents[2] / "replays" / "3p-standard.zoolog"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=30_000)
        yield b
        b.close()


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    entries = read_log(LOG).entries
    rec = record_from_entries(entries, verdict=audit(entries).verdict)
    path = tmp_path_factory.mktemp("html") / "game.html"
    path.write_text(to_html(rec), encoding="utf-8")
    return path, rec


def visible_board(page: Any) -> dict[str, tuple[str, str]]:
    cells = page.eval_on_selector_all(
        ".pos:not([hidden]) g.sq",
        "els => els.map(e => [e.dataset.sq, e.dataset.top, e.dataset.under])",
    )
    return {sq: (top, under) for sq, top, under in cells}


def test_page_loads_offline_and_shows_the_engine_board(
    browser: Any, page_file: tuple[Path, Any], tmp_path: Path
) -> None:
    path, rec = page_file
    positions = rec.positions()
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(10_000)
    outside: list[str] = []
    errors: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    n = len(positions) // 2
    page.goto(path.as_uri() + f"#m{n}")
    assert page.inner_text("#where") == f"move {n} of {len(positions) - 1}"
    assert page.locator(".pos:not([hidden])").count() == 1
    want = {
        square_name(sq): (card_code(positions[n].top(sq)), card_code(positions[n].under(sq)))
        for sq in range(N_SQUARES)
    }
    assert visible_board(page) == want
    # navigation: two steps on, then a click in the move list, then the keyboard
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#where") == f"move {n + 2} of {len(positions) - 1}"
    page.click("#moves a[data-move='1']")
    assert visible_board(page)["A1"][0] == card_code(positions[1].top(0))
    assert page.inner_text("#where").startswith("move 1 ")
    page.keyboard.press("End")
    last = positions[-1]
    assert visible_board(page) == {
        square_name(sq): (card_code(last.top(sq)), card_code(last.under(sq)))
        for sq in range(N_SQUARES)
    }
    # it looks right: the board is drawn at its full size, the game id and the deal are there
    box = page.locator(".pos:not([hidden]) svg").bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 300
    assert page.inner_text("#gid") == rec.game_id
    assert page.locator("#deal svg g.sq").count() == N_SQUARES
    shot = tmp_path / "page.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert outside == [] and errors == []
    page.close()
