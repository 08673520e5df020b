"""Hostile peers for the no-trusted-relay tests: real processes that cheat on the wire.

    python -m tests.net.evil host equivocate --players 3 --invite-file F --log L
    python -m tests.net.evil host withhold   --players 3 --invite-file F --log L
    python -m tests.net.evil host stall --players 3 --clocks 8 5 --invite-file F --log L
    python -m tests.net.evil join badreveal INVITE --log L
    python -m tests.net.evil join illegal INVITE --log L

- `equivocate`: the host signs two different moves for its first move's seq and sends one to
  every seat but the last, the other to the last seat (on every link it has to it).
- `withhold`: the host never sends the last seat its own first reveal written once every
  direct link has settled (on any link; it answers no request for it either). Settled means
  seen, not guessed from a clock: the last seat's heads say it hears the host and the other
  joiner, the other joiner's say it hears the last seat, and then `HOLD_BACK` more has passed,
  so the last seat had heard the host's publisher for longer than `HOLD_BACK` when the entry
  reaches it (what it takes to name an author who did not send its own entry).
- `hide`: the host admits spectators but sends them no card, and once its log holds
  `HIDE_AFTER` entries nothing at all (no entry, no ping): it hides the game from them.
- `stall`: as `hide`, but from `HIDE_AFTER` entries on it still sends them `ping` (and nothing
  else): it is never silent, it only never shows them another entry (TRANSPORT.md §12.6).
- `badreveal`: a joiner signs a reveal whose first link does not match its commitment and sends
  it to everyone, directly and through the host.
- `illegal`: a joiner signs an illegal move (a step from a square it does not hold) instead of
  its first move and sends it to everyone.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from zoo_p2p import storage
from zoo_p2p.cli import hosting, runners
from zoo_p2p.cli.botdriver import BotDriver
from zoo_p2p.errors import IllegalMoveError
from zoo_p2p.net import mesh as meshmod
from zoo_p2p.net import wire
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import Host, HostOptions, Joiner, JoinOptions
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.encoding import Kind, decode_entry, make_entry
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import encode_move
from zoo_p2p.rules import Step, Variant


def _entries_in(data: bytes) -> list[bytes]:
    """The log entries a transport or mesh message carries (none if it is something else)."""
    try:
        msg = wire.unpack(data)
    except wire.WireError:
        msg = None
    if msg is not None and msg["t"] == "mesh":
        data = msg["m"]
        msg = None
    if msg is None:
        try:
            msg = meshmod.unpack(data)
        except wire.WireError:
            return []
    if msg["t"] in ("entries", "ent"):
        return list(msg["e"])
    return []


HIDE_AFTER = 20  # `hide`: the entries a spectator gets before the host goes silent to it


class Evil:
    """What makes a host lie to its last seat (or hide the game from its spectators): mixed
    into the transport's `Host` here (`EvilHost`) and into the in-memory host core in
    tests/net/test_mesh_mem.py, so both run the same cheat. Its clock is the loop turn's
    (`now`: the monotonic clock's over sockets, the fake clock in memory)."""

    mode = "equivocate"

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.swap: dict[bytes, bytes] = {}
        self.withheld: bytes | None = None
        self.settled_at: float | None = None  # when we saw every direct link up (withhold)

    @property
    def victim(self) -> int:
        return self.options.players - 1

    def _lied_about(self, data: bytes) -> bool:
        """True if `data` carries an entry we lie about (choosing the withheld one on the way)."""
        for raw in _entries_in(data):
            if raw in self.swap:
                return True
            if self.mode == "withhold":
                e = decode_entry(raw)
                late = self._settled_for(meshmod.HOLD_BACK)
                if self.withheld is None and e.seat == 0 and e.kind == Kind.REVEAL and late:
                    self.withheld = raw
                if raw == self.withheld:
                    return True
        return False

    def _settled_for(self, seconds: float) -> bool:
        """Have the victim and the other joiner said, for `seconds` now, that they hear each
        other and the victim hears us? (From their own heads on our direct links.)"""
        now = self.now
        if self.settled_at is None:
            m = self.mesh
            if m is None or self.victim not in m.peers or 1 not in m.peers:
                return False
            victim, other = m.peers[self.victim].up, m.peers[1].up
            if len(victim) == len(other) == self.options.players and all(victim) and all(other):
                self.settled_at = now
            return False
        return now - self.settled_at > seconds

    def evil(self, seat: int | None, data: bytes) -> bytes:
        """What we really send to `seat` over the host link instead of `data` (b"": nothing)."""
        if seat != self.victim or not self._lied_about(data):
            return data
        for honest, forged in self.swap.items():
            data = data.replace(honest, forged)
        return b"" if self.mode == "withhold" else data

    def evil_publish(self, data: bytes) -> bytes:
        """Our publisher reaches every seat at once: what we lie about goes by the host link."""
        return b"" if self._lied_about(data) else data

    def _hides(self, rid: bytes, data: bytes) -> bool:
        """`hide`: what we keep from a spectator (its cards always; all once we hold enough);
        `stall`: the same but its pings."""
        if self.mode not in ("hide", "stall") or not self.spectators.owns(rid):
            return False
        s = self.session
        kind = wire.unpack(data)["t"]
        if kind == "ping" and self.mode == "stall":
            return False
        return kind == "mesh" or (s is not None and len(s) >= HIDE_AFTER)

    def _send(self, rid: bytes, data: bytes) -> bool:
        if self._hides(rid, data):
            return True
        conn = self.conns.get(rid)
        data = self.evil(conn.seat if conn is not None else None, data)
        if not data:
            return True
        return super()._send(rid, data)

    def _start_mesh(self) -> None:
        super()._start_mesh()
        if self.mesh is not None:
            self.mesh.outgoing = self.evil_publish  # type: ignore[method-assign]
            self.mesh.relay_needed = lambda seat, entries, now=None: True  # type: ignore[method-assign]

    def play(self, move: Any) -> None:
        s = self.session
        if self.mode == "equivocate" and not self.swap and s is not None and s.state is not None:
            seq, prev = len(s), hashlib.sha256(s.entries[-1]).digest()
            honest = make_entry(self.key, seq, prev, 0, Kind.MOVE, encode_move(move))
            for other in s.state.legal_moves():
                forged = make_entry(self.key, seq, prev, 0, Kind.MOVE, encode_move(other))
                if other != move and len(forged) == len(honest):
                    self.swap[honest] = forged
                    break
        super().play(move)


class EvilHost(Evil, Host):
    """The lying host over real sockets."""


class BadReveal:
    """What makes a joiner's first reveal after a capture a lie (mode `badreveal`), or its first
    move illegal (mode `illegal`): mixed into the transport's `Joiner` here (`BadRevealJoiner`)
    and into the in-memory joiner core in tests/net/test_mesh_mem.py."""

    mode = "badreveal"
    sent = False

    def _forge(self, kind: str, body: Any) -> None:
        s = self.session
        assert s is not None and s.seat is not None
        prev = hashlib.sha256(s.entries[-1]).digest()
        forged = make_entry(self.key, len(s), prev, s.seat, kind, body)
        if self.mesh is not None:
            self.mesh.push_own(len(s), [forged])
        self._send(wire.pack("entries", **{"from": len(s), "e": [forged]}))

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        s = self.session
        f = s.floor if s is not None else None
        want = Kind.REVEAL if self.mode == "badreveal" else Kind.MOVE
        if s is not None and f is not None and f.seat == s.seat and f.kind == want:
            if not self.sent:
                self.sent = True
                if want == Kind.REVEAL:
                    body = s._owed_body(Kind.REVEAL)
                    body[0][0][0] = (body[0][0][0] + 1) % 50
                    self._forge(Kind.REVEAL, body)
                else:
                    self._forge(Kind.MOVE, encode_move(self._illegal()))
            return  # and never the honest entry
        super()._advance(before, events)

    def _illegal(self) -> Step:
        s = self.session
        assert s is not None and s.state is not None
        for frm in range(25):
            for to in (frm + 1, frm + 5):
                if to < 25:
                    try:
                        s.state.clone().check(Step(frm, to))
                    except IllegalMoveError:
                        return Step(frm, to)
        raise AssertionError("no illegal step found")


class BadRevealJoiner(BadReveal, Joiner):
    """The cheating joiner over real sockets."""


def main(argv: list[str]) -> int:
    """Run one hostile peer until its game ends (or the test kills it)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["host", "join"])
    ap.add_argument("mode")
    ap.add_argument("invite", nargs="?")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--invite-file", type=Path)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--clocks", type=int, nargs=2, metavar=("MOVE_S", "REVEAL_S"))
    a = ap.parse_args(argv)
    key = runners.load_key(None, ephemeral=a.role == "join")
    driver = BotDriver("greedy", seed=1, delay=a.delay, console=None)
    if a.role == "host":
        EvilHost.mode = a.mode
        host = EvilHost(
            key=key,
            driver=driver,
            make_session=hosting.session_factory(key),
            open_log=runners.GameFiles(a.log, storage.NetSidecar(role="host")).open_new,
            make_genesis=hosting.genesis_factory(
                key, Variant.STANDARD, None, None if a.clocks is None else Clocks(*a.clocks)
            ),
            fingerprint=fingerprint,
            options=HostOptions(players=a.players, give_up=10.0),
        )
        tmp = a.invite_file.with_name(a.invite_file.name + ".tmp")
        tmp.write_text(str(host.invite) + "\n")
        tmp.replace(a.invite_file)
        out = host.run()
    else:
        BadRevealJoiner.mode = a.mode
        joiner = BadRevealJoiner(
            Invite.parse(a.invite),
            key=key,
            driver=driver,
            make_session=hosting.session_factory(key),
            open_log=runners.GameFiles(a.log, storage.NetSidecar(role="join")).open_new,
            fingerprint=fingerprint,
            options=JoinOptions(name="mallory", give_up=10.0),
        )
        out = joiner.run()
    print(out.reason)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
