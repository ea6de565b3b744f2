"""A finished game laid open, position by position, from its record.

``open_positions(record)`` plays a record again (taking every shuffle from it,
as ``flip.record.replay`` does) and yields the table after the deal and after
each recorded action with every hand face up: the record is published only
once the game is over, so nothing in it is secret any more. The web client's
replay steps through these positions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, NotRequired, TypedDict, cast

from .cards import CODE_OF, COLORS, SIDES, sorted_hand
from .engine import Action, apply, new_game
from .record import FORMAT, VERSION
from .state import GameState, Options
from .types import (
    ActionType,
    ColorName,
    DirectionName,
    DrawPileView,
    Event,
    FaceCode,
    GameRecord,
    Pending,
    RankingEntry,
    RoundResultView,
    Seat,
    SeenEvent,
    SideName,
    Source,
    StandIn,
)
from .views import event_view, result_view


class TakenAction(TypedDict):
    """A recorded action as the replay shows it: its card by face."""

    seat: Seat
    source: Source
    stand_in: NotRequired[StandIn]
    type: ActionType
    face: NotRequired[FaceCode]
    color: NotRequired[ColorName]


class Position(TypedDict):
    """The table after a step of a finished game, every hand face up."""

    step: int
    round: int
    dealer: Seat
    side: SideName
    color: ColorName | None
    direction: DirectionName
    to_act: Seat | None
    pending: Pending | None
    hands: list[list[FaceCode]]
    in_game: list[bool]
    discard_pile: list[FaceCode]
    draw_pile: DrawPileView
    scores: list[int]
    rounds: list[RoundResultView]
    action: TakenAction | None
    events: list[SeenEvent]
    over: bool
    winner: Seat | None
    ranking: list[RankingEntry]


_DIRECTIONS: Final[dict[int, DirectionName]] = {1: "clockwise", -1: "counterclockwise"}


def _open_event(event: Event) -> SeenEvent | None:
    """``event`` with every card it names shown: a draw by the face its drawer saw."""
    seat = event.get("seat")
    return event_view(event, seat if isinstance(seat, int) else 0)


def _position(s: GameState, step: int, action: TakenAction | None, events: list[Event]) -> Position:
    side = s.side
    codes = CODE_OF[side]
    opened = [seen for e in events if (seen := _open_event(e)) is not None]
    return {
        "step": step,
        "round": s.round,
        "dealer": s.dealer,
        "side": SIDES[side],
        "color": None if s.color < 0 else COLORS[s.color],
        "direction": _DIRECTIONS[s.direction],
        "to_act": None if s.over else s.current,
        "pending": None if s.over else s.pending,
        "hands": [[codes[c] for c in sorted_hand(hand, side)] for hand in s.hands],
        "in_game": list(s.active),
        "discard_pile": [codes[c] for c in s.discard],
        "draw_pile": {
            "count": len(s.draw),
            "top": CODE_OF[side ^ 1][s.draw[-1]] if s.draw else None,
        },
        "scores": list(s.scores),
        "rounds": [result_view(r) for r in s.results],
        "action": action,
        "events": opened,
        "over": s.over,
        "winner": s.winner,
        "ranking": list(s.ranking),
    }


def open_positions(data: Mapping[str, object]) -> Iterator[Position]:
    """Yield the position after the deal (step 0), then after each recorded action.

    Each position holds every hand's faces on the side in play, sorted; the
    discard pile bottom to top; the draw pile's count and top card's other
    face; the action taken (``{"seat", "source", "stand_in"?, "type", "face"?,
    "color"?}``)
    and the events it caused, every card shown. Raises ``ValueError`` for a
    record that is malformed or does not replay.

    >>> from flip import Recorder
    >>> state, events = new_game(Options(seats=2), seed="doc")
    >>> [p["step"] for p in open_positions(Recorder(state.options, state.seed, events).to_dict())]
    [0]
    """
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError("not a Wild Cards Flip game record of a known version")
    record = cast(GameRecord, data)  # its format and version say so
    orders = iter([list(s["order"]) for s in record["shuffles"]])
    state, events = new_game(Options.from_dict(record["options"]), record["seed"], shuffles=orders)
    yield _position(state, 0, None, events)
    for step, entry in enumerate(record["actions"], start=1):
        action = Action.from_dict(entry)
        taken: TakenAction = {"seat": entry["seat"], "source": entry["source"], "type": action.type}
        if action.card >= 0:
            taken["face"] = CODE_OF[state.side][action.card]
        if "color" in entry:
            taken["color"] = entry["color"]
        if "stand_in" in entry:
            taken["stand_in"] = entry["stand_in"]
        state, events = apply(state, entry["seat"], action, inplace=True, shuffles=orders)
        yield _position(state, step, taken, events)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
