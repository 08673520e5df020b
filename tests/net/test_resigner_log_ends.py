"""A resigner (3–4 seats) leaves once the entry with its resignation is in its log; entries
that come with it in the same message (the stand-in's first answer, computed by every peer) are
not taken, so its log ends with its resignation (PROTOCOL.md §10.5, "Left"). No network: the
joiner's socket connects nowhere; the entries are handed to it as the host would relay them."""

from __future__ import annotations

import time
from typing import Any

import msgpack

from zoo_p2p.driver import NullDriver
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import Joiner, JoinOptions
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.liveness import parse_resignation
from zoo_p2p.protocol.liveness_samples import _game, play_until
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import broadcast


def test_the_resigners_log_ends_with_its_resignation() -> None:
    game, rng = _game(3, "resigner-log-ends")
    moves = [0]

    def stop(f: Any) -> bool:  # a few moves in, seat 2 (index 1) to move
        moves[0] += f.kind == Kind.MOVE
        return f.kind == Kind.MOVE and moves[0] > 4 and f.seat == 1

    play_until(game, rng, stop)
    mine = game.sessions[1]
    inv = Invite(host="127.0.0.1", port=9, server_key=bytes(32), fingerprint="AAAA-BBBB-CCCC-DDDD")
    joiner = Joiner(
        inv, key=game.keys[1], driver=NullDriver(), make_session=Session,
        open_log=lambda s: None,  # type: ignore[arg-type,return-value]
        fingerprint=lambda pub: "x", options=JoinOptions(curve=False), session=mine,
    )  # fmt: skip
    sent: list[bytes] = []
    joiner._liveness_out = lambda data, skip: sent.append(data)  # type: ignore[method-assign]
    try:
        joiner.resign_and_leave("you left the game")
        assert joiner.stopped is None  # it waits for the entry with its resignation
        msg = wire.unpack(sent[0])
        r = parse_resignation(msgpack.unpackb(msg["r"]))
        for i in (0, 2):
            assert game.sessions[i].add_resignation(r)
        # seat 1 appends it (the floor was ours), then at once the stand-in's move, which it
        # computes like every peer (PROTOCOL.md §10.4)
        resign, *after = game.sessions[0].take_outgoing()
        assert decode_entry(resign).kind == Kind.RESIGN
        for raw in (resign, *after):
            broadcast(game, 0, raw)  # (ours too: `mine` is game.sessions[1])
        at = len(game.sessions[0]) - len(after) - 1
        assert msg["key"] == b""  # no private key travels: the stand-in's is derived by all
        assert after and decode_entry(after[0]).seat == 1
        # our copy of the resign entry came back already; rewind it to hand all in one message
        joiner.session = fresh = Session(mine.entries[0], key=game.keys[1], seed=game.seeds[1])
        for raw in mine.entries[1:at]:
            fresh.receive(raw)
        fresh.resign()
        joiner.deliver(at, [resign, *after], "the host")
        assert fresh.entries[-1] == resign and len(fresh) == at + 1  # the stand-in's not taken
        joiner._liveness_tick(time.monotonic())
        assert joiner.stopped is not None and not joiner.stopped.finished
        assert "you resigned and a stand-in plays on in your seat" in joiner.stopped.reason
        assert "every peer computes its moves" in joiner.stopped.reason
        assert "had not reached us" not in joiner.stopped.reason
    finally:
        joiner.close()
