"""The one state value that holds a whole game, and its options.

Piles are lists ordered bottom to top: the top card is ``pile[-1]`` and a
draw is ``pile.pop()``. A ``GameState`` round-trips through ``to_dict`` and
``from_dict`` (plain JSON types) without loss; snapshots carry
``SNAPSHOT_VERSION`` so a later shape can upgrade older ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Action
from .cards import NO_CARD, NO_COLOR, hand_points
from .handles import HandleMemo
from .types import OptionsDict, Pending, RankingEntry, RoundResult, Scoring

SINGLE_ROUND: Final[Scoring] = "single"
TARGET: Final[Scoring] = "target"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 10
MIN_TARGET: Final = 50
MAX_TARGET: Final = 5000

PENDING_COLOR: Final[Pending] = "choose_color"  # a Wild starter: the first player names it
PENDING_DRAWN: Final[Pending] = "play_drawn"  # the card just drawn is playable: play it
PENDING_PENALTY: Final[Pending] = "penalty"  # stacking: answer the penalty or take it

SNAPSHOT_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class Options:
    """Fixed when the table is set up (R30); they apply to everyone for the whole game."""

    seats: int = 4
    scoring: Scoring = SINGLE_ROUND
    target: int = 500
    stacking: bool = False
    seven_zero: bool = False
    jump_in: bool = False
    draw_until_playable: bool = False
    first_dealer: int = 0

    def __post_init__(self) -> None:
        if type(self.seats) is not int or not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError("a table has 2 to 10 seats")
        if self.scoring not in (SINGLE_ROUND, TARGET):
            raise ValueError("scoring is 'single' or 'target'")
        if type(self.target) is not int or not MIN_TARGET <= self.target <= MAX_TARGET:
            raise ValueError("the target score is a whole number from 50 to 5000")
        for name in ("stacking", "seven_zero", "jump_in", "draw_until_playable"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} is true or false")
        if type(self.first_dealer) is not int or not 0 <= self.first_dealer < self.seats:
            raise ValueError("the first dealer is one of the table's seats")

    def to_dict(self) -> OptionsDict:
        return {
            "seats": self.seats,
            "scoring": self.scoring,
            "target": self.target,
            "stacking": self.stacking,
            "seven_zero": self.seven_zero,
            "jump_in": self.jump_in,
            "draw_until_playable": self.draw_until_playable,
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        """Options back from ``to_dict`` (missing keys take their defaults)."""
        return cls(**{k: v for k, v in data.items() if k in _OPTION_NAMES})


_OPTION_NAMES: Final = frozenset(Options.__dataclass_fields__)


@dataclass(slots=True)
class GameState:
    """Everything about one game. Treat a state you did not create as read-only.

    ``seed`` is secret while the game runs: it keys shuffles and handles.
    ``shuffles`` counts the shuffles made, so each draws from its own stream.
    ``window``: the jump-in window (R16) is open. ``penalty``: the cards a
    waiting penalty (stacking) makes its victim draw. ``exchanges``: the 7-0
    hand exchanges this round, part of the handles' key so that a handle
    cannot follow a card from hand to hand.
    """

    options: Options
    seed: str
    shuffles: int = 0
    round: int = 0
    dealer: int = 0
    hands: list[list[int]] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    color: int = NO_COLOR
    direction: int = 1
    current: int = 0
    pending: Pending | None = None
    drawn: int = NO_CARD
    penalty: int = 0
    window: bool = False
    active: list[bool] = field(default_factory=list)
    passed: list[int] = field(default_factory=list)
    turn: int = 0
    exchanges: int = 0
    actions: int = 0
    over: bool = False
    winner: int | None = None
    scores: list[int] = field(default_factory=list)
    results: list[RoundResult] = field(default_factory=list)
    left_order: list[int] = field(default_factory=list)
    left_points: list[int | None] = field(default_factory=list)
    #: The handles of the round and exchange the views last used; never saved
    #: or compared, shared by copies (a handle is a function of those and the seed).
    handle_memo: HandleMemo | None = field(default=None, init=False, repr=False, compare=False)
    #: ``(actions, seat, legal actions)``: what ``view`` computed for a seat, so
    #: that ``legal_actions`` right after it (a bot, a benchmark) need not do it
    #: again. Valid while ``actions`` is unchanged: every action counts, but a
    #: state changed by hand must call ``forget_legal()``. Never saved or compared.
    legal_memo: tuple[int, int, list[Action]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @staticmethod
    def blank(options: Options, seed: str) -> GameState:
        """The state of a table before its first deal: every field at its default,
        everyone in the game, no score. The same as the constructor with those
        values, for half its cost (no keyword matching, no default factories):
        every game starts with one, and a short game is some fifty actions."""
        n = options.seats
        s = GameState.__new__(GameState)  # as in copy: mypyc compiles this, not cls.__new__
        s.options = options
        s.seed = seed
        s.shuffles = s.round = 0
        s.dealer = options.first_dealer
        s.hands = []
        s.draw = []
        s.discard = []
        s.color = NO_COLOR
        s.direction = 1
        s.current = 0
        s.pending = None
        s.drawn = NO_CARD
        s.penalty = 0
        s.window = False
        s.active = [True] * n
        s.passed = []
        s.turn = s.exchanges = s.actions = 0
        s.over = False
        s.winner = None
        s.scores = [0] * n
        s.results = []
        s.left_order = []
        s.left_points = [None] * n
        s.handle_memo = None
        s.legal_memo = None
        return s

    def copy(self) -> GameState:
        """A copy that shares nothing mutable with this state (results are never
        changed once written, so they are shared)."""
        c = GameState.__new__(GameState)
        for name in _SCALARS:
            object.__setattr__(c, name, getattr(self, name))
        for name in _LISTS:
            object.__setattr__(c, name, getattr(self, name)[:])
        c.options = self.options
        c.hands = [held[:] for held in self.hands]
        c.handle_memo = self.handle_memo
        c.legal_memo = None
        return c

    def to_dict(self) -> dict[str, Any]:
        """The snapshot: plain JSON, ``from_dict`` gives the same state back."""
        snapshot: dict[str, Any] = {"version": SNAPSHOT_VERSION, "options": self.options.to_dict()}
        snapshot.update((name, getattr(self, name)) for name in _SCALARS)
        snapshot.update((name, list(getattr(self, name))) for name in _LISTS)
        snapshot["hands"] = [list(held) for held in self.hands]
        snapshot["results"] = [_copy_result(r) for r in self.results]
        snapshot["ranking"] = self.ranking  # derived, written for readers of the snapshot
        return snapshot

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """The state ``to_dict`` wrote; ``ValueError`` for an unknown version."""
        if data.get("version") != SNAPSHOT_VERSION:
            raise ValueError(f"unknown wildcards snapshot version {data.get('version')!r}")
        state = cls(options=Options.from_dict(data["options"]), seed=data["seed"])
        for name in _SCALARS:
            setattr(state, name, data[name])
        for name in _LISTS:
            setattr(state, name, list(data[name]))
        state.hands = [list(held) for held in data["hands"]]
        state.results = [_copy_result(r) for r in data["results"]]
        return state  # "ranking" is derived from the rest (GameState.ranking)

    @property
    def seats(self) -> int:
        """How many seats the table has (``tabletop.ruleset.GameState``)."""
        return self.options.seats

    @property
    def ranking(self) -> list[RankingEntry]:
        """R27's final ranking once the game is over, [] before: ``ranking(self)``,
        derived from the scores, the last round's hands and who left (none of
        which changes once the game is over), never stored, so that a simulation
        that reads none (random play, a bot's rollouts) does not pay for it,
        about 4% of a short game."""
        return ranking(self) if self.over else []

    @property
    def players_left(self) -> int:
        """How many players are still in the game (R8's "two players" counts these)."""
        return self.active.count(True)

    def forget_legal(self) -> None:
        """Forget ``legal_memo``: call it after changing a state by hand."""
        self.legal_memo = None


#: The fields a snapshot holds as they are, and those that are flat lists (copied).
_SCALARS: Final = (
    "seed", "shuffles", "round", "dealer", "color", "direction", "current", "pending", "drawn",
    "penalty", "window", "turn", "exchanges", "actions", "over", "winner",
)  # fmt: skip
_LISTS: Final = (
    "draw", "discard", "active", "passed", "scores", "left_points", "left_order", "results",
)  # fmt: skip


def _copy_result(result: Mapping[str, Any]) -> RoundResult:
    return {
        "round": result["round"],
        "winner": result["winner"],
        "points": result["points"],
        "blocked": result["blocked"],
        "interrupted": result["interrupted"],
        "hands": [
            {"seat": h["seat"], "cards": list(h["cards"]), "points": h["points"]}
            for h in result["hands"]
        ],
    }


def ranking(s: GameState) -> list[RankingEntry]:
    """R27: stayers before leavers, the winner first, then higher score, then
    fewer points left in hand in the last round; equals share a rank.

    The seat ends each sort key, so equal keys (``key[:4]``) lie side by side
    in seat order; loops, not comprehensions, since every view of a finished
    game and every game's end with its events computes it.
    """
    last = s.results[-1] if s.results else None
    in_hand: dict[int, int] = {}
    if last is not None and last["round"] == s.round:
        for h in last["hands"]:
            in_hand[h["seat"]] = h["points"]
    active = s.active
    scores = s.scores
    winner = s.winner
    keys: list[tuple[bool, bool, int, int, int]] = []
    for seat in range(s.seats):
        held = in_hand.get(seat)
        if held is None:
            given_up = s.left_points[seat]
            held = hand_points(s.hands[seat]) if given_up is None else given_up
        keys.append((not active[seat], seat != winner, -scores[seat], held, seat))
    keys.sort()
    out: list[RankingEntry] = []
    previous: tuple[bool | int, ...] = ()
    rank = 0
    for position, key in enumerate(keys, 1):  # tabletop.ranking.shared_ranks, written out
        head = key[:4]
        if head != previous:
            previous = head
            rank = position
        seat = key[4]
        out.append(
            {
                "seat": seat,
                "rank": rank,
                "score": scores[seat],
                "left": key[0],
                "points_in_hand": key[3],
            }
        )
    return out
