"""Exports of a game: a self-contained HTML page and a compact text record (pure string building).

>>> from zoo_p2p.export import record_from_entries, to_text, from_text, to_html
"""

from zoo_p2p.export.html import to_html
from zoo_p2p.export.record import GameRecord, MoveRecord, record_from_entries
from zoo_p2p.export.text import TextFormatError, from_text, to_text

__all__ = [
    "GameRecord",
    "MoveRecord",
    "TextFormatError",
    "from_text",
    "record_from_entries",
    "to_html",
    "to_text",
]
