"""``zoo play --local``: you against bots (or hot-seat) in one process, no network, no log."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable

import typer
from rich.console import Console

from zoo_p2p.cli.render import (
    describe_move,
    legal_summary,
    render_board,
    render_scores,
    seat_label,
)
from zoo_p2p.errors import IllegalMoveError, NotationError
from zoo_p2p.rules import EXAMPLES, KnownDeal, Move, State, Team, Variant, parse_move

Chooser = Callable[[State], Move]

HELP = f"Type a move, {EXAMPLES}. '?' lists your legal moves, 'q' quits."


def parse_variant(text: str) -> Variant:
    """'standard' or 'general' (also 'g', 's')."""
    t = text.strip().lower()
    for v in Variant:
        if v.value == t or v.value[0] == t:
            return v
    raise typer.BadParameter(f"unknown variant {text!r}: use standard or general")


def assign_teams(n: int, mine: str | None) -> list[Team]:
    """Teams for n seats, seat 0 getting ``mine`` if given."""
    teams = list(Team)
    if mine is not None:
        try:
            first = Team.parse(mine)
        except NotationError as e:
            raise typer.BadParameter(str(e)) from None
        teams.remove(first)
        teams.insert(0, first)
    return teams[:n]


def human_chooser(console: Console, prompt: Callable[[str], str] | None = None) -> Chooser:
    """A move source that asks the terminal, explaining every rejection."""
    ask = prompt or (lambda label: console.input(label))

    def choose(state: State) -> Move:
        team = state.teams[state.to_move]
        label = f"[bold {team.colour}]{team.label}[/] move> "
        while True:
            try:
                text = ask(label).strip()
            except EOFError:
                raise typer.Exit(1) from None
            if text.lower() in ("q", "quit", "exit"):
                console.print("You left the game.")
                raise typer.Exit(1)
            if text in ("?", "h", "help"):
                console.print(HELP)
                console.print("legal: " + legal_summary(state))
                continue
            try:
                move = parse_move(text)
                state.check(move)
                return move
            except (NotationError, IllegalMoveError) as e:
                console.print(f"[red]{e}[/red]")

    return choose


def run_game(
    state: State,
    choosers: list[Chooser],
    on_move: Callable[[State, State, Move], None] | None = None,
) -> State:
    """Drive a game with hidden facts answered by the state's oracle; return the final state."""
    while not state.is_terminal():
        move = choosers[state.to_move](state.public())
        before = state.clone()
        state.apply(move)
        if on_move is not None:
            on_move(before, state, move)
    return state


def play_local(
    *,
    bots: int,
    level: str,
    hotseat: int,
    team: str | None,
    variant: str,
    seed: int | None,
    think: float | None = None,
    plain: bool = True,
    console: Console | None = None,
) -> State | None:
    """Play one local game in the terminal (the full-screen app unless `plain`)."""
    from zoo_p2p.bots import make_bot

    console = console or Console()
    var = parse_variant(variant)
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    humans = hotseat or 1
    n = hotseat if hotseat else 1 + bots
    if not 2 <= n <= 4:
        raise typer.BadParameter("a game has 2 to 4 players")
    teams = assign_teams(n, team)
    names = ["you"] if not hotseat else [f"player {i + 1}" for i in range(n)]
    choosers: list[Chooser] = [human_chooser(console) for _ in range(humans)]
    for i in range(n - humans):
        bot = make_bot(level, seed=rng.randrange(2**32), think=think)
        choosers.append(bot.choose)
        names.append(f"{level} bot {i + 1}")
    deal = KnownDeal.random(rng, var)
    first = rng.randrange(n)
    state = deal.new_state(teams, first_seat=first)
    console.print(
        f"[bold]Apocalypse at the Zoo of Carson City[/bold] — {var.value} game, "
        f"{n} players; first: ",
        seat_label(state, first, names),
    )
    console.print(HELP)
    me = None if hotseat else 0

    def on_move(before: State, after: State, move: Move) -> None:
        for line in describe_move(before, after, move, names):
            console.print(line)
        if not after.is_terminal() and (hotseat or after.to_move == 0):
            console.print(render_board(after, names, me=me, last=move))

    console.print(render_board(state, names, me=me))
    run_game(state, choosers, on_move)
    console.print(render_board(state, names, me=me))
    console.print("Game over: ", seat_label(state, state.to_move, names), " cannot act.")
    console.print(render_scores(state, names))
    return state
