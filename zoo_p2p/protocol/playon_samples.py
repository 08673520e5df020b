"""Deterministic play-on sample games (PROTOCOL.md §10.7): a seat stops answering, the others
claim, re-deal what nobody has seen and finish the game.

Pure, like `liveness_samples.py`: `protocol/generate.py` writes `replays/*play-on*` and the
play-on part of `protocol/vectors/redeal.json` from these; the tests forge from them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from typing import Any

from zoo_p2p.protocol.bodies import ON_LEAVE_PLAY_ON
from zoo_p2p.protocol.encoding import Kind, decode_entry
from zoo_p2p.protocol.events import Floor
from zoo_p2p.protocol.liveness_samples import SAMPLE_CLOCKS
from zoo_p2p.protocol.session import Session
from zoo_p2p.protocol.simulate import LocalGame, random_mover, setup_game
from zoo_p2p.rules import Variant


def play_on_game(
    n: int, label: str, *, variant: Variant = Variant.STANDARD
) -> tuple[LocalGame, random.Random]:
    """A seeded local game of `n` seats whose genesis has the sample clocks and `play-on`."""
    rng = random.Random(f"zoo-p2p play-on sample {label}")
    game = setup_game(n, variant, rng)
    seats = game.sessions[0].seats
    genesis = Session.create_genesis(
        game.keys[0],
        seats,
        variant,
        None,
        rng.randbytes(32),
        SAMPLE_CLOCKS,
        on_leave=ON_LEAVE_PLAY_ON,
    )
    game.sessions = [
        Session(genesis, key=game.keys[i], seed=game.seeds[i], nonce=game.nonces[i])
        for i in range(n)
    ]
    return game, rng


def send(game: LocalGame, sender: int, raws: list[bytes], to: Collection[int]) -> None:
    """Deliver entries to the seats in `to` (but the sender), in order."""
    for raw in raws:
        for i in to:
            if i != sender:
                game.events[i].extend(game.sessions[i].receive(raw))


def speak(game: LocalGame, rng: random.Random, seats: Collection[int]) -> bool:
    """Let the floor holder speak once, as seen by the first of `seats` (the seats still running);
    a stand-in's entry is computed and sent by that seat. False when nothing more comes."""
    first = min(seats)
    s = game.sessions[first]
    f = s.floor
    if f is None:
        return False
    if f.seat not in seats or s.stand_in_entry() is not None:
        out = s.take_outgoing()
        sender = first
        if not out:
            return False
    elif f.kind == Kind.MOVE:
        mover = game.sessions[f.seat]
        assert mover.state is not None
        out = [mover.move(random_mover(mover.state.public(), rng))]
        sender = f.seat
    else:
        sender = f.seat
        out = game.sessions[f.seat].take_outgoing()
        if not out:
            return False
    send(game, sender, out, seats)
    return True


def run_until(
    game: LocalGame, rng: random.Random, seats: Collection[int], stop: Callable[[Floor], bool]
) -> None:
    """Speak until `stop(floor)` holds (as the first running seat sees it) or the log ends."""
    while True:
        f = game.sessions[min(seats)].floor
        if f is None or stop(f):
            return
        if not speak(game, rng, seats):
            return


def claim(game: LocalGame, voters: list[int]) -> bytes:
    """The voters vote against the floor holder, and the first appends the claim and whatever
    it owes next; everything goes to the other voters. Returns the claim entry."""
    votes = [game.sessions[v].vote_claim() for v in voters]
    for v in voters:
        for vote in votes:
            game.sessions[v].add_vote(vote)
    out = game.sessions[voters[0]].take_outgoing()
    assert out and decode_entry(out[0]).kind == Kind.CLAIM, out
    send(game, voters[0], out, voters)
    return out[0]


def dropout_game(
    n: int, drop: int, kind: str, after_moves: int, label: str
) -> tuple[LocalGame, bytes, list[int]]:
    """Seat `drop` stops answering at its first `kind` floor after `after_moves` moves; the
    others claim against it, re-deal and play the game to its end. Returns the game, the claim
    and the seats that went on (their logs are identical)."""
    game, rng = play_on_game(n, label)
    everyone = list(range(n))
    moves = [0]

    def stop(f: Floor) -> bool:
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return f.seat == drop and f.kind == kind and moves[0] > after_moves

    run_until(game, rng, everyone, stop)
    rest = [i for i in everyone if i != drop]
    c = claim(game, rest)
    run_until(game, rng, rest, lambda f: False)
    return game, c, rest


def describe_log(log: list[bytes]) -> list[Any]:
    """The kinds and authors of a log, for the tests' messages."""
    return [(decode_entry(r).seat, decode_entry(r).kind) for r in log]


def host_dropout_game() -> tuple[LocalGame, bytes, list[int]]:
    """4 seats: the host (seat 1) stops answering at a move floor; seats 2–4 play on."""
    return dropout_game(4, 0, Kind.MOVE, 10, "host")


def joiner_dropout_game() -> tuple[LocalGame, bytes, list[int]]:
    """4 seats: seat 3 stops answering in a reveal chain; seats 1, 2 and 4 play on (the
    interrupted round is asked again of the re-deal)."""
    return dropout_game(4, 2, Kind.REVEAL, 12, "joiner")


def twice_game() -> tuple[LocalGame, list[bytes], list[int]]:
    """3 seats: seat 3 stops answering at a move floor (seats 1 and 2 re-deal and play on),
    then seat 2 stops answering too: that claim ends the game (one live seat would be left).
    Returns the game, both claims and the seat that saw the end."""
    game, rng = play_on_game(3, "twice")
    moves = [0]

    def stop(f: Floor) -> bool:
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return f.seat == 2 and f.kind == Kind.MOVE and moves[0] > 6

    run_until(game, rng, [0, 1, 2], stop)
    first = claim(game, [0, 1])
    moves[0] = 0

    def stop2(f: Floor) -> bool:
        if f.kind == Kind.MOVE:
            moves[0] += 1
        return f.seat == 1 and f.kind == Kind.REVEAL and moves[0] > 4

    run_until(game, rng, [0, 1], stop2)
    second = claim(game, [0])
    return game, [first, second], [0]


def play_on_logs() -> dict[str, list[bytes]]:
    """The sample logs of games played on after a dropout (`replays/`)."""
    host, _, rest = host_dropout_game()
    joiner, _, jrest = joiner_dropout_game()
    twice, _, trest = twice_game()
    return {
        "4p-standard-play-on-host.zoolog": host.sessions[rest[0]].entries,
        "4p-standard-play-on.zoolog": joiner.sessions[jrest[0]].entries,
        "3p-standard-play-on-twice.zoolog": twice.sessions[trest[0]].entries,
    }
