"""What every bot shares: the interface, and reading a seat's view.

A bot is handed the value ``flip.view(state, seat)`` returns for its seat and,
to remember, ``flip.flip_memory(state, seat)`` (what that seat saw when the
table last turned over) and ``flip.public_history(state, seat)`` (what it saw
happen this round); and, as anyone at the table is told, which seats are bots
and of which level (``levels``). Nothing else. It answers with one of the
view's legal actions in the API's request shape. All its randomness comes
from its own ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from flip.cards import CARDS_BY_FACE, COLORS, DARK, FACES, LIGHT, NO_COLOR, SIDE_COLORS, SIDES, Face
from flip.history import History
from tabletop.seats import next_in_game

View = Mapping[str, Any]
Request = dict[str, Any]
#: Who plays each seat, as the table shows it to everyone (the API's ``bot_level``),
#: indexed by seat number: a bot's level, or None for a person.
Levels = Sequence[str | None]

LEVELS: Final = ("easy", "normal", "hard")

#: Every face code of both sides, parsed once.
FACE_BY_CODE: Final[dict[str, Face]] = {f.code: f for side in FACES for f in side}
SIDE_BY_NAME: Final[dict[str, int]] = {name: i for i, name in enumerate(SIDES)}

#: For a face code, the faces on the other side of the cards that carry it,
#: one entry per card (the public pairing table, ``flip/data/flip-deck.csv``).
OTHER_FACES: Final[dict[str, tuple[Face, ...]]] = {
    code: tuple(FACES[DARK if FACE_BY_CODE[code].side == LIGHT else LIGHT][c] for c in cards)
    for code, cards in CARDS_BY_FACE.items()
}


class Bot:
    """A player that chooses between the legal actions of its seat's view."""

    level: str = "bot"

    def __init__(self, seed: str | int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(
        self,
        view: View,
        memory: View | None = None,
        history: History | None = None,
        levels: Levels | None = None,
    ) -> Request:
        """One of ``view["legal_actions"]`` in the API's request shape.

        ``memory`` is ``flip.flip_memory(state, seat)``: what the seat saw
        when the table last turned over; ``history`` is
        ``flip.public_history(state, seat)``: what it saw happen this round.
        A person in the seat would remember both. ``levels`` says who plays
        each seat, as the table tells everyone at it: ``levels[seat]`` is
        ``"easy"``, ``"normal"`` or ``"hard"`` for a seat a bot plays, None
        for a person. A bot plays without any of them, only less well.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


def check_levels(view: View, levels: Levels) -> None:
    """Refuse ``levels`` unless it names one level or None for each seat of ``view``."""
    if len(levels) != view["seats"]:
        raise ValueError(f"levels names {len(levels)} seats; the table has {view['seats']}")
    for level in levels:
        if level is not None and level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}")


def request(kind: str, card: str | None = None, color: str | None = None) -> Request:
    out: Request = {"type": kind}
    if card is not None:
        out["card"] = card
    if color is not None:
        out["color"] = color
    return out


def only_choice(view: View) -> Request | None:
    """The request when the view leaves exactly one thing to do, else None."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the view has no legal action: it is not this seat's turn")
    if len(legal) == 1:
        entry = legal[0]
        colors = entry.get("colors")
        if colors is None:
            return request(entry["type"], entry.get("card"))
        if len(colors) == 1:
            return request(entry["type"], entry.get("card"), colors[0])
    return None


def next_seat(players: list[dict[str, Any]], seat: int, direction: int) -> int:
    """The next seat still in the game after ``seat`` going ``direction`` (``seat``
    itself when nobody else is), from a view's ``players``."""
    return next_in_game([bool(player["in_game"]) for player in players], seat, direction)


def direction_of(view: View) -> int:
    return 1 if view["direction"] == "clockwise" else -1


def color_counts(faces: list[Face], side: int) -> dict[int, int]:
    counts = dict.fromkeys(SIDE_COLORS[side], 0)
    for f in faces:
        if f.color != NO_COLOR:
            counts[f.color] += 1
    return counts


def color_weights(faces: list[Face], side: int) -> dict[int, float]:
    """How much of each colour of ``side`` ``faces`` hold: a card each, its points breaking ties."""
    counts = dict.fromkeys(SIDE_COLORS[side], 0.0)
    for f in faces:
        if f.color != NO_COLOR:
            counts[f.color] += 1.0 + f.points / 100.0
    return counts


def best_color(names: list[str], faces: list[Face], side: int, rng: random.Random) -> str:
    """Of ``names``, the colour ``faces`` hold most of (points break ties, then rng)."""
    counts = color_weights(faces, side)
    return max(names, key=lambda name: (counts.get(COLORS.index(name), 0.0), rng.random()))
