"""Build exact deals for rule tests."""

from __future__ import annotations

from zoo_p2p.rules import KnownDeal, State, Team, Variant, parse_square


def deal_with(
    top: dict[str, int] | None = None,
    bottom: dict[str, int] | None = None,
    mutants: tuple[str, ...] = (),
    variant: Variant = Variant.STANDARD,
    default: int = 4,
) -> KnownDeal:
    """A deal with given top/bottom values per square name; ``mutants`` names slots 'C3' (top) or
    'C3_' (bottom) whose card hides the mutant. Unnamed slots get ``default``-valued cards where
    possible; the mutant copy of a value with no named mutant slot goes to the last free slots."""
    top = top or {}
    bottom = bottom or {}
    pool = {v: list(range(10 * v + 1, 10 * v + 10)) for v in range(5)}  # copy 0 reserved
    slots: list[int | None] = [None] * 50
    mutant_slots = {}
    for name in mutants:
        sq = parse_square(name.rstrip("_"))
        mutant_slots[sq + 25 if name.endswith("_") else sq] = True
    named = {parse_square(k): v for k, v in top.items()}
    named.update({parse_square(k) + 25: v for k, v in bottom.items()})
    used_mutant = set()
    for slot, v in named.items():
        if slot in mutant_slots:
            assert v < 4 and v not in used_mutant, "one mutant per value 0..3"
            slots[slot] = 10 * v
            used_mutant.add(v)
        else:
            slots[slot] = pool[v].pop()
    rest = [t for v in range(5) for t in pool[v]] + [
        10 * v for v in range(5) if v not in used_mutant
    ]
    # prefer the default value first, mutant copies last
    rest.sort(key=lambda t: (t % 10 == 0 and t < 40, t // 10 != default, t))
    free = [s for s in range(50) if slots[s] is None]
    for s, t in zip(free, rest, strict=True):
        slots[s] = t
    copies = () if variant is Variant.GENERAL else (0, 0, 0, 0)
    return KnownDeal.from_tokens([t for t in slots if t is not None], copies, variant)


def game(deal: KnownDeal, n: int = 2, first: int = 0) -> State:
    """A game on ``deal`` with teams Yellow, Blue, Green, Red for the first n seats."""
    return deal.new_state([Team.YELLOW, Team.BLUE, Team.GREEN, Team.RED][:n], first_seat=first)


def play(state: State, *moves: str) -> State:
    """Apply moves given in notation (checked)."""
    from zoo_p2p.rules import parse_move

    for m in moves:
        state.apply(parse_move(m))
    return state
