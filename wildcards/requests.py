"""Client requests: the one place a request becomes an ``Action``.

A request is what a client sends to act, in the API's shape:
``{"type", "card": <handle>, "color": <colour name>, "target": <seat>}``,
each field only where the action takes it (a ``None`` is the same as leaving
it out). The service and the bots turn requests into actions here, so a
request is refused the same way wherever it comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from .actions import REQUEST_TYPES, Action
from .cards import COLORS, NO_CARD, NO_COLOR
from .engine import form_refusal
from .errors import RuleError
from .state import GameState
from .types import ActionType
from .views import card_for_handle

#: The fields a request may hold.
REQUEST_FIELDS: Final = frozenset({"type", "card", "color", "target"})
_TYPES: Final[dict[str, ActionType]] = {kind: kind for kind in REQUEST_TYPES}
#: What each field's value must be: names are strings, a target a seat number.
_FIELD_TESTS: Final[dict[str, Callable[[object], bool]]] = {
    "type": lambda value: isinstance(value, str),
    "card": lambda value: isinstance(value, str),
    "color": lambda value: isinstance(value, str),
    "target": lambda value: type(value) is int and value >= 0,
}


def parse_request(s: GameState, seat: int, data: object) -> Action:
    """The action ``data`` stands for when ``seat`` sends it now.

    Refuses with ``RuleError``, changing nothing, in the order of R33: a
    request that is not an object of the right types (``malformed_request``,
    ``unknown_field``); ``game_over``; ``seat_not_in_game``; its form
    (``bad_action``, ``leave`` included: the service leaves a seat;
    ``card_required``...); a handle naming no card of the seat's hand
    (``card_not_in_hand``); a colour that is no colour (``bad_color``). The
    action may still be refused by ``apply`` for the rules themselves.

    >>> from wildcards import Options, new_game
    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> parse_request(state, 0, {"type": "dance"})
    Traceback (most recent call last):
    ...
    wildcards.errors.RuleError: bad_action: That is not an action of this game.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        raise RuleError("malformed_request")
    if not REQUEST_FIELDS.issuperset(data):
        raise RuleError("unknown_field")
    given = {name: value for name, value in data.items() if value is not None}
    if not all(_FIELD_TESTS[name](value) for name, value in given.items()):
        raise RuleError("malformed_request")
    kind: str = given["type"]
    reason = (
        "game_over"
        if s.over
        else "seat_not_in_game"
        if not (0 <= seat < s.seats and s.active[seat])
        else "bad_action"
        if kind not in _TYPES
        else form_refusal(kind, "card" in given, "color" in given, "target" in given)
    )
    if reason is not None:
        raise RuleError(reason)
    if given.get("color", COLORS[0]) not in COLORS:
        raise RuleError("bad_color")
    return Action(
        _TYPES[kind],
        card_for_handle(s, seat, given["card"]) if "card" in given else NO_CARD,
        COLORS.index(given["color"]) if "color" in given else NO_COLOR,
        given.get("target", -1),
    )
