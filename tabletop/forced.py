"""Forced moves: the one legal action a seat has (issue 38, "forced moves played at once").

Both games share the definition: the seat to act is forced when the rules leave it
exactly one legal action. That covers a draw when nothing can be played, the one
card a player who can play must play, the drawn card that must be played, and, in
the classic game, a waiting penalty nothing answers. A choice that is part of an
action (a Wild's colour, a 7's target) makes several legal actions, so such a play
is never forced. The service plays a forced action at once only for a player who
asked for it: it is their own legal move, made sooner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar


class _State(Protocol):
    @property
    def current(self) -> int: ...

    @property
    def over(self) -> bool: ...


S = TypeVar("S", bound=_State)
A = TypeVar("A")


def forced(state: S, seat: int, legal_actions: Callable[[S, int], Sequence[A]]) -> A | None:
    """The action ``seat`` is forced to make in ``state`` (by the game's
    ``legal_actions``), or None: the game is over, the seat is not to act, or it
    has a choice."""
    if state.over or state.current != seat:
        return None
    legal = legal_actions(state, seat)
    return legal[0] if len(legal) == 1 else None
