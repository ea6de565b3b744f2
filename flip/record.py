"""Game records: everything needed to replay a game exactly, with no generator.

A record holds the options, the seed (published only once the game is over),
every shuffle's result in the order the game made them (the deck order of
each deal, each starter reshuffle and each reshuffle of the discard pile, top
card first), and every action in order with its seat and source (and, for a
bot's action made for a person's seat, why: ``stand_in``). ``replay``
plays the actions again, taking each shuffle from the record; it never
shuffles. The format is described in ``docs/record-format.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from .cards import COLORS, NO_COLOR
from .engine import Action, apply, new_game
from .state import GameState, Options
from .types import Event, GameRecord, RecordedAction, RecordedShuffle, Seat, Source, StandIn

FORMAT: Final = "gamenook-flip-record"
VERSION: Final = 1
SOURCES: Final[tuple[Source, ...]] = ("player", "timeout", "bot", "leave", "admin")
_SOURCES: Final[dict[str, Source]] = {source: source for source in SOURCES}
STAND_INS: Final[tuple[StandIn, ...]] = ("away", "struck_out")
_STAND_INS: Final[dict[str, StandIn]] = {reason: reason for reason in STAND_INS}


class Recorder:
    """Collects a record while a game is played.

    >>> from flip import Options, new_game
    >>> state, events = new_game(Options(seats=2), seed="doc")
    >>> recorder = Recorder(state.options, state.seed, events)
    >>> replay(recorder.to_dict()) == state
    True
    """

    def __init__(self, options: Options, seed: str, events: list[Event]) -> None:
        self.options = options
        self.seed = seed
        self.shuffles: list[RecordedShuffle] = []
        self.actions: list[RecordedAction] = []
        self._take_shuffles(events)

    def _take_shuffles(self, events: list[Event]) -> None:
        for event in events:
            if event["type"] == "shuffle":
                self.shuffles.append(
                    {"round": event["round"], "reason": event["reason"], "order": event["order"]}
                )

    def add(
        self,
        seat: int,
        action: Action,
        source: str,
        events: list[Event],
        stand_in: str | None = None,
    ) -> None:
        """Record ``seat``'s ``action`` from ``source`` and the shuffles its ``events`` made.

        ``stand_in``: with source ``bot``, why the bot played for the seat's
        person (``away`` or ``struck_out``); the record then says so.
        """
        if source not in _SOURCES:
            raise ValueError(f"unknown source {source!r}")
        if stand_in is not None and (stand_in not in _STAND_INS or source != "bot"):
            raise ValueError(f"a bot's action only stands in for a person: {stand_in!r}")
        # The keys in the order of {"seat", "source", "stand_in"?, **action.to_dict()}.
        entry: RecordedAction = (
            {"seat": Seat(seat), "source": _SOURCES[source], "type": action.type}
            if stand_in is None
            else {
                "seat": Seat(seat),
                "source": _SOURCES[source],
                "stand_in": _STAND_INS[stand_in],
                "type": action.type,
            }
        )
        if action.card >= 0:
            entry["card"] = action.card
        if action.color != NO_COLOR:
            entry["color"] = COLORS[action.color]
        self.actions.append(entry)
        self._take_shuffles(events)

    def to_dict(self) -> GameRecord:
        return {
            "format": FORMAT,
            "version": VERSION,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "shuffles": list(self.shuffles),
            "actions": list(self.actions),
        }


def replay(data: Mapping[str, object]) -> GameState:
    """Play a record again and return the final state.

    Raises ``ValueError`` if the record is malformed or does not replay (an
    action the rules refuse raises ``RuleError``).
    """
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError("not a Wild Cards Flip game record of a known version")
    record = cast(GameRecord, data)  # its format and version say so
    orders = iter([list(s["order"]) for s in record["shuffles"]])
    state, _ = new_game(Options.from_dict(record["options"]), record["seed"], shuffles=orders)
    for entry in record["actions"]:
        action = Action.from_dict(entry)
        state, _ = apply(state, entry["seat"], action, inplace=True, shuffles=orders)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
    return state
