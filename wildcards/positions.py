"""A finished game laid open, position by position, from its record.

``open_positions(record)`` plays a record again (every shuffle from the
record, as ``replay`` does) and yields the table after the deal and after
each recorded action with every hand face up: a record is published only once
the game is over, so nothing in it is secret any more. The web client's
replay steps through these positions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final, NotRequired, TypedDict

from .cards import CODE_OF, COLORS, sorted_hand
from .engine import apply
from .record import recorded_actions, start
from .state import GameState
from .types import (
    ActionType,
    DirectionName,
    DrawPileView,
    Event,
    FaceCode,
    Pending,
    RankingEntry,
    RoundResultView,
)
from .views import event_view, result_view


class TakenAction(TypedDict):
    """A recorded action as the replay shows it: its card by face."""

    seat: int
    source: str
    stand_in: NotRequired[str]
    type: ActionType
    face: NotRequired[FaceCode]
    color: NotRequired[str]
    target: NotRequired[int]


class Position(TypedDict):
    """The table after a step of a finished game, every hand face up."""

    step: int
    action: TakenAction | None
    events: list[Event]
    hands: list[list[FaceCode]]
    in_game: list[bool]
    round: int
    dealer: int
    to_act: int | None
    direction: DirectionName
    color: str | None
    discard_pile: list[FaceCode]
    draw_pile: DrawPileView
    pending: Pending | None
    penalty: int
    scores: list[int]
    rounds: list[RoundResultView]
    ranking: list[RankingEntry]
    over: bool
    winner: int | None


_DIRECTIONS: Final[dict[int, DirectionName]] = {1: "clockwise", -1: "counterclockwise"}


def _position(s: GameState, step: int, action: TakenAction | None, events: list[Event]) -> Position:
    # Every card is public now: each event as the seat it concerns saw it.
    opened = []
    for event in events:
        seat = event.get("seat")
        seen = event_view(event, seat if isinstance(seat, int) else 0)
        if seen is not None:
            opened.append(seen)
    running = not s.over
    return Position(
        step=step,
        action=action,
        events=opened,
        hands=[[CODE_OF[c] for c in sorted_hand(held)] for held in s.hands],
        in_game=s.active[:],
        round=s.round,
        dealer=s.dealer,
        to_act=s.current if running else None,
        direction=_DIRECTIONS[s.direction],
        color=COLORS[s.color] if s.color >= 0 else None,
        discard_pile=[CODE_OF[c] for c in s.discard],
        draw_pile=DrawPileView(count=len(s.draw)),
        pending=s.pending if running else None,
        penalty=s.penalty,
        scores=s.scores[:],
        rounds=[result_view(r, 0) for r in s.results],
        ranking=s.ranking[:],
        over=s.over,
        winner=s.winner,
    )


def open_positions(data: Mapping[str, Any]) -> Iterator[Position]:
    """The position after the deal (step 0), then after each recorded action.

    Raises ``ValueError`` for a record that is malformed or does not replay.

    >>> from wildcards import Options, Recorder, new_game
    >>> state, events = new_game(Options(seats=2), seed="doc")
    >>> [p["step"] for p in open_positions(Recorder(state.options, state.seed, events).to_dict())]
    [0]
    """
    state, events, orders = start(data)
    yield _position(state, 0, None, events)
    for step, (seat, action, entry) in enumerate(recorded_actions(data), start=1):
        taken: TakenAction = {"seat": seat, "source": str(entry["source"]), "type": action.type}
        if action.card >= 0:
            taken["face"] = CODE_OF[action.card]
        if action.color >= 0:
            taken["color"] = COLORS[action.color]
        if action.target >= 0:
            taken["target"] = action.target
        if "stand_in" in entry:
            taken["stand_in"] = str(entry["stand_in"])
        state, events = apply(state, seat, action, inplace=True, shuffles=orders)
        yield _position(state, step, taken, events)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
