"""Peers for the clock tests (PROTOCOL.md §10): a host with small clocks, honest bots and stallers.

    python -m tests.net.staller host --players 3 --move-time 3 --reveal-time 2 \
        --invite-file F --log L
    python -m tests.net.staller join MODE INVITE --log L

MODE: `bot` (honest), `move` (never moves), `reveal` (never sends its reveal links: as the last
seat it is the last link of every chain), `comeback` (like `reveal`, but answers as soon as it
sees a claim vote against it: its answer comes after the claim), `resign` (resigns after its
third move; with 3+ seats a stand-in plays on, its entries computed by every peer),
`nocommit` (never sends its first commit: it never takes its seat), `resign-off-turn` (after
its second move, resigns as soon as seat 2 holds a move floor: seat 2 appends the `resign`
entry), `wait-resign` (from its third move on, waits until a
resignation is in the log).
`host --genesis-hints`: a host whose welcome says nothing of hints but whose genesis allows them.
`host --on-leave play-on`: the genesis' table rule (PROTOCOL.md §10.7; default `end` here).
`host --drop votes`
(or `resign`, or `votes,resign`): a host that drops every claim vote (every resignation
statement) it receives, from its joiners or from its direct links, and so never relays one
(TRANSPORT.md §10.3: they must reach the others over the mesh anyway).
`host --no-stand-in`: a host that never appends a stand-in's entry itself (what the host alone
did when it ran the stand-in), nor the `resign` entry of a resigner holding the floor (which it
appended as the lowest-numbered other seat); it still checks those that others append
(PROTOCOL.md §10.4).

Every process prints, at the end, how many stand-in entries it appended itself
(`stand-in entries appended: N`).

Every process prints its outcome's reason and every notice on stdout, one per line, and at the
end its direct links (`card: EP…` ours, `link: SEAT EP` the endpoint we heard each seat at).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.bots import make_bot
from zoo_p2p.driver import BaseDriver, Outcome
from zoo_p2p.net.invite import Invite
from zoo_p2p.net.peer import Host, HostOptions, Joiner, JoinOptions, LobbySeat
from zoo_p2p.protocol.crypto import fingerprint
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.events import SeatInfo
from zoo_p2p.protocol.liveness import Clocks
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Team, Variant
from zoo_p2p.storage import LogWriter


class CountingSession(Session):
    """Counts the stand-in entries this peer appends itself; with `lazy`, appends none (it
    leaves them to the other peers, and still checks those it receives)."""

    lazy = False
    appended = 0
    _outgoing = False

    def take_outgoing(self) -> list[bytes]:
        f = self.floor
        pending = self._standing._statements  # statements not yet in the log
        if self.lazy and f is not None and f.seat in pending and len(self.seats) > 2:
            return []  # the resigner holds the floor: its stand-in's `resign` entry, left too
        self._outgoing = True
        try:
            out = super().take_outgoing()
        finally:
            self._outgoing = False
        self.appended += sum(1 for raw in out if decode_entry(raw).seat in self.resigned)
        return out

    def stand_in_entry(self) -> bytes | None:
        if self.lazy and self._outgoing:
            return None
        return super().stand_in_entry()


class Driver(BaseDriver):
    """Plays with the greedy bot unless told to stall; prints notices."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.bot = make_bot("greedy", seed=1)
        self.moves = 0
        self.log_dir = Path(".")

    def fds(self) -> list[int]:
        return []

    def on_fd(self, fd: int, link: Any) -> bool:
        return False

    def on_lobby(self, seats: Any, need: int) -> None:
        print(f"lobby {len(seats)}", flush=True)

    def on_started(self, link: Any) -> None:
        pass

    def on_events(self, events: list[Any], link: Any) -> None:
        s = link.session
        f = s.floor if s is not None else None
        if (
            self.mode == "resign-off-turn"
            and self.moves >= 2
            and not getattr(link, "stopped_after_resign", False)
            and f is not None
            and (f.seat, f.kind) == (1, Kind.MOVE)
            and s.state is not None
        ):
            link.resign()
            print("resigned", flush=True)
            link.stopped_after_resign = True

    def on_presence(self, up: list[bool], link: Any) -> None:
        pass

    def on_notice(self, text: str) -> None:
        print(f"notice: {text}", flush=True)

    def on_turn(self, link: Any) -> None:
        if self.mode == "move":
            print("stalling at a move", flush=True)
            return
        s = link.session
        if self.mode == "wait-resign" and self.moves >= 2 and not s.resigned:
            print("waiting for a resignation", flush=True)
            return
        if self.mode == "resign" and self.moves == 3:
            link.resign()
            print("resigned", flush=True)
            link.stopped_after_resign = True
            return
        self.moves += 1
        link.play(self.bot.choose(s.state))


class Stalling:
    """What makes a joiner withhold its reveal links (and answer late in `comeback` mode):
    mixed into the transport's `Joiner` here (`StallingJoiner`) and into the in-memory joiner
    core in tests/net/test_clocks_mem.py, so both run the same staller."""

    mode = "bot"
    released = False

    def _advance(self, before: int, events: list[Any] | None = None) -> None:
        s = self.session
        f = s.floor if s is not None else None
        if (
            self.mode == "nocommit"
            and s is not None
            and f is not None
            and (f.seat, f.kind) == (s.seat, Kind.COMMIT)
        ):
            if not getattr(self, "_said", False):
                self._said = True
                print("withholding our commit", flush=True)
            return
        if (
            self.mode in ("reveal", "comeback")
            and not self.released
            and s is not None
            and f is not None
            and f.seat == s.seat
            and f.kind == Kind.REVEAL
        ):
            if not getattr(self, "_said", False):
                self._said = True
                print("stalling at a reveal", flush=True)
            if len(s) > before:
                self.driver.on_events(events or [], self)
            return
        super()._advance(before, events)

    def _on_vote(self, seat: int | None, data: bytes) -> None:
        if self.mode == "comeback" and not self.released:
            self.released = True
            print("answering late", flush=True)
            s = self.session
            assert s is not None
            super()._advance(len(s))  # our withheld reveal goes out now, after their vote
        super()._on_vote(seat, data)

    def tick(self, now: float) -> None:
        super().tick(now)
        if getattr(self, "stopped_after_resign", False) and self.stopped is None:
            self.stopped = Outcome(False, "we resigned", self._have())


class StallingJoiner(Stalling, Joiner):
    """The staller's joiner over real sockets."""


class Dropping:
    """What makes a host silence claim votes and/or resignations (what it drops: `drops`):
    mixed into the transport's `Host` here (`DroppingHost`) and into the in-memory host core
    in tests/net/test_clocks_mem.py."""

    drops: frozenset[str] = frozenset()

    def _on_vote(self, seat: int | None, data: bytes) -> None:
        if "votes" in self.drops:
            if not getattr(self, "_said_votes", False):
                self._said_votes = True
                print("dropping claim votes", flush=True)
            return
        super()._on_vote(seat, data)

    def _on_resign(
        self, seat: int | None, data: bytes, key: bytes = b"", by: int | None = None
    ) -> None:
        if "resign" in self.drops:
            print("dropped a resignation", flush=True)
            return
        super()._on_resign(seat, data, key, by)


class DroppingHost(Dropping, Host):
    """The dropping host over real sockets."""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["host", "join"])
    ap.add_argument("mode", nargs="?", default="bot")
    ap.add_argument("invite", nargs="?")
    ap.add_argument("--host-mode", default="bot")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--move-time", type=int, default=3)
    ap.add_argument("--reveal-time", type=int, default=2)
    ap.add_argument("--invite-file", type=Path)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--key", default="")
    # a host whose welcome and lobby say nothing of hints but whose genesis allows them
    ap.add_argument("--genesis-hints", action="store_true")
    ap.add_argument("--drop", default="", help="host: votes, resign or votes,resign")
    ap.add_argument("--no-stand-in", action="store_true", help="host: append no stand-in entry")
    ap.add_argument("--on-leave", default="end", help="host: the table rule (PROTOCOL.md §10.7)")
    a = ap.parse_args(argv)
    if os.environ.get("STALLER_DEBUG"):
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(relativeCreated)d %(message)s")
    key = (
        Ed25519PrivateKey.from_private_bytes(bytes.fromhex(a.key))
        if a.key
        else Ed25519PrivateKey.generate()
    )
    driver = Driver(a.host_mode if a.role == "host" else a.mode)
    driver.log_dir = a.log.parent

    sessions: list[CountingSession] = []

    def make_session(genesis: bytes) -> Session:
        session = CountingSession(genesis, key=key, seed=os.urandom(32), nonce=os.urandom(32))
        session.lazy = a.role == "host" and a.no_stand_in
        sessions.append(session)
        return session

    def open_log(session: Session) -> LogWriter:
        return LogWriter(a.log)

    if a.role == "host":
        clocks = Clocks(a.move_time, a.reveal_time)

        def make_genesis(lobby: list[LobbySeat]) -> bytes:
            seats = [SeatInfo(s.name, s.pub, Team(s.team)) for s in lobby]
            return Session.create_genesis(
                key,
                seats,
                Variant.STANDARD,
                0,
                os.urandom(32),
                clocks,
                hints=a.genesis_hints,
                on_leave=a.on_leave,
            )

        DroppingHost.drops = frozenset(x for x in a.drop.split(",") if x)
        host = DroppingHost(
            key=key,
            driver=driver,
            make_session=make_session,
            open_log=open_log,
            make_genesis=make_genesis,
            fingerprint=fingerprint,
            options=HostOptions(players=a.players, give_up=30.0, name="host"),
        )
        tmp = a.invite_file.with_name(a.invite_file.name + ".tmp")
        tmp.write_text(str(host.invite) + "\n")
        tmp.replace(a.invite_file)
        out = host.run()
    else:
        StallingJoiner.mode = a.mode
        joiner = StallingJoiner(
            Invite.parse(a.invite),
            key=key,
            driver=driver,
            make_session=make_session,
            open_log=open_log,
            fingerprint=fingerprint,
            options=JoinOptions(name=a.mode, give_up=30.0),
        )
        out = joiner.run()
    peer = host if a.role == "host" else joiner
    if peer.mesh is not None and peer.mesh.card is not None:
        print(f"card: {' '.join(peer.mesh.card.endpoints)}", flush=True)
        for seat, via in peer.mesh.links().items():
            print(f"link: {seat} {via}", flush=True)
    print(f"stand-in entries appended: {sum(x.appended for x in sessions)}", flush=True)
    print(f"outcome: {out.reason}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
