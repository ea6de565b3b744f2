"""Game records: everything needed to replay a game exactly, with no generator.

A record (format ``gamenook-wildcards-record``, version 1, in the envelope
of ``tabletop.record``) holds the options, the seed (published only once the
game is over), every shuffle's result in the order the game made them (each
deal's deck order, each Wild Draw 4 starter's reshuffle, each reshuffle of
the discard pile, top card first: R32) and every action in order with its
seat and source. ``replay`` plays the actions again, taking every shuffle
from the record; it never shuffles.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from tabletop.record import RecordedShuffle, entry_head, envelope, opened, shuffles_in

from .actions import Action
from .engine import apply, new_game
from .state import GameState, Options
from .types import ActionDict, Event

FORMAT: Final = "gamenook-wildcards-record"
VERSION: Final = 1


class Recorder:
    """A game's record, written as the game goes: its start, then every action.

    >>> start, events = new_game(Options(seats=3, jump_in=True), seed="doc")
    >>> record = Recorder(start.options, start.seed, events).to_dict()
    >>> record["format"], len(record["shuffles"]), replay(record).to_dict() == start.to_dict()
    ('gamenook-wildcards-record', 1, True)
    """

    def __init__(self, options: Options, seed: str, events: Sequence[Event]) -> None:
        self.options = options
        self.seed = seed
        self.shuffles: list[RecordedShuffle] = shuffles_in(events)
        self.actions: list[dict[str, object]] = []

    def add(
        self,
        seat: int,
        action: Action,
        source: str,
        events: Sequence[Event],
        stand_in: str | None = None,
    ) -> None:
        """Record ``seat``'s ``action`` from ``source`` and the shuffles its ``events`` made."""
        entry = entry_head(seat, source, stand_in, action.type)
        entry.update(action.to_dict())
        self.actions.append(entry)
        self.shuffles += shuffles_in(events)

    def to_dict(self) -> dict[str, Any]:
        return envelope(
            FORMAT, VERSION, self.options.to_dict(), self.seed, self.shuffles, self.actions
        )


def recorded_actions(data: Mapping[str, Any]) -> Iterator[tuple[int, Action, Mapping[str, Any]]]:
    """``(seat, action, entry)`` for every action of a record."""
    for entry in data["actions"]:
        if not isinstance(entry, Mapping) or type(entry.get("seat")) is not int:
            raise ValueError("a recorded action is an object with a seat")
        fields: ActionDict = {"type": entry["type"]}
        for key in ("card", "color", "target"):
            if key in entry:
                fields[key] = entry[key]
        yield entry["seat"], Action.from_dict(fields), entry


def start(data: Mapping[str, Any]) -> tuple[GameState, list[Event], Iterator[list[int]]]:
    """The game a record starts with: its state after the deal, the deal's
    events, and the recorded shuffles still to use."""
    orders = opened(data, FORMAT, VERSION, "Wild Cards")
    options = data["options"]
    if not isinstance(options, Mapping) or not isinstance(data.get("seed"), str):
        raise ValueError("a record holds its options and its seed")
    state, events = new_game(Options.from_dict(options), data["seed"], shuffles=orders)
    return state, events, orders


def replay(data: Mapping[str, Any]) -> GameState:
    """Play a record again and return the final state.

    Raises ``ValueError`` if the record is malformed or does not replay, and
    ``RuleError`` for an action the rules refuse.
    """
    state, _, orders = start(data)
    for seat, action, _entry in recorded_actions(data):
        state, _ = apply(state, seat, action, inplace=True, shuffles=orders)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
    return state
