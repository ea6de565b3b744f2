"""What a seat may do: the action types and ``Action``, the one value an action is.

Its own module because the state remembers legal actions
(``GameState.legal_memo``) and the engine makes them: both import it, and it
imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import COLORS, NO_CARD, NO_COLOR
from .types import ActionDict, ActionType, Card

PLAY: Final[ActionType] = "play"
DRAW: Final[ActionType] = "draw"
CHOOSE_COLOR: Final[ActionType] = "choose_color"
PASS: Final[ActionType] = "pass"  # noqa: S105 (an action's name, not a password)
LEAVE: Final[ActionType] = "leave"
ACTION_TYPES: Final[tuple[ActionType, ...]] = (PLAY, DRAW, CHOOSE_COLOR, PASS, LEAVE)


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a seat does. ``card`` (``NO_CARD``) and ``color`` (``NO_COLOR``)
    are -1 when not used; ``color`` is a colour number (``flip.COLORS``)."""

    type: ActionType
    card: Card = NO_CARD
    color: int = NO_COLOR

    def to_dict(self) -> ActionDict:
        data: ActionDict = {"type": self.type}
        if self.card >= 0:
            data["card"] = self.card
        if self.color != NO_COLOR:
            data["color"] = COLORS[self.color]
        return data

    @classmethod
    def from_dict(cls, data: ActionDict) -> Action:
        """The action ``to_dict`` wrote (a game record's or the move log's)."""
        color = data.get("color")
        return cls(
            type=data["type"],
            card=data.get("card", NO_CARD),
            color=NO_COLOR if color is None else COLORS.index(color),
        )


DRAW_ACTION: Final = Action(DRAW)
PASS_ACTION: Final = Action(PASS)
LEAVE_ACTION: Final = Action(LEAVE)

__all__ = [
    "ACTION_TYPES",
    "CHOOSE_COLOR",
    "DRAW",
    "DRAW_ACTION",
    "LEAVE",
    "LEAVE_ACTION",
    "PASS",
    "PASS_ACTION",
    "PLAY",
    "Action",
]
