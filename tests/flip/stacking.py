"""Helpers to stack decks and build positions for the Wild Cards Flip tests.

Cards are picked by face code (PRODUCT.md ruling 3) with
``flip.engine.cards_with_faces``: a code may name either side, so a dark code
picks a card by its dark face. Three more forms pin a card exactly:

- ``"flame-4/moon-skip-everyone"``: the card with both these faces;
- an ``int``: that physical card.

Piles are given TOP FIRST here (the order cards come off them), as the
engine's recorded shuffles are; ``GameState`` keeps them bottom to top.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from flip import (
    CHOOSE_COLOR,
    PLAY,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    color_code,
    new_game,
)
from flip.cards import CARDS_BY_FACE, CODE_OF, COLOR_OF, DARK, DECK_SIZE, LIGHT, NO_COLOR, SIDES
from flip.engine import Event, cards_with_faces

CardSpec = str | int


def pick(specs: Iterable[CardSpec], taken: set[int]) -> list[int]:
    """Physical cards for ``specs``, each card used once (``taken`` is updated)."""
    out: list[int] = []
    for spec in specs:
        if isinstance(spec, int):
            if spec in taken:
                raise ValueError(f"card {spec} is already used")
            taken.add(spec)
            out.append(spec)
        elif "/" in spec:
            light, dark = spec.split("/")
            for card in CARDS_BY_FACE[light]:
                if CODE_OF[DARK][card] == dark and card not in taken:
                    taken.add(card)
                    out.append(card)
                    break
            else:
                raise ValueError(f"no card left with faces {spec!r}")
        else:
            out.extend(cards_with_faces([spec], taken))
    return out


def card(spec: CardSpec) -> int:
    """The card a single spec picks on its own."""
    return pick([spec], set())[0]


def deal_order(
    hands: Sequence[Sequence[CardSpec]],
    starter: CardSpec,
    draw_top: Sequence[CardSpec] = (),
    *,
    dealer: int = 0,
    active: Sequence[bool] | None = None,
) -> list[int]:
    """A 112-card deck order, top first, that deals ``hands`` (by seat) exactly.

    Cards go round one at a time from the seat after ``dealer`` (seats not in
    ``active`` are passed over), seven times round; then comes ``starter``,
    then ``draw_top``, then every card not named, lowest number first. A hand
    given with fewer than seven cards is filled up with unnamed cards.
    """
    seats = len(hands)
    playing = [True] * seats if active is None else list(active)
    taken: set[int] = set()
    picked = [pick(hand, taken) for hand in hands]
    (starter_card,) = pick([starter], taken)
    top = pick(draw_top, taken)
    rest = [c for c in range(DECK_SIZE) if c not in taken]
    full: list[list[int]] = []
    for seat in range(seats):
        hand = picked[seat][:]
        if playing[seat]:
            if len(hand) > 7:
                raise ValueError("a hand is dealt seven cards")
            while len(hand) < 7:
                hand.append(rest.pop(0))
        elif hand:
            raise ValueError("a seat not in the game is dealt nothing")
        full.append(hand)
    order_seats = [(dealer + 1 + k) % seats for k in range(seats)]
    order_seats = [seat for seat in order_seats if playing[seat]]
    order: list[int] = []
    for index in range(7):
        for seat in order_seats:
            order.append(full[seat][index])
    order.append(starter_card)
    order.extend(top)
    order.extend(rest)
    assert sorted(order) == list(range(DECK_SIZE))
    return order


def stacked_game(
    hands: Sequence[Sequence[CardSpec]],
    starter: CardSpec,
    draw_top: Sequence[CardSpec] = (),
    options: Options | None = None,
    *,
    seed: str = "stacked",
    more_shuffles: Sequence[list[int]] = (),
) -> tuple[GameState, list[Event]]:
    """A new game (dealer seat 0) whose first deal is stacked by ``deal_order``."""
    if options is None:
        options = Options(seats=len(hands))
    assert options.seats == len(hands)
    order = deal_order(hands, starter, draw_top)
    return new_game(options, seed, shuffles=iter([order, *more_shuffles]))


def position(
    hands: Sequence[Sequence[CardSpec]],
    discard: Sequence[CardSpec],
    draw: Sequence[CardSpec] = (),
    *,
    side: int = LIGHT,
    color: str | None = None,
    current: int = 0,
    direction: int = 1,
    options: Options | None = None,
    active: Sequence[bool] | None = None,
    rest: str = "draw",
    seed: str = "position",
    **fields: Any,
) -> GameState:
    """A mid-round state built directly.

    ``discard`` is given BOTTOM TO TOP (its last card is the top card) and
    ``draw`` TOP FIRST. ``color`` defaults to the colour of the top card on
    ``side``. Cards not named go under the draw pile (``rest="draw"``), under
    the discard pile's named cards (``rest="discard"``), or nowhere
    (``rest="none"``: the state then holds fewer than 112 cards).
    """
    seats = len(hands)
    if options is None:
        options = Options(seats=seats)
    taken: set[int] = set()
    picked_hands = [pick(hand, taken) for hand in hands]
    picked_discard = pick(discard, taken)
    picked_draw = pick(draw, taken)
    unnamed = [c for c in range(DECK_SIZE) if c not in taken]
    draw_pile = picked_draw[::-1]
    if rest == "draw":
        draw_pile = unnamed[::-1] + draw_pile
    elif rest == "discard":
        picked_discard = unnamed + picked_discard
    elif rest != "none":
        raise ValueError(rest)
    color_number = COLOR_OF[side][picked_discard[-1]] if color is None else color_code(color)
    state = GameState(
        options=options,
        seed=seed,
        shuffles=1,
        round=1,
        dealer=0,
        side=side,
        hands=picked_hands,
        draw=draw_pile,
        discard=picked_discard,
        color=color_number,
        direction=direction,
        current=current,
        active=[True] * seats if active is None else list(active),
        scores=[0] * seats,
        left_points=[None] * seats,
        turn=1,
    )
    for name, value in fields.items():
        setattr(state, name, value)
    return state


def faces(cards: Iterable[int], side: int) -> list[str]:
    """The face codes of ``cards`` on ``side``, in the given order."""
    return [CODE_OF[side][c] for c in cards]


def top_first(pile: Sequence[int]) -> list[int]:
    """A pile of the state (bottom to top) listed top first."""
    return list(pile)[::-1]


def play(card_: int, color: str | None = None) -> Action:
    return Action(PLAY, card_, NO_COLOR if color is None else color_code(color))


def choose(color: str) -> Action:
    return Action(CHOOSE_COLOR, color=color_code(color))


def refused(state: GameState, seat: int, action: Action) -> str:
    """Apply an action the rules must refuse; check it changed nothing; return its code."""
    before = state.copy()
    snapshot = state.to_dict()
    try:
        apply(state, seat, action)
    except RuleError as error:
        assert state == before
        assert state.to_dict() == snapshot
        return error.code
    raise AssertionError(f"{action} was accepted for seat {seat}")


def all_cards(state: GameState) -> list[int]:
    """Every card of the state, sorted (hands, draw pile and discard pile)."""
    return sorted([c for hand in state.hands for c in hand] + state.draw + state.discard)


__all__ = [
    "DARK",
    "LIGHT",
    "SIDES",
    "all_cards",
    "card",
    "choose",
    "deal_order",
    "faces",
    "pick",
    "play",
    "position",
    "refused",
    "stacked_game",
    "top_first",
]
