"""Game records: everything needed to replay a game exactly, with no generator.

A record holds the options, the seed (published only once the game is over),
every shuffle's result in the order the game made them (the deck order of
each deal, each starter reshuffle and each reshuffle of the discard pile, top
card first), and every action in order with its seat and source. ``replay``
plays the actions again, taking each shuffle from the record; it never
shuffles. The format is described in ``docs/record-format.md``.
"""

from __future__ import annotations

from typing import Any

from .engine import Action, Event, apply, new_game
from .state import GameState, Options

FORMAT = "gamenook-flip-record"
VERSION = 1
SOURCES = ("player", "timeout", "bot", "leave", "admin")


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
        self.shuffles: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []
        self._take_shuffles(events)

    def _take_shuffles(self, events: list[Event]) -> None:
        for event in events:
            if event["type"] == "shuffle":
                self.shuffles.append(
                    {"round": event["round"], "reason": event["reason"], "order": event["order"]}
                )

    def add(self, seat: int, action: Action, source: str, events: list[Event]) -> None:
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        self.actions.append({"seat": seat, "source": source, **action.to_dict()})
        self._take_shuffles(events)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "shuffles": list(self.shuffles),
            "actions": list(self.actions),
        }


def replay(record: dict[str, Any]) -> GameState:
    """Play a record again and return the final state.

    Raises ``ValueError`` if the record is malformed or does not replay (an
    action the rules refuse raises ``RuleError``).
    """
    if record.get("format") != FORMAT or record.get("version") != VERSION:
        raise ValueError("not a Wild Cards Flip game record of a known version")
    orders = iter([list(s["order"]) for s in record["shuffles"]])
    state, _ = new_game(Options.from_dict(record["options"]), record["seed"], shuffles=orders)
    for entry in record["actions"]:
        action = Action.from_dict(entry)
        state, _ = apply(state, entry["seat"], action, inplace=True, shuffles=orders)
    if next(orders, None) is not None:
        raise ValueError("the record holds more shuffles than the game used")
    return state
