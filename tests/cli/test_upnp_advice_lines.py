"""`zoo host --upnp` with no router, in the full-screen app: the advice after "no port mapping"
came out broken mid-sentence ("(router settings: 'port" / "forwarding'), then host …"): each
prose line was printed with soft_wrap=False, which overrides the app's messages console (width
100, soft-wrapping, one message per line it prints), so the console cut it at 100 columns and
the panel wrapped the pieces again. On a plain console the prose still wraps at words."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from zoo_p2p.cli import lan
from zoo_p2p.net import portmap


def _no_router(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: portmap.PortMapper) -> portmap.Mapping:
        raise portmap.MappingError("no UPnP router answered within 2 s")

    monkeypatch.setattr(portmap.PortMapper, "open", refuse)


def test_each_advice_line_is_one_message_in_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_router(monkeypatch)
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None, soft_wrap=True)  # as the app's
    assert lan.map_port(console, 40427, ["192.0.2.2"]) == (None, None)
    lines = buf.getvalue().splitlines()
    for line in portmap.advice(40427, "192.0.2.2"):
        assert line in lines, lines


def test_the_prose_still_wraps_at_words_on_a_plain_console(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_router(monkeypatch)
    buf = io.StringIO()
    lan.map_port(Console(file=buf, width=60, color_system=None), 40427, ["192.0.2.2"])
    lines = buf.getvalue().splitlines()
    assert max(len(x) for x in lines if not x.startswith("    ")) <= 60, lines
    assert "    ssh -N -R '*:40427:192.0.2.2:40427' you@server.example" in lines  # whole
