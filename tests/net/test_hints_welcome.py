"""Hints consent before the seat is taken (PROTOCOL.md §3.2, TRANSPORT.md §5): the host's signed
welcome says "this table allows hints", so a `--no-hints` joiner leaves before its hello and the
seat stays open. (That a seat that never committed is never claimed against, the game never
started, is tested in memory in tests/net/test_clocks_mem.py, and with a real `zoo host` in
tests/net/test_never_started.py.)

Real processes on 127.0.0.1; every wait bounded."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.harness import START, Procs, audit_file, log_len, wait_for
from zoo_p2p.driver import NullDriver
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.messages import Message, decode
from zoo_p2p.net.peer import HINTS_DECLINED, HINTS_REFUSED, HOST_DECLINED, Joiner, JoinOptions
from zoo_p2p.protocol.crypto import fingerprint, public_key_bytes
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log
from zoo_p2p.text import HINTS_ALLOWED

STALLER = [sys.executable, "-m", "tests.net.staller"]
NEVER = "the game never started: seat 2 (Blue)"


def _said(procs: Procs, name: str) -> str:
    """What a process printed so far, its lines joined (the console wraps at 80 columns)."""
    path = procs.tmp / f"{name}.out"
    return " ".join(path.read_text(errors="replace").split()) if path.exists() else ""


def _until(procs: Procs, p: subprocess.Popen[bytes], name: str, what: str, t: float = 40) -> str:
    found = re.compile(what)
    wait_for(lambda: bool(found.search(_said(procs, name))) or p.poll() is not None, t, what)
    text = _said(procs, name)
    assert found.search(text), f"{what!r} never came\n{procs.text(name)}"
    return text


def _kinds(procs: Procs, name: str) -> list[str]:
    return [decode_entry(e).kind for e in read_log(procs.tmp / f"{name}.zoolog").entries]


def test_a_no_hints_joiner_leaves_at_the_welcome_and_the_seat_stays_open(procs: Procs) -> None:
    """The 2-seat case of the old bug: the host wrote the genesis on the last hello, so the
    joiner learnt of hints only there and the host then claimed a game nobody played. Now the
    welcome says it: no hello, no genesis, no claim; the next joiner takes the seat."""
    inv = procs.tmp / "host.invite"
    host = procs.zoo(
        "host", "--bind", "127.0.0.1", "--invite-file", str(inv), "--no-announce", "--plain",
        "--log", str(procs.tmp / "host.zoolog"), "--players", "2", "--bot", "greedy", "--hints",
        name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    invite = inv.read_text().strip()
    careful = procs.human(invite, "careful", "--no-hints")
    assert procs.wait(careful, "careful", 40) == 1
    text = _said(procs, "careful")
    assert HINTS_ALLOWED in text and f"no game: {HINTS_REFUSED}" in text, procs.text("careful")
    assert "Traceback" not in procs.text("careful")
    assert not (procs.tmp / "careful.zoolog").exists()  # nothing signed, no log
    _until(procs, host, "host", re.escape(HOST_DECLINED))
    assert host.poll() is None and "joined" not in _said(procs, "host")
    assert log_len(procs.tmp / "host.zoolog") == 0  # no genesis: the seat is still open
    # the next joiner takes that seat and the game is played to its end
    bot = procs.bot(invite, "next")
    assert procs.wait(bot, "next", 60) == 0, procs.text("next")
    assert procs.wait(host, "host", 30) == 0, procs.text("host")
    report: Any = audit_file(procs.tmp / "next.zoolog")
    assert report.hints is True and report.ending.kind == "finished", report.verdict


def _staller_host(procs: Procs, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    inv = procs.tmp / "host.invite"
    host = procs.start(
        [*STALLER, "host", "--players", "2", "--reveal-time", "2", "--invite-file", str(inv),
         "--log", str(procs.tmp / "host.zoolog"), *extra],
        name="host",
    )  # fmt: skip
    wait_for(lambda: inv.exists() or host.poll() is not None, START, "the invite")
    return host, inv.read_text().strip()


def test_a_host_that_hides_hints_until_the_genesis_is_refused_there_and_wins_nothing(
    procs: Procs,
) -> None:
    """A host whose welcome and lobby say nothing of hints but whose genesis allows them: the
    genesis binds, so the `--no-hints` joiner refuses it and leaves, signing nothing; the host
    then stops at once, the game never started: no claim entry, no result, no win."""
    host, invite = _staller_host(procs, "--genesis-hints")
    careful = procs.human(invite, "careful", "--no-hints")
    assert procs.wait(careful, "careful", 40) == 1
    assert f"no game: {HINTS_REFUSED}" in _said(procs, "careful"), procs.text("careful")
    assert not (procs.tmp / "careful.zoolog").exists()
    procs.wait(host, "host", 30)
    out = _said(procs, "host")
    assert f"outcome: {NEVER} left before taking its seat" in out, procs.text("host")
    assert "we claim" not in out
    kinds = _kinds(procs, "host")
    assert kinds == [Kind.GENESIS, Kind.COMMIT] and Kind.CLAIM not in kinds
    report: Any = audit_file(procs.tmp / "host.zoolog")
    assert report.hints is True and report.winners == ()
    assert report.ending.kind == "abandoned" and report.ending.seat == 1
    assert report.ending_text.endswith("signed nothing in this game: never started, no result")


def test_the_welcome_signs_its_hints_flag() -> None:
    """`hints: true` in a welcome is covered by the host's signature; absent = said nothing."""
    key = Ed25519PrivateKey.generate()
    pub = public_key_bytes(key)
    server, client = bytes(range(32)), bytes(32)
    plain = wire.welcome_signed_bytes(server, client, pub)
    assert wire.welcome_signed_bytes(server, client, pub, False) == plain
    told = wire.welcome_signed_bytes(server, client, pub, True)
    assert told != plain
    sig = key.sign(told)
    msg = wire.unpack(wire.pack("welcome", v=1, pub=pub, sig=sig, seat=None, hints=True))
    assert msg["hints"] is True
    assert "hints" not in wire.unpack(wire.pack("welcome", v=1, pub=pub, sig=sig, seat=None))
    for bad in (1, "true", None, b"\x01"):
        with pytest.raises(wire.WireError, match="hints"):
            wire.unpack(wire.pack("welcome", v=1, pub=pub, sig=sig, seat=None, hints=bad))


class _Notes(NullDriver):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def on_notice(self, text: str) -> None:
        self.notes.append(text)


def _no_log(session: Session) -> Any:
    raise AssertionError("a log was opened: no genesis came here")


def _unwelcomed(
    host: Ed25519PrivateKey, refuse: bool
) -> tuple[Joiner, _Notes, list[dict[str, Any]]]:
    """A joiner (CURVE off, nothing listening) whose host has not proved itself yet; what it
    would send is recorded instead (and its close waits for no farewell: no host is there to
    send one, and the wait was 1.5 s a test)."""
    driver = _Notes()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inv = Invite(host="127.0.0.1", port=port, server_key=bytes(32),
                 fingerprint=fingerprint(public_key_bytes(host)))  # fmt: skip
    me = Ed25519PrivateKey.generate()
    j = Joiner(inv, key=me, driver=driver, make_session=lambda g: Session(g, key=me),
               open_log=_no_log, fingerprint=fingerprint,
               options=JoinOptions(curve=False, give_up=5, refuse_hints=refuse))  # fmt: skip
    sent: list[dict[str, Any]] = []
    j._send = lambda data: sent.append(wire.unpack(data))  # type: ignore[method-assign]
    j._await_farewell = lambda deadline: False  # type: ignore[method-assign]
    return j, driver, sent


def _welcome(host: Ed25519PrivateKey, *, signed: bool, says: bool) -> Message:
    pub = public_key_bytes(host)
    sig = host.sign(wire.welcome_signed_bytes(bytes(32), bytes(32), pub, signed))
    fields: dict[str, Any] = {"v": 1, "pub": pub, "sig": sig, "seat": None}
    if says:
        fields["hints"] = True
    return decode(wire.pack("welcome", **fields))


@pytest.mark.parametrize("refuse", [True, False])
def test_the_welcome_tells_before_the_hello_and_no_hints_never_says_hello(refuse: bool) -> None:
    host = Ed25519PrivateKey.generate()
    j, driver, sent = _unwelcomed(host, refuse)
    try:
        j._on_msg(_welcome(host, signed=True, says=True))
        assert driver.notes == [HINTS_ALLOWED]
        kinds = [m["t"] for m in sent]
        if refuse:
            assert kinds == [] and j.stopped is not None and j.stopped.reason == HINTS_REFUSED
            j.close()
            assert [m["t"] for m in sent] == ["leave"]
            assert sent[-1]["reason"] == HINTS_DECLINED  # the host knows why, in its own words
        else:
            assert (
                kinds == ["links", "hello"] and j.stopped is None
            )  # the hint (§10.10), then hello
    finally:
        j.close()


@pytest.mark.parametrize(("signed", "says"), [(False, True), (True, False)])
def test_a_hints_flag_the_host_did_not_sign_drops_the_welcome(signed: bool, says: bool) -> None:
    """Added by someone else (or stripped): the signature no longer holds, nothing is told."""
    host = Ed25519PrivateKey.generate()
    j, driver, sent = _unwelcomed(host, refuse=True)
    try:
        j._on_msg(_welcome(host, signed=signed, says=says))
        assert j.host_pub is None and j.dropped == 1 and sent == [] and driver.notes == []
        assert j.stopped is None
    finally:
        j.close()
