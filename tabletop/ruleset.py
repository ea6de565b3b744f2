"""The ruleset interface: what a game package gives the service, and nothing more.

In the spirit of OpenSpiel's split between a game (its parameters, fixed for
a whole game) and a state (one position, with its legal actions and views):
a game package provides one object satisfying ``Ruleset``, and the service
(``games.rulesets``) finds it by the game's id in a registry filled from the
settings. The service never imports a game package by name; everything it
knows of a game comes through these methods, as plain data:

- the game's ``id``, ``version`` and ``name``, its ``options`` with their
  defaults and bounds (``OptionSpec``), and ``make_options`` to check a
  host's choice;
- ``new_game(options, seed)`` and ``apply(state, seat, action)``, each
  returning the new state and the events it caused; ``check`` refuses an
  action without applying it; both raise ``RuleError`` (a stable ``code``
  and a sentence), and a refused action changes nothing;
- ``legal_actions(state, seat)`` for any seat: a seat that is not to act may
  have some (a jump-in);
- ``timeout_action(state)``, the plain move the table makes for the player
  to act, and ``leave_action(seat)``;
- ``view(state, seat)`` and ``watcher_view(state)``, ``events_view(events,
  seat)``: the only way facts leave the game;
- ``parse_request(state, seat, data)``: a client's request (JSON) as an
  action, or ``RuleError``;
- ``restore`` (a snapshot dict back to a state; ``state.to_dict()`` makes
  one), ``record`` and ``replay``, ``positions`` of a finished game;
- ``bot_request(state, seat, level=..., seed=..., levels=...)``: what a bot
  of ``level`` in ``seat`` answers, in the request shape, from what that seat
  may see only (the service parses and checks it like a person's).

A state is the game's own object; the service reads only the attributes of
``GameState`` below, and stores ``state.to_dict()``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

#: The kinds of option a host may set.
OptionKind = Literal["bool", "int", "choice"]


class OptionError(ValueError):
    """An option a game does not take, or a value it may not have: ``option`` names it.

    >>> str(OptionError("target", "target is a whole number from 50 to 5000"))
    'target is a whole number from 50 to 5000'
    """

    def __init__(self, option: str, message: str) -> None:
        self.option = option
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a game, fixed at the table's creation.

    ``choices`` for a ``choice`` (and for an ``int`` that takes only some
    values); ``minimum`` and ``maximum`` for an ``int``; ``sentence`` explains
    the option to a person in one sentence (the new-table form shows it).
    ``house_rule`` marks an option that changes the rules from the standard
    game (tables with house rules are told apart).
    """

    name: str
    kind: OptionKind
    default: bool | int | str
    label: str
    sentence: str
    choices: tuple[bool | int | str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    house_rule: bool = False

    def check(self, value: object) -> bool | int | str:
        """``value`` if this option may take it; ``OptionError`` with a sentence otherwise.

        >>> OptionSpec("target", "int", 500, "Target", "", minimum=50, maximum=5000).check(49)
        Traceback (most recent call last):
        ...
        tabletop.ruleset.OptionError: target is a whole number from 50 to 5000
        """
        if self.kind == "bool":
            if type(value) is not bool:
                raise OptionError(self.name, f"{self.name} is true or false")
            return value
        if self.kind == "int":
            if type(value) is not int:
                raise OptionError(self.name, f"{self.name} is a whole number")
            if self.choices and value not in self.choices:
                raise OptionError(
                    self.name, f"{self.name} is one of {', '.join(map(str, self.choices))}"
                )
            low, high = self.minimum, self.maximum
            if (low is not None and value < low) or (high is not None and value > high):
                raise OptionError(self.name, f"{self.name} is a whole number from {low} to {high}")
            return value
        if not isinstance(value, str) or value not in self.choices:
            raise OptionError(
                self.name, f"{self.name} is one of {', '.join(map(str, self.choices))}"
            )
        return value

    def _listed(self) -> str:
        return ", ".join(map(str, self.choices))


class RuleError(Exception):
    """The rules refuse an action. ``code`` is stable; ``message`` is for people.

    Every game's refusal is one of these (or a subclass), so the service
    answers them all in the API's one error shape.

    >>> RuleError("not_your_turn", "It is not your turn.").as_dict()
    {'code': 'not_your_turn', 'detail': 'It is not your turn.'}
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message or code
        super().__init__(f"{code}: {self.message}")

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.message}


@runtime_checkable
class Action(Protocol):
    """An action of some game: its ``type`` names it; ``to_dict`` is what the log keeps."""

    @property
    def type(self) -> str: ...

    def to_dict(self) -> Mapping[str, Any]: ...


class GameState(Protocol):
    """What the service reads of a game's state, whatever the game.

    ``current``: the seat to act; ``turn``: how many turns have started (a
    turn's deadline belongs to one number); ``round``: the round being played;
    ``over``: the game has ended; ``seats``: how many seats; ``seed``: the
    game's secret seed (never served while the game runs).
    """

    @property
    def current(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def round(self) -> int: ...

    @property
    def over(self) -> bool: ...

    @property
    def seats(self) -> int: ...

    @property
    def seed(self) -> str: ...

    def to_dict(self) -> Mapping[str, Any]: ...


class Ruleset(Protocol):
    """A game, as the service sees it (see the module's docstring)."""

    #: The game's id in URLs, the API and the database (``flip``, ``wildcards``).
    id: str
    #: The rules' version: a snapshot and a record name the version that wrote them.
    version: int
    #: The game's name for people.
    name: str
    #: The options a host may set, in the order a form shows them.
    options: tuple[OptionSpec, ...]
    #: Every refusal code the rules may answer, with its sentence.
    messages: Mapping[str, str]
    #: The action types a client may send (``leave`` is never one of them).
    request_types: tuple[str, ...]
    #: Bot levels, weakest first.
    bot_levels: tuple[str, ...]
    #: The bot level that plays a seat whose person struck out or is away.
    stand_in_level: str
    #: The players a game takes.
    min_seats: int
    max_seats: int

    #: The TypedDicts of its seat view and its watcher view (the API's schema is made
    #: from them, so it cannot drift from what the game serves).
    view_types: tuple[Any, ...]
    #: The symbol printed with each colour name (cards never rely on colour alone).
    color_symbols: Mapping[str, str]

    def face_words(self, code: str) -> Mapping[str, Any]:
        """A face code in words, for pages: ``code``, ``color`` (None for a Wild),
        ``symbol``, ``kind``, ``number``, ``label``, ``name`` and ``points``."""
        ...

    def make_options(self, seats: int, values: Mapping[str, object]) -> Any:
        """The game's options for ``seats`` and ``values`` (missing ones take their
        defaults); ``OptionError`` naming the option, with a sentence, for an unknown
        option or a value out of bounds; ``ValueError`` for a seat count out of bounds."""
        ...

    def options_dict(self, options: Any) -> dict[str, Any]:
        """``options`` as JSON (what ``make_options`` takes back, with ``seats``)."""
        ...

    def new_game(self, options: Any, seed: str) -> tuple[GameState, list[dict[str, Any]]]: ...

    def restore(self, snapshot: Mapping[str, Any]) -> GameState:
        """A state from ``state.to_dict()`` of this game, of this or an older version."""
        ...

    def legal_actions(self, state: Any, seat: int) -> Sequence[Action]: ...

    def check(self, state: Any, seat: int, action: Any) -> None:
        """``RuleError`` if the rules refuse ``action`` from ``seat``; nothing otherwise."""
        ...

    def apply(self, state: Any, seat: int, action: Any) -> tuple[GameState, list[dict[str, Any]]]:
        """The state after ``seat``'s ``action`` and the events it caused; the state
        passed in is not touched. ``RuleError`` if refused."""
        ...

    def timeout_action(self, state: Any) -> Action:
        """The plain move the table makes for the player to act (``state.current``)."""
        ...

    def forced_action(self, state: Any, seat: int) -> Action | None:
        """The action ``seat`` is forced to make now, or None: the seat is to act, the
        rules leave it exactly one legal action, and that action needs no choice of
        the player's, now or as its own next step (a draw when nothing can be played,
        the drawn card that must be played when it is no Wild). The service plays it
        at once for a player who asked for that: it is only their own move made sooner."""
        ...

    def leave_action(self) -> Action:
        """The action of a seat leaving the game (in or out of turn)."""
        ...

    def action_from_dict(self, data: Mapping[str, Any]) -> Action:
        """An action back from ``action.to_dict()`` (the move log)."""
        ...

    def parse_request(self, state: Any, seat: int, data: object) -> Action:
        """A client's request as an action of ``seat``; ``RuleError`` for one
        that is not an action of this game (its shape, unknown fields)."""
        ...

    def view(self, state: Any, seat: int) -> Mapping[str, Any]: ...

    def watcher_view(self, state: Any) -> Mapping[str, Any]: ...

    def events_view(
        self, events: Sequence[Mapping[str, Any]], seat: int | None
    ) -> list[dict[str, Any]]:
        """What ``seat`` (None: a watcher) may see of ``events``."""
        ...

    def record(
        self,
        options: Any,
        seed: str,
        start_events: Sequence[Mapping[str, Any]],
        moves: Sequence[tuple[int, Any, str, Sequence[Mapping[str, Any]], str | None]],
    ) -> dict[str, Any]:
        """The game's record from its start and ``(seat, action, source, events,
        stand_in)`` for every move."""
        ...

    def replay(self, record: Mapping[str, Any]) -> GameState:
        """The final state of ``record``; ``ValueError`` or ``RuleError`` if it does not replay."""
        ...

    def positions(self, record: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        """Every open position of a finished game's record, for its replay."""
        ...

    def bot_request(
        self,
        state: Any,
        seat: int,
        *,
        level: str,
        seed: str,
        levels: Sequence[str | None],
    ) -> Mapping[str, Any] | None:
        """What a bot of ``level`` in ``seat`` answers, in the request shape, from
        what that seat may see only; None when it does nothing (a seat not to
        act that does not jump in). ``levels``: the bot level each seat shows."""
        ...
