"""Flip's forced moves (``tabletop.forced``): a draw when nothing can be played, the one
card a player may play, and the drawn card that must be played (section "When nothing
is playable"). A Wild's colour is part of its play, so a Wild is one of several legal
actions and never forced."""

from __future__ import annotations

from tabletop.forced import forced

from .actions import Action
from .engine import legal_actions
from .state import GameState


def forced_action(state: GameState, seat: int) -> Action | None:
    """The action ``seat`` must make now and needs no choice for, or None."""
    return forced(state, seat, legal_actions)
