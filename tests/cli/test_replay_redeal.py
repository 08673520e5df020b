"""A claim that played on (PROTOCOL.md §10.7) is a step of the replay you can jump to: `r` in
the line-mode stepper and in the full-screen replay goes to the step where the seats re-dealt,
which says it in words. Before, the re-deal was one line among the others of a move's step and
no key found it."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from zoo_p2p.cli.replay import load_replay, replay_command
from zoo_p2p.tui.app import ReplayApp
from zoo_p2p.tui.capture import screen_text
from zoo_p2p.tui.facts import UTF8
from zoo_p2p.tui.replay import ReplayScreen, load

REPLAYS = Path(__file__).parents[2] / "replays"
HOST_OUT = REPLAYS / "4p-standard-play-on-host.zoolog"
WORDS = "stopped answering at entry 64; a stand-in plays on"


def test_r_in_the_line_mode_goes_to_the_re_deal() -> None:
    rp = load_replay(HOST_OUT)
    steps = [k for k, sc in enumerate(rp.scenes) if sc.redeal]
    assert len(steps) == 1 and steps[0] > 1
    out = io.StringIO()
    keys = iter(["r", "r", "q"])
    prompts: list[str] = []

    def ask(label: str) -> str:
        prompts.append(label)
        return next(keys)

    replay_command(HOST_OUT, console=Console(file=out, width=300, no_color=True), ask=ask)
    text = out.getvalue()
    assert "r next re-deal" in prompts[0]
    assert WORDS in text
    assert f"move {steps[0]} of {rp.moves}" in text
    assert "no re-deal after this step" in text  # the second r: there is no other


def test_the_line_mode_offers_no_r_without_a_re_deal() -> None:
    prompts: list[str] = []

    def ask(label: str) -> str:
        prompts.append(label)
        return "q"

    replay_command(REPLAYS / "2p-standard.zoolog", console=Console(file=io.StringIO()), ask=ask)
    assert "re-deal" not in prompts[0]


def test_r_in_the_full_screen_replay_goes_to_the_re_deal() -> None:
    data = load(HOST_OUT)
    at = [f.number for f in data.frames if f.redeal]
    line_mode = [sc.number for sc in load_replay(HOST_OUT).scenes if sc.redeal]
    assert len(at) == 1 and at == line_mode  # the same step in both

    async def go() -> tuple[int, str]:
        app = ReplayApp(data, glyphs=UTF8)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await pilot.press("r")
            await pilot.pause()
            return screen.frame.number, screen_text(app)  # type: ignore[arg-type]

    number, shot = asyncio.run(go())
    assert number == at[0]
    assert "re-deal:" in shot and "stopped answering" in shot
