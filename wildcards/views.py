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
from .cards import CODE_OF, KIND_OF, NO_CARD, WILD_DRAW4
from .engine import _MATCH, card_refusal, jump_in_card, legal_actions
from .errors import RuleError
from .handles import HandleMemo
from .state import PENDING_DRAWN, PENDING_PENALTY, GameState, Options
from .types import (
    ColorName,
    DirectionName,
    Event,
    HandCardView,
    Handle,
    LegalActionView,
    PendingView,
    PlayerView,
    RoundResult,
    RoundResultView,
    SeatView,
    WatcherView,
)

_DIRECTIONS: Final[dict[int, DirectionName]] = {1: "clockwise", -1: "counterclockwise"}
_COLOR_NAMES: Final[tuple[ColorName, ...]] = ("red", "yellow", "green", "blue")
#: The first Wild Draw 4 (cards are numbered by kind, the Wild Draw 4s last).
_FIRST_DRAW4: Final = KIND_OF.index(WILD_DRAW4)


def _memo(s: GameState) -> HandleMemo:
    """The memo of the state's seed, round and exchange count (a new one when any changed)."""
    memo = s.handle_memo
    if (
        memo is not None
        and memo.round == s.round
        and memo.exchanges == s.exchanges
        and memo.seed == s.seed
    ):
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


#: The keys of a view in their order (``_table`` replaces the values of a copy, all but
#: five immutable ones it leaves when they are the commonest).
_TABLE: Final[SeatView] = {
    "seat": None,
    "players": [],
    "hand": [],
    "legal_actions": [],
    "seats": 0,
    "round": 0,
    "dealer": 0,
    "turn": 0,
    "to_act": None,
    "direction": "clockwise",
    "color": None,
    "top": None,
    "discard_pile": [],
    "draw_pile": {"count": 0},
    "pending": None,
    "penalty": 0,
    "jump_in_open": False,
    "options": Options().to_dict(),
    "scores": [],
    "rounds": [],
    "ranking": [],
    "over": False,
    "winner": None,
}


def _table(
    s: GameState,
    seat: int | None,
    memo: HandleMemo,
    hand: list[HandCardView],
    legal: list[LegalActionView],
) -> SeatView:
    discard = s.discard
    hands = s.hands
    active = s.active
    # A loop, not a comprehension: no function made and called for four entries.
    players: list[PlayerView] = []
    i = 0
    for held in hands:
        players.append({"seat": i, "count": len(held), "in_game": active[i]})
        i += 1
    over = s.over
    # A copy of the template with its values replaced: cheaper than a dict display of
    # 23 keys, which inserts them one by one; the keys keep the template's order.
    out = _TABLE.copy()
    out["seat"] = seat
    out["players"] = players
    out["hand"] = hand
    out["legal_actions"] = legal
    out["seats"] = i
    out["round"] = s.round
    out["dealer"] = s.dealer
    out["turn"] = s.turn
    out["to_act"] = None if over else s.current
    out["direction"] = _DIRECTIONS[s.direction]
    out["color"] = None if s.color < 0 else _COLOR_NAMES[s.color]
    out["top"] = CODE_OF[discard[-1]] if discard else None
    out["discard_pile"] = memo.discard_pile(discard)
    out["draw_pile"] = {"count": len(s.draw)}
    # The template's values of these five are the commonest: set only when they differ.
    if s.pending is not None:
        out["pending"] = _pending(s, seat)
    if s.penalty:
        out["penalty"] = s.penalty
    if s.window and s.options.jump_in and not over:
        out["jump_in_open"] = True
    out["options"] = memo.options.copy()
    out["scores"] = s.scores[:]
    out["rounds"] = _rounds(s.results, seat) if s.results else []
    out["ranking"] = s.ranking  # derived afresh at every read ([] before the end): the view's own
    if over:
        out["over"] = True
    if s.winner is not None:
        out["winner"] = s.winner
    return out


def _rounds(results: list[RoundResult], seat: int | None) -> list[RoundResultView]:
    """The finished rounds as ``seat`` sees them (not a comprehension in ``_table``,
    which would make ``seat`` a cell there, slower on every view)."""
    return [result_view(r, seat) for r in results]


def watcher_view(s: GameState) -> WatcherView:
    """What anyone watching the table may see: public facts only."""
    return _table(s, None, _memo(s), [], [])


#: Why a card of the hand of the seat to act is refused, by its match code (``None``:
#: playable), when its Wild Draw 4s are playable and when they are not.
_REASONS: Final[tuple[str | None, ...]] = ("no_match", None, None, None)
_REASONS_DRAW4_BLOCKED: Final[tuple[str | None, ...]] = (
    "no_match",
    None,
    None,
    "wild_draw4_blocked",
)


def _refusal_rows(
    reasons: tuple[str | None, ...],
) -> tuple[tuple[tuple[str | None, ...], ...], ...]:
    """``_MATCH`` with each match code replaced by its reason (equal rows shared)."""
    rows: dict[tuple[int, ...], tuple[str | None, ...]] = {}
    return tuple(
        tuple(rows.setdefault(codes, tuple(reasons[m] for m in codes)) for codes in by_top)
        for by_top in _MATCH
    )


#: ``_REFUSALS[blocked][in_play][top][card]``: why the seat to act may not play
#: ``card`` of its hand (None: playable), its Wild Draw 4s blocked or not: one lookup a card.
_REFUSALS: Final = (_refusal_rows(_REASONS), _refusal_rows(_REASONS_DRAW4_BLOCKED))


def view(s: GameState, seat: int | None) -> SeatView:
    """What ``seat`` may see; ``None``, a watcher (the same keys, nothing private).

    >>> from wildcards import Options, new_game
    >>> state, _ = new_game(Options(seats=3), seed="doc")
    >>> [len(view(state, seat)["hand"]) for seat in (0, 1, 2, None)]
    [7, 7, 7, 0]
    """
    if seat is None:
        return watcher_view(s)
    if not 0 <= seat < s.options.seats:  # GameState.seats, without the property's call
        raise ValueError(f"no seat {seat} at a table of {s.seats}")
    memo = s.handle_memo  # _memo's test written out: a view per action pays for a call
    if (
        memo is None
        or memo.round != s.round
        or memo.exchanges != s.exchanges
        or memo.seed != s.seed
    ):
        memo = _memo(s)
    names = memo.names
    own = s.hands[seat]
    to_act = seat == s.current
    legal = legal_actions(s, seat) if s.active[seat] else []
    if to_act:
        # legal_actions hands out copies of it, and nothing here changes it.
        s.legal_memo = (s.actions, seat, legal)
    hand: list[HandCardView] = []
    if to_act and legal and s.pending is None and not s.over:
        # The seat to act with no decision pending: whether a card is playable, and why
        # not, is read off the matching table as legal_actions read it; its Wild Draw 4s
        # are playable when listed, and legal_actions lists them last.
        shown = (
            _legal_view(legal, names, False) if s.options.seven_zero else _plays_view(legal, names)
        )
        refusals = _REFUSALS[legal[-1].card < _FIRST_DRAW4][s.color][s.discard[-1]]
        faces = CODE_OF
        for c in sorted(own):  # ids are numbered in the order of R2 (cards.sorted_hand)
            reason = refusals[c]
            if reason is None:
                hand.append({"card": names[c], "face": faces[c], "playable": True})
            else:
                hand.append(
                    {"card": names[c], "face": faces[c], "playable": False, "refusal": reason}
                )
    else:
        shown = _legal_view(legal, names, not to_act) if legal else []
        if own:
            hand = _hand(s, seat, own, names, legal)
    return _table(s, seat, memo, hand, shown)


def _hand(
    s: GameState, seat: int, own: list[int], names: tuple[Handle, ...], legal: list[Action]
) -> list[HandCardView]:
    """The hand of a seat not to act, or with a decision pending, or out of the game."""
    hand: list[HandCardView] = []
    playable = {a.card for a in legal if a.type == PLAY}
    jump = jump_in_card(s, seat) if seat != s.current else NO_CARD
    faces = CODE_OF
    for c in sorted(own):
        if c in playable:
            if c == jump:
                hand.append({"card": names[c], "face": faces[c], "playable": True, "jump_in": True})
            else:
                hand.append({"card": names[c], "face": faces[c], "playable": True})
            continue
        if not s.active[seat]:
            reason = "seat_not_in_game"
        else:
            reason = card_refusal(s, seat, c) or "no_match"
        hand.append({"card": names[c], "face": faces[c], "playable": False, "refusal": reason})
    return hand


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
    last = _NO_ENTRY  # never changed: no action has its card, so the first starts an entry
    last_card = -2
    last_type = ""
    for action in legal:
        card = action.card
        kind = action.type
        if card == last_card and kind == last_type:
            # The same card (or the colour choice) again: another colour or target.
            if action.color >= 0:
                last["colors"].append(_COLOR_NAMES[action.color])
            else:
                last["targets"].append(action.target)
            continue
        last_card = card
        last_type = kind
        last = {"type": kind, "card": names[card]} if card >= 0 else {"type": kind}
        if action.color >= 0:
            last["colors"] = [_COLOR_NAMES[action.color]]
        elif action.target >= 0:
            last["targets"] = [action.target]
        if jumping:
            last["jump_in"] = True
        out.append(last)
    return out


_NO_ENTRY: Final[LegalActionView] = {"type": "pass"}


def _plays_view(legal: list[Action], names: tuple[Handle, ...]) -> list[LegalActionView]:
    """``_legal_view`` for the seat to act with nothing pending and no 7-0 rule, in
    fewer steps: its actions are plays without a target, each Wild's four colours
    in a row (``PLAYS``), or one draw or pass."""
    out: list[LegalActionView] = []
    for action in legal:
        color = action.color
        if color > 0:  # a Wild's next colours: its entry lists all four
            continue
        card = action.card
        if card < 0:
            out.append({"type": action.type})
        elif color < 0:
            out.append({"type": PLAY, "card": names[card]})
        else:
            out.append({"type": PLAY, "card": names[card], "colors": list(_COLOR_NAMES)})
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
