"""A spectator makes its own proof of a fault that its session refuses without stopping (an
illegal move signed by its author), keeps it beside its log and stops with the verdict; an
illegal move that nobody signed (a forgery) convicts nobody. In process: its socket connects
nowhere, the entries are fed as the host link would."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p import storage
from zoo_p2p.driver import NullDriver
from zoo_p2p.errors import IllegalMoveError
from zoo_p2p.net import evidence
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import JoinOptions
from zoo_p2p.net.spectate import Spectator, watcher_session
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.session import encode_move
from zoo_p2p.protocol.simulate import LocalGame, setup_game, step
from zoo_p2p.rules import Step, Variant


def _game() -> LocalGame:
    rng = random.Random("zoo-p2p spectator proofs")
    game = setup_game(2, Variant.STANDARD, rng)
    while game.sessions[0].state is None or game.sessions[0].state.needs is not None:
        assert step(game, rng)
    return game


def _spectator(tmp: Path, genesis: bytes) -> Spectator:
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    path = tmp / "watch.zoolog"
    session = watcher_session(genesis)
    sink = storage.new_game_log(path, storage.NetSidecar(role="watch"))
    sink.append(genesis)
    return Spectator(
        inv, key=Ed25519PrivateKey.generate(), driver=NullDriver(), make_session=watcher_session,
        open_log=lambda s: sink, fingerprint=lambda pub: "x", options=JoinOptions(curve=False),
        session=session, sink=sink,
    )  # fmt: skip


def _illegal(game: LocalGame, key: Ed25519PrivateKey) -> bytes:
    """The mover's next entry: an illegal step, signed by `key`."""
    s = game.sessions[0]
    assert s.state is not None and s.floor is not None
    for frm in range(25):
        for to in (frm + 1, frm + 5):
            try:
                s.state.clone().check(Step(frm, to))
            except IllegalMoveError:
                prev = hashlib.sha256(s.entries[-1]).digest()
                return make_entry(
                    key, len(s), prev, s.floor.seat, Kind.MOVE, encode_move(Step(frm, to))
                )
    raise AssertionError("no illegal step")


def test_an_illegal_move_signed_by_its_author_is_a_proof_on_the_spectators_disk(
    tmp_path: Path,
) -> None:
    game = _game()
    log = list(game.entries)
    w = _spectator(tmp_path, log[0])
    try:
        assert w.deliver(1, log[1:], "the host", 0) is None
        mover = game.sessions[0].floor
        assert mover is not None
        bad = _illegal(game, game.keys[mover.seat])
        w.deliver(len(log), [bad], "the host", 0)
        assert w.witness.verdict is not None and w.witness.verdict.seat == mover.seat
        assert w.stopped is not None and "cheated" in w.stopped.reason
        proofs = evidence.read_proofs(tmp_path / "watch.zoolog")
        assert [evidence.check(p, log[0]).seat for p in proofs] == [mover.seat]
    finally:
        w.close()


def test_the_same_move_signed_by_another_key_convicts_nobody(tmp_path: Path) -> None:
    """The forgery: an illegal move at the mover's seq, signed with a key the test holds."""
    game = _game()
    log = list(game.entries)
    w = _spectator(tmp_path, log[0])
    try:
        w.deliver(1, log[1:], "the host", 0)
        forged = _illegal(game, Ed25519PrivateKey.generate())
        assert decode_entry(forged).seq == len(log)
        w.deliver(len(log), [forged], "the host", 0)
        assert w.witness.verdict is None and w.stopped is None
        assert not evidence.proofs_path(tmp_path / "watch.zoolog").exists()
    finally:
        w.close()
