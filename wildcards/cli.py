"""``python -m wildcards``: simulate random games and measure the engine's speed.

Commands are registered in ``COMMANDS`` (name -> (add its arguments, run it)),
so the bots' ``tournament`` can be added beside them.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from tabletop.play import random_play

from .bots import tournament as bot_tournament
from .engine import advance, advance_silently, legal_actions, new_game, new_game_silently
from .state import SINGLE_ROUND, TARGET, Options
from .views import view

HOUSE_RULES: Final = ("stacking", "seven_zero", "jump_in", "draw_until_playable")


def _options(args: argparse.Namespace) -> Options:
    return Options(
        seats=args.players,
        scoring=SINGLE_ROUND if args.target is None else TARGET,
        target=args.target or 500,
        **{rule: bool(getattr(args, rule)) for rule in HOUSE_RULES},
    )


def simulate(games: int, options: Options, seed: str) -> dict[str, Any]:
    """Play ``games`` games of uniformly random legal actions (jump-ins
    included: before each turn, a seat that may jump in does so with
    probability one half) and count what happened."""
    rounds = actions = blocked = reshuffles = jump_ins = 0
    started = time.perf_counter()
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")  # noqa: S311 (random play, not a secret)
        state, events = new_game(options, f"{seed}:{index}")
        while True:
            for event in events:
                kind = event["type"]
                if kind == "round_end":
                    rounds += 1
                    blocked += event["result"]["blocked"]
                elif kind == "shuffle" and event["reason"] == "reshuffle":
                    reshuffles += 1
                elif kind == "play" and event.get("jump_in"):
                    jump_ins += 1
            if state.over:
                break
            seat = state.current
            if options.jump_in and rng.random() < 0.5:  # noqa: PLR2004
                for other in range(state.seats):
                    jumps = legal_actions(state, other) if other != seat else []
                    if jumps:
                        seat = other
                        break
            events = advance(state, seat, rng.choice(legal_actions(state, seat)))
            actions += 1
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "players": options.seats,
        "options": options.to_dict(),
        "rounds": rounds,
        "actions": actions,
        "jump_ins": jump_ins,
        "blocked_rounds": blocked,
        "reshuffles": reshuffles,
        "mean_actions_per_game": actions / games if games else 0.0,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1) if elapsed else 0.0,
    }


def bench(
    players: int,
    seconds: float,
    seed: str,
    *,
    with_view: bool = False,
    actions: int | None = None,
) -> dict[str, Any]:
    """Random legal play for ``seconds`` at the default options, a new game whenever
    one ends: ``legal_actions``, a uniform choice, the move (``new_game_silently`` and
    ``advance_silently``: nothing reads their events, as RLCard's engine keeps none;
    and with ``with_view`` the acting seat's view first, as a client or bot gets it).
    With ``actions``, whole games until that many actions are done, whatever the
    time (instruction counts under valgrind need a fixed amount of work)."""
    options = Options(seats=players)
    elapsed, games, done = random_play(
        lambda game_seed: (new_game_silently(options, game_seed), None),
        legal_actions,
        advance_silently,
        seed,
        seconds=seconds,
        actions=actions,
        view=view if with_view else None,
    )
    # The keys of `python -m flip bench`'s line, so that one script reads both.
    return dict(
        engine="wildcards",
        mode="view" if with_view else "engine",
        players=players,
        seconds=round(elapsed, 3),
        games=games,
        actions=done,
        actions_per_s=round(done / elapsed),
        games_per_s=round(games / elapsed, 1),
    )


def _simulate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--target", type=int, default=None, help="play to this target score")
    for rule in HOUSE_RULES:
        parser.add_argument(f"--{rule.replace('_', '-')}", dest=rule, action="store_true")


def _simulate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        options = _options(args)
    except ValueError as error:
        parser.error(str(error))
    print(json.dumps(simulate(args.games, options, args.seed), indent=2))
    return 0


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--view", action="store_true", help="build the acting seat's view too")
    parser.add_argument("--actions", type=int, default=None, help="play this many, not --seconds")


def _bench(_parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    result = bench(args.players, args.seconds, args.seed, with_view=args.view, actions=args.actions)
    print(json.dumps(result))
    return 0


Command = tuple[
    str,
    Callable[[argparse.ArgumentParser], None],
    Callable[[argparse.ArgumentParser, argparse.Namespace], int],
]
#: The commands: name, help, how to add its arguments, how to run it.
COMMANDS: Final[dict[str, Command]] = {
    "simulate": ("play random legal games, print a JSON summary", _simulate_arguments, _simulate),
    "bench": ("measure random legal play, print one JSON line", _bench_arguments, _bench),
    "tournament": ("bot tournaments: win rates with a 95% interval", *bot_tournament.COMMAND),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wildcards", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    parsers = {}
    for name, (text, arguments, _) in COMMANDS.items():
        parsers[name] = commands.add_parser(name, help=text)
        arguments(parsers[name])
    args = parser.parse_args(argv)
    return COMMANDS[args.command][2](parsers[args.command], args)
