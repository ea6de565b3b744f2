"""What a seat, or a watcher, may see. The only way game facts leave the engine.

A seat sees the active faces of its own cards, the inactive faces of every
other hand (sorted by those faces, never in the owner's order), how many cards
everyone holds, the draw pile's size and its top card's inactive face, and
the discard pile in order. A watcher sees hand sizes, the discard pile and the
draw pile's size only (PRODUCT.md rulings 10 and 11).

Cards in a seat's own hand are named by handles: opaque strings keyed by the
game's secret seed, the round and the number of flips so far. A handle never
maps to the physical card, and it changes at every flip, so a player can never
follow one card across a flip and learn both its faces.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .cards import CODE_OF, COLORS, FACES, POINTS_OF, SIDES, SORT_OF
from .engine import (
    CHOOSE_COLOR,
    PLAY,
    Event,
    hand_refusals,
    legal_actions,
)
from .errors import RuleError
from .state import GameState

View = dict[str, Any]


def handle(s: GameState, card: int) -> str:
    """The opaque name of ``card`` for its holder, valid until the next flip."""
    digest = hashlib.blake2b(
        f"{s.round}:{s.flips}:{card}".encode(), key=s.seed.encode()[:64], digest_size=6
    )
    return digest.hexdigest()


def card_for_handle(s: GameState, seat: int, name: str) -> int:
    """The card in ``seat``'s hand that ``name`` stands for.

    Raises ``RuleError("card_not_in_hand")`` for any other string, including a
    handle from before a flip.
    """
    for card in s.hands[seat]:
        if handle(s, card) == name:
            return card
    raise RuleError("card_not_in_hand")


def _face_sort(codes: list[str], side: int) -> list[str]:
    return sorted(codes, key=lambda code: (_SORT_BY_CODE[code], code))


_SORT_BY_CODE: dict[str, int] = {
    CODE_OF[side][card]: SORT_OF[side][card] for side in (0, 1) for card in range(len(FACES[0]))
}


_DIRECTIONS = {1: "clockwise", -1: "counterclockwise"}


def _direction(s: GameState) -> str:
    return _DIRECTIONS[s.direction]


def _pending(s: GameState) -> dict[str, Any] | None:
    if s.pending is None or s.over:
        return None
    return {"type": s.pending, "seat": s.current}


def result_view(result: dict[str, Any]) -> dict[str, Any]:
    """A round's result as everyone sees it: leftover cards valued on the scored side."""
    side = result["side"]
    return {
        "round": result["round"],
        "winner": result["winner"],
        "points": result["points"],
        "side": SIDES[side],
        "blocked": result["blocked"],
        "interrupted": result["interrupted"],
        "hands": [
            {
                "seat": hand["seat"],
                "cards": [
                    {"face": CODE_OF[side][c], "points": POINTS_OF[side][c]} for c in hand["cards"]
                ],
                "points": hand["points"],
            }
            for hand in result["hands"]
        ],
    }


def _public(s: GameState) -> View:
    side = s.side
    top = s.discard[-1] if s.discard else None
    return {
        "seats": s.seats,
        "options": s.options.to_dict(),
        "round": s.round,
        "dealer": s.dealer,
        "side": SIDES[side],
        "color": None if s.color < 0 else COLORS[s.color],
        "direction": _direction(s),
        "to_act": None if s.over else s.current,
        "turn": s.turn,
        "pending": _pending(s),
        "top": None if top is None else CODE_OF[side][top],
        "discard_pile": [CODE_OF[side][c] for c in s.discard],
        "draw_pile": {"count": len(s.draw)},
        "scores": s.scores[:],
        "rounds": [result_view(r) for r in s.results],
        "over": s.over,
        "winner": s.winner,
        "ranking": list(s.ranking),
    }


def watcher_view(s: GameState) -> View:
    """What anyone watching the table may see: public facts only."""
    view = _public(s)
    view["seat"] = None
    view["players"] = [
        {"seat": i, "count": len(s.hands[i]), "in_game": s.active[i]} for i in range(s.seats)
    ]
    view["hand"] = []
    view["legal_actions"] = []
    return view


def view(s: GameState, seat: int | None) -> View:
    """What ``seat`` may see (``seat=None``: a watcher).

    >>> from flip import Options, new_game
    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> sorted(view(state, 0)) == sorted(view(state, None))
    True
    """
    if seat is None:
        return watcher_view(s)
    if not 0 <= seat < s.seats:
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    side = s.side
    other = side ^ 1
    out = _public(s)
    out["seat"] = seat
    out["draw_pile"]["top"] = CODE_OF[other][s.draw[-1]] if s.draw else None
    players = []
    for i in range(s.seats):
        entry: dict[str, Any] = {"seat": i, "count": len(s.hands[i]), "in_game": s.active[i]}
        if i != seat:
            entry["faces"] = _face_sort([CODE_OF[other][c] for c in s.hands[i]], other)
        players.append(entry)
    out["players"] = players
    own = s.hands[seat]
    names = {card: handle(s, card) for card in own}
    reasons = dict(zip(own, hand_refusals(s, seat), strict=True))
    hand = []
    for card in sorted(own, key=lambda c: (SORT_OF[side][c], names[c])):
        reason = reasons[card]
        entry = {"card": names[card], "face": CODE_OF[side][card], "playable": reason is None}
        if reason is not None:
            entry["refusal"] = reason
        hand.append(entry)
    out["hand"] = hand
    out["legal_actions"] = _legal_view(s, seat, names)
    return out


def flip_memory(s: GameState, seat: int) -> View | None:
    """What ``seat`` saw the moment the table last turned over this round.

    The faces shown just before the table turned (the Flip already on the
    discard pile), in the view's own shapes: ``side`` (the side then in play),
    ``hand`` (the seat's active faces then, sorted), ``players`` (every other
    hand's inactive faces then, sorted) and ``discard_pile`` (bottom to top;
    None once a reshuffle has taken those cards away). None before the round's
    first flip.

    A person in the seat watching the table saw all of it. It is handed to the
    seat's own bot next to its view, never served by the API: with the current
    view it would put both faces of the seat's own cards in one response.
    """
    if not 0 <= seat < s.seats:
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    last = s.last_flip
    if last is None:
        return None
    old = last["side"]
    new = old ^ 1
    hands: list[list[int]] = last["hands"]
    pile = None
    if s.shuffles == last["shuffles"]:
        # The pile was reversed by the flip and has only grown on top since.
        pile = [CODE_OF[old][c] for c in reversed(s.discard[: last["discard"]])]
    return {
        "round": s.round,
        "side": SIDES[old],
        "hand": _face_sort([CODE_OF[old][c] for c in hands[seat]], old),
        "players": [
            {"seat": i, "faces": _face_sort([CODE_OF[new][c] for c in hand], new)}
            for i, hand in enumerate(hands)
            if i != seat
        ],
        "discard_pile": pile,
    }


def _legal_view(s: GameState, seat: int, names: dict[int, str]) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, int], dict[str, Any]] = {}
    for action in legal_actions(s, seat):
        key = (action.type, action.card)
        entry = grouped.get(key)
        if entry is None:
            entry = {"type": action.type}
            if action.type == PLAY:
                entry["card"] = names[action.card]
            grouped[key] = entry
        if action.color >= 0 and (action.type == CHOOSE_COLOR or action.type == PLAY):
            entry.setdefault("colors", []).append(COLORS[action.color])
    return list(grouped.values())


def event_view(event: Event, seat: int | None) -> Event | None:
    """``event`` as ``seat`` (None: a watcher) may see it, or None when it shows nothing.

    A drawn card shows its active face to the player who drew it, its
    inactive face (as in the hand) to the other seats, and only a count to a
    watcher. Shuffle orders never leave the engine.
    """
    kind = event["type"]
    if kind == "shuffle":
        if event["reason"] == "reshuffle":
            return {"type": "reshuffle", "count": len(event["order"])}
        return None
    if kind in ("starter", "starter_returned"):
        return {"type": kind, "face": CODE_OF[0][event["card"]]}
    if kind == "play":
        out = {
            "type": "play",
            "seat": event["seat"],
            "face": CODE_OF[event["side"]][event["card"]],
        }
        if "color" in event:
            out["color"] = event["color"]
        return out
    if kind == "draw":
        out = {
            "type": "draw",
            "seat": event["seat"],
            "reason": event["reason"],
            "count": len(event["cards"]),
        }
        if seat is not None:
            side = event["side"] if seat == event["seat"] else event["side"] ^ 1
            out["faces"] = [CODE_OF[side][c] for c in event["cards"]]
        return out
    if kind == "round_end":
        return {"type": "round_end", "result": result_view(event["result"])}
    if kind == "flip":
        return {"type": "flip", "side": SIDES[event["side"]]}
    if kind == "reverse":
        return {"type": "reverse", "direction": _DIRECTIONS[event["direction"]]}
    # The rest is public as it stands: round_start, choose_color, pass,
    # turn_lost, reverse, leave, game_over.
    return dict(event)


def events_view(events: list[Event], seat: int | None) -> list[Event]:
    out = []
    for event in events:
        seen = event_view(event, seat)
        if seen is not None:
            out.append(seen)
    return out
