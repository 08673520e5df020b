"""One self-contained, offline HTML page for a game: an SVG board per move, the move list,
navigation, the hidden deal and the audit verdict, with the game id on it.

The page loads nothing: its Content-Security-Policy forbids every fetch, its style and script are
inline. Every string from the log (names above all) is escaped. Each square of each board carries
``data-top`` / ``data-under`` attributes (``kind[:value[:seat]]``) so that a test in a real browser
can compare what the page shows with the rules engine's own state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from zoo_p2p.export.record import GameRecord, MoveRecord
from zoo_p2p.rules import Card, Send, State, Step, Team, Variant, move_name, square_name
from zoo_p2p.text import (
    HINTS_WERE_ALLOWED,
    hid_mutant,
    mutant_killed,
    mutant_words,
    shown,
    uncovered,
    zoo_card_words,
)

__all__ = ["card_code", "to_html"]

CELL = 60
PAD = 22
TEAM_CSS = {
    Team.YELLOW: "#c99a00",
    Team.BLUE: "#2f6fdb",
    Team.GREEN: "#2e9e48",
    Team.RED: "#d23b3b",
}
ZOO_CSS = {0: "#9aa0a6", 1: "#e4846f", 2: "#d0543c", 3: "#a7281a", 4: "#2f9e5b"}
MARK_CSS = {"inaccuracy": "#c99a00", "mistake": "#e07000", "blunder": "#d23b3b"}


def card_code(card: Card) -> str:
    """A square's card as the page's data attribute: ``kind[:value[:seat]]``."""
    parts = [card.kind]
    if card.value is not None:
        parts.append(str(card.value))
    if card.seat is not None:
        parts.append(str(card.seat))
    return ":".join(parts)


def _label(card: Card, teams: Sequence[Team]) -> tuple[str, str]:
    """Text and colour of one card on the board."""
    if card.kind == "zoo":
        assert card.value is not None
        return str(card.value), ZOO_CSS[card.value]
    if card.kind == "character":
        assert card.seat is not None
        t = teams[card.seat]
        return f"{t.name[0]}{card.value}", TEAM_CSS[t]
    if card.kind == "mutant":
        return f"M{card.value}", "#8e3bb0"
    if card.kind == "unknown":
        return "?", "#9aa0a6"
    return "·", "#c7c9cc"


def _board_svg(
    st: State, highlight: Sequence[int], title: str, deal: GameRecord | None = None
) -> str:
    """The 5×5 zoo as an SVG; with ``deal``, every hidden card is shown instead (the deal view)."""
    size = PAD + 5 * CELL + 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
        f'width="{size}" height="{size}" role="img" aria-label="{escape(title)}">'
    ]
    for c in range(5):
        out.append(
            f'<text x="{PAD + c * CELL + CELL // 2}" y="15" class="axis">{"ABCDE"[c]}</text>'
        )
    for r in range(5):
        out.append(f'<text x="9" y="{PAD + r * CELL + CELL // 2 + 5}" class="axis">{r + 1}</text>')
    mutants = set(deal.mutant_cards) if deal is not None else set()
    for sq in range(25):
        r, c = divmod(sq, 5)
        x, y = PAD + c * CELL, PAD + r * CELL
        if deal is not None:
            assert deal.bottoms is not None
            top_v, bot_v = deal.top_values[sq], deal.bottoms[sq]
            top = hid_mutant(top_v) if (sq, 1) in mutants else str(top_v)
            bot = hid_mutant(bot_v) if (sq, 0) in mutants else str(bot_v)
            top_col = "#8e3bb0" if (sq, 1) in mutants else ZOO_CSS[top_v]
            bot_col = "#8e3bb0" if (sq, 0) in mutants else ZOO_CSS[bot_v]
            attrs = f'data-sq="{square_name(sq)}" data-top="deal:{top}" data-under="deal:{bot}"'
        else:
            tc, uc = st.top(sq), st.under(sq)
            top, top_col = _label(tc, st.teams)
            bot, bot_col = _label(uc, st.teams) if uc.kind != "empty" else ("", "#000")
            attrs = (
                f'data-sq="{square_name(sq)}" data-top="{card_code(tc)}" '
                f'data-under="{card_code(uc)}"'
            )
        hl = " last" if sq in highlight else ""
        out.append(f'<g class="sq{hl}" {attrs}>')
        out.append(f'<rect x="{x + 1}" y="{y + 1}" width="{CELL - 2}" height="{CELL - 2}" rx="6"/>')
        out.append(
            f'<text x="{x + CELL // 2}" y="{y + CELL // 2 + 6}" class="top" '
            f'fill="{top_col}">{escape(top)}</text>'
        )
        if bot:
            out.append(
                f'<text x="{x + CELL - 8}" y="{y + CELL - 7}" class="under" '
                f'fill="{bot_col}">{escape(bot)}</text>'
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _seat(names: Sequence[str], teams: Sequence[Team], seat: int) -> str:
    t = teams[seat]
    return (
        f'<span class="seat" style="color:{TEAM_CSS[t]}">'
        f"{escape(shown(names[seat], 64))} ({t.label})</span>"
    )


def _describe(before: State, after: State, m: MoveRecord, rec: GameRecord) -> str:
    """One sentence for one move: what it took and what it revealed (HTML, escaped)."""
    who = _seat(rec.names, rec.teams, m.seat)
    mv = m.move
    if isinstance(mv, Send):
        dest = mv.to
        text = f"{who} sends {move_name(mv)}"
    else:
        assert isinstance(mv, Step)
        dest = mv.to
        text = f"{who} moves their {before.top(mv.frm).value} {move_name(mv)}"
    target = before.top(dest)
    if target.kind == "zoo":
        assert target.value is not None
        text += f" and takes {zoo_card_words(target.value)}"
    elif target.kind == "character":
        assert target.seat is not None
        text += f" and takes {_seat(rec.names, rec.teams, target.seat)}'s {target.value}"
    elif target.kind == "mutant":
        text += f" and kills {mutant_killed(target.value or 0)}"
    extra = []
    if m.bottom is not None:
        extra.append(escape(uncovered(m.bottom)))
    if m.mutant is not None and target.value is not None:
        mover = mv.value if isinstance(mv, Send) else before.top(mv.frm).value
        extra.append(escape(mutant_words(target.value, m.mutant, f"their {mover}")))
    tail = "; ".join(extra)
    return text + (f". {tail[:1].upper()}{tail[1:]}" if extra else "") + "."


def _scores_table(st: State, rec: GameRecord) -> str:
    rows = []
    over = st.is_terminal()
    winners = set(st.winners()) if over else set()
    for line in st.scores():
        seat = line.seat
        turn = "▶" if (not over and st.needs is None and st.to_move == seat) else ""
        hand = " ".join(map(str, st.hand(seat))) or "–"
        zoo = st.captured_zoo(seat)
        won = " ★" if seat in winners else ""
        rows.append(
            f"<tr><td>{turn}</td><td>{_seat(rec.names, rec.teams, seat)}{won}</td>"
            f"<td>{hand}</td><td>{sum(zoo)} ({len(zoo)})</td>"
            f"<td>{line.characters}</td><td>{line.survivors}</td><td><b>{line.total}</b></td></tr>"
        )
    return (
        '<table class="scores"><thead><tr><th></th><th>player</th><th>hand</th>'
        "<th>zoo points (cards)</th><th>characters</th><th>survivors</th><th>total</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def to_html(
    record: GameRecord,
    marks: Mapping[int, tuple[str, str]] | None = None,
) -> str:
    """The page. ``marks`` maps a move number (from 1) to (kind, comment), e.g. analysis marks."""
    marks = marks or {}
    positions = record.positions()
    gid = record.game_id or "unknown"
    title = f"zoo-p2p game {gid[:12]}"
    frames = []
    items = []
    for i, st in enumerate(positions):
        if i == 0:
            hl: list[int] = []
            caption = (
                f"The top cards are turned face up. "
                f"{_seat(record.names, record.teams, record.first_seat)} plays first."
            )
        else:
            m = record.moves[i - 1]
            hl = [m.move.frm, m.move.to] if isinstance(m.move, Step) else [m.move.to]
            caption = f"<b>{i}.</b> " + _describe(positions[i - 1], st, m, record)
            if i in marks:
                kind, note = marks[i]
                caption += (
                    f' <span class="mark" style="color:{MARK_CSS.get(kind, "#555")}">'
                    f"{escape(shown(kind, 20))}: {escape(shown(note, 200))}</span>"
                )
        for rd in record.redeals:  # a claim that played on, after move i (§10.7)
            if rd.after == i:
                caption += (
                    f' <span class="redeal"><b>Re-deal:</b> {escape(shown(rd.words, 300))}.</span>'
                )
        board = _board_svg(st, hl, f"the zoo after move {i}")
        frames.append(
            f'<div class="pos" id="pos-{i}" data-move="{i}"{"" if i == 0 else " hidden"}>'
            f'{board}<p class="caption">{caption}</p>{_scores_table(st, record)}</div>'
        )
        if i:
            m = record.moves[i - 1]
            tag = ""
            if i in marks:
                kind = marks[i][0]
                colour = MARK_CSS.get(kind, "#555")
                tag = f' <span class="mark" style="color:{colour}">{escape(shown(kind, 20))}</span>'
            items.append(
                f'<li><a href="#m{i}" data-move="{i}">'
                f'<span style="color:{TEAM_CSS[record.teams[m.seat]]}">'
                f"{record.teams[m.seat].label}</span> "
                f"{escape(move_name(m.move))}</a>{tag}</li>"
            )
        if any(rd.after == i for rd in record.redeals):
            items.append(f'<li class="redeal"><a href="#m{i}" data-move="{i}">re-deal</a></li>')
    final = positions[-1]
    if final.is_terminal():
        winners = final.winners()
        who = ", ".join(_seat(record.names, record.teams, s) for s in winners)
        result = f"Result: {who} {'wins' if len(winners) == 1 else 'share the win'}."
    else:
        result = "The game stopped here: the audit line above says how it ended."
    if record.bottoms is not None:
        deal_html = (
            '<section id="deal"><h2>The deal that was hidden</h2>'
            "<p>Every seed was opened at the end, so the whole deal is known: each square shows "
            "its top card, and in the corner the card that lay under it; <b>2*</b> is a 2 that "
            "hid the mutant (on the boards above, <b>M4</b> is a mutant character that was a "
            "4).</p>"
            f"{_board_svg(final, [], 'the hidden deal', deal=record)}</section>"
        )
    else:
        deal_html = (
            '<section id="deal"><h2>The deal</h2><p>Not every seed was opened: the hidden '
            "cards stay hidden.</p></section>"
        )
    variant = "General variant (no mutants)" if record.variant is Variant.GENERAL else "standard"
    seats = ", ".join(_seat(record.names, record.teams, s) for s in range(len(record.teams)))
    verdict = escape(shown(record.verdict, 300)) if record.verdict else "not audited"
    if record.hints:  # PROTOCOL.md §3.2: from the genesis, our own words
        seats += f'<br><span id="hints">{escape(HINTS_WERE_ALLOWED)}</span>'
    return _PAGE.format(
        title=escape(title),
        gid=escape(gid),
        variant=variant,
        seats=seats,
        verdict=verdict,
        verdict_class="ok" if (record.verdict or "").startswith("ok") else "warn",
        frames="\n".join(frames),
        items="\n".join(items),
        last=len(positions) - 1,
        result=result,
        deal=deal_html,
        css=_CSS,
        js=_JS.replace("%LAST%", str(len(positions) - 1)),
    )


_CSS = """
body{font-family:system-ui,sans-serif;margin:1em auto;max-width:1100px;color:#222;
background:#fafafa}
header h1{font-size:1.4em;margin:.2em 0} code{font-size:.85em;word-break:break-all}
main{display:flex;gap:1.5em;flex-wrap:wrap} #game{flex:1 1 560px} aside{flex:0 0 260px}
#moves{max-height:520px;overflow:auto;padding-left:2.5em;margin:0}
#moves a{text-decoration:none;color:#222} #moves li.cur{background:#ffe9a8}
nav button{font-size:1em;padding:.2em .7em} nav input{width:4em}
svg .sq rect{fill:#fff;stroke:#888} svg .sq.last rect{stroke:#e07000;stroke-width:4}
svg text{font-family:ui-monospace,monospace;text-anchor:middle}
svg .top{font-size:22px;font-weight:bold} svg .under{font-size:13px;text-anchor:end}
svg .axis{font-size:13px;fill:#555}
.scores{border-collapse:collapse;margin-top:.5em} .scores td,.scores th{padding:.15em .6em;
border-bottom:1px solid #ddd;text-align:left} .seat{font-weight:bold}
.ok{color:#1f7a3a} .warn{color:#b04a00} .mark{font-weight:bold}
"""

_JS = """
(function(){
var last=%LAST%,cur=0;
function show(n){n=Math.max(0,Math.min(last,n|0));
 document.getElementById('pos-'+cur).hidden=true;cur=n;
 document.getElementById('pos-'+cur).hidden=false;
 document.getElementById('where').textContent='move '+cur+' of '+last;
 document.getElementById('jump').value=cur;
 var lis=document.querySelectorAll('#moves li');
 for(var i=0;i<lis.length;i++){lis[i].className=(i+1===cur)?'cur':'';}
 if(location.hash!=='#m'+cur){history.replaceState(null,'','#m'+cur);}}
window.zooShow=show;
document.getElementById('first').onclick=function(){show(0)};
document.getElementById('prev').onclick=function(){show(cur-1)};
document.getElementById('next').onclick=function(){show(cur+1)};
document.getElementById('end').onclick=function(){show(last)};
document.getElementById('jump').onchange=function(){show(this.value)};
document.getElementById('moves').onclick=function(e){var a=e.target.closest('a');
 if(a){e.preventDefault();show(+a.dataset.move);}};
document.addEventListener('keydown',function(e){if(e.target.tagName==='INPUT')return;
 if(e.key==='ArrowRight'||e.key==='n')show(cur+1);
 else if(e.key==='ArrowLeft'||e.key==='p')show(cur-1);
 else if(e.key==='Home')show(0); else if(e.key==='End')show(last);});
var m=/^#m(\\d+)$/.exec(location.hash); show(m?+m[1]:0);
})();
"""

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{css}</style></head>
<body>
<header><h1>Apocalypse at the Zoo of Carson City</h1>
<p>game id <code id="gid">{gid}</code><br>{variant} · {seats}<br>
audit: <span id="verdict" class="{verdict_class}">{verdict}</span></p></header>
<main><section id="game">
<nav><button id="first" title="start (Home)">|&lt;</button>
<button id="prev" title="previous (←)">&lt;</button>
<button id="next" title="next (→)">&gt;</button><button id="end" title="end (End)">&gt;|</button>
<label>move <input id="jump" type="number" min="0" max="{last}" value="0"></label>
<span id="where">move 0 of {last}</span></nav>
{frames}
<p id="result"><b>{result}</b></p>
</section>
<aside><h2>Moves</h2><ol id="moves">
{items}
</ol></aside></main>
{deal}
<footer><p>Made by zoo-p2p from a signed game log.
This page loads nothing from the network.</p></footer>
<script>{js}</script>
</body></html>
"""
