"""The public history of a round: what every seat saw happen, move by move.

A person at the table remembers the round, not only the present view: who
played what, who drew when which colour was in play (a hand that draws held
nothing it could play: no card of that colour, none matching the top card,
no Wild), who took a penalty, who named which colour, who passed, who
swapped with whom, who left. Ruling 29 counts "the public log" among what a
seat sees.

The engine keeps the round's public facts in ``GameState.log``, one small
integer each (``entry``), reset by every deal. Nothing private goes in: a
play's face (it lands face up), a draw's count, never a drawn face nor the
draw pile's order. So the history is the same for every seat, and
``public_history(state, seat)`` equals ``history_of_events`` over what the seat
was shown of the round (``events_view``): tests/wildcards/test_history.py
builds it both ways. It is handed to the seat's bot (``RULESET.bot_request``).

An event of the history is one of::

    {"type": "starter", "face": f}
    {"type": "play", "seat": s, "face": f, "on": top, "in_play": colour,
     "color": named (a Wild), "target": t (a 7's swap), "jump_in": True}
    {"type": "draw", "seat": s, "count": n, "reason": "draw" | "penalty",
     "on": top, "in_play": colour}
    {"type": "choose_color", "seat": s, "color": c}
    {"type": "pass", "seat": s, "on": top, "in_play": colour}
    {"type": "swap", "seats": [s, t]} / {"type": "rotate", "direction": "clockwise" | ...}
    {"type": "leave", "seat": s, "count": n}
    {"type": "reshuffle", "count": n}

``on`` and ``in_play`` are the top card's face and the colour in play just
before the move (a colour may be None after a Wild starter not yet named).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from .cards import CARDS_BY_FACE, CODE_OF, COLOR_OF, COLORS, NO_COLOR

History = list[dict[str, Any]]

# The kinds of entry (4 bits), then the seat (4 bits), a card or a count (8 bits),
# a colour + 1 (3 bits) and a jump-in flag. A 7's target is its swap's entry's.
STARTER: Final = 1
PLAY: Final = 2
DRAW: Final = 3
PENALTY: Final = 4
CHOOSE: Final = 5
PASS: Final = 6
LEAVE: Final = 7
RESHUFFLE: Final = 8
SWAP: Final = 9
ROTATE: Final = 10
JUMP_IN: Final = 1 << 24

_DIRECTIONS: Final = {1: "clockwise", -1: "counterclockwise"}


def entry(kind: int, seat: int = 0, value: int = 0, color: int = NO_COLOR) -> int:
    """One fact of the record as an integer (``value``: a card or a count, 0 to 255).

    >>> unpack(entry(PLAY, 3, 104, 2))
    (2, 3, 104, 2)
    """
    return kind | seat << 4 | value << 8 | (color + 1) << 16


def unpack(code: int) -> tuple[int, int, int, int]:
    """``(kind, seat, value, colour)`` of an entry (the jump-in flag aside)."""
    return code & 15, code >> 4 & 15, code >> 8 & 255, (code >> 16 & 7) - 1


def _facts(log: Iterable[int]) -> History:  # noqa: C901, PLR0912 (one branch per kind)
    """The record's entries as history events, before ``on`` and ``in_play``."""
    out: History = []
    for code in log:
        kind, seat, value, color = unpack(code)
        if kind == STARTER:
            out.append({"type": "starter", "face": CODE_OF[value]})
        elif kind == PLAY:
            played: dict[str, Any] = {"type": "play", "seat": seat, "face": CODE_OF[value]}
            if color >= 0:
                played["color"] = COLORS[color]
            if code & JUMP_IN:
                played["jump_in"] = True
            out.append(played)
        elif kind in (DRAW, PENALTY):
            reason = "draw" if kind == DRAW else "penalty"
            out.append({"type": "draw", "seat": seat, "count": value, "reason": reason})
        elif kind == CHOOSE:
            out.append({"type": "choose_color", "seat": seat, "color": COLORS[color]})
        elif kind == PASS:
            out.append({"type": "pass", "seat": seat})
        elif kind == SWAP:  # the 7 just played: its target is this entry's
            out[-1]["target"] = value
            out.append({"type": "swap", "seats": [seat, value]})
        elif kind == ROTATE:
            out.append({"type": "rotate", "direction": _DIRECTIONS[1 if value else -1]})
        elif kind == LEAVE:
            out.append({"type": "leave", "seat": seat, "count": value})
        elif kind == RESHUFFLE:
            out.append({"type": "reshuffle", "count": value})
    return out


def _table_added(events: History) -> History:
    """``events`` with the top card and the colour in play before each play, draw and pass."""
    top: str | None = None
    in_play: str | None = None
    for event in events:
        kind = event["type"]
        if kind == "starter":
            top = event["face"]
            color = COLOR_OF[_card_of_face(top)]
            in_play = None if color == NO_COLOR else COLORS[color]
        elif kind in ("play", "draw", "pass"):
            event["on"] = top
            event["in_play"] = in_play
            if kind == "play":
                top = event["face"]
                color = COLOR_OF[_card_of_face(top)]
                in_play = event.get("color") if color == NO_COLOR else COLORS[color]
        elif kind == "choose_color":
            in_play = event["color"]
    return events


def _card_of_face(face: str) -> int:
    return CARDS_BY_FACE[face][0]


def public_history(state: Any, seat: int) -> History:
    """What ``seat`` saw happen this round, in order (the same for every seat: only
    public facts). ``state`` is a ``wildcards.GameState``."""
    if not 0 <= seat < state.seats:
        raise ValueError(f"no seat {seat} at a table of {state.seats}")
    return _table_added(_facts(state.log))


def history_of_events(seen: Iterable[Mapping[str, Any]]) -> History:  # noqa: C901, PLR0912
    """The history of the current round from what a seat was shown (``events_view``
    over the game's events): the same value ``public_history`` reads off the state."""
    out: History = []
    for event in seen:
        kind = event["type"]
        if kind == "round_start":
            out = []
        elif kind == "starter":
            out.append({"type": "starter", "face": event["face"]})
        elif kind == "play":
            played: dict[str, Any] = {"type": "play", "seat": event["seat"], "face": event["face"]}
            for key in ("color", "target", "jump_in"):
                if key in event:
                    played[key] = event[key]
            out.append(played)
        elif kind == "draw":
            out.append(
                {
                    "type": "draw",
                    "seat": event["seat"],
                    "count": event["count"],
                    "reason": event["reason"],
                }
            )
        elif kind == "choose_color":
            out.append({"type": "choose_color", "seat": event["seat"], "color": event["color"]})
        elif kind == "pass":
            out.append({"type": "pass", "seat": event["seat"]})
        elif kind == "swap":
            out.append({"type": "swap", "seats": list(event["seats"])})
        elif kind == "rotate":
            out.append({"type": "rotate", "direction": event["direction"]})
        elif kind in ("leave", "reshuffle"):
            shown = {"type": kind, "count": event["count"]}
            if kind == "leave":
                shown = {"type": kind, "seat": event["seat"], "count": event["count"]}
            out.append(shown)
    return _table_added(out)


__all__ = ["History", "entry", "history_of_events", "public_history", "unpack"]
