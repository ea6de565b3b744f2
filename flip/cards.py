"""The 112 two-faced cards of Wild Cards Flip and everything fixed about them.

A card is an ``int`` from 0 to 111: its row in ``data/flip-deck.csv``. The
number is the engine's internal identity and never reaches a client during a
round (PRODUCT.md ruling 10). Everything about a face is precomputed here into
tuples indexed ``[side][card]`` so the hot paths of the engine do lookups, not
string work.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Final

from .types import Card, ColorName, SideName

LIGHT: Final = 0
DARK: Final = 1
SIDES: Final[tuple[SideName, SideName]] = ("light", "dark")

# Colours are numbered across both sides so that a colour names its side.
COLORS: Final[tuple[ColorName, ...]] = (
    "red",
    "yellow",
    "green",
    "blue",
    "magenta",
    "cyan",
    "orange",
    "purple",
)
SYMBOLS: Final = ("flame", "sun", "leaf", "wave", "moon", "gem", "bolt", "star")
SIDE_COLORS: Final = ((0, 1, 2, 3), (4, 5, 6, 7))
COLORS_PER_SIDE: Final = 4
MAX_NUMBER: Final = 9  # number cards run 1 to 9: there are no zeros
NO_COLOR: Final = -1

# Action kinds in the order the specification lists each side's cards
# (ruling 13): this order is also the sort order within a colour.
LIGHT_ACTIONS: Final = ("draw-one", "reverse", "skip", "flip")
DARK_ACTIONS: Final = ("draw-five", "reverse", "skip-everyone", "flip")
LIGHT_WILDS: Final = ("wild", "wild-draw-two")
DARK_WILDS: Final = ("dark-wild", "wild-draw-color")

NUMBER: Final = "number"
DRAW_ONE: Final = "draw-one"
DRAW_FIVE: Final = "draw-five"
REVERSE: Final = "reverse"
SKIP: Final = "skip"
SKIP_EVERYONE: Final = "skip-everyone"
FLIP: Final = "flip"
WILD: Final = "wild"
WILD_DRAW_TWO: Final = "wild-draw-two"
DARK_WILD: Final = "dark-wild"
WILD_DRAW_COLOR: Final = "wild-draw-color"

RESTRICTED: Final = frozenset({WILD_DRAW_TWO, WILD_DRAW_COLOR})
# Cards that make the next player draw, with how many (None: until a colour).
PENALTIES: Final[dict[str, int | None]] = {
    DRAW_ONE: 1,
    DRAW_FIVE: 5,
    WILD_DRAW_TWO: 2,
    WILD_DRAW_COLOR: None,
}

_POINTS: Final[dict[str, int]] = {
    DRAW_ONE: 10,
    DRAW_FIVE: 20,
    REVERSE: 20,
    SKIP: 20,
    SKIP_EVERYONE: 30,
    FLIP: 20,
    WILD: 40,
    DARK_WILD: 40,
    WILD_DRAW_TWO: 50,
    WILD_DRAW_COLOR: 60,
}

DECK_SIZE: Final = 112
#: Every card, in card-number order.
DECK: Final[tuple[Card, ...]] = tuple(Card(c) for c in range(DECK_SIZE))
#: Where an action or a state names no card.
NO_CARD: Final = Card(-1)


@dataclass(frozen=True, slots=True)
class Face:
    """One printed face: ``flame-4``, ``gem-draw-five``, ``wild-draw-color``..."""

    code: str
    side: int
    color: int  # NO_COLOR for the Wilds
    kind: str  # NUMBER or an action kind
    number: int  # 1..9 for number cards, 0 otherwise
    points: int
    sort_key: int

    @property
    def is_wild(self) -> bool:
        return self.color == NO_COLOR

    @property
    def restricted(self) -> bool:
        return self.kind in RESTRICTED

    @property
    def match_key(self) -> str:
        """What "same number or same action" compares."""
        return str(self.number) if self.kind == NUMBER else self.kind


def parse_face(code: str) -> Face:
    """Read a face code of PRODUCT.md ruling 3.

    >>> parse_face("sun-draw-one").points
    10
    """
    for side, wilds in ((LIGHT, LIGHT_WILDS), (DARK, DARK_WILDS)):
        if code in wilds:
            return Face(code, side, NO_COLOR, code, 0, _POINTS[code], 400 + wilds.index(code))
    symbol, _, rest = code.partition("-")
    if symbol not in SYMBOLS or not rest:
        raise ValueError(f"unknown face code {code!r}")
    color = SYMBOLS.index(symbol)
    side = LIGHT if color < COLORS_PER_SIDE else DARK
    position = color % COLORS_PER_SIDE
    if rest.isdigit():
        number = int(rest)
        if not 1 <= number <= MAX_NUMBER:
            raise ValueError(f"unknown face code {code!r}")
        return Face(code, side, color, NUMBER, number, number, position * 100 + number)
    actions = LIGHT_ACTIONS if side == LIGHT else DARK_ACTIONS
    if rest not in actions:
        raise ValueError(f"unknown face code {code!r}")
    return Face(
        code, side, color, rest, 0, _POINTS[rest], position * 100 + 10 + actions.index(rest)
    )


def _load_deck() -> tuple[tuple[Face, ...], tuple[Face, ...]]:
    text = resources.files("flip").joinpath("data/flip-deck.csv").read_text(encoding="utf-8")
    light: list[Face] = []
    dark: list[Face] = []
    rows = csv.reader(io.StringIO(text))
    if next(rows)[:3] != ["card", "light", "dark"]:
        raise ValueError("flip-deck.csv must start with the columns card, light, dark")
    for expected, row in enumerate(rows):
        if int(row[0]) != expected:
            raise ValueError("flip-deck.csv must list cards 0..111 in order")
        light_face, dark_face = parse_face(row[1]), parse_face(row[2])
        if light_face.side != LIGHT or dark_face.side != DARK:
            raise ValueError(f"card {expected} has its faces on the wrong sides")
        light.append(light_face)
        dark.append(dark_face)
    if len(light) != DECK_SIZE:
        raise ValueError(f"flip-deck.csv holds {len(light)} cards, not {DECK_SIZE}")
    return tuple(light), tuple(dark)


#: ``FACES[side][card]``: the face of ``card`` on ``side``.
FACES: Final = _load_deck()

# Flat lookup tables for the engine's hot paths, indexed [side][card].
COLOR_OF: Final = tuple(tuple(f.color for f in faces) for faces in FACES)
KEY_OF: Final = tuple(tuple(f.match_key for f in faces) for faces in FACES)
KIND_OF: Final = tuple(tuple(f.kind for f in faces) for faces in FACES)
POINTS_OF: Final = tuple(tuple(f.points for f in faces) for faces in FACES)
SORT_OF: Final = tuple(tuple(f.sort_key for f in faces) for faces in FACES)
CODE_OF: Final = tuple(tuple(f.code for f in faces) for faces in FACES)
RESTRICTED_OF: Final = tuple(tuple(f.kind in RESTRICTED for f in faces) for faces in FACES)

#: Every distinct face code of a side, each with the cards that carry it.
CARDS_BY_FACE: Final[dict[str, tuple[Card, ...]]] = {}
for _side in (LIGHT, DARK):
    for _card, _face in zip(DECK, FACES[_side], strict=True):
        CARDS_BY_FACE[_face.code] = (*CARDS_BY_FACE.get(_face.code, ()), _card)


def color_name(color: int) -> ColorName | None:
    return None if color == NO_COLOR else COLORS[color]


def color_code(name: str) -> int:
    """The colour number of a colour name; ``ValueError`` for anything else."""
    try:
        return COLORS.index(name)
    except ValueError:
        raise ValueError(f"unknown colour {name!r}") from None


def sorted_hand(cards: Iterable[Card], side: int) -> list[Card]:
    """The hand in the order of ruling 13 on ``side``.

    Cards with the same face are ordered by card number: a deterministic
    internal order that no view ever shows (views order equal faces by their
    opaque handles). The specification's sample hand:

    >>> from flip.engine import cards_with_faces
    >>> hand = cards_with_faces(
    ...     ["wild", "wave-skip", "leaf-reverse", "sun-draw-one", "sun-9", "flame-flip", "flame-4"]
    ... )
    >>> [CODE_OF[LIGHT][card] for card in sorted_hand(hand, LIGHT)]
    ['flame-4', 'flame-flip', 'sun-9', 'sun-draw-one', 'leaf-reverse', 'wave-skip', 'wild']
    """
    return sorted(cards, key=_HAND_ORDER[side].__getitem__)


# ``sorted_hand``'s key, (sort key, card) as one number: ``_HAND_ORDER[side][card]``.
# Lists, not tuples: a list's bound ``__getitem__`` is a fast call, a tuple's is not.
_HAND_ORDER: Final = tuple([SORT_OF[side][c] * DECK_SIZE + c for c in DECK] for side in (0, 1))
_POINTS_LIST: Final = tuple(list(points) for points in POINTS_OF)


def hand_points(cards: Iterable[Card], side: int) -> int:
    return sum(map(_POINTS_LIST[side].__getitem__, cards))
