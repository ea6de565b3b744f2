"""The registry of rulesets: the only door from the service to a game's rules.

The games the service hosts are named by ``GAMENOOK_GAMES``, a list of
dotted paths to objects satisfying ``tabletop.ruleset.Ruleset`` (Flip's is
``flip.ruleset.RULESET``). Nothing in ``games``, ``notifications``, ``live``
or ``web`` imports a game package by name (import-linter says so): adding a
game means writing its package and naming its ruleset in the setting.

A table's game is chosen when it is created and named on the table
(``Table.game``), in its snapshot and in its move log.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.module_loading import import_string

from tabletop.ruleset import GameState, Ruleset

from . import conf

#: The game a table plays when its creator does not say (and every table from before
#: there were several games).
DEFAULT_GAME = "flip"


class UnknownGame(LookupError):
    """No ruleset of that id is registered."""


@cache
def _registry() -> dict[str, Ruleset]:
    found: dict[str, Ruleset] = {}
    for path in conf.game_rulesets():
        ruleset: Ruleset = import_string(path)
        if ruleset.id in found:
            raise ValueError(f"two rulesets have the id {ruleset.id!r}")
        found[ruleset.id] = ruleset
    return found


def rulesets() -> list[Ruleset]:
    """Every game the service hosts, in the order of the setting."""
    return list(_registry().values())


def game_ids() -> list[str]:
    return list(_registry())


def ruleset(game: str) -> Ruleset:
    """The ruleset of ``game``; ``UnknownGame`` if the service hosts no such game."""
    try:
        return _registry()[game]
    except KeyError:
        raise UnknownGame(game) from None


def restore(game: str, snapshot: dict[str, Any]) -> GameState:
    """The state of a table of ``game`` from its stored snapshot."""
    return ruleset(game).restore(snapshot)
