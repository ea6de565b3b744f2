"""Bots for Wild Cards Flip: Easy, Normal and Hard.

A bot sees exactly what its seat sees: ``make_bot(level, seed).choose(view)``
takes the value ``flip.view(state, seat)`` returns (and, optionally, what the
seat remembers and which seats are bots of which level, as the table tells
everyone: see ``Bot.choose``) and answers one of that view's legal actions in
the API's request shape::

    {"type": "play", "card": handle, "color": name}   # "color" only for a Wild
    {"type": "choose_color", "color": name}
    {"type": "draw"}
    {"type": "pass"}

A bot is deterministic given its seed, keeps no state it needs between calls
(a fresh instance per decision plays the same), and never reads a clock.
"""

from __future__ import annotations

from typing import Final

from .base import LEVELS, Bot, Levels, Request, View
from .easy import EasyBot
from .hard import HardBot
from .normal import NormalBot

_CLASSES: Final[dict[str, type[Bot]]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}


def make_bot(level: str, seed: str | int) -> Bot:
    """A bot of ``level`` (one of ``LEVELS``) with its own generator seeded by ``seed``."""
    try:
        cls = _CLASSES[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(LEVELS)}") from None
    return cls(seed)


__all__ = [
    "LEVELS",
    "Bot",
    "EasyBot",
    "HardBot",
    "Levels",
    "NormalBot",
    "Request",
    "View",
    "make_bot",
]
