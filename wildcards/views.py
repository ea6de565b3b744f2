"""What a seat, or a watcher, may see: the only way game facts leave the engine.

A seat sees its own hand sorted (R2), every hand's size, the discard pile in
order, the draw pile's size, the turn, direction, colour in play, a waiting
penalty, a decision pending (the drawn card's face to its holder only),
whether the jump-in window is open, scores, who left, and its own legal
actions; never another hand, the draw pile's order, or another seat's legal
actions, which would tell who holds an identical card (R29). A watcher sees
the public part only, and of finished rounds only the winner, the points and
how the round ended (R28).

A seat's own cards are named by handles (``tabletop.handles``) keyed by the
game's secret seed, the round and the number of 7-0 hand exchanges so far:
after a swap or a rotation every handle changes, so nobody can follow a card
from one hand to another.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .actions import PLAY, Action
from .cards import CODE_OF, NO_CARD
from .engine import card_refusal, jump_in_card, legal_actions, match_codes
from .errors import RuleError
from .handles import HandleMemo
from .state import PENDING_DRAWN, PENDING_PENALTY, GameState
from .types import (
    ColorName,
    DirectionName,
    Event,
    HandCardView,
    Handle,
    LegalActionView,
    PendingView,
    RoundResult,
    RoundResultView,
    SeatView,
    WatcherView,
)

_DIRECTIONS: Final[dict[int, DirectionName]] = {1: "clockwise", -1: "counterclockwise"}
_COLOR_NAMES: Final[tuple[ColorName, ...]] = ("red", "yellow", "green", "blue")


def _memo(s: GameState) -> HandleMemo:
    """The memo of the state's seed, round and exchange count (a new one when any changed)."""
    memo = s.handle_memo
    if memo is not None and memo.key == (s.round, s.exchanges, s.seed):
        return memo
    s.handle_memo = HandleMemo(s.round, s.exchanges, s.seed, s.options.to_dict())
    return s.handle_memo


def _names(s: GameState) -> tuple[Handle, ...]:
    return _memo(s).names


def handle(s: GameState, card: int) -> Handle:
    """The opaque name of ``card`` for its holder, valid until the round or an exchange ends."""
    return _names(s)[card]


def card_for_handle(s: GameState, seat: int, name: str) -> int:
    """The card of ``seat``'s hand that ``name`` stands for; ``RuleError``
    ``card_not_in_hand`` for any other string (a handle from before a swap too)."""
    names = _names(s)
    for card in s.hands[seat]:
        if names[card] == name:
            return card
    raise RuleError("card_not_in_hand")


def result_view(result: RoundResult, seat: int | None) -> RoundResultView:
    """A finished round: a seat sees every hand's cards and points, a watcher only
    the winner, the points and how the round ended (R28)."""
    out: RoundResultView = {
        "round": result["round"],
        "winner": result["winner"],
        "points": result["points"],
        "blocked": result["blocked"],
        "interrupted": result["interrupted"],
    }
    if seat is not None:
        out["hands"] = [
            {"seat": h["seat"], "cards": [CODE_OF[c] for c in h["cards"]], "points": h["points"]}
            for h in result["hands"]
        ]
    return out


def _pending(s: GameState, seat: int | None) -> PendingView | None:
    pending = s.pending
    if pending is None or s.over:
        return None
    out: PendingView = {"type": pending, "seat": s.current}
    if pending == PENDING_PENALTY:
        out["count"] = s.penalty
    elif pending == PENDING_DRAWN and seat == s.current:
        out["card"] = handle(s, s.drawn)
        out["face"] = CODE_OF[s.drawn]
    return out


def _table(s: GameState, seat: int | None, memo: HandleMemo | None = None) -> SeatView:
    discard = s.discard
    memo = memo or _memo(s)
    hands = s.hands
    active = s.active
    return {
        "seat": seat,
        "players": [
            {"seat": i, "count": len(hands[i]), "in_game": active[i]} for i in range(len(hands))
        ],
        "hand": [],
        "legal_actions": [],
        "seats": len(hands),
        "round": s.round,
        "dealer": s.dealer,
        "turn": s.turn,
        "to_act": None if s.over else s.current,
        "direction": _DIRECTIONS[s.direction],
        "color": None if s.color < 0 else _COLOR_NAMES[s.color],
        "top": CODE_OF[discard[-1]] if discard else None,
        "discard_pile": memo.discard_pile(discard),
        "draw_pile": {"count": len(s.draw)},
        "pending": None if s.pending is None else _pending(s, seat),
        "penalty": s.penalty,
        "jump_in_open": s.window and s.options.jump_in and not s.over,
        "options": memo.options.copy(),
        "scores": s.scores[:],
        "rounds": [result_view(r, seat) for r in s.results] if s.results else [],
        "ranking": [e.copy() for e in s.ranking] if s.ranking else [],
        "over": s.over,
        "winner": s.winner,
    }


def watcher_view(s: GameState) -> WatcherView:
    """What anyone watching the table may see: public facts only."""
    return _table(s, None)


def view(s: GameState, seat: int | None) -> SeatView:
    """What ``seat`` may see; ``None``, a watcher (the same keys, nothing private).

    >>> from wildcards import Options, new_game
    >>> state, _ = new_game(Options(seats=3), seed="doc")
    >>> [len(view(state, seat)["hand"]) for seat in (0, 1, 2, None)]
    [7, 7, 7, 0]
    """
    if seat is None:
        return watcher_view(s)
    if not 0 <= seat < s.seats:
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    memo = _memo(s)
    out = _table(s, seat, memo)
    names = memo.names
    own = s.hands[seat]
    legal = legal_actions(s, seat) if s.active[seat] else []
    if seat == s.current:
        s.legal_memo = (s.actions, seat, tuple(legal))
    if own:
        hand: list[HandCardView] = []
        playable = {a.card for a in legal if a.type == PLAY}
        jump = jump_in_card(s, seat) if seat != s.current else NO_CARD
        # The seat to act with no decision pending: why a card is refused is read off
        # the matching table, as legal_actions read it (no match, or a blocked Wild Draw 4).
        codes = match_codes(s) if seat == s.current and s.pending is None and not s.over else None
        faces = CODE_OF
        for c in sorted(own):  # ids are numbered in the order of R2 (cards.sorted_hand)
            if c in playable:
                if c == jump:
                    hand.append(
                        {"card": names[c], "face": faces[c], "playable": True, "jump_in": True}
                    )
                else:
                    hand.append({"card": names[c], "face": faces[c], "playable": True})
                continue
            if codes is not None:
                reason = "no_match" if codes[c] == 0 else "wild_draw4_blocked"
            elif not s.active[seat]:
                reason = "seat_not_in_game"
            else:
                reason = card_refusal(s, seat, c) or "no_match"
            hand.append({"card": names[c], "face": faces[c], "playable": False, "refusal": reason})
        out["hand"] = hand
    out["legal_actions"] = _legal_view(legal, names, seat != s.current) if legal else []
    return out


def legal_view(s: GameState, seat: int) -> list[LegalActionView]:
    """``seat``'s legal actions, one entry per (type, card): a Wild's colours and
    a 7's targets listed in it, a jump-in marked."""
    if not s.active[seat]:
        return []
    return _legal_view(legal_actions(s, seat), _names(s), seat != s.current)


def _legal_view(
    legal: list[Action], names: tuple[Handle, ...], jumping: bool
) -> list[LegalActionView]:
    out: list[LegalActionView] = []
    last: LegalActionView = {"type": "pass"}
    last_card = -2  # no action has this card: the first action starts an entry
    for action in legal:
        card = action.card
        if card == last_card and action.type == last["type"]:
            # The same card (or the colour choice) again: another colour or target.
            if action.color >= 0:
                last["colors"].append(_COLOR_NAMES[action.color])
            else:
                last["targets"].append(action.target)
            continue
        last_card = card
        last = {"type": action.type, "card": names[card]} if card >= 0 else {"type": action.type}
        if action.color >= 0:
            last["colors"] = [_COLOR_NAMES[action.color]]
        elif action.target >= 0:
            last["targets"] = [action.target]
        if jumping:
            last["jump_in"] = True
        out.append(last)
    return out


def event_view(event: Event, seat: int | None) -> Event | None:  # noqa: PLR0911 (by type)
    """``event`` as ``seat`` (None: a watcher) may see it, or None when it shows nothing.

    A drawn card's face goes to its drawer only; the others see a count.
    Deck orders never leave the engine; a reshuffle shows its size. A swap
    or rotation shows seats and hand sizes, never a card (R23).

    >>> drew = {"type": "draw", "seat": 0, "cards": [5], "reason": "draw"}
    >>> event_view(drew, 0)
    {'type': 'draw', 'seat': 0, 'reason': 'draw', 'count': 1, 'faces': ['red-3']}
    >>> event_view(drew, 1)
    {'type': 'draw', 'seat': 0, 'reason': 'draw', 'count': 1}
    """
    kind = event["type"]
    if kind == "shuffle":
        if event["reason"] == "reshuffle":
            return {"type": "reshuffle", "count": len(event["order"])}
        return None
    if kind in ("starter", "starter_returned"):
        return {"type": kind, "face": CODE_OF[event["card"]]}
    if kind == "play":
        played = {k: v for k, v in event.items() if k != "card"}
        played["face"] = CODE_OF[event["card"]]
        return played
    if kind == "draw":
        drawn: Event = {
            "type": "draw",
            "seat": event["seat"],
            "reason": event["reason"],
            "count": len(event["cards"]),
        }
        if seat is not None and seat == event["seat"]:
            drawn["faces"] = [CODE_OF[c] for c in event["cards"]]
        return drawn
    if kind == "round_end":
        return {"type": "round_end", "result": result_view(event["result"], seat)}
    if kind in ("reverse", "rotate"):
        seen = dict(event)
        seen["direction"] = _DIRECTIONS[event["direction"]]
        return seen
    if kind == "game_over":
        return {
            "type": "game_over",
            "winner": event["winner"],
            "ranking": [e.copy() for e in event["ranking"]],
        }
    # The rest is public as it stands: round_start, choose_color, pass,
    # turn_lost, penalty, swap, leave.
    return {k: (v[:] if isinstance(v, list) else v) for k, v in event.items()}


def events_view(events: Iterable[Event], seat: int | None) -> list[Event]:
    """What ``seat`` (None: a watcher) may see of ``events``, in order; events
    that show it nothing (a deal's deck order) are left out."""
    seen = [event_view(event, seat) for event in events]
    return [shown for shown in seen if shown is not None]
