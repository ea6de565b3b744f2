"""The one state value that holds a whole game, and its options.

Piles are lists ordered bottom to top, so the top card is ``pile[-1]`` and a
draw is ``pile.pop()``. A ``GameState`` round-trips through ``to_dict`` and
``from_dict`` (plain JSON types) without loss.

Snapshots carry a ``version``. ``from_dict`` first passes the data through
``upgrade``, which brings a snapshot of any older version to the current one
one step at a time, so the reading code only ever sees the current shape.
To change the shape: add the field, bump ``SNAPSHOT_VERSION`` and register
the step from the previous version in ``_UPGRADES``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, cast

from .actions import Action
from .cards import NO_CARD
from .handles import HandleMemo
from .journal import decode, encode
from .types import (
    Card,
    FaceCode,
    LastFlip,
    OptionsDict,
    Pending,
    RankingEntry,
    RoundResult,
    Scoring,
    Seat,
    Snapshot,
)

SINGLE_ROUND: Final[Scoring] = "single"
TARGET: Final[Scoring] = "target"
TARGETS: Final = (250, 500, 1000)
MIN_SEATS: Final = 2
MAX_SEATS: Final = 10

PENDING_COLOR: Final[Pending] = "choose_color"  # a colour must be chosen before the turn goes on
PENDING_DRAWN: Final[Pending] = "play_drawn"  # the card just drawn is playable and must be played

#: The shape ``GameState.to_dict`` writes. Version 1 (no ``version`` key) is
#: the shape before versions, with or without ``last_flip``; version 3 adds
#: the round's public record, ``history``.
SNAPSHOT_VERSION: Final = 3


@dataclass(frozen=True, slots=True)
class Options:
    """Fixed when the table is set up; they apply to everyone for the whole game."""

    seats: int = 4
    two_seat_reverse_skips: bool = True
    scoring: str = SINGLE_ROUND
    target: int = 500

    def __post_init__(self) -> None:
        if not isinstance(self.seats, int) or not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError("a table has 2 to 10 seats")
        if self.scoring not in (SINGLE_ROUND, TARGET):
            raise ValueError("scoring is 'single' or 'target'")
        if self.target not in TARGETS:
            raise ValueError("the target score is 250, 500 or 1000")

    def to_dict(self) -> OptionsDict:
        return {
            "seats": self.seats,
            "two_seat_reverse_skips": self.two_seat_reverse_skips,
            # __post_init__ allowed only these two; the test narrows the type.
            "scoring": SINGLE_ROUND if self.scoring == SINGLE_ROUND else TARGET,
            "target": self.target,
        }

    @classmethod
    def from_dict(cls, data: OptionsDict) -> Options:
        return cls(
            seats=data["seats"],
            two_seat_reverse_skips=data["two_seat_reverse_skips"],
            scoring=data["scoring"],
            target=data["target"],
        )


@dataclass(slots=True)
class GameState:
    """Everything about one game. Treat a state you did not create as read-only.

    ``seed`` is secret while the game runs: it keys shuffles and view handles.
    ``shuffles`` counts the shuffles made so far, so each shuffle draws from
    its own generator and a state alone is enough to continue a game.
    """

    options: Options
    seed: str
    shuffles: int = 0
    round: int = 0
    dealer: Seat = Seat(0)
    side: int = 0
    hands: list[list[Card]] = field(default_factory=list)
    draw: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    color: int = -1
    direction: int = 1
    current: Seat = Seat(0)
    pending: Pending | None = None
    drawn: Card = NO_CARD
    active: list[bool] = field(default_factory=list)
    passed: list[Seat] = field(default_factory=list)
    turn: int = 0
    flips: int = 0
    #: The hands and the discard pile's size the moment the table last turned
    #: over this round, for ``flip.views.flip_memory``; None before the
    #: round's first flip.
    last_flip: LastFlip | None = None
    actions: int = 0
    #: The round's public record (``flip.journal``, read by ``flip.history``): one integer per card
    #: moved or choice made (three characters each in ``to_dict``), reset by
    #: every deal; None when it was not kept from the round's start (an older
    #: snapshot, a rebuilt sample).
    history: list[int] | None = None
    scores: list[int] = field(default_factory=list)
    left_points: list[int | None] = field(default_factory=list)
    left_order: list[Seat] = field(default_factory=list)
    results: list[RoundResult] = field(default_factory=list)
    over: bool = False
    winner: Seat | None = None
    ranking: list[RankingEntry] = field(default_factory=list)
    #: ``flip.legal_actions``' answer for the seat to act, kept until the state
    #: changes: ``flip.apply`` accepts one of these very actions without
    #: checking it again. Never saved, copied or compared; every ``apply`` on
    #: this state clears it. A state changed by hand is not to be given to
    #: ``apply`` after ``legal_actions`` without ``forget_legal()``.
    legal_memo: tuple[Action, ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: The handles computed so far (``flip.handle``) and the hash output
    #: they come from, for the round, number of flips and seed they are
    #: valid for (``flip.handles.HandleMemo``). Never saved or compared; a copy
    #: shares it, as a handle is a function of the seed, round, flips and card.
    handle_memo: HandleMemo | None = field(default=None, init=False, repr=False, compare=False)
    #: Other hands' sorted faces as views have shown them this round, by side
    #: (one dict each) and cards (``flip.view``). Never saved or compared;
    #: shared by copies, as the faces are a function of the side and the cards.
    faces_memo: tuple[int, tuple[dict[tuple[int, ...], tuple[FaceCode, ...]], ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def seats(self) -> int:
        return self.options.seats

    @property
    def players_left(self) -> int:
        return sum(self.active)

    def forget_legal(self) -> None:
        """Drop the remembered legal actions (see ``legal_memo``)."""
        self.legal_memo = None

    def copy(self) -> GameState:
        """A copy that shares nothing mutable with this state.

        Filled slot by slot, not through ``__init__``: three times faster,
        and ``apply(..., inplace=False)`` copies once per action. A field
        added to the class must be added here (reading a slot never set
        raises, so ``copy() == state`` catches a forgotten one).
        """
        c = GameState.__new__(GameState)
        c.options = self.options
        c.seed = self.seed
        c.shuffles = self.shuffles
        c.round = self.round
        c.dealer = self.dealer
        c.side = self.side
        c.hands = list(map(list.copy, self.hands))
        c.draw = self.draw[:]
        c.discard = self.discard[:]
        c.color = self.color
        c.direction = self.direction
        c.current = self.current
        c.pending = self.pending
        c.drawn = self.drawn
        c.active = self.active[:]
        c.passed = self.passed[:]
        c.turn = self.turn
        c.flips = self.flips
        c.last_flip = self.last_flip  # replaced at every flip, never mutated
        c.actions = self.actions
        c.history = None if self.history is None else self.history[:]
        c.scores = self.scores[:]
        c.left_points = self.left_points[:]
        c.left_order = self.left_order[:]
        # Results and ranking entries are never mutated once written.
        c.results = self.results[:]
        c.over = self.over
        c.winner = self.winner
        c.ranking = self.ranking[:]
        c.legal_memo = None
        c.handle_memo = self.handle_memo
        c.faces_memo = self.faces_memo
        return c

    def to_dict(self) -> Snapshot:
        return {
            "version": SNAPSHOT_VERSION,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "round": self.round,
            "dealer": self.dealer,
            "side": self.side,
            "hands": [h[:] for h in self.hands],
            "draw": self.draw[:],
            "discard": self.discard[:],
            "color": self.color,
            "direction": self.direction,
            "current": self.current,
            "pending": self.pending,
            "drawn": self.drawn,
            "active": self.active[:],
            "passed": self.passed[:],
            "turn": self.turn,
            "flips": self.flips,
            "last_flip": _copy_last_flip(self.last_flip),
            "actions": self.actions,
            "history": None if self.history is None else encode(self.history),
            "scores": self.scores[:],
            "left_points": self.left_points[:],
            "left_order": self.left_order[:],
            "results": list(self.results),
            "over": self.over,
            "winner": self.winner,
            "ranking": list(self.ranking),
        }

    @classmethod
    def from_dict(cls, snapshot: Mapping[str, object]) -> GameState:
        """The state a snapshot of any known version holds (see ``upgrade``)."""
        data = upgrade(snapshot)
        return cls(
            options=Options.from_dict(data["options"]),
            seed=data["seed"],
            shuffles=data["shuffles"],
            round=data["round"],
            dealer=data["dealer"],
            side=data["side"],
            hands=[list(h) for h in data["hands"]],
            draw=list(data["draw"]),
            discard=list(data["discard"]),
            color=data["color"],
            direction=data["direction"],
            current=data["current"],
            pending=data["pending"],
            drawn=data["drawn"],
            active=list(data["active"]),
            passed=list(data["passed"]),
            turn=data["turn"],
            flips=data["flips"],
            last_flip=_copy_last_flip(data["last_flip"]),
            actions=data["actions"],
            history=None if data["history"] is None else decode(data["history"]),
            scores=list(data["scores"]),
            left_points=list(data["left_points"]),
            left_order=list(data["left_order"]),
            results=list(data["results"]),
            over=data["over"],
            winner=data["winner"],
            ranking=list(data["ranking"]),
        )


def _copy_last_flip(last_flip: LastFlip | None) -> LastFlip | None:
    if last_flip is None:
        return None
    return {
        "side": last_flip["side"],
        "hands": [list(h) for h in last_flip["hands"]],
        "discard": last_flip["discard"],
        "shuffles": last_flip["shuffles"],
    }


Upgrade = Callable[[dict[str, object]], dict[str, object]]


def _upgrade_from_1(data: dict[str, object]) -> dict[str, object]:
    # Snapshots written before the bots' memory of the last flip have no
    # ``last_flip``: nothing was remembered, as after a round's deal.
    return {**data, "version": 2, "last_flip": data.get("last_flip")}


def _upgrade_from_2(data: dict[str, object]) -> dict[str, object]:
    # The round in progress was not recorded from its start: it has no public
    # history (``flip.public_history`` gives None) until the next deal.
    return {**data, "version": 3, "history": None}


#: ``_UPGRADES[n]`` turns a snapshot of version ``n`` into version ``n + 1``.
_UPGRADES: Final[dict[int, Upgrade]] = {
    1: _upgrade_from_1,
    2: _upgrade_from_2,
}


def upgrade(snapshot: Mapping[str, object]) -> Snapshot:
    """``snapshot`` brought to ``SNAPSHOT_VERSION``, one registered step at a time.

    The argument is never changed; a current snapshot comes back as it is.
    Raises ``ValueError`` for a version this code does not know (a snapshot
    written by newer code, or not a snapshot). The fields themselves are not
    checked: a snapshot is the service's own data, written by ``to_dict``.

    >>> upgrade({"seed": "s"})["version"] == SNAPSHOT_VERSION
    True
    """
    version = snapshot.get("version", 1)
    if type(version) is not int or not 1 <= version <= SNAPSHOT_VERSION:
        raise ValueError(f"unknown snapshot version {version!r}")
    data = snapshot
    while version < SNAPSHOT_VERSION:
        data = _UPGRADES[version](dict(data))
        if data["version"] != version + 1:
            raise AssertionError(f"the upgrade from version {version} skipped a version")
        version += 1
    return cast(Snapshot, data)
