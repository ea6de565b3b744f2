"""Classic Wild Cards: the rules of ``seeds/001`` and its 36 rulings, pure Python.

The interface (in the shape of ``flip``):

- ``new_game(options, seed)`` and ``apply(state, seat, action)``, each
  returning the new state and the events it caused (``RuleError`` for a
  refused action, which changes nothing); ``check``; ``advance``, the
  unchecked in-place path for simulations (never a client's action);
- ``legal_actions(state, seat)`` for any seat (a seat not to act may jump
  in), derived like ``check``, the views and ``timeout_action`` (R24) from
  one matching rule, ``playable_cards``;
- ``view(state, seat)`` / ``watcher_view(state)`` and ``events_view``, the
  only way facts leave the engine; handles (``card_for_handle``) name a
  seat's own cards;
- ``parse_request(state, seat, data)``, the one way a client's request
  (``{"type", "card", "color", "target"}``) becomes an ``Action``;
- ``Recorder`` and ``replay`` (format ``gamenook-wildcards-record``),
  ``open_positions`` for a finished game's replay;
- ``RULESET`` (``wildcards.ruleset``), the ``tabletop.ruleset.Ruleset`` the
  service registers; the bots in ``wildcards.bots``;
- ``python -m wildcards simulate|bench``.
"""

from .actions import ACTION_TYPES, CHOOSE_COLOR, DRAW, LEAVE, PASS, PLAY, TAKE_PENALTY, Action
from .cards import CODE_OF, COLORS, DECK, SYMBOLS, cards_with_faces, parse_face, sorted_hand
from .engine import (
    advance,
    apply,
    can_draw,
    check,
    jump_in_card,
    legal_actions,
    match_codes,
    new_game,
    playable_cards,
    preferred_color,
    refusal,
    timeout_action,
)
from .errors import MESSAGES, REQUEST_MESSAGES, RuleError
from .positions import open_positions
from .record import FORMAT, VERSION, Recorder, replay
from .requests import REQUEST_FIELDS, parse_request
from .state import (
    PENDING_COLOR,
    PENDING_DRAWN,
    PENDING_PENALTY,
    SNAPSHOT_VERSION,
    GameState,
    Options,
)
from .views import card_for_handle, event_view, events_view, handle, view, watcher_view

__all__ = [
    "ACTION_TYPES",
    "CHOOSE_COLOR",
    "CODE_OF",
    "COLORS",
    "DECK",
    "DRAW",
    "FORMAT",
    "LEAVE",
    "MESSAGES",
    "PASS",
    "PENDING_COLOR",
    "PENDING_DRAWN",
    "PENDING_PENALTY",
    "PLAY",
    "REQUEST_FIELDS",
    "REQUEST_MESSAGES",
    "SNAPSHOT_VERSION",
    "SYMBOLS",
    "TAKE_PENALTY",
    "VERSION",
    "Action",
    "GameState",
    "Options",
    "Recorder",
    "RuleError",
    "advance",
    "apply",
    "can_draw",
    "card_for_handle",
    "cards_with_faces",
    "check",
    "event_view",
    "events_view",
    "handle",
    "jump_in_card",
    "legal_actions",
    "match_codes",
    "new_game",
    "open_positions",
    "parse_face",
    "parse_request",
    "playable_cards",
    "preferred_color",
    "refusal",
    "replay",
    "sorted_hand",
    "timeout_action",
    "view",
    "watcher_view",
]
