"""Random legal play, the loop every game's engine benchmark measures.

A game gives its own functions (a new game, the legal actions of a seat,
taking one, and optionally a seat's view built first at every step), so the
loop is the same for every game and only the engine differs: like with like.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar


class _State(Protocol):
    @property
    def over(self) -> bool: ...

    @property
    def current(self) -> int: ...


S = TypeVar("S", bound=_State)
A = TypeVar("A")


class Played(NamedTuple):
    """What ``random_play`` did: seconds, whole games and actions."""

    seconds: float
    games: int
    actions: int


def random_play(  # noqa: PLR0913 (the engine's functions and the loop's bounds)
    new_game: Callable[[str], tuple[S, object]],
    legal_actions: Callable[[S, Any], Sequence[A]],
    take: Callable[[S, Any, A], object],
    seed: str,
    *,
    seconds: float,
    actions: int | None = None,
    view: Callable[[S, Any], object] | None = None,
) -> Played:
    """Play random legal actions for ``seconds``, a new seeded game (``new_game(seed)``)
    whenever one ends: for the seat to act, ``view`` first if given, then a uniform
    choice among ``legal_actions``, taken with ``take``. With ``actions``, whole
    games until that many actions are done, whatever the time (instruction counts
    under valgrind need a fixed amount of work)."""
    choice = random.Random(seed).choice  # noqa: S311 (random play, not a secret)
    done = games = 0
    started = time.perf_counter()
    deadline = started + seconds
    while done < actions if actions is not None else time.perf_counter() < deadline:
        state, _ = new_game(f"{seed}:{games}")
        if view is None:  # the engine alone: nothing else in its loop
            while not state.over:
                seat = state.current
                take(state, seat, choice(legal_actions(state, seat)))
                done += 1
        else:
            while not state.over:
                seat = state.current
                view(state, seat)
                take(state, seat, choice(legal_actions(state, seat)))
                done += 1
        games += 1
    return Played(time.perf_counter() - started, games, done)
