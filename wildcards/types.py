"""The shapes of wildcards' boundary: what goes in, what comes out.

Every value here is plain JSON at run time (a TypedDict is a dict). Engine
events (``Event``) name cards by number and are secret; ``events_view``
turns them into what a seat or a watcher may see. Views name a seat's own
cards by ``Handle`` and every card by its face code.

No ``from __future__ import annotations``: the keys must be readable at run time.
"""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

Handle: TypeAlias = str
FaceCode: TypeAlias = str
ActionType: TypeAlias = Literal["play", "draw", "take_penalty", "pass", "choose_color", "leave"]
ColorName: TypeAlias = Literal["red", "yellow", "green", "blue"]
DirectionName: TypeAlias = Literal["clockwise", "counterclockwise"]
#: A decision the seat to act must take before anything else.
Pending: TypeAlias = Literal["choose_color", "play_drawn", "penalty"]
Scoring: TypeAlias = Literal["single", "target"]
#: An engine event: a dict with a ``type`` (cards by number: never served as it is).
Event: TypeAlias = dict[str, Any]


class OptionsDict(TypedDict):
    seats: int
    scoring: Scoring
    target: int
    stacking: bool
    seven_zero: bool
    jump_in: bool
    draw_until_playable: bool
    first_dealer: int


class ActionDict(TypedDict):
    type: ActionType
    card: NotRequired[int]
    color: NotRequired[ColorName]
    target: NotRequired[int]


class Request(TypedDict, total=False):
    """What a client sends (``wildcards.parse_request``)."""

    type: str
    card: Handle
    color: ColorName
    target: int


class HandResult(TypedDict):
    seat: int
    cards: list[int]
    points: int


class RoundResult(TypedDict):
    round: int
    winner: int | None
    points: int
    blocked: bool
    interrupted: bool
    hands: list[HandResult]


class RankingEntry(TypedDict):
    seat: int
    rank: int
    score: int
    left: bool
    points_in_hand: int


class HandCardView(TypedDict):
    card: Handle
    face: FaceCode
    playable: bool
    refusal: NotRequired[str]
    jump_in: NotRequired[bool]


class PlayerView(TypedDict):
    seat: int
    count: int
    in_game: bool


class PendingView(TypedDict):
    type: Pending
    seat: int
    count: NotRequired[int]
    card: NotRequired[Handle]
    face: NotRequired[FaceCode]


class LegalActionView(TypedDict):
    type: ActionType
    card: NotRequired[Handle]
    colors: NotRequired[list[ColorName]]
    targets: NotRequired[list[int]]
    jump_in: NotRequired[bool]


class DrawPileView(TypedDict):
    count: int


class HandResultView(TypedDict):
    seat: int
    cards: list[FaceCode]
    points: int


class RoundResultView(TypedDict):
    round: int
    winner: int | None
    points: int
    blocked: bool
    interrupted: bool
    hands: NotRequired[list[HandResultView]]


class TableView(TypedDict):
    """What a seat and a watcher both see (a watcher's ``seat`` is None)."""

    seat: int | None
    players: list[PlayerView]
    hand: list[HandCardView]
    legal_actions: list[LegalActionView]
    seats: int
    round: int
    dealer: int
    turn: int
    to_act: int | None
    direction: DirectionName
    color: ColorName | None
    top: FaceCode | None
    discard_pile: list[FaceCode]
    draw_pile: DrawPileView
    pending: PendingView | None
    penalty: int
    jump_in_open: bool
    options: OptionsDict
    scores: list[int]
    rounds: list[RoundResultView]
    ranking: list[RankingEntry]
    over: bool
    winner: int | None


SeatView: TypeAlias = TableView
WatcherView: TypeAlias = TableView


class RecordedShuffle(TypedDict):
    round: int
    reason: str
    order: list[int]


class GameRecord(TypedDict):
    format: str
    version: int
    options: OptionsDict
    seed: str
    shuffles: list[RecordedShuffle]
    actions: list[dict[str, Any]]
