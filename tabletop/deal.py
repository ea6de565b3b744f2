"""The deal: one card at a time round the table, from the player after the dealer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .seats import in_game_order, next_in_game

T = TypeVar("T")


def deal(pile: list[T], active: Sequence[bool], dealer: int, cards_each: int) -> list[list[T]]:
    """Deal ``cards_each`` rounds of one card from the top of ``pile`` (its end).

    The first card goes to the seat after ``dealer`` that is still in the game,
    clockwise; seats that left get nothing. ``pile`` loses the dealt cards;
    ``ValueError`` (and ``pile`` untouched) when it holds too few.

    >>> pile = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]   # top is the end
    >>> deal(pile, [True, True, True], dealer=0, cards_each=2)
    [[2, 5], [0, 3], [1, 4]]
    >>> pile
    [9, 8, 7, 6]
    """
    count = len(active)
    first = next_in_game(active, dealer)
    everyone = all(active)
    players = count if everyone else active.count(True)
    taken = cards_each * players
    if taken > len(pile):
        raise ValueError(f"a deal of {taken} cards from a pile of {len(pile)}")
    if not taken:
        return [[] for _ in active]
    # Sliced, not popped card by card: the same hands (the k-th card off the
    # top goes to seat order[k % players]), in a few C calls (a game deals at
    # every round, and short games spend a good part of their time here).
    dealt = pile[: -taken - 1 : -1]  # the top cards, top first
    del pile[-taken:]
    if everyone:  # seat i is (i - first) % count places after the first
        return [dealt[(seat - first) % count :: count] for seat in range(count)]
    hands: list[list[T]] = [[] for _ in active]
    for position, seat in enumerate(in_game_order(active, first)):
        hands[seat] = dealt[position::players]
    return hands
