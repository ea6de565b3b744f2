"""Client requests: the one place a request becomes an ``Action``.

A request is what a client sends to act, in the API's shape:
``{"type": ..., "card": <handle>, "color": <colour name>}``, ``card`` and
``color`` only where the action takes them (a ``None`` is the same as
leaving the field out). The service, the bot tournaments and anything else
that acts for a seat turn requests into actions here, so a request is refused
the same way wherever it comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .cards import COLORS, NO_CARD, NO_COLOR
from .engine import ACTION_TYPES, Action, shape_refusal
from .errors import RuleError
from .state import GameState
from .types import ActionType
from .views import card_for_handle

#: The fields a request may hold.
REQUEST_FIELDS: Final = frozenset({"type", "card", "color"})

_TYPES: Final[dict[str, ActionType]] = {kind: kind for kind in ACTION_TYPES}
_COLORS: Final[dict[str, int]] = {name: number for number, name in enumerate(COLORS)}


def parse_request(s: GameState, seat: int, data: object) -> Action:
    """The action ``data`` stands for when ``seat`` sends it now.

    Refuses with ``RuleError``, changing nothing, in this order: a request
    that is not an object of strings (``malformed_request``) or names another
    field (``unknown_field``); then the checks of ``flip.check`` that come
    before a card or colour is looked at (``game_over``, ``seat_not_in_game``,
    ``unknown_action``, ``card_required``, ``card_not_allowed``,
    ``color_not_allowed``, ``not_your_turn``); then a handle that names no
    card of the seat's hand (``card_not_in_hand``, a handle from before a flip
    included) and a name that is no colour (``color_not_in_side``). The
    action returned may still be refused by ``flip.apply`` for the rules
    themselves (a card that does not match, a colour of the other side...).

    >>> from flip import Options, new_game
    >>> state, _ = new_game(Options(seats=2), seed="must draw 48")  # seat 0 to act, must draw
    >>> parse_request(state, 0, {"type": "draw"})
    Action(type='draw', card=-1, color=-1)
    >>> parse_request(state, 1, {"type": "draw"})
    Traceback (most recent call last):
    ...
    flip.errors.RuleError: not_your_turn: It is not your turn.
    >>> parse_request(state, 0, {"type": "play", "card": 3})
    Traceback (most recent call last):
    ...
    flip.errors.RuleError: malformed_request: An action is an object ...
    """
    if not isinstance(data, Mapping):
        raise RuleError("malformed_request")
    for key in data:
        if key not in REQUEST_FIELDS:
            raise RuleError("unknown_field")
    kind = data.get("type")
    card = data.get("card")
    color = data.get("color")
    if (
        not isinstance(kind, str)
        or not (card is None or isinstance(card, str))
        or not (color is None or isinstance(color, str))
    ):
        raise RuleError("malformed_request")
    reason = shape_refusal(s, seat, kind, card is not None, color is not None)
    if reason is not None:
        raise RuleError(reason)
    number = NO_CARD if card is None else card_for_handle(s, seat, card)
    code = NO_COLOR
    if color is not None:
        if color not in _COLORS:
            raise RuleError("color_not_in_side")
        code = _COLORS[color]
    return Action(_TYPES[kind], number, code)  # shape_refusal knows the type
