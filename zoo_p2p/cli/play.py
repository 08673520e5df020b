"""``zoo play``: you against 1-3 bots, over loopback (`zoo_p2p.cli.netcmds`) or, with --local or
--hotseat, in this process (`zoo_p2p.cli.local`). Only the chosen one is imported."""

from __future__ import annotations

from pathlib import Path

from zoo_p2p.cli import screen
from zoo_p2p.errors import UsageError


def seat_counts(players: int | None, bots: int | None, hotseat: int) -> tuple[int, int]:
    """(humans, bots) at the table from --players, --bots and --hotseat, checked together."""
    humans = hotseat or 1
    if bots is None:
        bots = (players - humans) if players is not None else (0 if hotseat else 1)
    elif players is not None and players != humans + bots:
        raise UsageError(
            f"--players {players} but {humans} human(s) and --bots {bots} make {humans + bots}"
        )
    if not 2 <= humans + bots <= 4:
        raise UsageError(f"a game has 2 to 4 players, not {humans + bots}")
    return humans, bots


def play(
    *,
    players: int | None,
    bots: int | None,
    level: str,
    think: float | None,
    local: bool,
    hotseat: int,
    team: str | None,
    variant: str,
    seed: int | None,
    log: Path | None,
    name: str,
    plain: bool,
) -> None:
    """Play against 1-3 bots (each a real peer over loopback); --local for a network-free game."""
    _, bots = seat_counts(players, bots, hotseat)
    if local or hotseat:
        from zoo_p2p.cli.local import play_local  # lazy: the network stack is not needed

        play_local(
            bots=bots,
            level=level,
            hotseat=hotseat,
            team=team,
            variant=variant,
            seed=seed,
            think=think,
            plain=screen.use_plain(plain),
        )
        return
    from zoo_p2p.cli import netcmds  # lazy: --local needs none of the network stack

    netcmds.play_command(
        bots=bots,
        level=level,
        think=think,
        team=team,
        variant=variant,
        log=log,
        name=name,
        plain=plain,
    )
