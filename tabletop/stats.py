"""The figures a tournament or a benchmark prints: an interval for a win rate, a percentile."""

from __future__ import annotations

import math
from collections.abc import Callable


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion.

    >>> [round(x, 3) for x in wilson(40, 100)]
    [0.309, 0.498]
    >>> wilson(0, 0)
    (0.0, 0.0)
    """
    if trials == 0:
        return (0.0, 0.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank.

    >>> percentile([3.0, 1.0, 2.0, 4.0], 0.5), percentile([], 0.99)
    (2.0, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


class Tally:
    """A tournament's count by bot level: the seats each holds, wins, points, blocked games.

    The bots sit in rotated seats from game to game (``seating``), so over a
    multiple of the seat count every bot sits in every position equally often.

    >>> tally = Tally(["hard", "easy", "easy"])
    >>> tally.seating(1)
    ['easy', 'easy', 'hard']
    >>> tally.add(["hard", "easy", "easy"], winner=0, scores=[30, 0, 0])
    >>> tally.add(["easy", "easy", "hard"], winner=None, scores=[0, 0, 0])
    >>> rate, (low, high) = tally.rate("hard")
    >>> tally.wins, tally.blocked, rate, round(low, 3), round(high, 3)
    ({'hard': 1, 'easy': 0}, 1, 0.5, 0.095, 0.905)
    """

    def __init__(self, bots: list[str]) -> None:
        self.bots = list(bots)
        self.seats_of = {level: bots.count(level) for level in dict.fromkeys(bots)}
        self.wins = dict.fromkeys(self.seats_of, 0)
        self.points = dict.fromkeys(self.seats_of, 0)
        self.games = self.blocked = 0

    def seating(self, index: int) -> list[str]:
        """The level in each seat for game ``index``: the bots rotated by ``index``."""
        players = len(self.bots)
        return [self.bots[(seat + index) % players] for seat in range(players)]

    def add(self, levels: list[str], winner: int | None, scores: list[int]) -> None:
        """One finished game: who sat where, the winning seat (None: blocked), the scores."""
        self.games += 1
        if winner is None:
            self.blocked += 1
        else:
            self.wins[levels[winner]] += 1
        for seat, level in enumerate(levels):
            self.points[level] += scores[seat]

    def trials(self, level: str) -> int:
        return self.games * self.seats_of[level]

    def rate(self, level: str) -> tuple[float, tuple[float, float]]:
        """``level``'s win rate per seat and game, and its 95% interval."""
        trials = self.trials(level)
        return (self.wins[level] / trials if trials else 0.0), wilson(self.wins[level], trials)

    def play(
        self,
        games: int,
        one_game: Callable[[list[str], int], tuple[int | None, list[int]]],
        progress: Callable[[int], object] | None = None,
    ) -> None:
        """Play ``games`` games, game ``i`` with ``one_game(seating(i), i)``, which answers
        the winning seat (None: blocked) and the scores; ``progress(done)`` after each."""
        for index in range(games):
            levels = self.seating(index)
            winner, scores = one_game(levels, index)
            self.add(levels, winner, scores)
            if progress is not None:
                progress(index + 1)
