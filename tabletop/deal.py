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
    everyone = all(active)
    first = (dealer + 1) % count if everyone else next_in_game(active, dealer)
    players = count if everyone else active.count(True)
    taken = cards_each * players
    if taken > len(pile):
        raise ValueError(f"a deal of {taken} cards from a pile of {len(pile)}")
    if not taken:
        return [[] for _ in active]
    # Sliced, not popped card by card: the same hands (the k-th card off the
    # top goes to seat order[k % players]), in a few C calls (a game deals at
    # every round, and short games spend a good part of their time here).
    if everyone:  # seat i takes every count-th card from the (i - first) % count-th off the top
        cuts = _CUTS.get((count, first, cards_each))
        if cuts is None:
            cuts = _CUTS[count, first, cards_each] = _cuts(count, first, cards_each)
        sliced = list(map(pile.__getitem__, cuts))
        del pile[-taken:]
        return sliced
    dealt = pile[: -taken - 1 : -1]  # the top cards, top first
    del pile[-taken:]
    hands: list[list[T]] = [[] for _ in active]
    for position, seat in enumerate(in_game_order(active, first)):
        hands[seat] = dealt[position::players]
    return hands


def _cuts(count: int, first: int, cards_each: int) -> tuple[slice, ...]:
    """Each seat's slice of the pile when all ``count`` seats are in the game: the
    k-th card off the top is ``pile[-1 - k]``, and a slice that runs past the
    bottom stops there (the pile holds at least the cards dealt).

    >>> pile = list(range(10))
    >>> [pile[cut] for cut in _cuts(3, 1, 2)]
    [[7, 4], [9, 6], [8, 5]]
    """
    return tuple(
        slice(-1 - k, -1 - k - count * cards_each, -count)
        for k in ((seat - first) % count for seat in range(count))
    )


#: ``_cuts`` by (seats, first seat, cards each): a table has few of them.
_CUTS: dict[tuple[int, int, int], tuple[slice, ...]] = {}
