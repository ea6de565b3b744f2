"""Wild Cards Flip: the rules, pure Python with no dependencies.

The narrow interface the service uses:

- ``new_game(options, seed)`` and ``apply(state, seat, action)``, each
  returning the new state and the events it caused;
- ``legal_actions(state, seat)``, every action a seat may take, derived
  like ``refusal``, ``check`` and ``timeout_action`` from one matching rule,
  ``playable_cards(state, hand)``; ``can_draw`` and ``preferred_color`` (the
  colour of PRODUCT.md ruling 4) for the bots;
- ``view(state, seat)`` / ``watcher_view(state)`` and ``events_view``, the
  only way facts leave the engine; ``flip_memory`` and ``public_history``,
  what a seat saw earlier in the round, for its own bot only;
- ``timeout_action(state)``, the plain move of PRODUCT.md ruling 4;
- ``parse_request(state, seat, data)``, the one way a client's request
  (``{"type", "card", "color"}``) becomes an ``Action``;
- ``Recorder`` and ``replay`` for game records.
"""

from .cards import COLORS, DARK, FACES, LIGHT, SIDES, Face, color_code, parse_face
from .engine import (
    ACTION_TYPES,
    CHOOSE_COLOR,
    DRAW,
    LEAVE,
    PASS,
    PLAY,
    Action,
    Event,
    apply,
    can_draw,
    check,
    hand_refusals,
    legal_actions,
    new_game,
    playable_cards,
    preferred_color,
    refusal,
    timeout_action,
)
from .errors import MESSAGES, REQUEST_MESSAGES, RuleError
from .history import public_history
from .record import Recorder, replay
from .requests import REQUEST_FIELDS, parse_request
from .state import PENDING_COLOR, PENDING_DRAWN, SNAPSHOT_VERSION, GameState, Options
from .views import (
    card_for_handle,
    event_view,
    events_view,
    flip_memory,
    handle,
    view,
    watcher_view,
)

__all__ = [
    "ACTION_TYPES",
    "CHOOSE_COLOR",
    "COLORS",
    "DARK",
    "DRAW",
    "FACES",
    "LEAVE",
    "LIGHT",
    "MESSAGES",
    "PASS",
    "PENDING_COLOR",
    "PENDING_DRAWN",
    "PLAY",
    "REQUEST_FIELDS",
    "REQUEST_MESSAGES",
    "SIDES",
    "SNAPSHOT_VERSION",
    "Action",
    "Event",
    "Face",
    "GameState",
    "Options",
    "Recorder",
    "RuleError",
    "apply",
    "can_draw",
    "card_for_handle",
    "check",
    "color_code",
    "event_view",
    "events_view",
    "flip_memory",
    "hand_refusals",
    "handle",
    "legal_actions",
    "new_game",
    "parse_face",
    "parse_request",
    "playable_cards",
    "preferred_color",
    "public_history",
    "refusal",
    "replay",
    "timeout_action",
    "view",
    "watcher_view",
]
