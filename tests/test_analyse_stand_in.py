"""`--analyse` grades a player's choices; a stand-in's moves (its seat resigned, or a claim
that played on put it out, PROTOCOL.md §10.4, §10.7) are the frozen rule it follows, so they
are said as such and never marked nor counted in the seat's summary. Before, the host's
stand-in in the sample log was graded as if the host had chosen its moves."""

from __future__ import annotations

from pathlib import Path

from zoo_p2p.bots.analysis import analyse_entries, moves_from_entries, summary
from zoo_p2p.cli.replay import load_replay
from zoo_p2p.storage import read_log
from zoo_p2p.tui.replay import load

HOST_OUT = Path(__file__).parents[1] / "replays" / "4p-standard-play-on-host.zoolog"


def test_the_stand_in_plies_are_the_out_seats_moves_after_the_claim() -> None:
    entries = read_log(HOST_OUT).entries
    positions, stand_ins = moves_from_entries(entries)
    assert stand_ins, "the host's stand-in moved after the claim at entry 64"
    assert {positions[k][0].to_move for k in stand_ins} == {0}
    host = [k for k, (st, _) in enumerate(positions) if st.to_move == 0]
    assert min(stand_ins) > min(host)  # the host's own moves before the claim are its own
    assert set(host) - stand_ins
    # the line-mode and the full-screen replay find the same plies
    assert load_replay(HOST_OUT).stand_ins == stand_ins
    assert {k - 1 for k in load(HOST_OUT).stand_ins} == stand_ins


def test_the_analysis_says_the_stand_in_follows_its_rule_and_does_not_grade_it() -> None:
    entries = read_log(HOST_OUT).entries
    positions, stand_ins = moves_from_entries(entries)
    ply = min(stand_ins)
    own = max(k for k, (st, _) in enumerate(positions) if st.to_move == 0 and k < ply)
    marks = analyse_entries(entries, work=40, plies={ply, own})
    by_ply = {m.ply: m for m in marks}
    assert by_ply[ply].stand_in and not by_ply[ply].mark
    assert "a stand-in's move: the frozen rule plays this seat" in by_ply[ply].describe()
    assert not by_ply[own].stand_in
    row = summary(marks, 4)[0]
    assert row.moves == 1  # the host's own move only
