"""Bot tournaments: play many games between bot levels and report how each did.

Bots are driven exactly as the service drives them: ``view(state, seat)``,
``flip_memory(state, seat)`` and ``public_history(state, seat)`` go to
``bot.choose`` with the level of every seat (``levels``: public at a table,
where each seat's ``bot_level`` is served to everyone), and the request that
comes back is translated with ``flip.parse_request``, as the service does. Decision time
is measured here, around ``choose`` only, never inside a bot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from flip.engine import Action, apply, new_game
from flip.history import public_history
from flip.requests import parse_request
from flip.state import GameState, Options
from flip.views import flip_memory, view
from tabletop.stats import Tally, percentile

from . import LEVELS, make_bot
from .base import Request


def to_action(state: GameState, seat: int, req: Request) -> Action:
    """The engine action for a request in the API's shape (``flip.parse_request``)."""
    return parse_request(state, seat, req)


def play_game(
    levels: Sequence[str], seed: str, times: dict[str, list[float]] | None = None
) -> GameState:
    """One game with ``levels[i]`` in seat ``i``; returns the final state.

    Each seat's bot is built once per game (bots need no memory, but a game
    is one generator stream per seat). When ``times`` is given, the seconds
    each ``choose`` took are appended under the bot's level; a decision with
    more than one option is also recorded under ``level + "*"``, and its
    process CPU time under ``level + "cpu"`` (what the decision costs on an
    otherwise idle core, whatever else the machine is running).
    """
    state, _ = new_game(Options(seats=len(levels)), seed)
    bots = [make_bot(level, f"{seed}:{seat}") for seat, level in enumerate(levels)]
    while not state.over:
        seat = state.current
        seen = view(state, seat)
        memory = flip_memory(state, seat)
        history = public_history(state, seat)
        cpu = time.process_time()
        started = time.perf_counter()
        req = bots[seat].choose(seen, memory, history, levels=levels)
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
        if times is not None:
            level = levels[seat]
            times.setdefault(level, []).append(elapsed)
            legal = seen["legal_actions"]
            if len(legal) > 1 or len(legal[0].get("colors", ())) > 1:
                times.setdefault(level + "*", []).append(elapsed)
                times.setdefault(level + "cpu", []).append(cpu)
        apply(state, seat, to_action(state, seat, req), inplace=True)
    return state


def tournament(
    games: int,
    bots: Sequence[str],
    seed: str,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` single-round games of ``len(bots)`` seats, rotating the seats.

    Game ``g`` seats ``bots[(i + g) % P]`` in seat ``i``, so with ``games`` a
    multiple of ``P`` every bot sits in every position equally often.
    """
    players = len(bots)
    for level in bots:
        if level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")
    tally = Tally(list(bots))
    times: dict[str, list[float]] = {}

    def one_game(levels: list[str], index: int) -> tuple[int | None, list[int]]:
        state = play_game(levels, f"{seed}:{index}", times)
        return state.winner, state.scores

    tally.play(games, one_game, progress)
    summary: dict[str, Any] = {}
    for level, seats in tally.seats_of.items():
        trials, wins = tally.trials(level), tally.wins[level]
        rate, (low, high) = tally.rate(level)
        all_times = times.get(level, [])
        real = times.get(level + "*", [])
        cpu = times.get(level + "cpu", [])
        summary[level] = {
            "seats": seats,
            "wins": wins,
            "win_rate": rate,
            "win_rate_ci95": [round(low, 4), round(high, 4)],
            "fair_share": 1 / players,
            "mean_points_per_game": tally.points[level] / trials if trials else 0.0,
            "decisions": len(all_times),
            "decision_ms_mean": 1000 * sum(all_times) / len(all_times) if all_times else 0.0,
            "decision_ms_p99": 1000 * percentile(all_times, 0.99),
            "choice_decisions": len(real),
            "choice_ms_mean": 1000 * sum(real) / len(real) if real else 0.0,
            "choice_ms_p99": 1000 * percentile(real, 0.99),
            "choice_ms_max": 1000 * max(real, default=0.0),
            "choice_cpu_ms_mean": 1000 * sum(cpu) / len(cpu) if cpu else 0.0,
            "choice_cpu_ms_p99": 1000 * percentile(cpu, 0.99),
        }
    return {
        "games": games,
        "players": players,
        "bots": list(bots),
        "seed": seed,
        "blocked_games": tally.blocked,
        "rotated_evenly": games % players == 0,
        "levels": summary,
    }
