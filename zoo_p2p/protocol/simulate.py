"""N seats in one process: a deterministic local game harness for tests, samples and benchmarks.

Keys, seeds and nonces come from the injected `random.Random`, so a game is reproducible from its
seed. That is fine for tests and sample logs, and NOT for real play (real peers use os.urandom).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.protocol.crypto import private_key_from_bytes, public_key_bytes
from zoo_p2p.protocol.encoding import Kind
from zoo_p2p.protocol.events import Event, SeatInfo
from zoo_p2p.protocol.session import Session
from zoo_p2p.rules import Move, State, Team, Variant

MoveChooser = Callable[[State, random.Random], Move]

DEFAULT_NAMES = ("Ada", "Brice", "Chiara", "Dmitri")


def random_mover(state: State, rng: random.Random) -> Move:
    """A bot that plays a uniformly random legal move (seeded)."""
    return rng.choice(state.legal_moves())


@dataclass
class LocalGame:
    """Every seat's session plus the key material, and every event each seat saw."""

    keys: list[Ed25519PrivateKey]
    seeds: list[bytes]
    nonces: list[bytes]
    sessions: list[Session]
    events: list[list[Event]] = field(default_factory=list)

    @property
    def entries(self) -> list[bytes]:
        """Seat 0's log."""
        return self.sessions[0].entries


def setup_game(
    n_seats: int,
    variant: Variant,
    rng: random.Random,
    *,
    teams: Sequence[Team] | None = None,
    first_player: int | None = None,
) -> LocalGame:
    """Create keys, seeds, the genesis and one Session per seat (nothing exchanged yet)."""
    keys = [private_key_from_bytes(rng.randbytes(32)) for _ in range(n_seats)]
    seeds = [rng.randbytes(32) for _ in range(n_seats)]
    nonces = [rng.randbytes(32) for _ in range(n_seats)]
    if teams is None:
        teams = sorted(rng.sample(list(Team), n_seats))
    seats = [
        SeatInfo(DEFAULT_NAMES[i], public_key_bytes(keys[i]), teams[i]) for i in range(n_seats)
    ]
    genesis = Session.create_genesis(keys[0], seats, variant, first_player, rng.randbytes(32))
    sessions = [
        Session(genesis, key=keys[i], seed=seeds[i], nonce=nonces[i]) for i in range(n_seats)
    ]
    return LocalGame(keys, seeds, nonces, sessions, [[] for _ in range(n_seats)])


def broadcast(game: LocalGame, sender: int, raw: bytes) -> None:
    """Deliver one entry to every other seat, recording their events."""
    for i, s in enumerate(game.sessions):
        if i != sender:
            game.events[i].extend(s.receive(raw))


def step(game: LocalGame, rng: random.Random, chooser: MoveChooser = random_mover) -> bool:
    """Let the seat holding the floor speak once (and broadcast); False when the game is done."""
    floor = game.sessions[0].floor
    if floor is None:
        return False
    s = game.sessions[floor.seat]
    if floor.kind == Kind.MOVE:
        assert s.state is not None
        out = [s.move(chooser(s.state.public(), rng))]
    else:
        out = s.take_outgoing()
    for raw in out:
        broadcast(game, floor.seat, raw)
    return True


def play_game(
    n_seats: int,
    variant: Variant,
    rng: random.Random,
    *,
    chooser: MoveChooser = random_mover,
    first_player: int | None = None,
    teams: Sequence[Team] | None = None,
) -> LocalGame:
    """Play a complete game among `n_seats` local sessions; every seat ends with the same log."""
    game = setup_game(n_seats, variant, rng, teams=teams, first_player=first_player)
    while step(game, rng, chooser):
        pass
    return game
