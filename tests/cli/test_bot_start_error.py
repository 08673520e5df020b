"""A host's own bot that cannot start is named with its whole last line: bots wrote stderr at
80 columns, so `watch_bots` showed the tail of a wrapped line ("glonglong/bot1.key is readable
by others…": the path cut). A real `zoo bot` process; it fails before any network."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

from tests.cli.fakes import WatchLink
from zoo_p2p.cli import spawn
from zoo_p2p.net.invite import Invite
from zoo_p2p.protocol.crypto import fingerprint


def test_a_bot_that_cannot_start_is_named_with_its_whole_reason(tmp_path: Path) -> None:
    workdir = tmp_path / ("long" * 30)  # a path longer than 80 columns
    workdir.mkdir()
    key = workdir / "bot1.key"
    key.write_bytes(b"not a key")
    key.chmod(0o644)
    invite = Invite(
        host="127.0.0.1", port=9, server_key=os.urandom(32), fingerprint=fingerprint(os.urandom(32))
    )
    (bot,) = spawn.spawn_bots(invite, 1, "greedy", 0.0, workdir, keep_keys=True)
    try:
        assert bot.wait(30) == 1
    finally:
        if bot.poll() is None:
            bot.kill()
    link = WatchLink()
    out = Console(record=True, width=1000)
    spawn.watch_bots(link, [bot], workdir, out)  # type: ignore[arg-type]
    link.pending()  # type: ignore[operator]
    assert link.stopped == "bot 1 could not start"
    said = out.export_text()
    assert f"bot 1 could not start: {key} is readable by others" in said, said
