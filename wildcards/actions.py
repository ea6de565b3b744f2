"""Actions: what a seat does, as values the engine checks and applies.

Every play a legal-actions list can hold is built once here (``PLAYS``,
``SEVENS``), so listing legal actions allocates nothing but the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import COLOR_OF, COLORS, DECK, NO_CARD, NO_COLOR, NUMBER_OF
from .types import ActionDict, ActionType

#: In the order of the brief: a client sends any of these but ``leave``.
ACTION_TYPES: Final[tuple[ActionType, ...]] = (
    "play", "draw", "take_penalty", "pass", "choose_color", "leave"
)  # fmt: skip
PLAY, DRAW, TAKE_PENALTY, PASS, CHOOSE_COLOR, LEAVE = ACTION_TYPES
#: The action types a client may send (leaving goes through the service).
REQUEST_TYPES: Final = ACTION_TYPES[:-1]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a seat does. ``card``, ``color`` (a colour number) and ``target``
    (a seat: a 7's swap under the 7-0 rule) are -1 where the action takes none."""

    type: ActionType
    card: int = NO_CARD
    color: int = NO_COLOR
    target: int = -1

    def to_dict(self) -> ActionDict:
        """The action as the move log and a record keep it: colours by name."""
        out = ActionDict(type=self.type)
        if self.card != NO_CARD:
            out["card"] = self.card
        if self.color != NO_COLOR:
            out["color"] = COLORS[self.color]
        if self.target != -1:
            out["target"] = self.target
        return out

    @classmethod
    def from_dict(cls, data: ActionDict) -> Action:
        """The action ``to_dict`` gave; ``ValueError`` for a type or colour unknown here."""
        if data["type"] not in ACTION_TYPES:
            raise ValueError(f"no action {data['type']!r} in this game")
        name = data.get("color")
        if name is not None and name not in COLORS:
            raise ValueError(f"no colour {name!r} in this game")
        return cls(
            data["type"],
            data.get("card", NO_CARD),
            NO_COLOR if name is None else COLORS.index(name),
            data.get("target", -1),
        )


DRAW_ACTION: Final = Action(DRAW)
PASS_ACTION: Final = Action(PASS)
TAKE_PENALTY_ACTION: Final = Action(TAKE_PENALTY)
LEAVE_ACTION: Final = Action(LEAVE)
CHOOSE_ACTIONS: Final = tuple(Action(CHOOSE_COLOR, color=c) for c in range(len(COLORS)))
#: ``PLAYS[card]``: its plays without a target, a Wild's once per colour.
PLAYS: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(Action(PLAY, c, color) for color in range(len(COLORS)))
    if COLOR_OF[c] == NO_COLOR
    else (Action(PLAY, c),)
    for c in DECK
)
#: ``SEVENS[card][seat]``: a 7's play swapping with ``seat`` (the 7-0 rule).
SEVENS: Final[dict[int, tuple[Action, ...]]] = {
    c: tuple(Action(PLAY, c, target=seat) for seat in range(10))
    for c in DECK
    if NUMBER_OF[c] == 7  # noqa: PLR2004
}
