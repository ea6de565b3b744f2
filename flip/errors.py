"""Refusals. Every refused action raises a ``RuleError`` with a stable code.

A refused action changes nothing: the engine checks everything before it
touches a copy of the state, and the caller's state is never touched at all.
``MESSAGES`` holds the rules' refusals of an action; ``REQUEST_MESSAGES`` the
few refusals of a request whose form is not an action at all
(``flip.parse_request``).
"""

from __future__ import annotations

from typing import Final

from tabletop.ruleset import RuleError as BaseRuleError

from .types import RefusalCode

#: code -> the sentence a person reads.
# Keyed by str, not RefusalCode, so a code read from outside can be looked up;
# tests/flip/test_types.py checks that the keys are exactly RefusalCode's values.
MESSAGES: Final[dict[str, str]] = {
    "game_over": "The game is over; no more moves can be made.",
    "seat_not_in_game": "That seat is not taking part in this game.",
    "not_your_turn": "It is not your turn.",
    "unknown_action": "That is not an action of this game.",
    "card_not_in_hand": "That card is not in your hand.",
    "card_does_not_match": (
        "That card matches neither the colour in play nor the top card's number or action."
    ),
    "restricted_wild_blocked": (
        "You may only play this Wild when you hold no card of the colour in play."
    ),
    "must_play_drawn_card": "You drew a playable card and must play it now.",
    "must_play_when_able": "You hold a playable card, so you must play one instead.",
    "nothing_to_draw": "There is nothing left to draw; you may only pass.",
    "must_draw_first": "You cannot pass while there is a card to draw.",
    "card_required": "Say which card to play.",
    "card_not_allowed": "Only a play names a card.",
    "color_required": "Choose a colour for this Wild.",
    "color_not_in_side": "That colour is not a colour of the side in play.",
    "color_not_allowed": "Only a Wild's play or a colour choice takes a colour.",
    "color_must_be_chosen_first": "A colour must be chosen before anything else is played.",
    "no_color_to_choose": "There is no colour to choose now.",
}


#: code -> sentence, for requests that do not have the form of an action.
REQUEST_MESSAGES: Final[dict[str, str]] = {
    "malformed_request": (
        'An action is an object with a "type" and, where it takes them, a "card" handle '
        'and a "color" name, each a string.'
    ),
    "unknown_field": 'An action names only its "type", a "card" and a "color".',
}


class RuleError(BaseRuleError):
    """The rules refuse an action. ``code`` is stable; ``message`` is for people.

    Flip's own kind of ``tabletop.ruleset.RuleError``, so the service answers
    it like any game's refusal; a code's sentence is Flip's (``MESSAGES``,
    ``REQUEST_MESSAGES``) unless one is given.

    >>> RuleError("not_your_turn").as_dict()
    {'code': 'not_your_turn', 'detail': 'It is not your turn.'}
    """

    def __init__(self, code: RefusalCode, message: str | None = None) -> None:
        super().__init__(code, message or MESSAGES.get(code) or REQUEST_MESSAGES.get(code, code))
