"""``zoo play --local``: you against bots (or hot-seat) in one process, no network, no log."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from zoo_p2p.bots import make_bot
from zoo_p2p.bots.analysis import hint_refusal
from zoo_p2p.cli import exits
from zoo_p2p.cli.plain import (
    HELP,
    QUIT_CONFIRM,
    QUIT_WORDS,
    expert_hint,
    prompt_text,
    read_line,
)
from zoo_p2p.cli.render import (
    describe_move,
    hint_text,
    render_board,
    render_scores,
    seat_label,
)
from zoo_p2p.errors import NotationError, UsageError
from zoo_p2p.rules import KnownDeal, Move, State, Team, Variant

Chooser = Callable[[State], Move]


def parse_variant(text: str) -> Variant:
    """'standard' or 'general' (also 'g', 's')."""
    t = text.strip().lower()
    for v in Variant:
        if v.value == t or v.value[0] == t:
            return v
    raise UsageError(f"unknown variant {text!r}: use standard or general")


def assign_teams(n: int, mine: str | None) -> list[Team]:
    """Teams for n seats, seat 0 getting ``mine`` if given."""
    teams = list(Team)
    if mine is not None:
        try:
            first = Team.parse(mine)
        except NotationError as e:
            raise UsageError(str(e)) from None
        teams.remove(first)
        teams.insert(0, first)
    return teams[:n]


def human_chooser(
    console: Console,
    prompt: Callable[[Text], str] | None = None,
    names: list[str] | None = None,
    me: int | None = None,
    people: int = 1,
) -> Chooser:
    """A move source that asks the terminal with the line mode's prompt and commands (`?`,
    `x`, `b`, `q` with a confirmation), explaining every rejection. With several humans at one
    terminal (`me` None; `people` of them: no expert hints) the prompt names the seat to move."""
    ask = prompt or (lambda label: console.input(label))

    def choose(state: State) -> Move:
        who = None if me is not None or names is None else names[state.to_move]
        label = prompt_text(
            None if who is None else f"{who} ({state.teams[state.to_move].label})",
            hints=hint_refusal(networked=False, people=people) is None,
        )
        while True:
            try:
                text = ask(label)
            except EOFError:
                console.print()
                console.print("You left the game (end of input).")
                exits.end(1)
            cmd = read_line(text, state)
            if cmd.kind == "quit":
                try:
                    answer = ask(Text(QUIT_CONFIRM, style="bold"))
                except EOFError:
                    answer = "y"
                if answer.strip().lower() in ("y", "yes", *QUIT_WORDS):
                    console.print("You left the game.")
                    exits.end(1)
                console.print("staying in the game")
            elif cmd.kind == "hint":
                console.print(hint_text(state))
            elif cmd.kind == "expert":  # the game waits for this person anyway: no clock, no bot
                expert_hint(state, networked=False, people=people, say=console.print)
            elif cmd.kind == "board":
                console.print(render_board(state, names, me=me, legend=True))
            elif cmd.kind == "error":
                console.print(Text(cmd.error, style="red"))
            elif cmd.move is not None:
                return cmd.move

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
    """Play one local game in the terminal: the full-screen app unless `plain` (or not a
    terminal), else the line mode; print the final breakdown."""
    var = parse_variant(variant)
    humans = hotseat or 1
    n = humans + bots
    if not 2 <= n <= 4:
        raise UsageError("a game has 2 to 4 players")
    teams = assign_teams(n, team)
    if not plain:
        from zoo_p2p.tui.run import local_table, run_table

        table = local_table(
            teams=teams, humans=humans, bots=bots, level=level, variant=var, seed=seed, think=think
        )
        code = run_table(table)
        if code:
            exits.end(code)
        return None
    console = console or Console(highlight=False)
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    names = ["you"] if not hotseat else [f"player {i + 1}" for i in range(humans)]
    me = None if hotseat else 0
    choosers: list[Chooser] = [
        human_chooser(console, names=names, me=me, people=humans) for _ in range(humans)
    ]
    for i in range(n - humans):
        bot = make_bot(level, seed=rng.randrange(2**32), think=think)
        choosers.append(bot.choose)
        names.append(f"{level} bot {i + 1}")
    deal = KnownDeal.random(rng, var)
    first = rng.randrange(n)
    state = deal.new_state(teams, first_seat=first)
    console.print(
        Text.assemble(
            ("Apocalypse at the Zoo of Carson City", "bold"),
            f" — {var.value} game, {n} players; first: ",
            seat_label(state, first, names),
        )
    )
    console.print(HELP)

    def on_move(before: State, after: State, move: Move) -> None:
        for line in describe_move(before, after, move, names, me=me):
            console.print(line)
        if not after.is_terminal() and (hotseat or after.to_move == 0):
            console.print(render_board(after, names, me=me, last=move))

    console.print(render_board(state, names, me=me, legend=True))
    run_game(state, choosers, on_move)
    console.print(render_board(state, names, me=me))
    console.print(
        Text.assemble("Game over: ", seat_label(state, state.to_move, names), " cannot act.")
    )
    console.print(render_scores(state, names))
    return state
