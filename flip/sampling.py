"""A full game state from what one seat sees, and the cards it cannot see.

A bot that searches (Hard) plays positions forward with the engine, so it
needs whole states, not views. ``rebuild`` is the one way to make one: it
takes a seat's view and a ``Placement`` (which physical card lies in each
place the view shows a face for, and the hidden rest) and returns a
``GameState`` the engine could have produced, every field filled as a real
game fills it. It checks that the placement shows the seat exactly what the
view shows, so a sample that contradicts the view is refused, not played.

``placement_of`` reads the true placement out of a real state: rebuilding
from it gives back the real state in every field the rules read (the tests
check this), which is what makes a rebuilt sample trustworthy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from .cards import CARDS_BY_FACE, CODE_OF, COLORS, DECK_SIZE, NO_CARD, NO_COLOR, SIDES, SORT_OF
from .state import PENDING_DRAWN, GameState, Options
from .types import Card, HandResult, OptionsDict, Pending, RoundResult, Seat
from .views import handle

View = Mapping[str, Any]

_SIDE_OF = {name: i for i, name in enumerate(SIDES)}


@dataclass(frozen=True, slots=True)
class Placement:
    """The physical cards behind one seat's view.

    - ``hands``: per seat, its cards: the seat's own hand in the order of the
      view's ``hand``, every other hand in the order of its view ``faces``;
      ``[]`` for a seat out of the game;
    - ``discard``: bottom to top, one card per face of the view's discard pile;
    - ``draw``: bottom to top; its top card carries the face the view shows
      on top of the pile;
    - ``left_points``: per seat, the points of the hand it gave up when it
      left (``None`` while it is in the game). The seat never saw the faces
      that are counted, so a sampler has to guess them too;
    - ``drawn``: the drawn card that must be played, when that is pending
      (-1 otherwise). The view names it to the seat that drew it; for the
      other seats it is one of that hand's cards, the one just drawn.
    """

    hands: list[list[Card]]
    discard: list[Card]
    draw: list[Card]
    left_points: list[int | None]
    drawn: Card = NO_CARD


def placement_of(s: GameState, seat: int) -> Placement:
    """The real placement behind ``view(s, seat)``.

    For tests and experiments: a bot is never handed the state.
    """
    side = s.side
    other = side ^ 1
    hands: list[list[Card]] = []
    for i, hand in enumerate(s.hands):
        if i == seat:
            order = SORT_OF[side]
            hands.append(sorted(hand, key=lambda c: (order[c], handle(s, c))))
        else:
            # The order of the view's faces: by the sort of their side, then by code.
            hands.append(sorted(hand, key=lambda c: (SORT_OF[other][c], CODE_OF[other][c])))
    return Placement(
        hands=hands,
        discard=s.discard[:],
        draw=s.draw[:],
        left_points=s.left_points[:],
        drawn=s.drawn,
    )


def rebuild(
    view: View,
    placement: Placement,
    *,
    seed: str,
    history: Mapping[str, Any] | None = None,
    validate: bool = True,
) -> GameState:
    """The state behind ``view`` with the hidden cards where ``placement`` puts them.

    ``history`` is the seat's ``flip.public_history``, when it has one: the
    public facts a view does not repeat (who has passed since the last card
    was played or drawn, the order in which seats left). Without it nobody
    has passed and seats left in seat order.

    What the seat remembers is not part of a view, so it starts afresh: the
    rebuilt state has no memory of the last flip (``flip_memory`` is None)
    and keys its
    handles and shuffles with ``seed``, not the real game's secret seed. The
    rounds already played keep their winners, points and sides; their
    leftover cards are cards carrying the faces shown.

    With ``validate`` (the default) a placement that would show the seat
    anything else than ``view`` raises ``ValueError``.
    """
    seats: int = view["seats"]
    side = _SIDE_OF[view["side"]]
    if validate:
        _check(view, placement, side)
    hands = [list(h) for h in placement.hands]
    pending = view["pending"]
    pending_type: str | None = None if pending is None else pending["type"]
    drawn = placement.drawn if pending_type == PENDING_DRAWN else NO_CARD
    color = view["color"]
    active = [bool(p["in_game"]) for p in view["players"]]
    passed: list[Seat] = []
    left_order = [Seat(i) for i in range(seats) if not active[i]]
    if history is not None:
        passed = [Seat(i) for i in history["passed"]]
        left_order = [Seat(i) for i in history["left_order"]]
    to_act = view["to_act"]
    return GameState(
        options=Options.from_dict(cast(OptionsDict, view["options"])),
        seed=seed,
        round=view["round"],
        dealer=view["dealer"],
        side=side,
        hands=hands,
        draw=list(placement.draw),
        discard=list(placement.discard),
        color=NO_COLOR if color is None else COLORS.index(color),
        direction=1 if view["direction"] == "clockwise" else -1,
        current=Seat(0 if to_act is None else to_act),
        pending=cast(Pending | None, pending_type),
        drawn=drawn,
        active=active,
        passed=passed,
        turn=view["turn"],
        scores=list(view["scores"]),
        left_points=list(placement.left_points),
        left_order=left_order,
        results=[_result(r) for r in view["rounds"]],
        over=view["over"],
        winner=view["winner"],
        ranking=list(view["ranking"]),
    )


def _result(shown: Mapping[str, Any]) -> RoundResult:
    """A round's result as the engine keeps it, from the result everyone was shown."""
    side = _SIDE_OF[shown["side"]]
    return {
        "round": shown["round"],
        "winner": shown["winner"],
        "points": shown["points"],
        "side": side,
        "blocked": shown["blocked"],
        "interrupted": shown["interrupted"],
        "hands": [
            HandResult(
                seat=Seat(h["seat"]),
                cards=_cards_with(c["face"] for c in h["cards"]),
                points=h["points"],
            )
            for h in shown["hands"]
        ],
    }


def _cards_with(codes: Any) -> list[Card]:
    taken: set[Card] = set()
    out: list[Card] = []
    for code in codes:
        card = Card(next(c for c in CARDS_BY_FACE[code] if c not in taken))
        taken.add(card)
        out.append(card)
    return out


def _check(view: View, placement: Placement, side: int) -> None:
    """Raise ``ValueError`` unless ``placement`` shows the seat exactly ``view``."""
    other = side ^ 1
    seats: int = view["seats"]
    me: int = view["seat"]
    every = [c for h in placement.hands for c in h] + placement.discard + placement.draw
    if sorted(every) != list(range(DECK_SIZE)):
        raise ValueError("a placement holds every card exactly once")
    if len(placement.hands) != seats or len(placement.left_points) != seats:
        raise ValueError("a placement has one hand and one leaver's score per seat")
    _same(placement.hands[me], [e["face"] for e in view["hand"]], side, "the seat's hand")
    for p in view["players"]:
        seat = p["seat"]
        if (placement.left_points[seat] is None) != bool(p["in_game"]):
            raise ValueError(f"seat {seat}: a leaver's points, and only a leaver's, are known")
        if seat != me:
            _same(placement.hands[seat], p["faces"], other, f"seat {seat}'s hand")
    _same(placement.discard, view["discard_pile"], side, "the discard pile")
    _check_drawn(view, placement)
    top = view["draw_pile"].get("top")
    if len(placement.draw) != view["draw_pile"]["count"]:
        raise ValueError("the draw pile's size differs from the view")
    if top is not None:
        _same(placement.draw[-1:], [top], other, "the draw pile's top")


def _check_drawn(view: View, placement: Placement) -> None:
    """The drawn card to be played, if any, is the one the view names."""
    me: int = view["seat"]
    pending = view["pending"]
    if pending is None or pending["type"] != PENDING_DRAWN:
        if placement.drawn != NO_CARD:
            raise ValueError("no drawn card is to be played")
        return
    if placement.drawn not in placement.hands[pending["seat"]]:
        raise ValueError("the drawn card to be played is in the hand of the seat that drew it")
    if pending["seat"] == me:
        name = view["legal_actions"][0]["card"]
        index = next(i for i, e in enumerate(view["hand"]) if e["card"] == name)
        if placement.hands[me][index] != placement.drawn:
            raise ValueError("the drawn card is not the one the view names")


def _same(cards: Sequence[int], codes: Sequence[str], side: int, what: str) -> None:
    if [CODE_OF[side][c] for c in cards] != list(codes):
        raise ValueError(f"{what} shows other faces than the view")


__all__ = ["Placement", "placement_of", "rebuild"]
