"""The classic game's forced moves (``tabletop.forced``): a draw when nothing can be
played, a waiting penalty taken when nothing answers it, the drawn card that must be
played when it needs no colour or target (a Wild's colour and a 7's target are part of
the play, so such a play is one of several legal actions and never forced)."""

from __future__ import annotations

from tabletop.forced import forced

from .actions import Action
from .engine import legal_actions
from .state import GameState


def forced_action(state: GameState, seat: int) -> Action | None:
    """The action ``seat`` must make now and needs no choice for, or None."""
    return forced(state, seat, legal_actions)
