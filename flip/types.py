"""The types of flip's boundary: what goes in, what comes out.

Every value here is a plain JSON-able ``dict``, ``list``, ``str``, ``int`` or
``bool`` at run time (a TypedDict is a dict, a NewType is its base type): the
types describe the shapes the service serves and stores, they do not change
them. Three families:

- the engine's own values: ``Card`` and ``Seat`` numbers, the raw ``Event``\\ s
  ``flip.apply`` returns (cards by number, sides by number: secret, never
  served during a round), ``RoundResult``, ``RankingEntry``, ``Snapshot``;
- what a seat or a watcher may see: ``SeatView``, ``WatcherView``,
  ``SeenEvent`` (``flip.event_view``), ``RoundResultView``, ``FlipMemory``;
  cards there are ``Handle``\\ s and face codes, colours and sides names;
- what a client sends: ``Request``.

No ``from __future__ import annotations`` here: the TypedDicts' keys and
types must be readable at run time (``__required_keys__``,
``typing.get_type_hints``), for tests and schema generators.
"""

from typing import Literal, NewType, NotRequired, TypeAlias, TypedDict

# ----------------------------------------------------------------------------
# Names and numbers

#: A physical card, 0..111: its row in ``data/flip-deck.csv``. Never shown to
#: a client during a round (PRODUCT.md ruling 10); -1 (``NO_CARD``) for none.
Card = NewType("Card", int)
#: A seat, 0..N-1 in the order the seats were taken (PRODUCT.md ruling 1).
Seat = NewType("Seat", int)
#: The opaque name of a card in its holder's view, stable until the next flip.
Handle = NewType("Handle", str)
#: A face code of PRODUCT.md ruling 3: ``flame-4``, ``wild-draw-color``...
FaceCode: TypeAlias = str

ActionType: TypeAlias = Literal["play", "draw", "choose_color", "pass", "leave"]
ColorName: TypeAlias = Literal[
    "red", "yellow", "green", "blue", "magenta", "cyan", "orange", "purple"
]
SideName: TypeAlias = Literal["light", "dark"]
DirectionName: TypeAlias = Literal["clockwise", "counterclockwise"]
#: A decision the seat to act must take before anything else.
Pending: TypeAlias = Literal["choose_color", "play_drawn"]
Scoring: TypeAlias = Literal["single", "target"]
#: Why cards were drawn: a turn's own draw, or a penalty card's.
DrawReason: TypeAlias = Literal["draw", "penalty"]
#: Why the engine shuffled: a round's deal, a starter that may not start, an empty draw pile.
ShuffleReason: TypeAlias = Literal["deal", "starter", "reshuffle"]
#: Where an action in a game record came from.
Source: TypeAlias = Literal["player", "timeout", "bot", "leave", "admin", "autopilot", "forced"]
#: Why a bot chose an action for a person's seat (PRODUCT.md rulings 18 and 21): its
#: player was away (the hold ran out), or struck out for the rest of the game.
StandIn: TypeAlias = Literal["away", "struck_out"]
#: The rules' refusals of an action (``flip.MESSAGES``) and of a request's form
#: (``flip.REQUEST_MESSAGES``).
RefusalCode: TypeAlias = Literal[
    "game_over",
    "seat_not_in_game",
    "not_your_turn",
    "unknown_action",
    "card_not_in_hand",
    "card_does_not_match",
    "restricted_wild_blocked",
    "must_play_drawn_card",
    "must_play_when_able",
    "nothing_to_draw",
    "must_draw_first",
    "card_required",
    "card_not_allowed",
    "color_required",
    "color_not_in_side",
    "color_not_allowed",
    "color_must_be_chosen_first",
    "no_color_to_choose",
    "malformed_request",
    "unknown_field",
]


class ErrorDict(TypedDict):
    """``RuleError.as_dict()``: the code and the sentence for a person."""

    code: RefusalCode
    detail: str


# ----------------------------------------------------------------------------
# Options, actions, results


class OptionsDict(TypedDict):
    seats: int
    two_seat_reverse_skips: bool
    scoring: Scoring
    target: int


class ActionDict(TypedDict):
    """``Action.to_dict()``: the action as a game record and the move log store it."""

    type: ActionType
    card: NotRequired[Card]
    color: NotRequired[ColorName]


class HandResult(TypedDict):
    """A hand left at the end of a round, valued on the scored side."""

    seat: Seat
    cards: list[Card]
    points: int


class RoundResult(TypedDict):
    """How a round ended (``side``: 0 light, 1 dark, the scored side)."""

    round: int
    winner: Seat | None
    points: int
    side: int
    blocked: bool
    interrupted: bool
    hands: list[HandResult]


class RankingEntry(TypedDict):
    seat: Seat
    rank: int
    score: int
    left: bool
    points_in_hand: int


class LastFlip(TypedDict):
    """What the table held when it last turned over this round (``GameState.last_flip``)."""

    side: int
    hands: list[list[Card]]
    discard: int
    shuffles: int


class Snapshot(TypedDict):
    """``GameState.to_dict()``: the whole game, for the service's database."""

    version: int
    options: OptionsDict
    seed: str
    shuffles: int
    round: int
    dealer: Seat
    side: int
    hands: list[list[Card]]
    draw: list[Card]
    discard: list[Card]
    color: int
    direction: int
    current: Seat
    pending: Pending | None
    drawn: Card
    active: list[bool]
    passed: list[Seat]
    turn: int
    flips: int
    last_flip: LastFlip | None
    actions: int
    history: str | None
    scores: list[int]
    left_points: list[int | None]
    left_order: list[Seat]
    results: list[RoundResult]
    over: bool
    winner: Seat | None
    ranking: list[RankingEntry]


# ----------------------------------------------------------------------------
# Raw events: what ``flip.apply`` and ``flip.new_game`` return. Cards by number.


class ShuffleEvent(TypedDict):
    type: Literal["shuffle"]
    reason: ShuffleReason
    round: int
    #: The pile top first: the order its cards come off it.
    order: list[Card]


class RoundStartEvent(TypedDict):
    type: Literal["round_start"]
    round: int
    dealer: Seat


class StarterEvent(TypedDict):
    type: Literal["starter", "starter_returned"]
    card: Card


class DrawEvent(TypedDict):
    type: Literal["draw"]
    seat: Seat
    cards: list[Card]
    side: int
    reason: DrawReason


class SeatEvent(TypedDict):
    """A seat lost its turn, or passed."""

    type: Literal["turn_lost", "pass"]
    seat: Seat


class PlayEvent(TypedDict):
    type: Literal["play"]
    seat: Seat
    card: Card
    side: int
    color: NotRequired[ColorName]


class ReverseEvent(TypedDict):
    type: Literal["reverse"]
    direction: int


class FlipEvent(TypedDict):
    type: Literal["flip"]
    side: int


class ChooseColorEvent(TypedDict):
    type: Literal["choose_color"]
    seat: Seat
    color: ColorName


class LeaveEvent(TypedDict):
    type: Literal["leave"]
    seat: Seat
    count: int


class RoundEndEvent(TypedDict):
    type: Literal["round_end"]
    result: RoundResult


class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    winner: Seat | None
    ranking: list[RankingEntry]


Event: TypeAlias = (
    ShuffleEvent
    | RoundStartEvent
    | StarterEvent
    | DrawEvent
    | SeatEvent
    | PlayEvent
    | ReverseEvent
    | FlipEvent
    | ChooseColorEvent
    | LeaveEvent
    | RoundEndEvent
    | GameOverEvent
)


# ----------------------------------------------------------------------------
# What a seat or a watcher sees. Cards by handle or face, colours and sides by name.


class CardView(TypedDict):
    """A card left in a hand at a round's end, as everyone sees it."""

    face: FaceCode
    points: int


class HandResultView(TypedDict):
    seat: Seat
    cards: list[CardView]
    points: int


class RoundResultView(TypedDict):
    round: int
    winner: Seat | None
    points: int
    side: SideName
    blocked: bool
    interrupted: bool
    hands: list[HandResultView]


class ReshuffleSeen(TypedDict):
    type: Literal["reshuffle"]
    count: int


class StarterSeen(TypedDict):
    type: Literal["starter", "starter_returned"]
    face: FaceCode


class PlaySeen(TypedDict):
    type: Literal["play"]
    seat: Seat
    face: FaceCode
    color: NotRequired[ColorName]


class DrawSeen(TypedDict):
    """A draw: the faces only to a seat (active to the drawer, inactive to the others)."""

    type: Literal["draw"]
    seat: Seat
    reason: DrawReason
    count: int
    faces: NotRequired[list[FaceCode]]


class RoundEndSeen(TypedDict):
    type: Literal["round_end"]
    result: RoundResultView


class FlipSeen(TypedDict):
    type: Literal["flip"]
    side: SideName


class ReverseSeen(TypedDict):
    type: Literal["reverse"]
    direction: DirectionName


#: ``flip.event_view``: an event as a seat or a watcher sees it. Round starts,
#: colour choices, passes, lost turns, leaves and the game's end are public as
#: the engine writes them.
SeenEvent: TypeAlias = (
    ReshuffleSeen
    | StarterSeen
    | PlaySeen
    | DrawSeen
    | RoundEndSeen
    | FlipSeen
    | ReverseSeen
    | RoundStartEvent
    | ChooseColorEvent
    | SeatEvent
    | LeaveEvent
    | GameOverEvent
)


class PendingView(TypedDict):
    type: Pending
    seat: Seat


class DrawPileView(TypedDict):
    count: int
    #: The top card's inactive face (None: the pile is empty); a seat's view only.
    top: NotRequired[FaceCode | None]


class PlayerView(TypedDict):
    seat: Seat
    count: int
    in_game: bool
    #: Another seat's hand, its inactive faces sorted by face; never your own.
    faces: NotRequired[list[FaceCode]]


class HandCardView(TypedDict):
    card: Handle
    face: FaceCode
    playable: bool
    refusal: NotRequired[RefusalCode]


class LegalActionView(TypedDict):
    """A legal action as a seat sees it; a Wild's play or a choice lists its colours."""

    type: ActionType
    card: NotRequired[Handle]
    colors: NotRequired[list[ColorName]]


class TableView(TypedDict):
    """The public facts every view starts with, in the order the views list them."""

    seats: int
    options: OptionsDict
    round: int
    dealer: Seat
    side: SideName
    color: ColorName | None
    direction: DirectionName
    to_act: Seat | None
    turn: int
    pending: PendingView | None
    top: FaceCode | None
    discard_pile: list[FaceCode]
    draw_pile: DrawPileView
    scores: list[int]
    rounds: list[RoundResultView]
    over: bool
    winner: Seat | None
    ranking: list[RankingEntry]


class SeatView(TableView):
    """``flip.view(state, seat)``: everything the seat may see."""

    seat: Seat
    players: list[PlayerView]
    hand: list[HandCardView]
    legal_actions: list[LegalActionView]


class WatcherView(TableView):
    """``flip.watcher_view(state)``: the public facts only, under the seat view's keys
    (``seat`` None, no ``faces`` in ``players``, no draw pile top, ``hand`` and
    ``legal_actions`` empty)."""

    seat: None
    players: list[PlayerView]
    hand: list[HandCardView]
    legal_actions: list[LegalActionView]


class MemoryPlayer(TypedDict):
    seat: Seat
    faces: list[FaceCode]


class FlipMemory(TypedDict):
    """``flip.flip_memory``: what a seat saw when the table last turned over."""

    round: int
    side: SideName
    hand: list[FaceCode]
    players: list[MemoryPlayer]
    discard_pile: list[FaceCode] | None


# ----------------------------------------------------------------------------
# What a client sends


class Request(TypedDict):
    """A client's action in the API's shape, for ``flip.parse_request``."""

    type: ActionType
    card: NotRequired[Handle | str | None]
    color: NotRequired[ColorName | None]


# ----------------------------------------------------------------------------
# Game records (docs/record-format.md)


class RecordedShuffle(TypedDict):
    round: int
    reason: ShuffleReason
    order: list[Card]


class RecordedAction(TypedDict):
    seat: Seat
    source: Source
    #: With source ``bot``, when the bot played for the seat's person (ruling 21).
    stand_in: NotRequired[StandIn]
    type: ActionType
    card: NotRequired[Card]
    color: NotRequired[ColorName]


class GameRecord(TypedDict):
    format: Literal["gamenook-flip-record"]
    version: int
    options: OptionsDict
    seed: str
    shuffles: list[RecordedShuffle]
    actions: list[RecordedAction]


__all__ = [
    "ActionDict",
    "ActionType",
    "Card",
    "CardView",
    "ChooseColorEvent",
    "ColorName",
    "DirectionName",
    "DrawEvent",
    "DrawPileView",
    "DrawReason",
    "DrawSeen",
    "ErrorDict",
    "Event",
    "FaceCode",
    "FlipEvent",
    "FlipMemory",
    "FlipSeen",
    "GameOverEvent",
    "GameRecord",
    "Handle",
    "HandCardView",
    "HandResult",
    "HandResultView",
    "LastFlip",
    "LeaveEvent",
    "LegalActionView",
    "MemoryPlayer",
    "OptionsDict",
    "Pending",
    "PendingView",
    "PlayEvent",
    "PlaySeen",
    "PlayerView",
    "RankingEntry",
    "RecordedAction",
    "RecordedShuffle",
    "RefusalCode",
    "Request",
    "ReshuffleSeen",
    "ReverseEvent",
    "ReverseSeen",
    "RoundEndEvent",
    "RoundEndSeen",
    "RoundResult",
    "RoundResultView",
    "RoundStartEvent",
    "Scoring",
    "Seat",
    "SeatEvent",
    "SeatView",
    "SeenEvent",
    "ShuffleEvent",
    "ShuffleReason",
    "SideName",
    "Snapshot",
    "Source",
    "StandIn",
    "StarterEvent",
    "StarterSeen",
    "TableView",
    "WatcherView",
]
