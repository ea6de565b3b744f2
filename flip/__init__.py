"""Wild Cards Flip: the rules, pure Python with no dependencies.

The narrow interface the service uses:

- ``new_game(options, seed)`` and ``apply(state, seat, action)``, each
  returning the new state and the events it caused;
- ``legal_actions(state, seat)``, the single source of truth for legality;
- ``view(state, seat)`` / ``watcher_view(state)`` and ``events_view``, the
  only way facts leave the engine; ``flip_memory`` and ``public_history``,
  what a seat saw earlier in the round, for its own bot only;
- ``timeout_action(state)``, the plain move of PRODUCT.md ruling 4;
- ``Recorder`` and ``replay`` for game records.
"""

from .cards import COLORS, DARK, FACES, LIGHT, SIDES, Face, color_code, parse_face
from .engine import (
    CHOOSE_COLOR,
    DRAW,
    LEAVE,
    PASS,
    PLAY,
    Action,
    Event,
    apply,
    check,
    legal_actions,
    new_game,
    refusal,
    timeout_action,
)
from .errors import MESSAGES, RuleError
from .history import public_history
from .record import Recorder, replay
from .state import PENDING_COLOR, PENDING_DRAWN, GameState, Options
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
    "SIDES",
    "Action",
    "Event",
    "Face",
    "GameState",
    "Options",
    "Recorder",
    "RuleError",
    "apply",
    "card_for_handle",
    "check",
    "color_code",
    "event_view",
    "events_view",
    "flip_memory",
    "handle",
    "legal_actions",
    "new_game",
    "parse_face",
    "public_history",
    "refusal",
    "replay",
    "timeout_action",
    "view",
    "watcher_view",
]
