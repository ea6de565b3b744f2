"""Refusals. Every refused action raises a ``RuleError`` with a stable code.

A refused action changes nothing: the engine checks everything before it
touches a copy of the state. ``MESSAGES`` holds every code of ruling 33 with
a sentence a person understands; ``REQUEST_MESSAGES`` the refusals of a
request whose form is not an action at all (``wildcards.parse_request``).
"""

from __future__ import annotations

from typing import Final

from tabletop import ruleset

#: code -> the sentence a person reads (ruling 33, in its order).
MESSAGES: Final[dict[str, str]] = {
    "no_match": "That card matches neither the colour in play nor the top card's number or action.",
    "wild_draw4_blocked": (
        "You may only play a Wild Draw 4 when you hold no card of the colour in play."
    ),
    "penalty_waiting": (
        "A draw penalty is waiting: answer it with a matching draw card or take the cards."
    ),
    "must_play_drawn_card": "You drew a playable card and must play it now.",
    "must_play_playable": "You hold a playable card, so you must play one.",
    "must_draw": "You cannot pass while there is a card to draw.",
    "nothing_to_draw": "There is nothing left to draw; you may only pass.",
    "no_penalty": "No draw penalty is waiting for you.",
    "choose_color_first": "Choose the colour in play before anything else.",
    "no_color_to_choose": "There is no colour to choose now.",
    "not_your_turn": "It is not your turn.",
    "jump_in_closed": "Too late to jump in: a move was made since that card was played.",
    "jump_in_not_identical": (
        "You may only play out of turn with a card identical to the top card "
        "(same colour, same number or action)."
    ),
    "card_not_in_hand": "That card is not in your hand.",
    "color_required": "Say which colour play continues in.",
    "color_not_allowed": "Only a Wild's play or a colour choice names a colour.",
    "bad_color": "That is not a colour of the game (red, yellow, green or blue).",
    "target_required": "Choose the player to swap hands with.",
    "target_not_allowed": (
        "Only a 7 that is not your last card, with the 7-0 rule on, names a target."
    ),
    "bad_target": "You can only swap hands with another player still in the game.",
    "bad_action": "That is not an action of this game.",
    "seat_not_in_game": "That seat is not taking part in this game.",
    "round_over": "The round is over.",
    "round_in_progress": "That can only be done between rounds.",
    "game_over": "The game is over; no more moves can be made.",
    # The form of an action, before ruling 33's "turn" (not in the text's list).
    "card_required": "Say which card to play.",
    "card_not_allowed": "Only a play names a card.",
}

#: code -> sentence, for requests that do not have the form of an action.
REQUEST_MESSAGES: Final[dict[str, str]] = {
    "malformed_request": (
        'An action is an object with a "type" and, where it takes them, a "card" handle, '
        'a "color" name (strings) and a "target" seat (a whole number).'
    ),
    "unknown_field": 'An action names only its "type", a "card", a "color" and a "target".',
}


class RuleError(ruleset.RuleError):
    """The rules refuse an action: ``code`` (stable) and ``message`` (for people).

    >>> RuleError("no_penalty").as_dict()
    {'code': 'no_penalty', 'detail': 'No draw penalty is waiting for you.'}
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(code, message or MESSAGES.get(code) or REQUEST_MESSAGES.get(code, code))
