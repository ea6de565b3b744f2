"""Bots for classic Wild Cards: Easy, Normal and Hard. Each reads only what its seat sees.

``choose(view, level, rng, history, levels)`` takes the value
``wildcards.view(state, seat)`` returns, the round's public history
(``wildcards.history.public_history``: what a person in the seat saw happen)
and which seats are bots of which level, and answers one of that view's
legal actions in the request shape (``wildcards.parse_request``), or None:
nothing to do, or, for a seat that is not to act and may jump in, "no"
(ruling 21: a bot decides once, from the view). All its randomness comes
from ``rng``; a bot keeps nothing between calls and never reads a clock.

``LEVELS``: the levels, weakest first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from . import easy, hard, normal
from .base import History, Levels

LEVELS: Final = ("easy", "normal", "hard")

Chooser = Callable[[Mapping[str, Any], random.Random, History, Levels], dict[str, Any] | None]
_CHOOSERS: Final[dict[str, Chooser]] = {
    "easy": easy.choose,
    "normal": normal.choose,
    "hard": hard.choose,
}


def choose(
    view: Mapping[str, Any],
    level: str,
    rng: random.Random,
    history: History = None,
    levels: Levels = None,
) -> dict[str, Any] | None:
    """The request a bot of ``level`` sends from ``view``, or None (nothing to do);
    Easy ignores ``history`` and ``levels``."""
    try:
        chooser = _CHOOSERS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}") from None
    return chooser(view, rng, history, levels)
