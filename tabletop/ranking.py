"""Ranks shared by equals: 1, 2, 2, 4 (standard competition ranking)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def shared_ranks(keyed: Sequence[tuple[K, int]]) -> list[tuple[int, int]]:
    """``(seat, rank)`` for ``(key, seat)`` pairs sorted best first: equal keys share a rank
    and the next rank skips as many places as shared it.

    >>> shared_ranks([((0, 5), 2), ((1, 3), 0), ((1, 3), 1), ((1, 9), 3)])
    [(2, 1), (0, 2), (1, 2), (3, 4)]
    """
    out: list[tuple[int, int]] = []
    for position, (key, seat) in enumerate(keyed):
        rank = position + 1
        if position and keyed[position - 1][0] == key:
            rank = out[-1][1]
        out.append((seat, rank))
    return out
