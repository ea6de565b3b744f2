"""The 108 cards of classic Wild Cards and everything fixed about them.

A card is an ``int`` from 0 to 107 (ruling 2): per colour (Red, Yellow,
Green, Blue) the 0, two each of 1 to 9, two Skips, two Reverses and two
Draw 2s; then the four Wilds and the four Wild Draw 4s. The number is the
engine's own identity; a client only ever sees faces and handles. Everything
about a card is precomputed here into tuples indexed by card, so the hot
paths do lookups, not string work.

>>> CODE_OF[0], CODE_OF[24], CODE_OF[100], CODE_OF[107]
('red-0', 'red-draw2', 'wild', 'wild-draw4')
>>> parse_face("flame-7"), parse_face("wave-skip")
('red-7', 'blue-skip')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

COLORS: Final = ("red", "yellow", "green", "blue")
#: Each colour's symbol, so that no face relies on colour alone.
SYMBOLS: Final = ("flame", "sun", "leaf", "wave")
NO_COLOR: Final = -1
NO_CARD: Final = -1

#: Kinds, in the sort order within a colour after the numbers (ruling 2).
KIND_NAMES: Final = ("number", "skip", "reverse", "draw2", "wild", "wild-draw4")
NUMBER, SKIP, REVERSE, DRAW2, WILD, WILD_DRAW4 = range(len(KIND_NAMES))

DECK_SIZE: Final = 108
PER_COLOR: Final = 25
HAND_SIZE: Final = 7
#: Cards a penalty card makes the next player draw.
PENALTY_OF: Final = {DRAW2: 2, WILD_DRAW4: 4}


def _kind_and_number(card: int) -> tuple[int, int, int]:
    """``(colour, kind, number)`` of ``card``; number -1 for an action card."""
    if card >= 4 * PER_COLOR:
        return NO_COLOR, WILD if card < 4 * PER_COLOR + 4 else WILD_DRAW4, -1
    color, at = divmod(card, PER_COLOR)
    if at <= 18:  # noqa: PLR2004 (the 0 and two each of 1-9)
        return color, NUMBER, (at + 1) // 2
    return color, SKIP + (at - 19) // 2, -1


_ALL: Final = tuple(_kind_and_number(c) for c in range(DECK_SIZE))
DECK: Final[tuple[int, ...]] = tuple(range(DECK_SIZE))
COLOR_OF: Final[tuple[int, ...]] = tuple(c for c, _, _ in _ALL)
KIND_OF: Final[tuple[int, ...]] = tuple(k for _, k, _ in _ALL)
NUMBER_OF: Final[tuple[int, ...]] = tuple(n for _, _, n in _ALL)
#: What a card matches by besides colour: its number (0-9) or its action
#: (10 + kind); -1 for Wilds, which nothing matches by number or action.
KEY_OF: Final[tuple[int, ...]] = tuple(
    -1 if k >= WILD else (n if k == NUMBER else 10 + k) for _, k, n in _ALL
)
#: A face as a small number: equal faces, equal numbers (jump-in's "identical").
FACE_OF: Final[tuple[int, ...]] = tuple(
    52 + k - WILD if k >= WILD else c * 13 + KEY_OF[i] for i, (c, k, _) in enumerate(_ALL)
)
CODE_OF: Final[tuple[str, ...]] = tuple(
    KIND_NAMES[k] if k >= WILD else f"{COLORS[c]}-{n if k == NUMBER else KIND_NAMES[k]}"
    for c, k, n in _ALL
)
POINTS_OF: Final[tuple[int, ...]] = tuple(
    50 if k >= WILD else (n if k == NUMBER else 20) for _, k, n in _ALL
)
#: The card's place in a sorted hand (ruling 2): face first, equal faces by id.
SORT_OF: Final[tuple[int, ...]] = tuple(FACE_OF[c] * 128 + c for c in DECK)
#: The other card with the same face, for a jump-in; -1 for a 0 and the Wilds
#: (a 0 exists once per colour; Wilds never qualify).
TWIN_OF: Final[tuple[int, ...]] = tuple(
    next((o for o in DECK if o != c and FACE_OF[o] == FACE_OF[c]), NO_CARD)
    if KIND_OF[c] < WILD
    else NO_CARD
    for c in DECK
)
#: The cards of each face code.
CARDS_BY_FACE: Final[dict[str, tuple[int, ...]]] = {
    code: tuple(c for c in DECK if CODE_OF[c] == code) for code in dict.fromkeys(CODE_OF)
}
FACES: Final[tuple[str, ...]] = tuple(
    sorted(CARDS_BY_FACE, key=lambda f: SORT_OF[CARDS_BY_FACE[f][0]])
)


def parse_face(code: str) -> str:
    """A face code, accepting a colour's symbol for its name (the text's ``flame-3``).

    >>> parse_face("sun-0"), parse_face("wild")
    ('yellow-0', 'wild')
    """
    head, _, rest = code.partition("-")
    if head in SYMBOLS:
        code = f"{COLORS[SYMBOLS.index(head)]}-{rest}"
    if code not in CARDS_BY_FACE:
        raise ValueError(f"no face {code!r}")
    return code


def sorted_hand(cards: Iterable[int]) -> list[int]:
    """``cards`` in the order of ruling 2: the ids are numbered in that order
    (``SORT_OF`` grows with the id), so the ids sorted are the hand sorted.

    >>> [CODE_OF[c] for c in sorted_hand(cards_with_faces(["wild", "sun-skip", "red-9"]))]
    ['red-9', 'yellow-skip', 'wild']
    """
    return sorted(cards)


def hand_points(cards: Iterable[int]) -> int:
    """The points ``cards`` count left in a hand at the end of a round."""
    return sum(map(POINTS_OF.__getitem__, cards))


def cards_with_faces(codes: Iterable[str], taken: set[int] | None = None) -> list[int]:
    """Cards carrying the given face codes (``red-5`` or the text's ``flame-5``),
    each card used once; ``taken`` (updated) holds cards already used. For
    setting up the text's examples in tests and docs.

    >>> cards_with_faces(["red-1", "flame-1", "wild"])
    [1, 2, 100]
    """
    used: set[int] = set() if taken is None else taken
    found: list[int] = []
    for code in codes:
        free = [c for c in CARDS_BY_FACE[parse_face(code)] if c not in used]
        if not free:
            raise ValueError(f"no card left with face {code!r}")
        used.add(free[0])
        found.append(free[0])
    return found
