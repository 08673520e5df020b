"""The line mode's advice when the router maps no port wraps at word boundaries to the
terminal's width (it was printed with ``soft_wrap``, so the terminal cut words in two); the
tunnel command stays one line to copy."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from zoo_p2p.cli import lan
from zoo_p2p.net import portmap


def test_the_advice_wraps_at_word_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: portmap.PortMapper) -> portmap.Mapping:
        raise portmap.MappingError("no UPnP router answered within 8 s (UPnP is off)")

    monkeypatch.setattr(portmap.PortMapper, "open", refuse)
    for width in (60, 80):
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True, highlight=False)
        assert lan.map_port(console, 32911, ["192.0.2.2"]) == (None, None)
        lines = out.getvalue().splitlines()
        advice = portmap.advice(32911, "192.0.2.2")
        command = [ln for ln in advice if ln.startswith("    ")]
        assert len(command) == 1 and command[0] in lines  # one line, whatever the width
        prose = [ln for ln in lines if ln != command[0]]
        assert prose and all(len(ln) <= width for ln in prose), (width, lines)
        said = " ".join(ln.strip() for ln in prose).split()
        for line in advice:
            if line not in command:
                words = line.split()
                assert any(said[i : i + len(words)] == words for i in range(len(said))), line
