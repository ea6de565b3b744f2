"""The public history of a round: what a seat saw happen, move by move.

A person at the table sees every move as it happens, not only the present
view: who played what on which top card and colour, who drew (and, for a
draw of their own, what), who chose which colour, who passed, what every
hand showed when the table turned over, who left with what showing. A draw
says a lot: the hand that drew held nothing playable at that moment.

The engine keeps a compact record of the round in the state
(``GameState.history``: one small integer per card moved or choice made,
three characters each in a snapshot, reset by every deal: ``flip.journal``) and
``public_history(state, seat)`` reads it for one seat, showing only what
that seat saw: its own cards' active faces, every other card in a hand by
the face it showed the seat (the inactive face), the piles' faces in play.
It is handed to the seat's own bot, like ``flip_memory``, and never served
by the API: with the current view it would
put both faces of the seat's own cards in one response.
"""

from __future__ import annotations

from typing import Any

from .cards import CODE_OF, COLOR_OF, COLORS, FLIP, KIND_OF, LIGHT, NO_COLOR, SIDES, SORT_OF
from .journal import (
    CHOOSE,
    DRAW,
    LEAVE,
    LEFT,
    PASS,
    PENALTY,
    PLAY,
    RESHUFFLE,
    STARTER,
    entries,
)
from .state import GameState

History = dict[str, Any]


def _sorted_codes(cards: list[int], side: int) -> list[str]:
    order = SORT_OF[side]
    codes = CODE_OF[side]
    return [codes[c] for c in sorted(cards, key=lambda c: (order[c], codes[c]))]


def _color(color: int) -> str | None:
    return None if color == NO_COLOR else COLORS[color]


class _Replay:
    """The round played again from its record, told as one seat saw it."""

    def __init__(self, s: GameState, seat: int, record: list[tuple[int, int, int, int]]) -> None:
        self.me = seat
        self.side = LIGHT
        self.color = NO_COLOR
        self.discard: list[int] = []
        self.hands = _dealt(s, record)
        self.events: list[dict[str, Any]] = [{"type": "deal", "hands": self._hands()}]
        self.penalty: dict[str, Any] | None = None  # the penalty draw being told

    def _seen(self, seat: int, cards: list[int]) -> list[str]:
        """``cards`` of ``seat``'s hand as the seat this history is for saw them."""
        return _sorted_codes(cards, self.side if seat == self.me else self.side ^ 1)

    def _hands(self) -> list[dict[str, Any]]:
        return [
            {"seat": i, "faces": self._seen(i, hand)} for i, hand in enumerate(self.hands) if hand
        ]

    def table(self) -> dict[str, Any]:
        return {"top": CODE_OF[self.side][self.discard[-1]], "color": _color(self.color)}

    def starter(self, card: int) -> None:
        self.discard.append(card)
        self.color = COLOR_OF[LIGHT][card]
        self.events.append({"type": "starter", "face": CODE_OF[LIGHT][card]})

    def play(self, seat: int, card: int, color: int) -> None:
        side = self.side
        event: dict[str, Any] = {
            "type": "play",
            "seat": seat,
            "face": CODE_OF[side][card],
            **self.table(),
        }
        hand = self.hands[seat]
        hand.remove(card)
        flips = KIND_OF[side][card] == FLIP and bool(hand)  # a winning Flip does not flip
        if seat != self.me and not flips:
            # The hand's faces before and after show which face left it; after
            # a flip the hand shows its other faces, so that is lost.
            event["back"] = CODE_OF[side ^ 1][card]
        wild = COLOR_OF[side][card] == NO_COLOR
        if wild:
            event["chosen"] = COLORS[color]
        self.events.append(event)
        self.discard.append(card)
        self.color = color if wild else COLOR_OF[side][card]
        if flips:
            self.discard.reverse()
            self.side ^= 1
            self.color = COLOR_OF[self.side][self.discard[-1]]
            self.events.append(
                {"type": "flip", "side": SIDES[self.side], **self.table(), "hands": self._hands()}
            )

    def draw(self, seat: int, card: int, reason: str) -> None:
        """One card drawn; the cards of one penalty make one event."""
        open_penalty = self.penalty
        if reason == "penalty" and open_penalty is not None and open_penalty["seat"] == seat:
            open_penalty["faces"].extend(self._seen(seat, [card]))
        else:
            event: dict[str, Any] = {
                "type": "draw",
                "seat": seat,
                "reason": reason,
                "faces": self._seen(seat, [card]),
                **self.table(),
            }
            self.events.append(event)
            self.penalty = event if reason == "penalty" else None
        self.hands[seat].append(card)

    def reshuffle(self, record: list[tuple[int, int, int, int]], index: int) -> None:
        shuffled = {"type": "reshuffle", "count": len(self.discard) - 1}
        more = record[index + 1] if index + 1 < len(record) else None
        penalty = self.penalty
        if penalty is not None and more is not None and more[:2] == (PENALTY, penalty["seat"]):
            # In the middle of a penalty: told before the cards, as the events are.
            self.events.insert(len(self.events) - 1, shuffled)
        else:
            self.events.append(shuffled)
        self.discard = self.discard[-1:]

    def leave(self, seat: int, cards: list[int]) -> None:
        self.events.append({"type": "leave", "seat": seat, "faces": self._seen(seat, cards)})
        self.hands[seat] = []


def _left_cards(record: list[tuple[int, int, int, int]], index: int) -> list[int]:
    """The cards of the hand that left at ``record[index]``: the entries after it."""
    cards = []
    for later in record[index + 1 :]:
        if later[0] != LEFT:
            break
        cards.append(later[2])
    return cards


def _dealt(s: GameState, record: list[tuple[int, int, int, int]]) -> list[list[int]]:
    """Every hand as dealt: the hands now with the round's moves taken back."""
    hands = [{int(c) for c in h} for h in s.hands]
    for kind, seat, card, _ in reversed(record):
        if kind in (PLAY, LEFT):
            hands[seat].add(card)
        elif kind in (DRAW, PENALTY):
            hands[seat].discard(card)
    return [sorted(h) for h in hands]


def public_history(s: GameState, seat: int) -> History | None:
    """What ``seat`` saw happen this round, in order; None when it was not recorded.

    ``events`` lists, in the view's shapes: ``deal`` (every hand as dealt:
    the seat's own active faces, the others' inactive faces), ``starter``,
    ``play`` (with the top card and colour it was played on, the colour chosen
    for a Wild, and for another seat's card the face it showed in the hand,
    ``back``), ``flip`` (the new side, top card and colour, and every hand as
    it then showed), ``draw`` (a turn's draw, ``reason`` ``draw``, or a
    penalty; the faces drawn as the seat saw them: its own active faces,
    another hand's inactive faces; the top card and colour then), ``pass``,
    ``choose_color``, ``leave`` (the faces the hand showed) and ``reshuffle``.
    Also ``passed`` (the seats that have passed since a card was last played
    or drawn) and ``left_order`` (who left the game, in order).

    A state whose record does not start with the round (a snapshot from
    before records were kept, a rebuilt sample) has no history: None.
    """
    if not 0 <= seat < s.seats:
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    if not s.history:  # None, or a record that does not start with the round
        return None
    record = entries(s.history)
    replay = _Replay(s, seat, record)
    for index, (kind, who, card, color) in enumerate(record):
        if kind not in (PENALTY, RESHUFFLE):
            replay.penalty = None
        if kind == STARTER:
            replay.starter(card)
        elif kind == PLAY:
            replay.play(who, card, color)
        elif kind in (DRAW, PENALTY):
            replay.draw(who, card, "draw" if kind == DRAW else "penalty")
        elif kind == CHOOSE:
            replay.color = color
            replay.events.append({"type": "choose_color", "seat": who, "color": COLORS[color]})
        elif kind == PASS:
            replay.events.append({"type": "pass", "seat": who, **replay.table()})
        elif kind == LEAVE:
            replay.leave(who, _left_cards(record, index))
        elif kind == RESHUFFLE:
            replay.reshuffle(record, index)
    return {
        "round": s.round,
        "seat": seat,
        "events": replay.events,
        "passed": s.passed[:],
        "left_order": s.left_order[:],
    }


__all__ = ["History", "entries", "public_history"]
