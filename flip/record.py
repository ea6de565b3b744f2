"""Game records: everything needed to replay a game exactly, with no generator.

A record holds the options, the seed (published only once the game is over),
every shuffle's result in the order the game made them (the deck order of
each deal, each starter reshuffle and each reshuffle of the discard pile, top
card first), and every action in order with its seat and source (and, for a
bot's action made for a person's seat, why: ``stand_in``). ``replay``
plays the actions again, taking each shuffle from the record; it never
shuffles. The format is described in ``docs/record-format.md``; its envelope
and the head of each action are every game's (``tabletop.record``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, cast

from tabletop.record import SOURCES, STAND_INS, entry_head, envelope, opened, shuffles_in
from tabletop.record import RecordedShuffle as TabletopShuffle

from .cards import COLORS, NO_COLOR
from .engine import Action, apply, new_game
from .state import GameState, Options
from .types import Card, Event, GameRecord, RecordedAction, RecordedShuffle

FORMAT: Final = "gamenook-flip-record"
VERSION: Final = 1


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
        # Flip's shuffle events hold Flip's reasons and cards: the shape is flip's own.
        self.shuffles += cast(list[RecordedShuffle], shuffles_in(events))

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
        # The keys in the order of {"seat", "source", "stand_in"?, **action.to_dict()};
        # entry_head refuses an unknown source or stand-in.
        entry = cast(RecordedAction, entry_head(seat, source, stand_in, action.type))
        if action.card >= 0:
            entry["card"] = action.card
        if action.color != NO_COLOR:
            entry["color"] = COLORS[action.color]
        self.actions.append(entry)
        self._take_shuffles(events)

    def to_dict(self) -> GameRecord:
        data = envelope(
            FORMAT,
            VERSION,
            self.options.to_dict(),
            self.seed,
            cast(list[TabletopShuffle], self.shuffles),
            cast(list[dict[str, object]], self.actions),
        )
        return cast(GameRecord, data)


def replay(data: Mapping[str, object]) -> GameState:
    """Play a record again and return the final state.

    Raises ``ValueError`` if the record is malformed or does not replay (an
    action the rules refuse raises ``RuleError``).
    """
    orders = cast(Iterator[list[Card]], opened(data, FORMAT, VERSION, "Wild Cards Flip"))
    record = cast(GameRecord, data)  # its format and version say so
    state, _ = new_game(Options.from_dict(record["options"]), record["seed"], shuffles=orders)
    for entry in record["actions"]:
        action = Action.from_dict(entry)
        state, _ = apply(state, entry["seat"], action, inplace=True, shuffles=orders)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
    return state


__all__ = ["FORMAT", "SOURCES", "STAND_INS", "VERSION", "Recorder", "replay"]
