"""Helpers to set up classic Wild Cards positions for the tests.

Cards are named by face code (``red-5``) or by the text's symbols
(``flame-5``); each name picks a card not used yet. Piles are given TOP FIRST
here (the order cards come off them); ``GameState`` keeps them bottom to top.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wildcards import Action, GameState, Options, apply, cards_with_faces
from wildcards.cards import COLOR_OF, COLORS, DECK, HAND_SIZE, parse_face


def table(  # noqa: PLR0913
    hands: Sequence[Sequence[str]],
    top: str,
    *,
    color: str | None = None,
    draw_top: Sequence[str] = (),
    current: int = 0,
    fill_to: int = 0,
    rest: bool = True,
    below_top: Sequence[str] = (),
    **options: Any,
) -> GameState:
    """A game in its first round with these hands (by seat), ``top`` on the discard
    pile (``below_top`` under it, top first) and the colour in play (the top's own by
    default), ``current`` to act, the jump-in window open as after a play.

    The draw pile holds ``draw_top`` then every card not named (lowest first),
    so that all 108 cards are somewhere; ``rest=False`` leaves the others out.
    ``fill_to`` fills each hand with unnamed cards up to that size.
    """
    taken: set[int] = set()
    named = [cards_with_faces(hand, taken) for hand in hands]
    top_card = cards_with_faces([top], taken)[0]
    below = cards_with_faces(below_top, taken)
    drawn = cards_with_faces(draw_top, taken)
    spare = [c for c in DECK if c not in taken]
    for hand in named:
        while len(hand) < fill_to:
            # A spare card that does not change what the example is about: a plain
            # number of no colour named in the example, never a Wild.
            card = next(c for c in spare if COLOR_OF[c] >= 0 and c % 25 and c % 25 <= 18)
            spare.remove(card)
            hand.append(card)
    in_play = COLOR_OF[top_card] if color is None else COLORS.index(color)
    pile = (drawn + spare) if rest else drawn
    seats = len(hands)
    return GameState(
        options=Options(seats=seats, **options),
        seed="tables",
        round=1,
        dealer=(current - 1) % seats,
        hands=named,
        draw=pile[::-1],
        discard=below[::-1] + [top_card],
        color=in_play,
        current=current,
        window=True,
        active=[True] * seats,
        turn=1,
        scores=[0] * seats,
        left_points=[None] * seats,
    )


def card(state: GameState, seat: int, face: str) -> int:
    """The card of ``seat``'s hand with ``face`` (the first, in id order)."""
    code = parse_face(face)
    from wildcards.cards import CODE_OF

    for c in sorted(state.hands[seat]):
        if CODE_OF[c] == code:
            return c
    raise AssertionError(f"seat {seat} holds no {code}")


def play(
    state: GameState, seat: int, face: str, color: str | None = None, target: int = -1
) -> tuple[GameState, list[dict[str, Any]]]:
    """``seat`` plays its card ``face`` (checked, on a copy)."""
    number = -1 if color is None else COLORS.index(color)
    return apply(state, seat, Action("play", card(state, seat, face), number, target))


def faces(state: GameState, seat: int) -> list[str]:
    """``seat``'s hand as sorted face codes."""
    from wildcards import CODE_OF, sorted_hand

    return [CODE_OF[c] for c in sorted_hand(state.hands[seat])]


def deck_order(
    hands: Sequence[Sequence[str]], starter: str, draw_top: Sequence[str] = (), *, dealer: int = 0
) -> list[int]:
    """A 108-card deck order, top first, that deals ``hands`` (by seat) exactly
    (R3: one card at a time from the seat after ``dealer``), then turns
    ``starter``, then ``draw_top``, then every card not named. Hands given with
    fewer than seven cards are filled up with unnamed cards."""
    seats = len(hands)
    taken: set[int] = set()
    named = [cards_with_faces(hand, taken) for hand in hands]
    start = cards_with_faces([starter], taken)
    after = cards_with_faces(draw_top, taken)
    spare = [c for c in DECK if c not in taken and COLOR_OF[c] >= 0]
    spare += [c for c in DECK if c not in taken and COLOR_OF[c] < 0]
    for hand in named:
        while len(hand) < HAND_SIZE:
            hand.append(spare.pop(0))
    order: list[int] = []
    for i in range(HAND_SIZE):
        for k in range(seats):
            order.append(named[(dealer + 1 + k) % seats][i])
    order += start + after
    order += [c for c in DECK if c not in set(order)]
    assert sorted(order) == list(DECK)
    return order
