"""What a seat, or a watcher, may see. The only way game facts leave the engine.

A seat sees the active faces of its own cards, the inactive faces of every
other hand (sorted by those faces, never in the owner's order), how many cards
everyone holds, the draw pile's size and its top card's inactive face, and
the discard pile in order. A watcher sees hand sizes, the discard pile and the
draw pile's size only (PRODUCT.md rulings 10 and 11).

Cards in a seat's own hand are named by handles (``flip.handles``): opaque
strings keyed by the game's secret seed, the round and the number of flips so
far. A handle never maps to the physical card, and it changes at every flip,
so a player can never follow one card across a flip and learn both its faces.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, overload

from .cards import CODE_OF, COLORS, DECK, DECK_SIZE, NO_CARD, POINTS_OF, SIDES, SORT_OF
from .engine import (
    PLAY,
    SEATS,
    hand_refusals,
    legal_actions,
)
from .errors import RuleError
from .handles import HandleMemo, new_handle
from .state import GameState
from .types import (
    Card,
    DirectionName,
    DrawSeen,
    Event,
    FaceCode,
    FlipMemory,
    HandCardView,
    Handle,
    LegalActionView,
    PendingView,
    PlayerView,
    PlaySeen,
    RefusalCode,
    RoundResult,
    RoundResultView,
    SeatView,
    SeenEvent,
    WatcherView,
)


def handle(s: GameState, card: int) -> Handle:
    """The opaque name of ``card`` for its holder, valid until the next flip.

    Six bytes, in hexadecimal, of a keyed hash of the round and the number of
    flips, keyed by the game's secret seed: the card's own six in the hash's
    output for the whole deck (``flip.handles.deck_stream``), made once per
    round and flip and remembered on the state (``GameState.handle_memo``).
    """
    memo = _memo(s)
    name = memo.names.get(card)
    if name is None:
        name = new_handle(memo, card)
    return name


def _sorted_faces(cards: list[Card], side: int) -> tuple[FaceCode, ...]:
    """The faces of ``cards`` on ``side``, in the order of ruling 13."""
    rank = _RANK_OF[side]
    ranks = [rank[c] for c in cards]
    ranks.sort()
    face = _FACE_OF_RANK[side]
    return tuple([face[r] for r in ranks])


def _memo(s: GameState) -> HandleMemo:
    """The state's ``HandleMemo``, made afresh for a new round, flip or seed."""
    memo = s.handle_memo
    if (
        memo is None
        or memo.round != s.round
        or memo.flips != s.flips
        or memo.seed != s.seed
        or memo.side != s.side
        or memo.options is not s.options
    ):
        memo = s.handle_memo = HandleMemo(
            s.round, s.flips, s.seed, s.side, s.options, s.options.to_dict()
        )
    return memo


def _own_hand(
    s: GameState, memo: HandleMemo, own: list[Card], why: list[RefusalCode | None]
) -> list[HandCardView]:
    """``own`` as its seat sees it: each card's handle, face, and whether it may be played.

    ``why``: the refusals, in the order of ``own``. Sorted by face, equal
    faces by handle (never by card number: ruling 10). The faces are sorted
    as small numbers (rank and position in one); only a hand that holds one
    face twice is sorted again, by face and handle.
    """
    side = s.side
    rank = _RANK_OF[side]
    keys = [(rank[c] << _ORDER_SHIFT) | position for position, c in enumerate(own)]
    keys.sort()
    names = memo.names
    codes = CODE_OF[side]
    hand: list[HandCardView] = []
    tied = False
    last = -1
    for at in keys:
        position = at & _POSITIONS
        c = own[position]
        name = names.get(c)
        if name is None:
            name = new_handle(memo, c)
        reason = why[position]
        if reason is None:
            hand.append({"card": name, "face": codes[c], "playable": True})
        else:
            hand.append({"card": name, "face": codes[c], "playable": False, "refusal": reason})
        ranked = at >> _ORDER_SHIFT
        tied = tied or ranked == last
        last = ranked
    if tied:
        hand.sort(key=_by_face_then_handle)
    return hand


def _by_face_then_handle(card: HandCardView) -> tuple[tuple[int, FaceCode], Handle]:
    return _FACE_ORDER(card["face"]), card["card"]


def card_for_handle(s: GameState, seat: int, name: str) -> Card:
    """The card in ``seat``'s hand that ``name`` stands for.

    Raises ``RuleError("card_not_in_hand")`` for any other string, including a
    handle from before a flip.
    """
    for card in s.hands[seat]:
        if handle(s, card) == name:
            return card
    raise RuleError("card_not_in_hand")


def _face_sort(codes: Iterable[FaceCode]) -> list[FaceCode]:
    return sorted(codes, key=_FACE_ORDER)


# A face code's place in the sorted order of ruling 13, the code itself
# breaking ties between equal sort keys (there are none across one side).
_SORT_BY_CODE: Final[dict[FaceCode, tuple[int, FaceCode]]] = {
    CODE_OF[side][card]: (SORT_OF[side][card], CODE_OF[side][card])
    for side in (0, 1)
    for card in DECK
}
_FACE_ORDER: Final = _SORT_BY_CODE.__getitem__
# The same order as numbers: ``_BY_RANK[side][_RANK[side][card]]`` is the card's
# face code, and sorting the ranks sorts the faces (equal faces, equal ranks).
_BY_RANK: Final[tuple[tuple[FaceCode, ...], ...]] = tuple(
    tuple(sorted(set(CODE_OF[side]), key=_FACE_ORDER)) for side in (0, 1)
)
_RANK: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_BY_RANK[side].index(CODE_OF[side][card]) for card in DECK) for side in (0, 1)
)
_RANK_OF: Final[tuple[list[int], ...]] = tuple(list(ranks) for ranks in _RANK)
_FACE_OF_RANK: Final[tuple[list[FaceCode], ...]] = tuple(list(faces) for faces in _BY_RANK)
# A card of one's own hand as one number while it is sorted: its face's rank above
# its position in the hand (a hand holds at most the whole deck).
_ORDER_SHIFT: Final = DECK_SIZE.bit_length()
_POSITIONS: Final = (1 << _ORDER_SHIFT) - 1


_DIRECTIONS: Final[dict[int, DirectionName]] = {1: "clockwise", -1: "counterclockwise"}


def _pending(s: GameState) -> PendingView | None:
    if s.pending is None or s.over:
        return None
    return {"type": s.pending, "seat": s.current}


def result_view(result: RoundResult) -> RoundResultView:
    """A round's result as everyone sees it: leftover cards valued on the scored side."""
    side = result["side"]
    codes = CODE_OF[side]
    points = POINTS_OF[side]
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
                "cards": [{"face": codes[c], "points": points[c]} for c in hand["cards"]],
                "points": hand["points"],
            }
            for hand in result["hands"]
        ],
    }


def watcher_view(s: GameState) -> WatcherView:
    """What anyone watching the table may see: public facts only."""
    side = s.side
    codes = CODE_OF[side]
    return {
        "seats": s.seats,
        "options": s.options.to_dict(),
        "round": s.round,
        "dealer": s.dealer,
        "side": SIDES[side],
        "color": None if s.color < 0 else COLORS[s.color],
        "direction": _DIRECTIONS[s.direction],
        "to_act": None if s.over else s.current,
        "turn": s.turn,
        "pending": _pending(s),
        "top": codes[s.discard[-1]] if s.discard else None,
        "discard_pile": [codes[c] for c in s.discard],
        "draw_pile": {"count": len(s.draw)},
        "scores": s.scores[:],
        "rounds": [result_view(r) for r in s.results],
        "over": s.over,
        "winner": s.winner,
        "ranking": list(s.ranking),
        "seat": None,
        "players": [
            {"seat": SEATS[i], "count": len(s.hands[i]), "in_game": s.active[i]}
            for i in range(s.seats)
        ],
        "hand": [],
        "legal_actions": [],
    }


@overload
def view(s: GameState, seat: int) -> SeatView: ...
@overload
def view(s: GameState, seat: None) -> WatcherView: ...
def view(s: GameState, seat: int | None) -> SeatView | WatcherView:
    """What ``seat`` may see (``seat=None``: a watcher).

    >>> from flip import Options, new_game
    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> sorted(view(state, 0)) == sorted(view(state, None))
    True
    """
    if seat is None:
        return watcher_view(s)
    if not 0 <= seat < s.options.seats:
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    me = SEATS[seat]
    side = s.side
    other = side ^ 1
    codes = CODE_OF[side]
    other_codes = CODE_OF[other]
    hands = s.hands
    active = s.active
    memo = s.faces_memo
    if memo is None or memo[0] != s.round:
        memo = s.faces_memo = (s.round, ({}, {}))
    shown = memo[1][other]
    players: list[PlayerView] = []
    for i in range(s.options.seats):
        held = hands[i]
        if i == seat:
            players.append({"seat": SEATS[i], "count": len(held), "in_game": active[i]})
            continue
        # Most hands have not changed since the last view: sort each only once.
        key = tuple(held)
        faces = shown.get(key)
        if faces is None:
            faces = shown[key] = _sorted_faces(held, other)
        players.append(
            {"seat": SEATS[i], "count": len(held), "in_game": active[i], "faces": list(faces)}
        )
    own = hands[seat]
    handles = _memo(s)
    hand = _own_hand(s, handles, own, hand_refusals(s, seat))
    discard = s.discard
    draw = s.draw
    over = s.over
    pending = s.pending
    return {
        "seats": s.options.seats,
        "options": handles.options_view.copy(),
        "round": s.round,
        "dealer": s.dealer,
        "side": SIDES[side],
        "color": None if s.color < 0 else COLORS[s.color],
        "direction": _DIRECTIONS[s.direction],
        "to_act": None if over else s.current,
        "turn": s.turn,
        "pending": None if pending is None or over else {"type": pending, "seat": s.current},
        "top": codes[discard[-1]] if discard else None,
        "discard_pile": handles.discard_pile(discard),
        "draw_pile": {"count": len(draw), "top": other_codes[draw[-1]] if draw else None},
        "scores": s.scores[:],
        "rounds": [result_view(r) for r in s.results] if s.results else [],
        "over": s.over,
        "winner": s.winner,
        "ranking": list(s.ranking),
        "seat": me,
        "players": players,
        "hand": hand,
        "legal_actions": _legal_view(s, seat, handles.names),
    }


def flip_memory(s: GameState, seat: int) -> FlipMemory | None:
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
    hands = last["hands"]
    pile = None
    if s.shuffles == last["shuffles"]:
        # The pile was reversed by the flip and has only grown on top since.
        pile = [CODE_OF[old][c] for c in reversed(s.discard[: last["discard"]])]
    return {
        "round": s.round,
        "side": SIDES[old],
        "hand": _face_sort([CODE_OF[old][c] for c in hands[seat]]),
        "players": [
            {"seat": SEATS[i], "faces": _face_sort([CODE_OF[new][c] for c in hand])}
            for i, hand in enumerate(hands)
            if i != seat
        ],
        "discard_pile": pile,
    }


def _legal_view(s: GameState, seat: int, names: dict[int, Handle]) -> list[LegalActionView]:
    """The legal actions, one entry per (type, card), a Wild's colours listed in it.

    ``legal_actions`` lists a card's (or a colour choice's) actions one after
    another, so grouping is a look at the entry before.
    """
    out: list[LegalActionView] = []
    last: LegalActionView | None = None
    last_card = NO_CARD
    for action in legal_actions(s, seat):
        kind = action.type
        card = action.card
        if last is None or card != last_card or kind != last["type"]:
            last_card = card
            last = {"type": kind, "card": names[card]} if kind == PLAY else {"type": kind}
            out.append(last)
            if action.color >= 0:  # a Wild's play or a colour choice
                last["colors"] = [COLORS[action.color]]
        elif action.color >= 0:
            last.setdefault("colors", []).append(COLORS[action.color])
    return out


def event_view(event: Event, seat: int | None) -> SeenEvent | None:  # noqa: PLR0911 (by type)
    """``event`` as ``seat`` (None: a watcher) may see it, or None when it shows nothing.

    A drawn card shows its active face to the player who drew it, its
    inactive face (as in the hand) to the other seats, and only a count to a
    watcher. Shuffle orders never leave the engine.

    >>> from flip import Card, Seat
    >>> drew: Event = {
    ...     "type": "draw", "seat": Seat(0), "cards": [Card(5)], "side": 0, "reason": "draw"
    ... }
    >>> event_view(drew, 0)["faces"], event_view(drew, 1)["faces"]
    (['flame-3'], ['wild-draw-color'])
    >>> event_view(drew, None)
    {'type': 'draw', 'seat': 0, 'reason': 'draw', 'count': 1}
    """
    if event["type"] == "shuffle":
        if event["reason"] == "reshuffle":
            return {"type": "reshuffle", "count": len(event["order"])}
        return None
    if event["type"] == "starter" or event["type"] == "starter_returned":
        return {"type": event["type"], "face": CODE_OF[0][event["card"]]}
    if event["type"] == "play":
        played: PlaySeen = {
            "type": "play",
            "seat": event["seat"],
            "face": CODE_OF[event["side"]][event["card"]],
        }
        if "color" in event:
            played["color"] = event["color"]
        return played
    if event["type"] == "draw":
        drawn: DrawSeen = {
            "type": "draw",
            "seat": event["seat"],
            "reason": event["reason"],
            "count": len(event["cards"]),
        }
        if seat is not None:
            side = event["side"] if seat == event["seat"] else event["side"] ^ 1
            drawn["faces"] = [CODE_OF[side][c] for c in event["cards"]]
        return drawn
    if event["type"] == "round_end":
        return {"type": "round_end", "result": result_view(event["result"])}
    if event["type"] == "flip":
        return {"type": "flip", "side": SIDES[event["side"]]}
    if event["type"] == "reverse":
        return {"type": "reverse", "direction": _DIRECTIONS[event["direction"]]}
    # The rest is public as it stands: round_start, choose_color, pass,
    # turn_lost, leave, game_over.
    return event.copy()


def events_view(events: Iterable[Event], seat: int | None) -> list[SeenEvent]:
    out: list[SeenEvent] = []
    for event in events:
        seen = event_view(event, seat)
        if seen is not None:
            out.append(seen)
    return out
