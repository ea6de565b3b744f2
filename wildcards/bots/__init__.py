"""Bots for classic Wild Cards: Easy, Normal and Hard. Each reads only its seat's view.

``choose(view, level, rng)`` takes the value ``wildcards.view(state, seat)``
returns and answers one of that view's legal actions in the request shape
(``wildcards.parse_request``), or None: nothing to do, or, for a seat that
is not to act and may jump in, "no" (ruling 21: a bot decides once, from the
view). All its randomness comes from ``rng``; a bot keeps nothing between
calls and never reads a clock.

``LEVELS``: the levels, weakest first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from . import easy, hard, normal

LEVELS: Final = ("easy", "normal", "hard")

_CHOOSERS: Final[dict[str, Callable[[Mapping[str, Any], random.Random], dict[str, Any] | None]]] = {
    "easy": easy.choose,
    "normal": normal.choose,
    "hard": hard.choose,
}


def choose(view: Mapping[str, Any], level: str, rng: random.Random) -> dict[str, Any] | None:
    """The request a bot of ``level`` sends from ``view``, or None (nothing to do)."""
    try:
        chooser = _CHOOSERS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}") from None
    return chooser(view, rng)
