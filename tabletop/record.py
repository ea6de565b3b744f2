"""The envelope of a game record, the same for every game.

A record holds everything needed to replay one game exactly, with no
generator: the game's format name and version, its options, the seed, every
shuffle's result in the order the game made them (top card first) and every
action in order with its seat and source (and, for a bot's action made for a
person's seat, why: ``stand_in``). What an action holds beyond its ``type``
is the game's own (``docs/record-format.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Final, Literal, TypedDict

Source = Literal["player", "timeout", "bot", "leave", "admin", "autopilot", "forced"]
StandIn = Literal["away", "struck_out"]

SOURCES: Final[tuple[Source, ...]] = (
    "player",
    "timeout",
    "bot",
    "leave",
    "admin",
    "autopilot",
    "forced",
)
STAND_INS: Final[tuple[StandIn, ...]] = ("away", "struck_out")
_SOURCES: Final[dict[str, Source]] = {source: source for source in SOURCES}
_STAND_INS: Final[dict[str, StandIn]] = {reason: reason for reason in STAND_INS}


class RecordedShuffle(TypedDict):
    round: int
    reason: str
    order: list[int]


def entry_head(seat: int, source: str, stand_in: str | None, action_type: str) -> dict[str, object]:
    """The keys every recorded action starts with, checked: ``seat``, ``source``,
    ``stand_in`` (only with source ``bot``) and ``type``, in that order.

    >>> entry_head(1, "bot", "away", "draw")
    {'seat': 1, 'source': 'bot', 'stand_in': 'away', 'type': 'draw'}
    >>> entry_head(1, "timeout", "away", "draw")
    Traceback (most recent call last):
    ...
    ValueError: a bot's action only stands in for a person: 'away'
    """
    if source not in _SOURCES:
        raise ValueError(f"unknown source {source!r}")
    if stand_in is None:
        return {"seat": seat, "source": _SOURCES[source], "type": action_type}
    if stand_in not in _STAND_INS or source != "bot":
        raise ValueError(f"a bot's action only stands in for a person: {stand_in!r}")
    return {"seat": seat, "source": source, "stand_in": _STAND_INS[stand_in], "type": action_type}


def shuffles_in(events: Iterable[Mapping[str, object]]) -> list[RecordedShuffle]:
    """The shuffle events among ``events`` (``type`` ``shuffle``: round, reason, order)."""
    out: list[RecordedShuffle] = []
    for event in events:
        if event["type"] == "shuffle":
            order = event["order"]
            if not isinstance(order, list):
                raise ValueError("a shuffle event holds the order of its cards")
            out.append(
                {"round": int(str(event["round"])), "reason": str(event["reason"]), "order": order}
            )
    return out


def envelope(
    fmt: str,
    version: int,
    options: Mapping[str, object],
    seed: str,
    shuffles: list[RecordedShuffle],
    actions: list[dict[str, object]],
) -> dict[str, object]:
    """A record's dict, its keys in the documented order."""
    return {
        "format": fmt,
        "version": version,
        "options": dict(options),
        "seed": seed,
        "shuffles": list(shuffles),
        "actions": list(actions),
    }


def opened(data: Mapping[str, object], fmt: str, version: int, game: str) -> Iterator[list[int]]:
    """The recorded shuffle orders of ``data``, after checking its format and version.

    Raises ``ValueError`` for a record of another game or version, or a malformed one.
    """
    if data.get("format") != fmt or data.get("version") != version:
        raise ValueError(f"not a {game} game record of a known version")
    shuffles = data.get("shuffles")
    if not isinstance(shuffles, list) or not isinstance(data.get("actions"), list):
        raise ValueError("a record holds a list of shuffles and a list of actions")
    orders: list[list[int]] = []
    for shuffle in shuffles:
        order = shuffle.get("order") if isinstance(shuffle, dict) else None
        if not isinstance(order, list) or not all(type(card) is int for card in order):
            raise ValueError("a recorded shuffle is an object with an order of card numbers")
        orders.append(list(order))
    return iter(orders)
