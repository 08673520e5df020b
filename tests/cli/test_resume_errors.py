"""`zoo resume` of a log it cannot rebuild says which file and at which entry: a walkthrough
flipped one byte in a copy of its own log and got only "bad signature: not seat 2 (Blue)'s
key" (no file, no entry), and a file that is not a log gave "entry 0: …" without the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.cli.runners import resume_session
from zoo_p2p.errors import ZooError
from zoo_p2p.storage import read_log, write_log

SAMPLE = Path(__file__).parents[2] / "replays" / "2p-standard.zoolog"


def _why(path: Path) -> str:
    with pytest.raises(ZooError) as caught:  # the CLI prints it as one red line, exit 1
        resume_session(Ed25519PrivateKey.generate(), path)
    return str(caught.value)


def test_a_forged_entry_is_named_with_the_file(tmp_path: Path) -> None:
    entries = read_log(SAMPLE).entries
    forged = bytearray(entries[7])
    forged[-1] ^= 0x01  # the last byte of its signature
    bad = tmp_path / "bad.zoolog"
    write_log(bad, [*entries[:7], bytes(forged)])  # it chains: only its signature is wrong
    why = _why(bad)
    assert str(bad) in why and "entry 7" in why, why
    assert "zoo verify" in why  # where to learn more


def test_a_file_that_is_no_log_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("# not a log\n")
    why = _why(bad)
    assert str(bad) in why and "entry 0" in why, why


def test_a_wrong_path_is_a_usage_error_without_sending_to_zoo_verify(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from zoo_p2p.cli.app import app

    # a path that names nothing is a usage error; a directory is there but is no log: an error
    # of its own, as in zoo replay (docs/CLI.md's table)
    for path, code in ((tmp_path / "nosuch.zoolog", 2), (tmp_path, 1)):
        r = CliRunner().invoke(app, ["resume", str(path)])
        said = " ".join(r.output.split())
        assert r.exit_code == code, said
        assert str(path.name) in said and "zoo verify" not in said, said
