"""Reading the table: which physical cards can be where, from a seat's public history.

A seat's view names a face for every card it can see: its own cards by their
active faces, the other hands' cards by their inactive faces, the discard
pile by its faces in play. Through the public pairing table each face leaves
a few candidate cards (two for most faces, four for a Wild's back). The
history of the round (``flip.public_history``) narrows them, as a good
player at the table would:

- a hand that drew on its turn, or passed, held nothing playable at that
  moment: none of its cards then had the colour in play, the top card's
  number or action, or a Wild on the side in play;
- a card drawn and kept was not playable either; a card drawn and played at
  once was, and it showed the seat both its faces;
- a card played from another hand showed the seat the face it had in the
  hand and then the face it was played with: few cards carry both;
- a hand that played a Wild Draw 2 or a Wild Draw Color held no other card
  of the colour in play;
- at a flip every hand shows its other faces, so a card held across it
  carries one of the faces seen before and one seen after.

``read`` follows every card from the deal (or from the moment it entered a
hand) to now, keeping for each a set of candidate cards, and returns them
lined up with the view's places. Where what it followed no longer agrees
with the view (it never should), it gives the view's own candidates for that
hand, so reading can only narrow what the view allows, never contradict it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flip.cards import CARDS_BY_FACE, CODE_OF, COLOR_OF, COLORS, KEY_OF, NO_COLOR

from .base import FACE_BY_CODE, View

Cands = frozenset[int]


@dataclass(frozen=True, slots=True)
class Reading:
    """Candidate cards for every place of the view, in the view's order.

    ``hands[seat]`` follows the seat's own ``hand`` (for the seat itself) or
    ``players[seat]["faces"]``; ``discard`` follows ``discard_pile``.
    """

    hands: dict[int, list[Cands]]
    discard: list[Cands]


def _face(code: str) -> Cands:
    return frozenset(CARDS_BY_FACE[code])


class _Table:
    """Every hand as a list of candidate sets, followed event by event."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.side = 0
        self.hands: dict[int, list[set[int]]] = {}
        self.discard: list[set[int]] = []

    def visible_side(self, seat: int) -> int:
        """The side on which the seat reading sees ``seat``'s cards."""
        return self.side if seat == self.me else self.side ^ 1

    def token_face(self, seat: int, token: set[int]) -> str:
        return CODE_OF[self.visible_side(seat)][next(iter(token))]

    def deal(self, hands: Iterable[Mapping[str, Any]]) -> None:
        self.hands = {h["seat"]: [set(_face(code)) for code in h["faces"]] for h in hands}

    def held_nothing_playable(
        self, seat: int, top: str, color: str | None, tokens: list[set[int]]
    ) -> None:
        """``seat`` could play none of ``tokens`` on ``top`` with ``color`` in play."""
        if seat == self.me:
            return  # its own active faces are known already
        side = self.side
        colors = COLOR_OF[side]
        keys = KEY_OF[side]
        in_play = NO_COLOR if color is None else COLORS.index(color)
        top_key = FACE_BY_CODE[top].match_key
        for token in tokens:
            kept = {
                c
                for c in token
                if colors[c] != NO_COLOR and colors[c] != in_play and keys[c] != top_key
            }
            if kept:  # an empty set would mean we lost track; keep what we had
                token.intersection_update(kept)

    def play(self, event: Mapping[str, Any], drawn: set[int] | None) -> None:
        seat: int = event["seat"]
        played = _face(event["face"])
        hand = self.hands.get(seat, [])
        if drawn is not None and any(t is drawn for t in hand):
            group = [drawn]  # a card drawn and played at once
        elif seat == self.me:
            group = [t for t in hand if self.token_face(seat, t) == event["face"]]
        elif "back" in event:
            group = [t for t in hand if self.token_face(seat, t) == event["back"]]
        else:
            # A Flip from another hand: which face left the hand is not seen.
            # The flip that comes with it looks at the whole hand again.
            self.discard.append(set(played))
            return
        fits = [t for t in group if t & played]
        if not fits:  # lost track: the view's candidates will do
            self.discard.append(set(played))
            return
        gone = fits[0]
        if len(fits) == 1:
            card = gone & played
        else:
            # Cards alike to the seat: any of them may have gone, so each one
            # left may be any of them.
            union = set().union(*group)
            card = union & played
            for t in group:
                if t is not gone:
                    t.update(union)
        hand[:] = [t for t in hand if t is not gone]
        self.discard.append(set(card))
        if FACE_BY_CODE[event["face"]].restricted and seat != self.me and event["color"]:
            # A Wild Draw 2 or Wild Draw Color may only be played by a hand
            # holding no card of the colour in play.
            in_play = COLORS.index(event["color"])
            colors = COLOR_OF[self.side]
            for token in hand:
                kept = {c for c in token if colors[c] != in_play}
                if kept:
                    token.intersection_update(kept)

    def flip(self, event: Mapping[str, Any]) -> None:
        self.side ^= 1
        self.discard.reverse()
        for h in event["hands"]:
            seat = h["seat"]
            pool = set().union(*self.hands.get(seat, [set()]))
            fresh = []
            for code in h["faces"]:
                cards = set(_face(code))
                narrowed = cards & pool
                fresh.append(narrowed or cards)
            self.hands[seat] = fresh

    def draw(self, seat: int, faces: list[str]) -> list[set[int]]:
        tokens = [set(_face(code)) for code in faces]
        self.hands.setdefault(seat, []).extend(tokens)
        return tokens


def read(view: View, history: Mapping[str, Any]) -> Reading | None:
    """The candidates of every place of ``view``, narrowed by ``history``.

    None when the history is not of the view's round or seat.
    """
    me: int = view["seat"]
    if history["round"] != view["round"] or history["seat"] != me:
        return None
    table = _Table(me)
    events: list[Mapping[str, Any]] = history["events"]
    pending: set[int] | None = None  # a card just drawn by its seat's turn
    pending_seat = -1
    for index, event in enumerate(events):
        kind = event["type"]
        drawn, pending = pending, None
        if kind == "deal":
            table.deal(event["hands"])
        elif kind == "starter":
            table.discard = [set(_face(event["face"]))]
        elif kind == "play":
            table.play(event, drawn if event["seat"] == pending_seat else None)
        elif kind == "flip":
            table.flip(event)
        elif kind == "draw":
            later = events[index + 1] if index + 1 < len(events) else None
            pending = _drawn(table, event, later)
            pending_seat = event["seat"]
        elif kind == "pass":
            seat = event["seat"]
            table.held_nothing_playable(
                seat, event["top"], event["color"], table.hands.get(seat, [])
            )
        elif kind == "leave":
            table.hands.pop(event["seat"], None)
        elif kind == "reshuffle":
            table.discard = table.discard[-1:]
    return _line_up(view, table)


def _drawn(
    table: _Table, event: Mapping[str, Any], later: Mapping[str, Any] | None
) -> set[int] | None:
    """Follow a draw; the card drawn when its seat plays it at once, else None."""
    seat = event["seat"]
    turn = event["reason"] == "draw"
    if turn:
        hand = table.hands.get(seat, [])
        table.held_nothing_playable(seat, event["top"], event["color"], hand)
    tokens = table.draw(seat, event["faces"])
    if not turn or len(tokens) != 1 or later is None:
        # A penalty, or the turn is still being played: the last event, a
        # drawn card waiting to be played.
        return None
    if later.get("seat") != seat:
        # Kept, so not playable.
        table.held_nothing_playable(seat, event["top"], event["color"], tokens)
        return None
    return tokens[0] if later["type"] == "play" else None


def _line_up(view: View, table: _Table) -> Reading:
    """The followed candidates in the view's order; the view's own where they disagree."""
    me: int = view["seat"]
    hands: dict[int, list[Cands]] = {}
    for p in view["players"]:
        seat = p["seat"]
        if not p["in_game"]:
            continue
        codes = [e["face"] for e in view["hand"]] if seat == me else list(p["faces"])
        hands[seat] = _match(codes, table.hands.get(seat, []), table, seat)
    codes = list(view["discard_pile"])
    discard = [_face(code) for code in codes]
    if len(table.discard) == len(codes):
        for i, token in enumerate(table.discard):
            narrowed = token & discard[i]
            if narrowed:
                discard[i] = frozenset(narrowed)
    return Reading(hands=hands, discard=discard)


def _match(
    codes: list[str],
    tokens: list[set[int]],
    table: _Table,
    seat: int,
) -> list[Cands]:
    by_face: dict[str, list[set[int]]] = {}
    for token in tokens:
        if token:
            by_face.setdefault(table.token_face(seat, token), []).append(token)
    out: list[Cands] = []
    for code in codes:
        cards = _face(code)
        followed = by_face.get(code)
        if followed:
            narrowed = followed.pop() & cards
            out.append(frozenset(narrowed) if narrowed else cards)
        else:
            out.append(cards)
    return out


__all__ = ["Reading", "read"]
