"""Hints at a networked table (PROTOCOL.md §3.2): `zoo host --hints` writes the flag in the
genesis and says so in the lobby; a joiner is told before it signs anything; `zoo join
--no-hints` leaves, signing nothing; only a table whose genesis allows hints offers `x`."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.harness import Procs, audit_file, wait_for
from zoo_p2p.driver import NullDriver
from zoo_p2p.net.core.joiner import JoinerCore
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.messages import decode
from zoo_p2p.net.peer import HINTS_REFUSED, JoinOptions
from zoo_p2p.protocol.crypto import fingerprint, public_key_bytes
from zoo_p2p.protocol.encoding import decode_entry
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_ALLOWED

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
HINT_LINE = re.compile(r"the expert would play (\S+) . win chance (\d+) %")
OFF = "hints are off at this table: its host did not allow them (zoo host --hints)"


class _Notes(NullDriver):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def on_notice(self, text: str) -> None:
        self.notes.append(text)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _table(hints: bool) -> tuple[Ed25519PrivateKey, Ed25519PrivateKey, bytes]:
    host, me = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    seats = [
        SeatInfo("host", public_key_bytes(host), Team.YELLOW),
        SeatInfo("me", public_key_bytes(me), Team.BLUE),
    ]
    genesis = Session.create_genesis(
        host, seats, Variant.STANDARD, None, os.urandom(32), Clocks(), hints=hints
    )
    return host, me, genesis


def _joiner(host: Ed25519PrivateKey, me: Ed25519PrivateKey, refuse: bool) -> tuple[JoinerCore, Any]:
    """A joiner's core whose host already proved itself (no host runs: the test feeds its
    messages; no socket either: what is tested is the core's, and the transport's close
    waited 1.5 s for a farewell from a host that is not there)."""
    driver = _Notes()
    opened: list[Session] = []

    def open_log(s: Session) -> Any:
        opened.append(s)
        return None

    inv = Invite(host="127.0.0.1", port=_free_port(), server_key=bytes(32), fingerprint="AAAA-BBBB")
    j = JoinerCore(
        inv,
        curve_pub=bytes(32),
        key=me,
        driver=driver,
        make_session=lambda g: Session(g, key=me, seed=bytes(32)),
        open_log=open_log,
        fingerprint=fingerprint,
        options=JoinOptions(curve=False, give_up=5, refuse_hints=refuse),
    )
    j.host_pub = public_key_bytes(host)
    return j, (driver, opened)


LOBBY = {"t": "lobby", "seats": [["host", "AAAA-BBBB", 0]], "need": 2, "hints": True}


@pytest.mark.parametrize("refuse", [False, True])
def test_the_genesis_is_what_binds_told_first_refused_with_no_hints(refuse: bool) -> None:
    host, me, genesis = _table(hints=True)
    j, (driver, opened) = _joiner(host, me, refuse)
    try:
        j._on_entries(0, [genesis])
        assert driver.notes[:1] == [HINTS_ALLOWED]  # told before any entry of ours exists
        if refuse:
            assert j.session is None and opened == []  # no session, no log, nothing signed
            assert j.stopped is not None and j.stopped.reason == HINTS_REFUSED
        else:
            assert j.session is not None and j.session.genesis.hints and len(opened) == 1
            assert j.stopped is None
            # our first signed entry chains on that very genesis: joining is agreeing
            assert j.session.seat == 1
    finally:
        j.close()


def test_the_lobby_tells_first_and_a_no_hints_joiner_leaves_before_the_genesis() -> None:
    host, me, genesis = _table(hints=True)
    j, (driver, opened) = _joiner(host, me, refuse=True)
    try:
        j._on_msg(decode(msgpack.packb(LOBBY, use_bin_type=True)))
        assert driver.notes == [HINTS_ALLOWED]
        assert j.stopped is not None and j.stopped.reason == HINTS_REFUSED and j.session is None
    finally:
        j.close()
    j, (driver, opened) = _joiner(host, me, refuse=False)
    try:
        j._on_msg(decode(msgpack.packb(LOBBY, use_bin_type=True)))
        j._on_entries(0, [genesis])
        assert driver.notes.count(HINTS_ALLOWED) == 1  # said once, in the lobby
        assert j.stopped is None and j.session is not None and opened
    finally:
        j.close()


def test_a_table_without_hints_says_nothing_and_no_hints_joins_it() -> None:
    host, me, genesis = _table(hints=False)
    j, (driver, opened) = _joiner(host, me, refuse=True)
    try:
        j._on_entries(0, [genesis])
        assert HINTS_ALLOWED not in driver.notes
        assert j.stopped is None and j.session is not None and len(opened) == 1
    finally:
        j.close()


def _said(procs: Procs, name: str) -> str:
    """What a process printed so far, its lines joined (the console wraps at 80 columns)."""
    out = procs.tmp / f"{name}.out"
    return " ".join(out.read_text(errors="replace").split()) if out.exists() else ""


def _until(procs: Procs, p: subprocess.Popen[bytes], name: str, what: str) -> str:
    """Wait (bounded) until the process has printed something matching `what`."""
    found = re.compile(what)
    wait_for(lambda: bool(found.search(_said(procs, name))) or p.poll() is not None, 40, what)
    text = _said(procs, name)
    assert found.search(text), f"{what!r} never came\n{procs.text(name)}"
    return text


@pytest.mark.parametrize("hints", [True, False])
def test_a_two_seat_game_offers_x_only_when_the_host_used_hints(procs: Procs, hints: bool) -> None:
    """Real processes on 127.0.0.1: a bot host (`--hints` or not) and a person joining in the
    line mode. With the flag the person is told before the game, and `x` gives the expert's
    move; without it `x` says why hints are off. The person's log shows the signed agreement."""
    _, invite = procs.host("--players", "2", "--bot", "greedy", *(["--hints"] if hints else []))
    person = procs.human(invite, "person")
    before = _until(procs, person, "person", "Your move")
    assert (HINTS_ALLOWED in before) is hints
    procs.type(person, b"x\n")
    said = _until(procs, person, "person", HINT_LINE.pattern if hints else re.escape(OFF))
    assert (HINT_LINE.search(said) is not None) is hints and (OFF in said) is not hints
    procs.type(person, b"q\ny\n")
    procs.wait(person, "person", 30)
    log = procs.tmp / "person.zoolog"
    report: Any = audit_file(log)
    assert report.hints is hints
    entries = [decode_entry(e) for e in read_log(log).entries]
    # the person's seat signed entries, every one chained back to this genesis
    assert [e for e in entries if e.seat == 1] and entries[0].body[5:] == ([True] if hints else [])


def test_the_lobby_may_say_hints_and_a_knock_may_not() -> None:
    from zoo_p2p.net import wire

    seats = [["host", "AAAA-BBBB", 0]]
    assert wire.unpack(wire.pack("lobby", seats=seats, need=2, hints=True))["hints"] is True
    assert "hints" not in wire.unpack(wire.pack("lobby", seats=seats, need=2))
    for bad in (1, "true", None, b"\x01"):
        with pytest.raises(wire.WireError, match="hints"):
            wire.unpack(wire.pack("lobby", seats=seats, need=2, hints=bad))
    with pytest.raises(wire.WireError, match="wrong fields"):
        wire.unpack(wire.pack("knock", v=1, hints=True))


def test_zoo_resume_of_a_zoo_play_game_keeps_hints_on(procs: Procs) -> None:
    """`zoo play` writes `hints: true` (its other seats are its own bots); `zoo resume`, a
    networked run, reads it from the genesis and `x` still asks the expert."""
    log = procs.tmp / "play.zoolog"
    procs.env["ZOO_BOT_DELAY"] = "0"
    play = procs.zoo("play", "--plain", "--bots", "1", "--log", str(log), name="play",
                     stdin=subprocess.PIPE)  # fmt: skip
    first = _until(procs, play, "play", "Your move")
    assert HINTS_ALLOWED in first
    procs.type(play, b"q\ny\n")
    procs.wait(play, "play", 30)
    assert audit_file(log).hints  # type: ignore[attr-defined]
    again = procs.zoo("resume", str(log), "--plain", name="again", stdin=subprocess.PIPE)
    text = _until(procs, again, "again", "Your move")
    assert "resuming as host" in text
    procs.type(again, b"x\n")
    said = _until(procs, again, "again", r"expert would play|hints are off")
    assert HINT_LINE.search(said) is not None and OFF not in said, procs.text("again")
    procs.type(again, b"q\ny\n")
    procs.wait(again, "again", 30)
