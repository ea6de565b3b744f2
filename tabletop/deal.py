"""The deal: one card at a time round the table, from the player after the dealer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .seats import in_game_order, next_in_game

T = TypeVar("T")


def deal(pile: list[T], active: Sequence[bool], dealer: int, cards_each: int) -> list[list[T]]:
    """Deal ``cards_each`` rounds of one card from the top of ``pile`` (its end).

    The first card goes to the seat after ``dealer`` that is still in the game,
    clockwise; seats that left get nothing. ``pile`` loses the dealt cards.

    >>> pile = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]   # top is the end
    >>> deal(pile, [True, True, True], dealer=0, cards_each=2)
    [[2, 5], [0, 3], [1, 4]]
    >>> pile
    [9, 8, 7, 6]
    """
    hands: list[list[T]] = [[] for _ in active]
    order = in_game_order(active, next_in_game(active, dealer))
    for _ in range(cards_each):
        for seat in order:
            hands[seat].append(pile.pop())
    return hands
