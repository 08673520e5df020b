"""`zoo verify A B` ends with what the two logs say of each other (issue 20, item 10): it printed
two reports and nothing on whether they agree. Now its last line says they agree up to entry N
(no fork), names the fork's signer, says where they part without a fork, or warns that they are
logs of two different games."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from zoo_p2p.cli.app import app

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


def _last_line(*paths: Path) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["verify", *map(str, paths)], env={"COLUMNS": "400"})
    lines = [line for line in r.output.splitlines() if line.strip()]
    return r.exit_code, lines[-1]


def test_two_copies_of_one_log_agree(tmp_path: Path) -> None:
    log = REPLAYS / "2p-standard.zoolog"
    copy = tmp_path / "theirs.zoolog"
    copy.write_bytes(log.read_bytes())
    from zoo_p2p.storage import read_log

    n = len(read_log(log).entries) - 1
    code, last = _last_line(log, copy)
    assert code == 0
    assert last == f"the two logs agree up to entry {n}: no fork (the same entries)", last


def test_a_log_cut_short_agrees_up_to_its_last_entry(tmp_path: Path) -> None:
    from zoo_p2p.storage import read_log, write_log

    log = REPLAYS / "2p-standard.zoolog"
    entries = read_log(log).entries
    short = tmp_path / "short.zoolog"
    write_log(short, entries[:12])
    code, last = _last_line(short, log)
    assert code == 3  # the short one is incomplete; the comparison changes no verdict
    assert last == (
        f"the two logs agree up to entry 11: no fork ({log} goes on to entry {len(entries) - 1})"
    ), last


def test_logs_that_part_without_a_fork_say_so() -> None:
    """The claim and the staller's late log of one game differ from entry 10, each entry signed
    by another seat: nobody signed two entries for one place."""
    code, last = _last_line(
        REPLAYS / "3p-standard-claimed-reveal.zoolog",
        REPLAYS / "3p-standard-claimed-reveal-late.zoolog",
    )
    assert code == 0
    assert last == (
        "the two logs agree up to entry 9; from entry 10 they differ, but no seat signed two "
        "entries for one place: no fork"
    ), last


def test_logs_of_two_games_are_a_warning_not_a_verdict() -> None:
    a, b = REPLAYS / "2p-standard.zoolog", REPLAYS / "3p-general.zoolog"
    code, last = _last_line(a, b)
    assert code == 0  # both logs are good: the warning changes no exit code
    assert last == (
        f"warning: {a} and {b} are logs of different games (their first entries differ): "
        "nothing to compare"
    ), last


def test_three_logs_name_each_pair() -> None:
    a, b = REPLAYS / "2p-standard.zoolog", REPLAYS / "3p-general.zoolog"
    r = CliRunner().invoke(app, ["verify", str(a), str(a), str(b)], env={"COLUMNS": "400"})
    assert f"{a} and {a} agree up to entry " in r.output
    assert r.output.count("are logs of different games") == 2
