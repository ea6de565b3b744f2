"""Classic Wild Cards as the service sees it: ``RULESET``, a ``tabletop.ruleset.Ruleset``."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from tabletop import ruleset
from tabletop.ruleset import OptionError, OptionSpec, Ruleset

from . import bots
from .actions import LEAVE_ACTION, REQUEST_TYPES, Action
from .cards import (
    CARDS_BY_FACE,
    COLOR_OF,
    COLORS,
    KIND_OF,
    NUMBER_OF,
    POINTS_OF,
    SYMBOLS,
    parse_face,
)
from .engine import apply, check, legal_actions, new_game, timeout_action
from .errors import MESSAGES, REQUEST_MESSAGES
from .forced import forced_action
from .positions import open_positions
from .record import Recorder, replay
from .requests import parse_request
from .state import MAX_SEATS, MAX_TARGET, MIN_SEATS, MIN_TARGET, GameState, Options
from .types import ActionDict, SeatView, WatcherView
from .views import events_view, view, watcher_view

OPTIONS: Final = (
    OptionSpec(
        "scoring",
        "choice",
        "single",
        "Scoring",
        "Single round: the first round with a winner ends the game; target: rounds go on "
        "until someone's total reaches the target.",
        choices=("single", "target"),
    ),
    OptionSpec(
        "target",
        "int",
        500,
        "Target score",
        "With target scoring, the total that wins the game (50 to 5000).",
        minimum=MIN_TARGET,
        maximum=MAX_TARGET,
    ),
    OptionSpec(
        "stacking",
        "bool",
        False,
        "Stack draw cards",
        "A Draw 2 or Wild Draw 4 waits, and its victim may pass it on with another of the same.",
        house_rule=True,
    ),
    OptionSpec(
        "seven_zero",
        "bool",
        False,
        "7-0 swap",
        "Play a 7 to swap hands with a player you choose; play a 0 and every hand moves on.",
        house_rule=True,
    ),
    OptionSpec(
        "jump_in",
        "bool",
        False,
        "Jump-in",
        "Anyone holding a card identical to the top card may play it out of turn.",
        house_rule=True,
    ),
    OptionSpec(
        "draw_until_playable",
        "bool",
        False,
        "Draw until playable",
        "With nothing to play you keep drawing until you draw a card you can play.",
        house_rule=True,
    ),
)


_KIND_WORDS: Final = ("number", "Skip", "Reverse", "Draw 2", "Wild", "Wild Draw 4")


class WildCardsRuleset:
    """Classic Wild Cards (``seeds/001``) with its rulings and four house rules."""

    id: str = "wildcards"
    version: int = 1
    name: str = "Wild Cards"
    options: tuple[OptionSpec, ...] = OPTIONS
    messages: Mapping[str, str] = {**MESSAGES, **REQUEST_MESSAGES}
    request_types: tuple[str, ...] = REQUEST_TYPES
    bot_levels: tuple[str, ...] = bots.LEVELS
    stand_in_level: str = "normal"
    min_seats: int = MIN_SEATS
    max_seats: int = MAX_SEATS

    view_types: tuple[Any, ...] = (SeatView, WatcherView)
    #: The symbol printed with each colour (the web client's cards).
    color_symbols: Mapping[str, str] = dict(zip(COLORS, SYMBOLS, strict=True))

    def face_words(self, code: str) -> Mapping[str, Any]:
        """A face code in words (the text's ``flame-3`` is read as ``red-3``).

        >>> WildCardsRuleset().face_words("sun-skip")["name"]
        'Yellow Skip'
        >>> WildCardsRuleset().face_words("wild-draw4")["color"] is None
        True
        """
        face = parse_face(code)
        card = CARDS_BY_FACE[face][0]
        color_number = COLOR_OF[card]
        color = None if color_number < 0 else COLORS[color_number]
        kind = _KIND_WORDS[KIND_OF[card]]
        number = NUMBER_OF[card]
        label = str(number) if number >= 0 else kind
        return {
            "code": face,
            "color": color,
            "symbol": None if color is None else SYMBOLS[color_number],
            "kind": "number" if number >= 0 else face.rpartition("-")[2] if color else face,
            "number": number if number >= 0 else None,
            "label": label,
            "name": label if color is None else f"{color.capitalize()} {label}",
            "points": POINTS_OF[card],
        }

    def make_options(self, seats: int, values: Mapping[str, object]) -> Options:
        """The options for ``seats`` and ``values``; ``OptionError`` for an unknown
        option or a value out of bounds, ``ValueError`` for a seat count out of bounds."""
        known = {spec.name: spec for spec in self.options}
        chosen: dict[str, Any] = {}
        for key, value in values.items():
            if key == "first_dealer":  # R1: not offered to hosts, kept by options_dict
                if type(value) is not int or not 0 <= value < seats:
                    raise OptionError(key, "the first dealer is one of the table's seats")
                chosen[key] = value
                continue
            if key not in known:
                raise OptionError(key, f"Wild Cards has no option {key}")
            chosen[key] = known[key].check(value)
        return Options(seats=seats, **chosen)

    def options_dict(self, options: Options) -> dict[str, Any]:
        return dict(options.to_dict())

    def new_game(self, options: Options, seed: str) -> tuple[GameState, list[dict[str, Any]]]:
        return new_game(options, seed)

    def restore(self, snapshot: Mapping[str, Any]) -> GameState:
        return GameState.from_dict(snapshot)

    def legal_actions(self, state: GameState, seat: int) -> Sequence[Action]:
        return legal_actions(state, seat)

    def check(self, state: GameState, seat: int, action: Action) -> None:
        check(state, seat, action)

    def apply(
        self, state: GameState, seat: int, action: Action
    ) -> tuple[GameState, list[dict[str, Any]]]:
        return apply(state, seat, action)

    def timeout_action(self, state: GameState) -> Action:
        return timeout_action(state)

    def forced_action(self, state: GameState, seat: int) -> Action | None:
        return forced_action(state, seat)

    def leave_action(self) -> Action:
        return LEAVE_ACTION

    def action_from_dict(self, data: Mapping[str, Any]) -> Action:
        fields: ActionDict = {"type": data["type"]}
        for key in ("card", "color", "target"):
            if key in data:
                fields[key] = data[key]
        return Action.from_dict(fields)

    def parse_request(self, state: GameState, seat: int, data: object) -> Action:
        return parse_request(state, seat, data)

    def view(self, state: GameState, seat: int) -> Mapping[str, Any]:
        return view(state, seat)

    def watcher_view(self, state: GameState) -> Mapping[str, Any]:
        return watcher_view(state)

    def events_view(
        self, events: Sequence[Mapping[str, Any]], seat: int | None
    ) -> list[dict[str, Any]]:
        return events_view((dict(e) for e in events), seat)

    def record(
        self,
        options: Options,
        seed: str,
        start_events: Sequence[Mapping[str, Any]],
        moves: Sequence[tuple[int, ruleset.Action, str, Sequence[Mapping[str, Any]], str | None]],
    ) -> dict[str, Any]:
        recorder = Recorder(options, seed, [dict(e) for e in start_events])
        for seat, action, source, events, stand_in in moves:
            if not isinstance(action, Action):
                raise TypeError("a move of the classic game holds a wildcards Action")
            recorder.add(seat, action, source, [dict(e) for e in events], stand_in)
        return recorder.to_dict()

    def replay(self, record: Mapping[str, Any]) -> GameState:
        return replay(record)

    def positions(self, record: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        return open_positions(record)

    def bot_request(
        self,
        state: GameState,
        seat: int,
        *,
        level: str,
        seed: str,
        levels: Sequence[str | None],  # noqa: ARG002 (the stronger bots read them)
    ) -> Mapping[str, Any] | None:
        """The bot sees only ``view(state, seat)``; its generator is keyed by the
        game's bot seed and what the view shows of the moment (turn, piles)."""
        seen = view(state, seat)
        moment = (
            f"{seed}:{seat}:{seen['turn']}:{len(seen['discard_pile'])}:{seen['draw_pile']['count']}"
        )
        return bots.choose(seen, level, random.Random(moment))  # noqa: S311 (a bot's play, not a secret)


RULESET: Ruleset = WildCardsRuleset()
