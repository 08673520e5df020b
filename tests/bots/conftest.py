"""Shared helpers for the bot tests: positions built move by move on a public state."""

from __future__ import annotations

from zoo_p2p.rules import State, Team, Variant, parse_move


def position(
    tops: list[int],
    moves: list[str],
    *,
    bottoms: dict[str, int] | None = None,
    variant: Variant = Variant.STANDARD,
    seats: int = 2,
) -> State:
    """A public state after ``moves``; reveals say 'no mutant' and the lowest value still unseen."""
    from zoo_p2p.rules import parse_square

    bottoms_sq = {parse_square(k): v for k, v in (bottoms or {}).items()}
    state = State.new([Team(i) for i in range(seats)], tops, variant=variant)
    for text in moves:
        state.apply(parse_move(text))
        n = state.needs
        if n is not None:
            state.reveal(
                bottom=bottoms_sq.get(n.square, _lowest_left(state)) if n.bottom else None,
                mutant=False if n.mutant_value is not None else None,
            )
    return state


def tops_from(rows: list[str]) -> list[int]:
    """25 top values from five strings of five digits (row 1 first)."""
    vals = [int(ch) for row in rows for ch in row]
    assert len(vals) == 25
    return vals


def low_board(**overrides: int) -> list[int]:
    """Tops of 0, 1 and 2 spread evenly (at most nine of each), with named squares overridden."""
    from zoo_p2p.rules import parse_square

    tops = [q % 3 for q in range(25)]
    for name, value in overrides.items():
        tops[parse_square(name)] = value
    return tops


def _lowest_left(state: State) -> int:
    return next(v for v in range(5) if state.seen_count(v) < 10)
