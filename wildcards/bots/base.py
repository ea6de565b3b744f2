"""What the classic bots share: reading a seat's view, and the request shape.

A bot is handed the value ``wildcards.view(state, seat)`` returns for its
seat, nothing else, and answers one of that view's legal actions in the
API's request shape (``wildcards.parse_request``)::

    {"type": "play", "card": handle}                  # "color" for a Wild, "target" for a 7
    {"type": "choose_color", "color": name}
    {"type": "draw"} / {"type": "take_penalty"} / {"type": "pass"}

A face code stands for every card that carries it, so the bots reason about
one representative card per face (``card_of``): a card's colour, kind,
number and points are all a face says.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from wildcards.cards import CARDS_BY_FACE, CODE_OF, COLOR_OF, COLORS, KEY_OF, NO_COLOR

View = Mapping[str, Any]
Request = dict[str, Any]

#: One card carrying each face code: everything the bots read about a face.
CARD_OF_FACE: Final[dict[str, int]] = {code: cards[0] for code, cards in CARDS_BY_FACE.items()}


def card_of(face: str) -> int:
    """The representative card of ``face`` (``red-5`` -> the first Red 5)."""
    return CARD_OF_FACE[face]


def requests_of(view: View) -> list[Request]:
    """Every request the view's legal actions allow, one per colour and target.

    >>> requests_of({"legal_actions": [{"type": "play", "card": "ab", "colors": ["red", "blue"]}]})
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'type': 'play', 'card': 'ab', 'color': 'red'},
     {'type': 'play', 'card': 'ab', 'color': 'blue'}]
    """
    out: list[Request] = []
    for entry in view["legal_actions"]:
        base: Request = {"type": entry["type"]}
        if "card" in entry:
            base["card"] = entry["card"]
        if "colors" in entry:
            out += [{**base, "color": c} for c in entry["colors"]]
        elif "targets" in entry:
            out += [{**base, "target": t} for t in entry["targets"]]
        else:
            out.append(base)
    return out


def hand_of(view: View) -> dict[str, int]:
    """The seat's own cards: handle -> representative card."""
    return {entry["card"]: CARD_OF_FACE[entry["face"]] for entry in view["hand"]}


def color_counts(cards: Sequence[int]) -> list[int]:
    """How many of ``cards`` each colour holds (Wilds not counted)."""
    counts = [0, 0, 0, 0]
    for c in cards:
        color = COLOR_OF[c]
        if color != NO_COLOR:
            counts[color] += 1
    return counts


def best_color(
    cards: Sequence[int], allowed: Sequence[int], rng: random.Random, unseen: Unseen | None = None
) -> int:
    """The colour of ``allowed`` that ``cards`` hold most of; between colours held
    alike, the one with the fewest ``unseen`` cards (the others are least likely to
    follow it), then ``rng``."""
    counts = color_counts(cards)
    left = unseen.by_color if unseen is not None else (0, 0, 0, 0)
    return max(allowed, key=lambda color: (counts[color], -left[color], rng.random()))


def color_number(name: str) -> int:
    return COLORS.index(name)


def seat_order(view: View) -> list[int]:
    """The other seats still in the game, in the order they play after this one."""
    me: int = view["seat"]
    players: list[dict[str, Any]] = view["players"]
    n = len(players)
    step = 1 if view["direction"] == "clockwise" else -1
    order: list[int] = []
    seat = me
    for _ in range(n - 1):
        seat = (seat + step) % n
        if players[seat]["in_game"] and seat != me:
            order.append(seat)
    return order


class Unseen:
    """The cards the seat cannot see (other hands and the draw pile), by colour and key.

    Every face exists a known number of times; what the seat's hand and the
    discard pile show is taken off. As far as the view tells, each unseen card
    is equally likely to be in any other hand.
    """

    __slots__ = ("by_color", "by_color_key", "total", "wilds")

    def __init__(self, seen: Sequence[str]) -> None:
        left = {face: len(cards) for face, cards in CARDS_BY_FACE.items()}
        for face in seen:
            left[face] -= 1
        self.by_color = [0, 0, 0, 0]
        self.by_color_key: dict[tuple[int, int], int] = {}
        self.wilds = 0
        for face, count in left.items():
            card = CARD_OF_FACE[face]
            color = COLOR_OF[card]
            if color == NO_COLOR:
                self.wilds += count
            else:
                self.by_color[color] += count
                key = (color, KEY_OF[card])
                self.by_color_key[key] = self.by_color_key.get(key, 0) + count
        self.total = sum(left.values())

    @classmethod
    def of_cards(cls, cards: Sequence[int]) -> Unseen:
        """The cards unseen by a seat that sees ``cards`` (its hand and the discard pile)."""
        return cls([CODE_OF[c] for c in cards])

    def follow_chance(self, color: int, key: int, cards: int) -> float:
        """The chance that a hand of ``cards`` unseen cards holds one that goes on a
        card of ``key`` with ``color`` in play (a Wild always does)."""
        total = self.total
        if cards <= 0 or total <= 0:
            return 0.0
        match = self.wilds + (self.by_color[color] if color >= 0 else 0)
        if key >= 0:
            match += sum(self.by_color_key.get((c, key), 0) for c in range(4) if c != color)
        miss = 1.0
        for i in range(min(cards, total)):
            miss *= max(0, total - match - i) / (total - i)
        return 1.0 - miss
