"""The host's admission of spectators and its bounds (zoo_p2p.net.spectators, TRANSPORT.md
§12), without sockets: a fake host records what would be sent; the clock is passed in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgpack
import pytest

from zoo_p2p.net import messages, wire
from zoo_p2p.net.messages import decode
from zoo_p2p.net.spectators import (
    NO_SPECTATORS,
    OTHER_GAME,
    SPECTATOR_MSGS_BURST,
    SpectatorHost,
    Spectators,
)
from zoo_p2p.protocol.session import Session
from zoo_p2p.storage import read_log

GENESIS = read_log(Path(__file__).resolve().parents[2] / "replays" / "2p-standard.zoolog").entries[
    0
]


class FakeHost:
    """What `Spectators` needs of a host, recording every send."""

    def __init__(self, session: Session | None = None) -> None:
        self.session = session
        self.sent: list[tuple[bytes, bytes]] = []
        self.logs: list[tuple[bytes, int]] = []
        self.shut_fds: list[tuple[int, str]] = []
        self.bound: list[int] = []
        self.notices: list[str] = []
        self.proofs: list[tuple[bytes, int]] = []

    def send_to(self, rid: bytes, data: bytes) -> bool:
        self.sent.append((rid, data))
        return True

    def send_log(self, rid: bytes, start: int) -> None:
        self.logs.append((rid, start))

    def shut(self, fd: int, why: str) -> None:
        self.shut_fds.append((fd, why))

    def bind_fd(self, fd: int) -> None:
        self.bound.append(fd)

    def notice_once(self, what: str, text: str) -> None:
        self.notices.append(text)

    def greeting(self) -> Sequence[bytes]:
        return [wire.pack("ping")]

    def proven(self, proof: bytes, seat: int, reason: str) -> None:
        self.proofs.append((proof, seat))

    def kinds(self, rid: bytes) -> list[str]:
        return [decode(d).T for r, d in self.sent if r == rid]


def _watch(game: bytes | None = None, have: int = 0) -> messages.Watch:
    return messages.Watch(game=game, have=have)


def _session() -> Session:
    return Session(GENESIS)


def test_at_most_n_are_admitted_and_the_next_is_told_why() -> None:
    host = FakeHost(_session())
    specs = Spectators(host, 2)
    _: SpectatorHost = host  # it is one
    for i in range(2):
        assert specs.on_msg(b"r%d" % i, b"c%d" % i, _watch(), 0.0, 10 + i)
    assert len(specs) == 2 and host.bound == [10, 11]
    assert host.kinds(b"r0")[:1] == ["watching"]
    assert decode(host.sent[0][1]) == messages.Watching(n=1, most=2)
    assert host.logs == [(b"r0", 0), (b"r1", 0)]  # the log from the genesis
    specs.on_msg(b"r2", b"c2", _watch(), 0.0, 12)
    assert len(specs) == 2 and host.kinds(b"r2") == ["reject"]
    assert b"2 spectators watch already, at most 2" in host.sent[-1][1]
    specs.on_msg(b"r0", b"c0", messages.Leave(reason="bye"), 1.0, 10)  # one leaves: room again
    assert host.kinds(b"r0")[-1] == "farewell"
    specs.on_msg(b"r2", b"c2", _watch(), 1.0, 12)
    assert specs.owns(b"r2")


def test_zero_admits_nobody_and_another_game_is_refused() -> None:
    host = FakeHost(_session())
    Spectators(host, 0).on_msg(b"r", b"c", _watch(), 0.0, 3)
    assert host.kinds(b"r") == ["reject"] and NO_SPECTATORS.encode() in host.sent[-1][1]
    specs = Spectators(host, 4)
    specs.on_msg(b"o", b"c", _watch(game=b"x" * 32, have=5), 0.0, 4)
    assert not specs.owns(b"o") and OTHER_GAME.encode() in host.sent[-1][1]
    s = host.session
    assert s is not None
    specs.on_msg(b"m", b"c", _watch(game=s.game_id, have=1), 0.0, 5)  # watching on: from `have`
    assert specs.owns(b"m") and host.logs[-1] == (b"m", 1)
    with pytest.raises(ValueError):
        Spectators(host, 65)


def test_in_the_lobby_it_gets_the_greeting_and_no_log() -> None:
    host = FakeHost(None)
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    assert host.kinds(b"r") == ["watching", "ping"] and host.logs == []


def test_a_spectator_may_send_no_entry_no_vote_no_hello() -> None:
    """Entries, claims, resignations, hellos on a spectator's link are dropped and counted;
    nothing reaches the host's session or tables."""
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    before = list(host.sent)
    s = host.session
    assert s is not None
    for msg in [
        messages.Entries(start=1, e=(b"x",)),
        messages.Claim(vote=b"v"),
        messages.Resign(r=b"r"),
        messages.Lobby(seats=(("a", "AAAA", 0),), need=2),
    ]:
        assert specs.on_msg(b"r", b"c", msg, 0.1, 3)  # handled here: never the seats' tables
    assert specs.dropped == 4 and host.sent == before and len(s) == 1
    assert host.notices and "may not send it" in host.notices[0]


def test_its_link_is_bound_to_its_curve_key() -> None:
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    n = len(host.logs)
    specs.on_msg(b"r", b"other key", messages.Sync(start=0), 0.1, 3)
    assert specs.dropped == 1 and len(host.logs) == n
    specs.on_msg(b"r", b"c", messages.Sync(start=0), 0.1, 7)  # its own reconnection: moves
    assert len(host.logs) == n + 1 and host.bound[-1] == 7


def test_beyond_its_message_rate_it_is_dropped() -> None:
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    taken = 0
    while specs.allowed(b"r", 0.5):
        taken += 1
        assert taken <= SPECTATOR_MSGS_BURST + 50
    assert taken >= SPECTATOR_MSGS_BURST - 1
    assert not specs.owns(b"r") and host.shut_fds and specs.kicked == 1
    assert "dropped a spectator: more than 50 messages a second" in host.notices


def test_resyncs_are_bounded_and_the_silent_are_forgotten() -> None:
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    for _ in range(20):
        specs.on_msg(b"r", b"c", messages.Sync(start=0), 0.0, 3)
    assert len(host.logs) == 1 + 6  # the admission, then the burst of 6
    specs.tick(5.0)
    assert specs.owns(b"r")
    specs.tick(10.5)
    assert not specs.owns(b"r") and host.shut_fds[-1][0] == 3


def test_a_proof_that_proves_nothing_costs_its_link() -> None:
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    bogus = msgpack.packb({"t": "proof", "p": b"not a proof"}, use_bin_type=True)
    specs.on_msg(b"r", b"c", messages.Tunnel(m=bogus), 0.1, 3)
    assert not specs.owns(b"r") and host.proofs == [] and specs.kicked == 1


def test_the_host_waits_for_its_spectators_done_as_for_its_seats() -> None:
    """Closing the game waits (bounded by the host's linger) until every spectator holds the
    whole log, so a slow one is not cut off before the last entries reach it."""
    host = FakeHost(_session())
    specs = Spectators(host, 4)
    assert specs.all_done()  # nobody watching: nothing to wait for
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    assert not specs.all_done()
    specs.on_msg(b"r", b"c", messages.Done(have=1), 0.1, 3)
    assert specs.all_done()


def _fork_vector() -> dict[str, object]:
    import json

    root = Path(__file__).resolve().parents[2]
    vector: dict[str, object] = json.loads((root / "protocol/vectors/proof-fork.json").read_text())
    return vector


def test_a_spectators_proof_stops_the_host_only_when_its_author_signed_it() -> None:
    """The fork proof of protocol/vectors convicts its seat: the host is handed it (and stops,
    passing it to every seat). The same proof with its second entry re-signed by a key the test
    holds (not the seat's) proves nothing: the spectator loses its link, nobody is convicted."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from zoo_p2p.protocol.encoding import decode_entry, make_entry
    from zoo_p2p.protocol.evidence import decode_proof, make_proof

    v = _fork_vector()
    genesis, proof = bytes.fromhex(str(v["genesis"])), bytes.fromhex(str(v["proof"]))
    host = FakeHost(Session(genesis))
    specs = Spectators(host, 4)
    specs.on_msg(b"r", b"c", _watch(), 0.0, 3)
    tunnel = messages.Tunnel(m=msgpack.packb({"t": "proof", "p": proof}, use_bin_type=True))
    specs.on_msg(b"r", b"c", tunnel, 0.1, 3)
    assert host.proofs == [(proof, v["convicts_seat"])] and specs.owns(b"r")

    p = decode_proof(proof)
    alt = decode_entry(p.offending)
    forged = make_entry(
        Ed25519PrivateKey.generate(), alt.seq, alt.prev, alt.seat, alt.kind, alt.body
    )
    bad = make_proof([genesis, *p.chain[:-1]], forged)
    host2 = FakeHost(Session(genesis))
    specs2 = Spectators(host2, 4)
    specs2.on_msg(b"r", b"c", _watch(), 0.0, 3)
    tunnel = messages.Tunnel(m=msgpack.packb({"t": "proof", "p": bad}, use_bin_type=True))
    specs2.on_msg(b"r", b"c", tunnel, 0.1, 3)
    assert host2.proofs == [] and not specs2.owns(b"r") and specs2.kicked == 1
