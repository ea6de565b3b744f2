"""The rules: setting up a game, legal actions, checking and applying an action.

The public functions are pure: ``apply`` checks the action, works on a
private copy and returns it with the events the action caused; the state
passed in is never touched. ``advance`` is the unchecked in-place path for
code that owns its state and took the action from ``legal_actions`` or
``timeout_action`` (simulations, benchmarks; never a client's action), and
``advance_silently`` (with ``new_game_silently`` for the deal) the same for a
simulation that reads no events.

Randomness is an input (R32): every shuffle draws from
``tabletop.shuffle.shuffled`` keyed by the game's secret seed and the
shuffle's number, and its result is written into the events, so a record
replays without any generator (pass the recorded orders as ``shuffles=``).

Every rule about which card may go on the table comes from one table,
``_MATCH`` (section "A turn"): ``playable_cards``, ``legal_actions``,
``check``, the views and the timeout move all read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeAlias

from tabletop.deal import deal
from tabletop.seats import in_game_order, next_in_game
from tabletop.shuffle import shuffled

from .actions import (
    ACTION_TYPES,
    CHOOSE_ACTIONS,
    CHOOSE_COLOR,
    DRAW,
    DRAW_ACTION,
    LEAVE,
    PASS_ACTION,
    PLAY,
    PLAYS,
    SEVENS,
    TAKE_PENALTY,
    TAKE_PENALTY_ACTION,
    Action,
)
from .cards import (
    COLOR_OF,
    COLORS,
    DECK,
    DRAW2,
    HAND_SIZE,
    KEY_OF,
    KIND_OF,
    NO_CARD,
    NO_COLOR,
    NUMBER,
    NUMBER_OF,
    PENALTY_OF,
    POINTS_OF,
    REVERSE,
    SKIP,
    TWIN_OF,
    WILD,
    WILD_DRAW4,
    hand_points,
    sorted_hand,
)
from .errors import RuleError
from .state import (
    PENDING_COLOR,
    PENDING_DRAWN,
    PENDING_PENALTY,
    SINGLE_ROUND,
    GameState,
    Options,
    ranking,
)
from .types import Event, HandResult, RoundResult

#: "Two players" of the text: two still in the game, whatever the table's size (R8).
TWO_PLAYERS: Final = 2
SHUFFLE_DOMAIN: Final = b"wildcards shuffle"
#: Where a move's events go: a list, or None for a silent move (``advance_silently``),
#: for which none is built.
Events: TypeAlias = list[Event] | None


# ----------------------------------------------------------------------------
# The matching rule, tabulated


def _match_code(card: int, in_play: int, top_key: int) -> int:
    """How ``card`` may go on a top card of key ``top_key`` with ``in_play`` the
    colour in play: 0 not at all, 1 by colour, 2 by number or action or as a
    plain Wild, 3 a Wild Draw 4 (only if the hand holds no card of the colour)."""
    kind = KIND_OF[card]
    if kind == WILD_DRAW4:
        return 3
    if kind == WILD:
        return 2
    if COLOR_OF[card] == in_play:
        return 1
    return 2 if top_key >= 0 and KEY_OF[card] == top_key else 0


_BY_KEY: Final[dict[tuple[int, int], tuple[int, ...]]] = {
    (in_play, key): tuple(_match_code(c, in_play, key) for c in DECK)
    for in_play in range(NO_COLOR, len(COLORS))
    for key in {*KEY_OF}
}
#: ``_MATCH[in_play][top][card]``: ``_match_code`` of ``card`` on ``top``. No colour in
#: play (``NO_COLOR``, -1) is the last row, so the colour in play indexes it as it is.
_MATCH: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(_BY_KEY[in_play, KEY_OF[top]] for top in DECK)
    for in_play in (*range(len(COLORS)), NO_COLOR)
)
#: ``_PLAYS_ON[in_play][top][card]``: the plays of ``card`` on ``top`` that need no
#: look at the rest of the hand (code 1 or 2: ``PLAYS[card]``), ``()`` for a card that
#: does not match, and None for a Wild Draw 4 (code 3: legal only when the hand holds
#: no card of the colour in play). ``legal_actions`` lists a hand with one lookup a card.
_PLAYS_ON: Final[tuple[tuple[tuple[tuple[Action, ...] | None, ...], ...], ...]] = tuple(
    tuple(
        tuple(None if codes[c] == 3 else PLAYS[c] if codes[c] else () for c in DECK)  # noqa: PLR2004
        for codes in by_top
    )
    for by_top in _MATCH
)
#: ``_OF_COLOR[color][card]``: the card is of that colour (Wilds are of none).
_OF_COLOR: Final = tuple(tuple(COLOR_OF[c] == color for c in DECK) for color in range(len(COLORS)))


class _Shuffler:
    """Where shuffles come from: the game's seeded streams, or a record."""

    __slots__ = ("recorded",)

    def __init__(self, recorded: Iterator[list[int]] | None) -> None:
        self.recorded = recorded

    def _order(self, s: GameState, cards: Sequence[int]) -> list[int]:
        """The next order, top first: the seeded stream's, or the record's after checking
        that it holds exactly ``cards``."""
        if self.recorded is None:
            return shuffled(cards, s.seed, s.shuffles, domain=SHUFFLE_DOMAIN)
        given = next(self.recorded, None)
        if given is None:
            raise ValueError("a game record with fewer shuffles than its game makes")
        if Counter(given) != Counter(cards):
            raise ValueError("a recorded shuffle that does not hold the cards shuffled")
        return list(given)

    def shuffle(self, s: GameState, cards: Sequence[int], reason: str, events: Events) -> list[int]:
        """``cards`` shuffled, as a pile ordered bottom to top; the event lists it top first."""
        order = self._order(s, cards)
        if events is not None:
            events.append({"type": "shuffle", "reason": reason, "round": s.round, "order": order})
        s.shuffles += 1
        return order[::-1]


_SEEDED: Final = _Shuffler(None)
#: Cards whose play has no effect beyond the colour: numbers, and Wilds (their
#: colour is the play's own); with the 7-0 rule, not the 7s and 0s.
_PLAIN: Final = tuple(KIND_OF[c] in (NUMBER, WILD) for c in DECK)
_PLAIN_7_0: Final = tuple(_PLAIN[c] and NUMBER_OF[c] not in (0, 7) for c in DECK)
#: A card's points left in a hand, as a function (``hand_points`` written out).
_POINTS: Final = POINTS_OF.__getitem__


# ----------------------------------------------------------------------------
# Setting up


def new_game(
    options: Options, seed: str, *, shuffles: Iterator[list[int]] | None = None
) -> tuple[GameState, list[Event]]:
    """Seat everyone and deal the first round (section "Setup").

    >>> state, events = new_game(Options(seats=3), seed="doc")
    >>> [len(hand) for hand in state.hands], len(state.draw) + len(state.discard)
    ([7, 7, 7], 87)
    """
    s = GameState.blank(options, seed)
    events: list[Event] = []
    _deal(s, _SEEDED if shuffles is None else _Shuffler(shuffles), events)
    return s, events


def new_game_silently(options: Options, seed: str) -> GameState:
    """``new_game`` without its events, for a simulation that reads none (random
    play): the same state, and no event built (``advance_silently``'s twin)."""
    s = GameState.blank(options, seed)
    _deal(s, _SEEDED, None)
    return s


def _deal(s: GameState, shuffler: _Shuffler, events: Events) -> None:
    """Start a round: shuffle, deal seven each one at a time (R3), turn the starter."""
    s.round += 1
    s.direction = 1
    s.pending = None
    s.drawn = NO_CARD
    s.penalty = 0
    s.passed = []
    s.exchanges = 0
    pile = shuffler.shuffle(s, DECK, "deal", events)  # shuffled makes its own list
    if events is not None:
        events.append({"type": "round_start", "round": s.round, "dealer": s.dealer})
    s.hands = deal(pile, s.active, s.dealer, HAND_SIZE)
    while True:
        starter = pile.pop()
        if KIND_OF[starter] != WILD_DRAW4:
            break
        # R4: back into the draw pile, the pile reshuffled, a new card turned.
        if events is not None:
            events.append({"type": "starter_returned", "card": starter})
        pile.append(starter)
        pile = shuffler.shuffle(s, pile, "starter", events)
    s.draw = pile
    s.discard = [starter]
    s.window = True  # R16: the starter opens the jump-in window
    if events is not None:
        events.append({"type": "starter", "card": starter})
    s.turn += 1
    first = _next(s, s.dealer)
    kind = KIND_OF[starter]
    s.color = COLOR_OF[starter]
    if kind == WILD:  # R6: the first player names the colour, then plays
        s.current = first
        s.pending = PENDING_COLOR
    elif kind in (DRAW2, SKIP):  # R5: a Draw 2 drawn at once, never a waiting penalty
        if kind == DRAW2:
            _draw_cards(s, first, 2, shuffler, events, "penalty")
        s.current = _passed_over(s, first, events)
    elif kind == REVERSE:
        # The dealer goes first; with two players it is a Skip and the ring stays (R7, R8).
        if s.players_left > TWO_PLAYERS:
            s.direction = -1
            if events is not None:
                events.append({"type": "reverse", "direction": -1})
        s.current = s.dealer
    else:  # a number, 7 and 0 included: no effect as the starter (R7)
        s.current = first


# ----------------------------------------------------------------------------
# Reading the state


def _next(s: GameState, seat: int) -> int:
    """The next seat still in the game after ``seat``, in the direction of play."""
    active = s.active
    step = s.direction
    at = seat + step
    while True:
        at %= len(active)
        if active[at]:
            return at
        at += step


def _passed_over(s: GameState, victim: int, events: Events) -> int:
    """``victim`` loses their turn (an event says so); the seat after them."""
    if events is not None:
        events.append({"type": "turn_lost", "seat": victim})
    return _next(s, victim)


def next_seat(s: GameState, seat: int) -> int:
    """The next seat still in the game after ``seat``, in the direction of play."""
    return _next(s, seat)


def can_draw(s: GameState) -> bool:
    """True when a card can be drawn, reshuffling the discard pile if needed."""
    return bool(s.draw) or len(s.discard) > 1


def playable_cards(s: GameState, hand: Sequence[int]) -> list[int]:
    """The cards of ``hand`` that match the table now (section "A turn"), pending
    decisions aside: the colour in play, the top card's number or action, a
    Wild; a Wild Draw 4 only when the hand holds no card of the colour in play.

    The text's example "Which cards can you play?" (top wave-7, Blue in play):

    >>> from wildcards.cards import CODE_OF, cards_with_faces
    >>> hand = cards_with_faces(
    ...     ["flame-2", "flame-7", "sun-9", "leaf-5", "wave-3", "wave-skip", "wild"]
    ... )
    >>> top = cards_with_faces(["wave-7"], set(hand))
    >>> table = GameState(Options(), "doc", discard=top, color=3)
    >>> [CODE_OF[c] for c in playable_cards(table, hand)]
    ['red-7', 'blue-3', 'blue-skip', 'wild']
    """
    codes = _MATCH[s.color][s.discard[-1]]
    out: list[int] = []
    held_draw4: list[int] = []
    colored = False
    for card in hand:
        m = codes[card]
        if m == 3:  # noqa: PLR2004
            held_draw4.append(card)
        elif m:
            out.append(card)
            colored = colored or m == 1
    if held_draw4 and not colored:
        out += held_draw4
    return out


def match_codes(s: GameState) -> tuple[int, ...]:
    """How each card may go on the table now, by card: 0 not at all, 1 by
    colour, 2 by number or action or as a plain Wild, 3 a Wild Draw 4 (only
    when the hand holds no card of the colour in play)."""
    return _MATCH[s.color][s.discard[-1]]


def _holds_color(s: GameState, hand: Iterable[int]) -> bool:
    color = s.color
    return any(COLOR_OF[c] == color for c in hand)


def _card_actions(s: GameState, seat: int, card: int, last: bool) -> tuple[Action, ...]:
    """The plays of ``card`` by ``seat``: a Wild once per colour, a 7 with the
    7-0 rule once per other seat in the game, nearest first (R22)."""
    if NUMBER_OF[card] == 7 and s.options.seven_zero and not last:  # noqa: PLR2004
        sevens = SEVENS[card]
        return tuple(sevens[t] for t in _others(s, seat))
    return PLAYS[card]


def _others(s: GameState, seat: int) -> list[int]:
    """Every other seat in the game, from the next one in the direction of play."""
    order = in_game_order(s.active, _next(s, seat), s.direction)
    return [t for t in order if t != seat]


def jump_in_card(s: GameState, seat: int) -> int:
    """The card ``seat`` may jump in with now (R16-R20), or -1.

    Only a seat that is not to act: for the seat to act the identical card is
    an ordinary play. Every coloured card but a 0 exists twice, so the card
    identical to the top is its twin.
    """
    if s.over or not s.options.jump_in or not s.window or seat == s.current:
        return NO_CARD
    if not 0 <= seat < s.seats or not s.active[seat]:
        return NO_CARD
    twin = TWIN_OF[s.discard[-1]]
    return twin if twin >= 0 and twin in s.hands[seat] else NO_CARD


def legal_actions(s: GameState, seat: int) -> list[Action]:  # noqa: C901, PLR0911, PLR0912
    """Every action ``seat`` may take now: Wild plays once per colour, 7 plays
    once per target. A seat not to act may have jump-ins. Leaving is always
    allowed for a seat still in the game and is not listed. The plays of Wild
    Draw 4s come last (the views read a hand's status off that).

    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> legal_actions(state, 1 - state.current)
    []
    """
    if seat != s.current or s.over:
        card = jump_in_card(s, seat)
        if card < 0:
            return []
        return list(_card_actions(s, seat, card, len(s.hands[seat]) == 1))
    if s.legal_memo is not None:
        memo = s.legal_memo
        if memo[0] == s.actions and memo[1] == seat:
            return list(memo[2])
    hand = s.hands[seat]
    pending = s.pending
    if pending is not None:
        if pending == PENDING_DRAWN:  # the commonest: a drawn card to play
            if s.options.seven_zero:
                return list(_card_actions(s, seat, s.drawn, False))
            return list(PLAYS[s.drawn])
        if pending == PENDING_COLOR:
            return list(CHOOSE_ACTIONS)
        return _penalty_answers(s, hand)
    if s.options.seven_zero:
        found = _seven_zero_plays(s, seat, hand)
    else:
        # playable_cards written out: each card's plays in one lookup, the Wild Draw 4s
        # (None) after the rest when the hand holds no card of the colour in play.
        table = _PLAYS_ON[s.color][s.discard[-1]]
        found = []
        held_draw4 = False
        for card in hand:
            plays = table[card]
            if plays:
                found += plays
            elif plays is None:
                held_draw4 = True
        if held_draw4:
            of_color = _OF_COLOR[s.color]
            for card in hand:
                if of_color[card]:
                    break
            else:
                for card in hand:
                    if table[card] is None:
                        found += PLAYS[card]
    if not found:  # nothing to play: draw, or pass when nothing is left to draw
        found = [DRAW_ACTION if s.draw or len(s.discard) > 1 else PASS_ACTION]
    return found


def _penalty_answers(s: GameState, hand: list[int]) -> list[Action]:
    """Stacking: the plays of the hand's cards of the waiting penalty's kind, then taking it.
    (A function of its own, as is ``_seven_zero_plays``: a comprehension in
    ``legal_actions`` would make its arguments cells, slower on every call.)"""
    kind = KIND_OF[s.discard[-1]]
    found = [a for c in hand if KIND_OF[c] == kind for a in PLAYS[c]]
    found.append(TAKE_PENALTY_ACTION)
    return found


def _seven_zero_plays(s: GameState, seat: int, hand: list[int]) -> list[Action]:
    """The plays of the playable cards with the 7-0 rule: a 7 once per target."""
    last = len(hand) == 1
    return [a for c in playable_cards(s, hand) for a in _card_actions(s, seat, c, last)]


# ----------------------------------------------------------------------------
# Checking (R33: game, round, seat, form, turn, pending decision, card rule, parameters)


def refusal(s: GameState, seat: int, action: Action) -> str | None:  # noqa: C901, PLR0911, PLR0912
    """Why ``seat`` may not take ``action`` now, or None when it may."""
    if s.over:
        return "game_over"
    if not 0 <= seat < s.seats or not s.active[seat]:
        return "seat_not_in_game"
    reason = form_refusal(action.type, action.card >= 0, action.color >= 0, action.target >= 0)
    if reason is not None or action.type == LEAVE:
        return reason
    kind = action.type
    card = action.card
    hand = s.hands[seat]
    if kind == PLAY and card not in hand:
        return "card_not_in_hand"
    if seat != s.current:
        reason = _out_of_turn_refusal(s, kind, card)
    else:
        reason = _turn_refusal(s, hand, kind, card)
    if reason is not None:
        return reason
    if kind == PLAY:
        return _parameter_refusal(s, seat, action, len(hand) == 1)
    if kind == CHOOSE_COLOR:
        if action.color < 0:
            return "color_required"
        return None if action.color < len(COLORS) else "bad_color"
    return None


def form_refusal(kind: str, card: bool, color: bool, target: bool) -> str | None:
    """The form of an action: its type exists, and it names a card, a colour or
    a target only where such an action may. ``check`` and ``parse_request``
    both ask this."""
    takes = _TAKES.get(kind)
    if takes is None:
        return "bad_action"
    if card != takes[0]:
        return "card_not_allowed" if card else "card_required"
    if color and not takes[1]:
        return "color_not_allowed"
    return "target_not_allowed" if target and not takes[2] else None


#: By action type: whether it names a card (always, for a play), may name a
#: colour, may name a target.
_TAKES: Final[dict[str, tuple[bool, bool, bool]]] = {
    kind: (kind == PLAY, kind in (PLAY, CHOOSE_COLOR), kind == PLAY) for kind in ACTION_TYPES
}


def _out_of_turn_refusal(s: GameState, kind: str, card: int) -> str | None:
    """R36 and R17: a play out of turn is a jump-in or nothing."""
    if kind != PLAY or not s.options.jump_in:
        return "not_your_turn"
    if not s.window:
        return "jump_in_closed"
    top = s.discard[-1]
    if TWIN_OF[top] == card:
        return None
    # A card identical to one already covered on the pile came too late for it (R17).
    twin = TWIN_OF[card]
    if twin >= 0 and twin in s.discard:
        return "jump_in_closed"
    return "jump_in_not_identical"


def _turn_refusal(s: GameState, hand: list[int], kind: str, card: int) -> str | None:  # noqa: C901, PLR0911, PLR0912
    """The pending decision, then the card rule, for the seat to act."""
    pending = s.pending
    if pending == PENDING_COLOR:
        return None if kind == CHOOSE_COLOR else "choose_color_first"
    if kind == CHOOSE_COLOR:
        return "no_color_to_choose"
    if pending == PENDING_DRAWN:
        return None if kind == PLAY and card == s.drawn else "must_play_drawn_card"
    if pending == PENDING_PENALTY:
        if kind == PLAY:
            return None if KIND_OF[card] == KIND_OF[s.discard[-1]] else "penalty_waiting"
        return None if kind == TAKE_PENALTY else "penalty_waiting"
    if kind == TAKE_PENALTY:
        return "no_penalty"
    if kind == PLAY:
        m = _MATCH[s.color][s.discard[-1]][card]
        if m == 0:
            return "no_match"
        if m == 3 and _holds_color(s, hand):  # noqa: PLR2004
            return "wild_draw4_blocked"
        return None
    if playable_cards(s, hand):
        return "must_play_playable"
    if kind == DRAW:
        return None if can_draw(s) else "nothing_to_draw"
    return "must_draw" if can_draw(s) else None  # a pass


def _parameter_refusal(  # noqa: PLR0911 (one return per refusal, in order)
    s: GameState, seat: int, action: Action, last: bool
) -> str | None:
    card = action.card
    if COLOR_OF[card] == NO_COLOR:
        if action.color < 0:
            return "color_required"
        if action.color >= len(COLORS):
            return "bad_color"
    elif action.color >= 0:
        return "color_not_allowed"
    target = action.target
    if NUMBER_OF[card] == 7 and s.options.seven_zero and not last:  # noqa: PLR2004
        if target < 0:
            return "target_required"
        if target == seat or target >= s.seats or not s.active[target]:
            return "bad_target"
        return None
    return None if target < 0 else "target_not_allowed"


def check(s: GameState, seat: int, action: Action) -> None:
    """Raise ``RuleError`` when ``seat`` may not take ``action`` now."""
    reason = refusal(s, seat, action)
    if reason is not None:
        raise RuleError(reason)


def card_refusal(s: GameState, seat: int, card: int) -> str | None:
    """Why ``seat`` may not play ``card`` of its hand now, parameters aside
    (the views' "why a card cannot be played")."""
    if s.over:
        return "game_over"
    hand = s.hands[seat]
    if seat != s.current:
        return _out_of_turn_refusal(s, PLAY, card)
    return _turn_refusal(s, hand, PLAY, card)


# ----------------------------------------------------------------------------
# Moves


def apply(
    s: GameState,
    seat: int,
    action: Action,
    *,
    shuffles: Iterator[list[int]] | None = None,
    inplace: bool = False,
) -> tuple[GameState, list[Event]]:
    """Check ``action`` for ``seat`` and return the state after it, with its events.

    Raises ``RuleError`` (and changes nothing) when the rules refuse it.
    """
    check(s, seat, action)
    if not inplace:
        s = s.copy()
    return s, advance(s, seat, action, shuffles)


def advance(
    s: GameState, seat: int, action: Action, shuffles: Iterator[list[int]] | None = None
) -> list[Event]:
    """Take ``action`` for ``seat`` on ``s`` itself, unchecked; return its events.

    The trusted path: ``apply(s, seat, action, inplace=True)`` without the
    check, for an action ``legal_actions`` or ``timeout_action`` just gave
    for this very state. Anything else may leave the state inconsistent.

    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> action = legal_actions(state, state.current)[0]
    >>> advance(state, state.current, action)[0]["type"] in ("play", "draw", "choose_color")
    True
    """
    events: list[Event] = []
    advance_silently(s, seat, action, _SEEDED if shuffles is None else _Shuffler(shuffles), events)
    return events


def advance_silently(  # noqa: C901, PLR0912, PLR0915 (the hot path, written out)
    s: GameState,
    seat: int,
    action: Action,
    shuffler: _Shuffler = _SEEDED,
    events: Events = None,
) -> None:
    """``advance`` without its events, for a simulation that reads none (random
    play, a bot's rollouts): the same move and the same state after it, but no
    event is built, which is a good part of a move's work. (``advance`` passes
    its shuffles and its list of events: a simulation leaves them out.)

    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> twin = state.copy()
    >>> action = legal_actions(state, state.current)[0]
    >>> _ = advance(state, state.current, action)
    >>> advance_silently(twin, twin.current, action)
    >>> twin == state
    True
    """
    s.actions += 1
    kind = action.type
    if kind == PLAY:
        card = action.card
        hand = s.hands[seat]
        hand.remove(card)
        s.discard.append(card)
        waiting = False
        if s.pending is not None:
            waiting = s.pending == PENDING_PENALTY
            s.pending = None
            s.drawn = NO_CARD
        s.window = True
        if s.passed:
            s.passed = []
        if events is not None:
            events.append(_play_event(s, seat, action))
        own = COLOR_OF[card]
        s.color = action.color if own < 0 else own
        if not hand:
            _last_card(s, seat, KIND_OF[card], waiting, shuffler, events)
            return
        if not (_PLAIN_7_0 if s.options.seven_zero else _PLAIN)[card]:
            # Section "The action cards": a Reverse turns the ring and a Skip or a draw card
            # (without stacking) passes over the next seat, then the turn passes on at the
            # end of this function, found there without a call (a fifth of all moves); the
            # house rules' stacking, 7 and 0 in a call.
            effect = KIND_OF[card]
            active = s.active
            if (
                effect == SKIP
                or (effect in PENALTY_OF and not s.options.stacking)
                # R8: with two players a Reverse is a Skip and the ring stays as it is.
                or (effect == REVERSE and active.count(True) == TWO_PLAYERS)
            ):
                victim = (seat + s.direction) % len(active)
                if not active[victim]:
                    victim = _next(s, victim)
                if effect in PENALTY_OF:
                    _draw_cards(s, victim, PENALTY_OF[effect], shuffler, events, "penalty")
                if events is not None:
                    events.append({"type": "turn_lost", "seat": victim})
                seat = victim  # the turn passes on from the seat that lost it
            elif effect == REVERSE:
                s.direction = -s.direction
                if events is not None:
                    events.append({"type": "reverse", "direction": s.direction})
            else:
                _house_effect(s, seat, card, action.target, waiting, events)
                s.turn += 1
                return
    elif kind == DRAW:
        s.window = False
        if s.passed:
            s.passed = []
        hand = s.hands[seat]
        codes = _MATCH[s.color][s.discard[-1]]
        if s.options.draw_until_playable:
            drawn: list[int] = []
            card = NO_CARD
            while True:  # R10: until a playable card or nothing is left
                card = _draw_one(s, shuffler, events)
                if card < 0:
                    break
                drawn.append(card)
                hand.append(card)
                if codes[card]:
                    break
            if events is not None:
                events.append({"type": "draw", "seat": seat, "cards": drawn, "reason": "draw"})
        else:
            pile = s.draw
            card = pile.pop() if pile else _draw_one(s, shuffler, events)
            hand.append(card)
            if events is not None:
                events.append({"type": "draw", "seat": seat, "cards": [card], "reason": "draw"})
        # Nothing in the hand was playable, so a drawn Wild Draw 4 passes its test (R15).
        if card >= 0 and codes[card]:  # R9: to be played by the next action
            s.drawn = card
            s.pending = PENDING_DRAWN
            return
    else:
        _other_move(s, seat, action, shuffler, events)
        return
    # A card without effect was played (or a Skip, a Reverse or a draw card: ``seat`` is
    # then the seat passed over), or a drawn card kept: the next seat's turn, found here
    # without a call while that seat is in the game (the commonest moves end here).
    active = s.active
    after = (seat + s.direction) % len(active)
    s.current = after if active[after] else _next(s, after)
    s.turn += 1


def _play_event(s: GameState, seat: int, action: Action) -> Event:
    """The event of a play, before the play changes the state."""
    card = action.card
    event: Event = {"type": "play", "seat": seat, "card": card}
    if COLOR_OF[card] < 0:
        event["color"] = COLORS[action.color]
    if action.target >= 0:
        event["target"] = action.target
    if seat != s.current:
        event["jump_in"] = True
    return event


def _other_move(
    s: GameState, seat: int, action: Action, shuffler: _Shuffler, events: Events
) -> None:
    """A move other than a play or a draw: a penalty taken, a colour, a pass, leaving."""
    kind = action.type
    if kind == LEAVE:  # neither opens nor closes the jump-in window (R16)
        _leave(s, seat, shuffler, events)
        return
    s.window = False
    if kind == TAKE_PENALTY:
        count, s.penalty, s.pending = s.penalty, 0, None
        _draw_cards(s, seat, count, shuffler, events, "penalty")
        _start_turn(s, _passed_over(s, seat, events))
    elif kind == CHOOSE_COLOR:  # R6: the same turn goes on
        s.color = action.color
        s.pending = None
        if events is not None:
            events.append({"type": "choose_color", "seat": seat, "color": COLORS[action.color]})
    else:
        _pass(s, seat, shuffler, events)


def _draw_one(s: GameState, shuffler: _Shuffler, events: Events) -> int:
    """The top card of the draw pile, reshuffling the discard pile when it is
    empty (section "When the draw pile runs out"); -1 when there is none."""
    pile = s.draw
    if pile:
        return pile.pop()
    discard = s.discard
    if len(discard) == 1:  # the top card alone: nothing at all to draw
        return NO_CARD
    s.discard = discard[-1:]  # the top card stays where it is
    s.draw = pile = shuffler.shuffle(s, discard[:-1], "reshuffle", events)
    return pile.pop()


def _draw_cards(  # noqa: PLR0913
    s: GameState, seat: int, count: int, shuffler: _Shuffler, events: Events, reason: str
) -> None:
    """``seat`` draws ``count`` cards; what the piles cannot give is forgotten (R13)."""
    pile = s.draw
    if 0 < count <= len(pile):  # all from the draw pile: its top cards, top first
        drawn = pile[: -count - 1 : -1]
        del pile[-count:]
    else:
        drawn = []
        for _ in range(count):
            card = _draw_one(s, shuffler, events)
            if card < 0:
                break
            drawn.append(card)
    s.hands[seat] += drawn
    if drawn and s.passed:
        s.passed = []
    if events is not None:
        events.append({"type": "draw", "seat": seat, "cards": drawn, "reason": reason})


def _start_turn(s: GameState, seat: int) -> None:
    s.current = seat
    s.turn += 1


def _house_effect(  # noqa: PLR0913
    s: GameState, seat: int, card: int, target: int, waiting: bool, events: Events
) -> None:
    """The effect of a card ``seat`` just played that is not its last, under a house
    rule: a draw card with stacking, a 7 or a 0 with the 7-0 rule. The turn passes
    (``advance_silently`` counts it)."""
    kind = KIND_OF[card]
    if kind in PENALTY_OF:  # stacking: the next seat answers the waiting penalty or takes it
        victim = _next(s, seat)
        s.penalty = (s.penalty if waiting else 0) + PENALTY_OF[kind]
        s.pending = PENDING_PENALTY
        if events is not None:
            events.append({"type": "penalty", "seat": victim, "count": s.penalty})
        s.current = victim
    elif NUMBER_OF[card] == 7:  # noqa: PLR2004 (7-0: swap with the target)
        hands = s.hands
        hands[seat], hands[target] = hands[target], hands[seat]
        s.exchanges += 1
        if events is not None:
            events.append(
                {
                    "type": "swap",
                    "seats": [seat, target],
                    "counts": [len(hands[seat]), len(hands[target])],
                }
            )
        s.current = _next(s, seat)
    else:  # 7-0: a 0, every hand to the next seat in the game
        hands = s.hands
        moved = [list[int]() for _ in hands]
        for i in range(s.seats):
            if s.active[i]:
                moved[_next(s, i)] = hands[i]
        s.hands = moved
        s.exchanges += 1
        if events is not None:
            events.append(
                {
                    "type": "rotate",
                    "direction": s.direction,
                    "counts": [len(h) for h in moved],
                }
            )
        s.current = _next(s, seat)


def _last_card(
    s: GameState, seat: int, kind: int, waiting: bool, shuffler: _Shuffler, events: Events
) -> None:
    """A last card wins the round; only a penalty card still lands, with any
    waiting penalty (R14); a 7 or 0 does nothing (R35)."""
    if kind in PENALTY_OF:
        victim = _next(s, seat)
        count = (s.penalty if waiting else 0) + PENALTY_OF[kind]
        s.penalty = 0
        _draw_cards(s, victim, count, shuffler, events, "penalty")
    _end_round(s, seat, shuffler, events)


def _pass(s: GameState, seat: int, shuffler: _Shuffler, events: Events) -> None:
    """R25: a pass; when every player still in the round has passed in a row, it is blocked."""
    if events is not None:
        events.append({"type": "pass", "seat": seat})
    passed = s.passed
    if seat not in passed:
        passed.append(seat)
    if _blocked(s):
        _end_round(s, None, shuffler, events)
        return
    _start_turn(s, _next(s, seat))


def _blocked(s: GameState) -> bool:
    passed = set(s.passed)
    return not any(playing and i not in passed for i, playing in enumerate(s.active))


def _leave(s: GameState, seat: int, shuffler: _Shuffler, events: Events) -> None:
    """R26: the hand goes under the draw pile, sorted, its first card nearest the top."""
    given_up = sorted_hand(s.hands[seat])
    s.hands[seat] = []
    s.active[seat] = False
    s.left_order.append(seat)
    s.left_points[seat] = hand_points(given_up)
    given_up.reverse()
    s.draw[:0] = given_up
    if given_up:  # something to draw again: earlier passes no longer block the round
        s.passed = []
    elif seat in s.passed:
        s.passed.remove(seat)
    if events is not None:
        events.append({"type": "leave", "seat": seat, "count": len(given_up)})
    if s.players_left == 1:  # the last player wins at once; the round scores nothing
        _end_round(s, s.active.index(True), shuffler, events, interrupted=True)
        return
    if s.current == seat:
        if s.pending != PENDING_COLOR:  # R6: a colour choice passes on with the turn
            s.pending, s.drawn, s.penalty = None, NO_CARD, 0
        _start_turn(s, _next(s, seat))
    if s.passed and _blocked(s):
        _end_round(s, None, shuffler, events)


def _end_round(
    s: GameState,
    winner: int | None,
    shuffler: _Shuffler,
    events: Events,
    *,
    interrupted: bool = False,
) -> None:
    """The round ends: won (section "Scoring": the winner scores every other hand's
    points), blocked (``winner`` None: nobody scores) or interrupted (one player
    left: no points, the game ends). Then the game ends, or the next round is dealt."""
    hands: list[HandResult] = []
    points = 0
    active = s.active
    for i, held in enumerate(s.hands):
        if active[i]:
            cards = sorted(held)  # sorted_hand: the ids sorted are the hand sorted
            counted = sum(map(_POINTS, cards))  # hand_points
            hands.append({"seat": i, "cards": cards, "points": counted})
            if i != winner:
                points += counted
    if winner is None or interrupted:
        points = 0
    else:
        s.scores[winner] += points
    result: RoundResult = {
        "round": s.round,
        "winner": winner,
        "points": points,
        "blocked": winner is None,
        "interrupted": interrupted,
        "hands": hands,
    }
    s.results.append(result)
    if events is not None:
        events.append({"type": "round_end", "result": result})
    options = s.options
    if interrupted or (
        options.scoring == SINGLE_ROUND
        if winner is None
        else options.scoring == SINGLE_ROUND or s.scores[winner] >= options.target
    ):
        _end_game(s, winner, events)
    else:  # R31: the next dealer clockwise, whatever the direction of play
        s.dealer = next_in_game(s.active, s.dealer)
        _deal(s, shuffler, events)


def _end_game(s: GameState, winner: int | None, events: Events) -> None:
    s.over = True
    s.winner = winner
    s.pending, s.drawn, s.penalty, s.window = None, NO_CARD, 0, False
    if events is not None:  # the ranking is read off the state when asked (GameState.ranking)
        events.append({"type": "game_over", "winner": winner, "ranking": ranking(s)})


# ----------------------------------------------------------------------------
# The timeout move (R24)


def preferred_color(hand: Iterable[int]) -> int:
    """The colour ``hand`` holds most of, Wilds not counted; ties and none go to
    Red, Yellow, Green, Blue in that order (R24, platform ruling 4)."""
    counts = [0, 0, 0, 0]
    for c in hand:
        color = COLOR_OF[c]
        if color >= 0:
            counts[color] += 1
    return counts.index(max(counts))


def _plain_play(s: GameState, seat: int, card: int) -> Action:
    """The play of ``card`` with the parameters R24 chooses."""
    hand = s.hands[seat]
    if COLOR_OF[card] == NO_COLOR:
        return Action(PLAY, card, preferred_color(c for c in hand if c != card))
    if NUMBER_OF[card] == 7 and s.options.seven_zero and len(hand) > 1:  # noqa: PLR2004
        # The other player holding the fewest cards, ties to the nearest in the direction of play.
        target = min(_others(s, seat), key=lambda t: len(s.hands[t]))
        return Action(PLAY, card, target=target)
    return Action(PLAY, card)


def timeout_action(s: GameState) -> Action:
    """The plain legal move the table makes for the seat to act (R24).

    Take a waiting penalty; else name the colour held most; else play the
    playable card worth most (ties: first in sorted hand order); else draw;
    else pass. It never jumps in.

    >>> state, _ = new_game(Options(seats=2), seed="doc")
    >>> timeout_action(state) in legal_actions(state, state.current)
    True
    """
    if s.over:
        raise RuleError("game_over")
    seat = s.current
    hand = s.hands[seat]
    if s.pending == PENDING_PENALTY:
        return TAKE_PENALTY_ACTION
    if s.pending == PENDING_COLOR:
        return CHOOSE_ACTIONS[preferred_color(hand)]
    candidates = [s.drawn] if s.pending == PENDING_DRAWN else playable_cards(s, hand)
    if candidates:
        best = max(sorted_hand(candidates), key=POINTS_OF.__getitem__)
        return _plain_play(s, seat, best)
    return DRAW_ACTION if can_draw(s) else PASS_ACTION
