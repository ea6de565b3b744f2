"""The Easy bot: a uniformly random legal action, from the seat's view only.

It reads ``view["legal_actions"]`` (each Wild's colours and each 7's targets
listed there) and answers in the request shape. Out of turn, the view lists
only a jump-in (R21: a bot may jump in like anyone): Easy always takes it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .base import requests_of


def choose(view: Mapping[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A uniformly random request among the legal ones, or None when there is none.

    >>> choose({"legal_actions": [{"type": "draw"}]}, random.Random(0))
    {'type': 'draw'}
    >>> choose({"legal_actions": []}, random.Random(0)) is None
    True
    """
    options = requests_of(view)
    return rng.choice(options) if options else None
