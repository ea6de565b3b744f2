"""Wild Cards Flip as a ruleset: the one object the service reaches the game through.

``RULESET`` satisfies ``tabletop.ruleset.Ruleset``; the service finds it in
its registry by the id ``flip`` (``games.rulesets``) and never imports this
package by name. Every method is a thin door onto flip's public interface.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, cast

from tabletop import realtime
from tabletop.ruleset import OptionError, OptionSpec, Ruleset

# flip's public interface only (flip/__init__.py): the modules behind it are flip's own.
from . import (
    CHOOSE_COLOR,
    COLORS,
    DRAW,
    LEAVE,
    MESSAGES,
    PASS,
    PLAY,
    REQUEST_MESSAGES,
    SIDES,
    Action,
    ActionDict,
    Event,
    Options,
    Recorder,
    SeatView,
    WatcherView,
    apply,
    check,
    events_view,
    flip_memory,
    forced_action,
    legal_actions,
    new_game,
    parse_face,
    parse_request,
    public_history,
    replay,
    timeout_action,
    view,
    watcher_view,
)
from . import (
    GameState as FlipState,
)
from .cards import SYMBOLS
from .state import MAX_SEATS, MIN_SEATS, SINGLE_ROUND, TARGET, TARGETS

OPTIONS: Final = (
    OptionSpec(
        "scoring",
        "choice",
        SINGLE_ROUND,
        "Scoring",
        "One round, or rounds until someone reaches the target score.",
        choices=(SINGLE_ROUND, TARGET),
    ),
    OptionSpec(
        "target",
        "int",
        500,
        "Target score",
        "The score that wins a game played to a target.",
        choices=TARGETS,
    ),
    OptionSpec(
        "two_seat_reverse_skips",
        "bool",
        True,
        "Two-player Reverse skips",
        "With two players a Reverse works like a Skip, so you play again.",
    ),
)


_KIND_WORDS: Final = {
    "draw-one": "Draw One",
    "draw-five": "Draw Five",
    "reverse": "Reverse",
    "skip": "Skip",
    "skip-everyone": "Skip Everyone",
    "flip": "Flip",
    "wild": "Wild",
    "wild-draw-two": "Wild Draw 2",
    "dark-wild": "Dark Wild",
    "wild-draw-color": "Wild Draw Color",
}


class FlipRuleset:
    """Wild Cards Flip (``flip``), as ``tabletop.ruleset.Ruleset`` describes."""

    id: str = "flip"
    #: The rules' version (a snapshot's own shape has its version too: ``flip.state``).
    version: int = 1
    name: str = "Wild Cards Flip"
    options: tuple[OptionSpec, ...] = OPTIONS
    messages: Mapping[str, str] = {**MESSAGES, **REQUEST_MESSAGES}
    request_types: tuple[str, ...] = (PLAY, DRAW, CHOOSE_COLOR, PASS)
    bot_levels: tuple[str, ...] = ("easy", "normal", "hard")
    stand_in_level: str = realtime.STAND_IN_LEVEL
    min_seats: int = MIN_SEATS
    max_seats: int = MAX_SEATS

    view_types: tuple[Any, ...] = (SeatView, WatcherView)
    #: The symbol printed with each colour (the web client's cards).
    color_symbols: Mapping[str, str] = {
        color: SYMBOLS[number] for number, color in enumerate(COLORS)
    }

    def face_words(self, code: str) -> Mapping[str, Any]:
        """A face code in words: its side, colour, symbol, kind, number, name and points.

        >>> FlipRuleset().face_words("sun-draw-one")["name"]
        'Yellow Draw One'
        """
        face = parse_face(code)
        color = None if face.is_wild else COLORS[face.color]
        symbol = None if face.is_wild else code.partition("-")[0]
        kind = "number" if face.number else face.kind
        what = str(face.number) if face.number else _KIND_WORDS[face.kind]
        name = what if color is None else f"{color.capitalize()} {what}"
        return {
            "code": code,
            "side": SIDES[face.side],
            "color": color,
            "symbol": symbol,
            "kind": kind,
            "number": face.number or None,
            "label": what,
            "name": name,
            "points": face.points,
        }

    def make_options(self, seats: int, values: Mapping[str, object]) -> Options:
        unknown = set(values) - {spec.name for spec in OPTIONS}
        if unknown:
            name = sorted(unknown)[0]
            raise OptionError(name, f"Wild Cards Flip has no option {name}")
        chosen = {spec.name: spec.check(values.get(spec.name, spec.default)) for spec in OPTIONS}
        return Options(
            seats=seats,
            two_seat_reverse_skips=bool(chosen["two_seat_reverse_skips"]),
            scoring=str(chosen["scoring"]),
            target=int(chosen["target"]),
        )

    def options_dict(self, options: Options) -> dict[str, Any]:
        return dict(options.to_dict())

    def new_game(self, options: Options, seed: str) -> tuple[FlipState, list[dict[str, Any]]]:
        state, events = new_game(options, seed)
        return state, cast(list[dict[str, Any]], events)

    def restore(self, snapshot: Mapping[str, Any]) -> FlipState:
        return FlipState.from_dict(snapshot)

    def legal_actions(self, state: FlipState, seat: int) -> list[Action]:
        return legal_actions(state, seat)

    def check(self, state: FlipState, seat: int, action: Action) -> None:
        check(state, seat, action)

    def apply(
        self, state: FlipState, seat: int, action: Action
    ) -> tuple[FlipState, list[dict[str, Any]]]:
        after, events = apply(state, seat, action)
        return after, cast(list[dict[str, Any]], events)

    def timeout_action(self, state: FlipState) -> Action:
        return timeout_action(state)

    def forced_action(self, state: FlipState, seat: int) -> Action | None:
        return forced_action(state, seat)

    def leave_action(self) -> Action:
        return Action(LEAVE)

    def action_from_dict(self, data: Mapping[str, Any]) -> Action:
        return Action.from_dict(cast(ActionDict, data))

    def parse_request(self, state: FlipState, seat: int, data: object) -> Action:
        return parse_request(state, seat, data)

    def view(self, state: FlipState, seat: int) -> Mapping[str, Any]:
        return view(state, seat)

    def watcher_view(self, state: FlipState) -> Mapping[str, Any]:
        return watcher_view(state)

    def events_view(
        self, events: Sequence[Mapping[str, Any]], seat: int | None
    ) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], events_view(cast(list[Event], events), seat))

    def record(
        self,
        options: Options,
        seed: str,
        start_events: Sequence[Mapping[str, Any]],
        moves: Sequence[tuple[int, Action, str, Sequence[Mapping[str, Any]], str | None]],
    ) -> dict[str, Any]:
        recorder = Recorder(options, seed, cast(list[Event], list(start_events)))
        for seat, action, source, events, stand_in in moves:
            recorder.add(seat, action, source, cast(list[Event], list(events)), stand_in)
        return cast(dict[str, Any], recorder.to_dict())

    def replay(self, record: Mapping[str, Any]) -> FlipState:
        return replay(record)

    def positions(self, record: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        from .positions import open_positions  # noqa: PLC0415 (only finished games' replays)

        return cast(Iterator[Mapping[str, Any]], open_positions(record))

    def bot_request(
        self,
        state: FlipState,
        seat: int,
        *,
        level: str,
        seed: str,
        levels: Sequence[str | None],
    ) -> Mapping[str, Any] | None:
        """What a Flip bot in ``seat`` answers: only the seat to act ever acts in Flip.

        The bot is given the seat's view, what it saw when the table last
        turned over and what it saw happen this round (a person in the seat
        would remember that much), and which seats are bots of which level,
        which the table shows everyone.
        """
        if state.over or seat != state.current:
            return None
        from .bots import make_bot  # noqa: PLC0415 (the bots load only where bots play)

        return cast(
            Mapping[str, Any],
            make_bot(level, seed).choose(
                view(state, seat),
                flip_memory(state, seat),
                public_history(state, seat),
                levels=list(levels),
            ),
        )


RULESET: Final[Ruleset] = FlipRuleset()
