"""Bot tournaments for classic Wild Cards: many games between levels, win rates with a 95% interval.

Bots are driven as the service drives them (``games.services.table_run_bot_turn``):
before each action every other seat that may jump in is asked once, in seat
order, whether it does (``choose`` answering None is "no"); then the seat to
act is asked. Each sees only ``view(state, seat)``; its request is turned into
an action by ``parse_request`` and taken by ``apply``, which checks it, so a
bot answering anything illegal stops the tournament with the refusal. Decision
time is measured here, around ``choose`` only (the view is built before).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from tabletop.stats import Tally, percentile
from wildcards.engine import apply, legal_actions, new_game
from wildcards.requests import parse_request
from wildcards.state import GameState, Options
from wildcards.views import view

from . import LEVELS, choose

#: A game that runs longer than this is a stalled table: the tournament fails.
MAX_ACTIONS = 20_000


def _decide(
    state: GameState, seat: int, level: str, rng: random.Random, times: dict[str, list[float]]
) -> dict[str, Any] | None:
    seen = view(state, seat)
    cpu = time.process_time()
    started = time.perf_counter()
    request = choose(seen, level, rng)
    times.setdefault(level, []).append(time.perf_counter() - started)
    # The process's CPU time: what the decision costs on an otherwise idle core.
    times.setdefault(level + " cpu", []).append(time.process_time() - cpu)
    return request


def play_game(
    levels: Sequence[str],
    options: Options,
    seed: str,
    times: dict[str, list[float]] | None = None,
) -> tuple[GameState, int]:
    """One game with ``levels[i]`` in seat ``i``: the final state and the jump-ins made."""
    if options.seats != len(levels):
        raise ValueError("one level per seat")
    state, _ = new_game(options, seed)
    rng = random.Random(f"{seed}:bots")  # noqa: S311 (a bot's play, not a secret)
    spent: dict[str, list[float]] = {} if times is None else times
    jump_ins = 0
    for _ in range(MAX_ACTIONS):
        if state.over:
            return state, jump_ins
        acted = False
        if options.jump_in:
            for seat in range(state.seats):
                if seat == state.current or not state.active[seat]:
                    continue
                if not legal_actions(state, seat):  # as the service asks (R29: not shown)
                    continue
                request = _decide(state, seat, levels[seat], rng, spent)
                if request is not None:
                    apply(state, seat, parse_request(state, seat, request), inplace=True)
                    jump_ins += 1
                    acted = True
                    break
        if acted:
            continue
        seat = state.current
        request = _decide(state, seat, levels[seat], rng, spent)
        if request is None:
            raise RuntimeError(f"the {levels[seat]} bot in seat {seat} did not act on its turn")
        apply(state, seat, parse_request(state, seat, request), inplace=True)
    raise RuntimeError(f"game {seed} did not end in {MAX_ACTIONS} actions")


def tournament(
    games: int,
    bots: Sequence[str],
    seed: str,
    options: Options | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of ``len(bots)`` seats, rotating the seats.

    Game ``g`` seats ``bots[(i + g) % P]`` in seat ``i``, so with ``games`` a
    multiple of ``P`` every bot sits in every position equally often. A win
    is winning the game (single round: the first round won).
    """
    players = len(bots)
    for level in bots:
        if level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")
    chosen = Options(seats=players) if options is None else options
    tally = Tally(list(bots))
    times: dict[str, list[float]] = {}
    jumped: list[int] = []
    started = time.perf_counter()

    def one_game(levels: list[str], index: int) -> tuple[int | None, list[int]]:
        state, jumps = play_game(levels, chosen, f"{seed}:{index}", times)
        jumped.append(jumps)
        return state.winner, state.scores

    tally.play(games, one_game, progress)
    jump_ins = sum(jumped)
    summary: dict[str, Any] = {}
    for level, seats in tally.seats_of.items():
        trials, wins = tally.trials(level), tally.wins[level]
        rate, (low, high) = tally.rate(level)
        spent = times.get(level, [])
        cpu = times.get(level + " cpu", [])
        summary[level] = {
            "seats": seats,
            "wins": wins,
            "win_rate": round(rate, 4),
            "win_rate_ci95": [round(low, 4), round(high, 4)],
            "fair_share": round(1 / players, 4),
            "mean_points_per_game": round(tally.points[level] / trials, 2) if trials else 0.0,
            "decisions": len(spent),
            "decision_ms_mean": round(1000 * sum(spent) / len(spent), 3) if spent else 0.0,
            "decision_ms_p99": round(1000 * percentile(spent, 0.99), 3),
            "decision_ms_max": round(1000 * max(spent, default=0.0), 3),
            "decision_cpu_ms_mean": round(1000 * sum(cpu) / len(cpu), 3) if cpu else 0.0,
            "decision_cpu_ms_p99": round(1000 * percentile(cpu, 0.99), 3),
        }
    return {
        "games": games,
        "players": players,
        "bots": list(bots),
        "seed": seed,
        "options": chosen.to_dict(),
        "blocked_games": tally.blocked,
        "jump_ins": jump_ins,
        "rotated_evenly": games % players == 0,
        "seconds": round(time.perf_counter() - started, 1),
        "levels": summary,
    }


def format_summary(summary: dict[str, Any]) -> str:
    """The tournament's win rates as lines a person reads, one per level."""
    lines = [
        f"# {summary['games']} games, {summary['players']} players, seats rotating, "
        f"seed {summary['seed']!r}, {summary['seconds']} s; blocked {summary['blocked_games']}, "
        f"jump-ins {summary['jump_ins']}",
        "level    seats  wins    win rate  95% interval     fair   "
        "decision ms mean/p99/max (wall)  CPU ms mean/p99",
    ]
    for level, row in summary["levels"].items():
        low, high = row["win_rate_ci95"]
        lines.append(
            f"{level:8s} {row['seats']:<6d} {row['wins']:<7d} {100 * row['win_rate']:6.2f}%  "
            f"{100 * low:5.2f}-{100 * high:5.2f}%     {100 * row['fair_share']:4.1f}%  "
            f"{row['decision_ms_mean']:.3f} / {row['decision_ms_p99']:.3f} / "
            f"{row['decision_ms_max']:.1f}                  "
            f"{row['decision_cpu_ms_mean']:.3f} / {row['decision_cpu_ms_p99']:.3f}"
        )
    return "\n".join(lines)


HOUSE_RULES = ("stacking", "seven_zero", "jump_in", "draw_until_playable")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``tournament`` command's arguments (``python -m wildcards tournament``)."""
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument(
        "--levels", default=None, help="one level per seat, e.g. normal,easy,easy,easy"
    )
    parser.add_argument("--seed", default="t")
    parser.add_argument("--target", type=int, default=None, help="play to this target score")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON too")
    for rule in HOUSE_RULES:
        parser.add_argument(f"--{rule.replace('_', '-')}", dest=rule, action="store_true")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Play the tournament the arguments describe and print its win rates."""
    levels = [level.strip() for level in (args.levels or "normal," * args.players).split(",")]
    levels = [level for level in levels if level]
    if len(levels) != args.players:
        parser.error(f"--levels names {len(levels)} bots for {args.players} players")
    if args.games < 1:
        parser.error("--games must be at least 1")
    for level in levels:
        if level not in LEVELS:
            parser.error(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")
    try:
        options = Options(
            seats=args.players,
            scoring="single" if args.target is None else "target",
            target=args.target or 500,
            **{rule: bool(getattr(args, rule)) for rule in HOUSE_RULES},
        )
    except ValueError as error:
        parser.error(str(error))
    summary = tournament(args.games, levels, args.seed, options)
    print(format_summary(summary))
    if args.json:
        print(json.dumps(summary))
    return 0


#: How ``wildcards.cli`` registers the command: (add its arguments, run it).
COMMAND: Final = (add_arguments, run)
