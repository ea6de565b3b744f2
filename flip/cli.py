"""``python -m flip``: simulate random games, measure the engine's speed, run bot tournaments."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Final, TextIO, TypedDict

from tabletop.play import random_play

from . import engine
from .actions import Action
from .engine import advance, apply, legal_actions, new_game
from .state import MAX_SEATS, MIN_SEATS, SINGLE_ROUND, TARGET, GameState, Options
from .views import view


class Progress:
    """A one-line progress bar on stderr (the engine depends on nothing)."""

    def __init__(self, total: int, label: str, stream: TextIO = sys.stderr) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream
        self.started = time.perf_counter()
        self.shown = -1

    def update(self, done: int) -> None:
        percent = done * 100 // self.total
        if percent == self.shown and done != self.total:
            return
        self.shown = percent
        width = 30
        filled = width * done // self.total
        elapsed = time.perf_counter() - self.started
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
            f"{done}/{self.total} {elapsed:6.1f}s"
        )
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()


class SimulateSummary(TypedDict):
    games: int
    players: int
    rounds: int
    actions: int
    flips: int
    blocked_rounds: int
    reshuffles: int
    mean_actions_per_game: float
    games_per_s: float


def simulate(games: int, players: int, seed: str, scoring: str, target: int) -> SimulateSummary:
    """Play ``games`` random legal games and count what happened."""
    options = Options(seats=players, scoring=scoring, target=target)
    rounds = actions = flips = blocked = reshuffles = 0
    progress = Progress(games, "simulate")
    started = time.perf_counter()
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        state, events = new_game(options, f"{seed}:{index}")
        while True:
            for event in events:
                if event["type"] == "flip":
                    flips += 1
                elif event["type"] == "shuffle" and event["reason"] == "reshuffle":
                    reshuffles += 1
                elif event["type"] == "round_end":
                    rounds += 1
                    blocked += event["result"]["blocked"]
            if state.over:
                break
            seat = state.current
            action = rng.choice(legal_actions(state, seat))
            state, events = apply(state, seat, action, inplace=True)
            actions += 1
        progress.update(index + 1)
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "players": players,
        "rounds": rounds,
        "actions": actions,
        "flips": flips,
        "blocked_rounds": blocked,
        "reshuffles": reshuffles,
        "mean_actions_per_game": actions / games if games else 0.0,
        "games_per_s": games / elapsed if elapsed else 0.0,
    }


class BenchResult(TypedDict):
    engine: str
    build: str
    mode: str
    players: int
    seconds: float
    games: int
    actions: int
    actions_per_s: int
    games_per_s: float


BENCH_MODES: Final = ("engine", "view")


def bench(  # noqa: PLR0913 (the command's options)
    players: int,
    seconds: float,
    seed: str,
    mode: str = "engine",
    actions: int | None = None,
    *,
    checked: bool = False,
) -> BenchResult:
    """Random legal play for ``seconds``: a new seeded game whenever one ends.

    ``mode="engine"``: ask ``legal_actions`` for the seat to act, choose one
    uniformly at random, take it with ``advance`` (in place, not checked a
    second time: it came from ``legal_actions``), repeat. ``checked=True``
    takes it with ``apply(..., inplace=True)`` instead, which recognises it
    as one ``legal_actions`` just returned.
    ``mode="view"``: the same, and the acting seat's ``view`` is built at
    every step first, as a client or a bot would be handed it.
    With ``actions``, whole games are played until that many actions are
    done, whatever the time (instruction counts under valgrind need a fixed
    amount of work).
    """
    if mode not in BENCH_MODES:
        raise ValueError(f"unknown bench mode {mode!r}")
    options = Options(seats=players)
    played = random_play(
        lambda game_seed: new_game(options, game_seed),
        legal_actions,
        _apply_inplace if checked else advance,
        seed,
        seconds=seconds,
        actions=actions,
        view=view if mode == "view" else None,
    )
    elapsed, games, done = played
    return {
        "engine": "flip",
        # scripts/compile_flip.py's tree imports the engine as an extension module.
        "build": "mypyc" if engine.__file__.endswith(".so") else "python",
        "mode": f"{mode}-checked" if checked else mode,
        "players": players,
        "seconds": round(elapsed, 3),
        "games": games,
        "actions": done,
        "actions_per_s": round(done / elapsed),
        "games_per_s": round(games / elapsed, 1),
    }


def _apply_inplace(state: GameState, seat: int, action: Action) -> None:
    apply(state, seat, action, inplace=True)


class _Args(argparse.Namespace):
    command: str
    games: int
    players: int
    seed: str
    target: int | None
    seconds: float
    view: bool
    checked: bool
    actions: int | None
    bots: str | None


def _tournament(parser: argparse.ArgumentParser, args: _Args) -> int:
    from .bots import LEVELS
    from .bots.tournament import tournament

    bots = (args.bots or ",".join(["normal"] * args.players)).split(",")
    bots = [level.strip() for level in bots]
    if len(bots) != args.players:
        parser.error(f"--bots names {len(bots)} bots for {args.players} players")
    if not MIN_SEATS <= args.players <= MAX_SEATS:
        parser.error("--players is 2 to 10")
    if args.games < 1:
        parser.error("--games must be at least 1")
    for level in bots:
        if level not in LEVELS:
            parser.error(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")
    progress = Progress(args.games, "tournament")
    # The bots' summary is not typed yet (flip/bots is outside flip's Any-free modules).
    summary = tournament(args.games, bots, args.seed, progress.update)  # type: ignore[misc]
    print(json.dumps(summary, indent=2))  # type: ignore[misc]
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flip", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    sim = commands.add_parser("simulate", help="play random legal games, print a JSON summary")
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--seed", default="0")
    sim.add_argument("--target", type=int, choices=(250, 500, 1000), default=None)

    ben = commands.add_parser("bench", help="measure random legal play, print one JSON line")
    ben.add_argument("--players", type=int, default=4)
    ben.add_argument("--seconds", type=float, default=5.0)
    ben.add_argument("--seed", default="bench")
    ben.add_argument(
        "--view", action="store_true", help="also build the acting seat's view at every step"
    )
    ben.add_argument(
        "--actions", type=int, default=None, help="play this many actions, not --seconds"
    )
    ben.add_argument(
        "--checked", action="store_true", help="take each action with apply, not advance"
    )

    tour = commands.add_parser(
        "tournament", help="play bots against each other, print a JSON summary per level"
    )
    tour.add_argument("--games", type=int, default=100)
    tour.add_argument("--players", type=int, default=4)
    tour.add_argument("--bots", default=None, help="comma list of levels, one per seat")
    tour.add_argument("--seed", default="0")

    args = parser.parse_args(argv, namespace=_Args())
    if args.command == "tournament":
        return _tournament(parser, args)
    if args.command == "simulate":
        scoring = SINGLE_ROUND if args.target is None else TARGET
        summary = simulate(args.games, args.players, args.seed, scoring, args.target or 500)
        print(json.dumps(summary, indent=2))
    else:
        mode = "view" if args.view else "engine"
        result = bench(
            args.players, args.seconds, args.seed, mode, args.actions, checked=args.checked
        )
        print(json.dumps(result))
    return 0
