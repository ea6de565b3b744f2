"""Seats and their rotation: seats are 0..N-1, clockwise is increasing number.

A seat that left stays a seat (its number, its score, its place in the
ranking) but is passed over by the rotation.
"""

from __future__ import annotations

from collections.abc import Sequence

CLOCKWISE = 1
COUNTERCLOCKWISE = -1


def next_in_game(active: Sequence[bool], seat: int, step: int = CLOCKWISE) -> int:
    """The next seat after ``seat`` in direction ``step`` (1 or -1) that is still in the game.

    ``seat`` itself need not be in the game (its player may just have left).
    With nobody else in the game, ``seat`` comes back.

    >>> next_in_game([True, False, True, True], 0)
    2
    >>> next_in_game([True, False, True, True], 2, COUNTERCLOCKWISE)
    0
    """
    count = len(active)
    at = seat
    for _ in range(count):
        at = (at + step) % count
        if active[at]:
            return at
    return seat


def in_game_order(active: Sequence[bool], first: int, step: int = CLOCKWISE) -> list[int]:
    """Every seat still in the game, starting at ``first`` (if in the game) in direction ``step``.

    >>> in_game_order([True, True, False, True], 1)
    [1, 3, 0]
    """
    count = len(active)
    return [(first + step * i) % count for i in range(count) if active[(first + step * i) % count]]
