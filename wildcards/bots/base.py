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
#: The round's public history (``wildcards.history.public_history``), or None: not told.
History = Sequence[Mapping[str, Any]] | None
#: Each seat's bot level, None for a person (``RULESET.bot_request``'s ``levels``), or None.
Levels = Sequence[str | None] | None

#: The bit of ``lacks`` that says a hand holds no Wild (of either kind); bit ``c``: no colour ``c``.
NO_WILD: Final = 16

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


def best_color(cards: Sequence[int], allowed: Sequence[int], rng: random.Random) -> int:
    """The colour of ``allowed`` that ``cards`` hold most of; ties broken by ``rng``."""
    counts = color_counts(cards)
    return max(allowed, key=lambda color: (counts[color], rng.random()))


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


def lacks(view: View, history: History) -> list[int]:  # noqa: C901 (one branch per event)
    """What each hand is known to lack, read off the round's public history.

    A bit mask per seat: bit ``c`` set, the hand holds no card of colour ``c``;
    ``NO_WILD``, no Wild. A seat that draws on its turn, or passes, held nothing
    it could play: no card of the colour in play and no Wild (a Wild Draw 4
    would have passed its test). A card it then draws and keeps was not
    playable either, so that stays true, but it may be of a colour the hand
    was known to lack before: that is forgotten. A Wild Draw 4 played (not stacked)
    shows its player held none of the colour in play. A penalty's cards are
    unknown: what was known of that hand is forgotten. A swap or a rotation
    moves what is known with the hands. The seat's own entry is left 0.
    """
    n = len(view["players"])
    known = [0] * n
    if not history:
        return known
    order = [p["seat"] for p in view["players"] if p["in_game"]]
    for index, event in enumerate(history):
        kind = event["type"]
        if kind in ("draw", "pass"):
            seat = event["seat"]
            if kind == "draw" and event["reason"] == "penalty":
                known[seat] = 0
                continue
            in_play = event["in_play"]
            lacked = NO_WILD | (1 << COLORS.index(in_play) if in_play else 0)
            if kind == "draw" and event["count"] > _played_at_once(history, index):
                # A card kept is not playable now, but may be of a colour lacked before.
                known[seat] = lacked
            else:
                known[seat] |= lacked
        elif kind == "play":
            if event["face"] == "wild-draw4" and event["in_play"] and event["on"] != "wild-draw4":
                known[event["seat"]] |= 1 << COLORS.index(event["in_play"])
        elif kind == "swap":
            a, b = event["seats"]
            known[a], known[b] = known[b], known[a]
        elif kind == "rotate":
            step = 1 if event["direction"] == "clockwise" else -1
            moved = [0] * n
            ring = order if step == 1 else order[::-1]
            for i, seat in enumerate(ring):
                moved[ring[(i + 1) % len(ring)]] = known[seat]
            known = moved
        elif kind == "leave":
            known[event["seat"]] = 0
    known[view["seat"]] = 0
    return known


def _played_at_once(history: Sequence[Mapping[str, Any]], index: int) -> int:
    """1 when the draw at ``history[index]`` was played straight away (it had to be)."""
    after = history[index + 1] if index + 1 < len(history) else None
    seat = history[index]["seat"]
    return 1 if after is not None and after["type"] == "play" and after["seat"] == seat else 0


def allowed(card: int, mask: int) -> bool:
    """True when a hand that lacks ``mask`` may hold ``card``."""
    color = COLOR_OF[card]
    return not (mask & NO_WILD if color == NO_COLOR else mask >> color & 1)


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

    def follow_chance(self, color: int, key: int, cards: int, lack: int = 0) -> float:
        """The chance that a hand of ``cards`` unseen cards holds one that goes on a
        card of ``key`` with ``color`` in play (a Wild always does), for a hand known
        to lack ``lack`` (``lacks``): its cards come from the others only."""
        total = self.total
        wilds = 0 if lack & NO_WILD else self.wilds
        if lack:
            total -= sum(self.by_color[c] for c in range(4) if lack >> c & 1)
            total -= self.wilds - wilds
        if cards <= 0 or total <= 0:
            return 0.0
        match = wilds + (self.by_color[color] if color >= 0 and not lack >> color & 1 else 0)
        if key >= 0:
            match += sum(
                self.by_color_key.get((c, key), 0)
                for c in range(4)
                if c != color and not lack >> c & 1
            )
        miss = 1.0
        for i in range(min(cards, total)):
            miss *= max(0, total - match - i) / (total - i)
        return 1.0 - miss
