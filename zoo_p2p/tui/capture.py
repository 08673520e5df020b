"""Plain-text captures of what the app shows (for notes, bug reports and tests)."""

from __future__ import annotations

from textual.app import App


def screen_text(app: App[object]) -> str:
    """The current screen as plain text, one line per terminal row (trailing blanks cut)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(s.text.rstrip() for s in strips)
