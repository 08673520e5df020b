"""Issue 18, live 1: a seat signs a resignation with a random seed and the stand-in key derived
from that seed, and sends it to the honest seat that holds the floor. The statement is checked
at once (PROTOCOL.md §10.4): its seed misses the seat's commitments, so it is a proof against its
signer. The honest seat appends nothing, relays nothing, does not fail inside its own
processing, stops with the cheater named, and keeps the proof next to its log; the proof and the
honest log convict the cheater only. No network: the joiner's socket connects nowhere; the
statement is handed to it as the host would relay it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from zoo_p2p.driver import NullDriver
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import Joiner, JoinOptions
from zoo_p2p.protocol.audit import audit
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.evidence import check
from zoo_p2p.protocol.liveness import sign_resignation
from zoo_p2p.protocol.liveness_samples import _game, play_until
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.standin import stand_in_public_key
from zoo_p2p.storage import proofs_path, read_proofs


class _Sink:
    """A log file: what the joiner appends, and where proofs are kept beside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.write_bytes(b"")

    def append(self, raw: bytes) -> None:
        with self.path.open("ab") as f:
            f.write(raw)

    def sync(self, wait: bool = True) -> None:
        """Each append closed the file: nothing to make durable here."""

    def close(self) -> None:
        """Nothing stays open."""


def test_a_statement_with_a_wrong_seed_convicts_its_signer_not_the_floor_holder(
    tmp_path: Path,
) -> None:
    game, rng = _game(3, "live-bad-seed")
    moves = [0]

    def stop(f: Any) -> bool:  # a few moves in, the honest seat 2 (index 1) to move
        moves[0] += f.kind == Kind.MOVE
        return f.kind == Kind.MOVE and moves[0] > 4 and f.seat == 1

    play_until(game, rng, stop)
    mine = game.sessions[1]
    log = mine.entries
    seed = random.Random("a random seed").randbytes(32)
    gid = mine.game_id
    bad = sign_resignation(game.keys[2], gid, 2, len(log), seed, stand_in_public_key(gid, 2, seed))
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    sink = _Sink(tmp_path / "g.zoolog")
    joiner = Joiner(
        inv, key=game.keys[1], driver=NullDriver(), make_session=Session,
        open_log=lambda s: sink,  # type: ignore[arg-type,return-value]
        fingerprint=lambda pub: "x", options=JoinOptions(curve=False), session=mine,
    )  # fmt: skip
    joiner.sink = sink  # (the session came with the joiner: its log is opened here)
    joiner._mesh_on = False  # no direct links: the proof is kept next to the log all the same
    sent: list[bytes] = []
    joiner._liveness_out = lambda data, skip: sent.append(data)  # type: ignore[method-assign]
    try:
        joiner._on_resign(None, bad.to_bytes())  # relayed by the host
        assert mine.entries == log  # nothing appended
        assert sent == []  # nothing relayed
        assert joiner.stopped is not None and not joiner.stopped.finished
        assert "seat 3 (" in joiner.stopped.reason and "cheated" in joiner.stopped.reason
        assert "does not match its commitments" in joiner.stopped.reason
        proofs = read_proofs(sink.path)
        assert len(proofs) == 1 and proofs_path(sink.path).exists()
        conviction = check(proofs[0], log[0])
        assert conviction.seat == 2
        report = audit(log, proofs=proofs)
        assert report.verdict == "cheat" and report.cheater == 2
        assert {c.seat for c in report.convictions} == {2} and report.fault_seat is None
    finally:
        joiner.close()
