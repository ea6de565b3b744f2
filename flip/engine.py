"""The rules: setting up a game, legal actions, applying an action.

The public functions are pure: ``apply`` works on a private copy and returns
it with the events the action caused; the state passed in is never touched.
``apply(..., inplace=True)`` skips the copy for simulations that own their
state.

Randomness is an input. Every shuffle draws from a generator seeded from the
game's secret seed and the shuffle's number, and its result is written into
the events (``{"type": "shuffle", ...}``), so a game record replays without
any generator: pass the recorded orders as ``shuffles=`` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeVar

from tabletop.deal import deal
from tabletop.ranking import shared_ranks
from tabletop.seats import next_in_game
from tabletop.shuffle import shuffled as _shuffled

from . import journal
from .actions import (
    ACTION_TYPES,
    CHOOSE_COLOR,
    DRAW,
    DRAW_ACTION,
    LEAVE,
    LEAVE_ACTION,
    PASS,
    PASS_ACTION,
    PLAY,
    Action,
)
from .cards import (
    CARDS_BY_FACE,
    COLOR_OF,
    COLORS,
    DARK,
    DARK_WILD,
    DECK,
    DRAW_FIVE,
    DRAW_ONE,
    FLIP,
    KEY_OF,
    KIND_OF,
    LIGHT,
    NO_CARD,
    NO_COLOR,
    NUMBER,
    PENALTIES,
    POINTS_OF,
    RESTRICTED_OF,
    REVERSE,
    SIDE_COLORS,
    SKIP,
    SKIP_EVERYONE,
    WILD,
    WILD_DRAW_COLOR,
    WILD_DRAW_TWO,
    hand_points,
    sorted_hand,
)
from .errors import RuleError
from .state import PENDING_COLOR, PENDING_DRAWN, SINGLE_ROUND, GameState, Options
from .types import (
    Card,
    DrawEvent,
    DrawReason,
    Event,
    PlayEvent,
    RankingEntry,
    RefusalCode,
    RoundResult,
    Seat,
    ShuffleReason,
)

HAND_SIZE: Final = 7
#: "Two players" of the specification: two still in the round, whatever the table's size.
TWO_PLAYERS: Final = 2

#: A card of a hand: a ``Card``, or a plain int in a bot's own simulation.
CardT = TypeVar("CardT", bound=int)

#: Every seat number as a ``Seat``, so seat arithmetic stays typed without a call.
SEATS: Final[tuple[Seat, ...]] = tuple(Seat(i) for i in range(10))


class _Shuffler:
    """Where shuffles come from: the game's seeded generators, or a record."""

    __slots__ = ("recorded",)

    def __init__(self, recorded: Iterator[list[Card]] | None) -> None:
        self.recorded = recorded

    def shuffle(
        self, s: GameState, cards: list[Card], reason: ShuffleReason, events: list[Event]
    ) -> list[Card]:
        """Return ``cards`` shuffled, as a pile ordered bottom to top."""
        if self.recorded is None:
            order = shuffled(cards, s.seed, s.shuffles)
        else:
            try:
                order = list(next(self.recorded))
            except StopIteration:
                raise ValueError("the record holds fewer shuffles than the game needs") from None
            if sorted(order) != sorted(cards):
                raise ValueError("a recorded shuffle does not hold the cards being shuffled")
        s.shuffles += 1
        # Events and records list a pile top first: the order cards come off it.
        events.append({"type": "shuffle", "reason": reason, "round": s.round, "order": order})
        return order[::-1]


_SEEDED: Final = _Shuffler(None)


#: Flip's shuffles: no other game's shuffles draw from the same stream.
SHUFFLE_DOMAIN: Final = b"flip shuffle"


def shuffled(cards: Sequence[Card], seed: str, number: int) -> list[Card]:
    """``cards`` in a uniformly random order, from the game's seed and the shuffle's number.

    ``tabletop.shuffle.shuffled`` in Flip's domain: Fisher and Yates's
    shuffle reading SHAKE-128 keyed by ``flip shuffle``, the seed and the
    number, every order equally likely.

    >>> shuffled([1, 2, 3, 4, 5], "doc", 0) == shuffled([1, 2, 3, 4, 5], "doc", 0)
    True
    >>> sorted(shuffled([1, 2, 3, 4, 5], "doc", 1))
    [1, 2, 3, 4, 5]
    """
    return _shuffled(cards, seed, number, domain=SHUFFLE_DOMAIN)


# ----------------------------------------------------------------------------
# Setting up


def new_game(
    options: Options, seed: str, *, shuffles: Iterator[list[Card]] | None = None
) -> tuple[GameState, list[Event]]:
    """Seat everyone and deal the first round.

    >>> state, events = new_game(Options(seats=3), seed="doc")
    >>> [len(hand) for hand in state.hands], len(state.draw)
    ([7, 7, 7], 90)
    """
    s = GameState(
        options=options,
        seed=seed,
        active=[True] * options.seats,
        scores=[0] * options.seats,
        left_points=[None] * options.seats,
        hands=[[] for _ in range(options.seats)],
    )
    events: list[Event] = []
    shuffler = _SEEDED if shuffles is None else _Shuffler(shuffles)
    s.dealer = SEATS[0]
    _deal(s, shuffler, events)
    return s, events


def _deal(s: GameState, shuffler: _Shuffler, events: list[Event]) -> None:
    """Start a round: shuffle, deal seven each one at a time, turn the starter."""
    s.round += 1
    s.side = LIGHT
    s.flips = 0
    s.last_flip = None
    s.direction = 1
    s.pending = None
    s.drawn = NO_CARD
    s.passed = []
    s.draw = shuffler.shuffle(s, list(DECK), "deal", events)
    first = _next(s, s.dealer)
    events.append({"type": "round_start", "round": s.round, "dealer": s.dealer})
    # One card at a time round the table, from the seat after the dealer
    # (play goes clockwise at a deal).
    s.hands = deal(s.draw, s.active, s.dealer, HAND_SIZE)
    while True:
        starter = s.draw.pop()
        kind = KIND_OF[LIGHT][starter]
        if kind not in (WILD_DRAW_TWO, FLIP):
            break
        # A Wild Draw 2 or a Flip can never start: back in, reshuffle, turn again.
        events.append({"type": "starter_returned", "card": starter})
        s.draw.append(starter)
        s.draw = shuffler.shuffle(s, s.draw, "starter", events)
    s.discard = [starter]
    s.history = [journal.entry(journal.STARTER, 0, starter)]  # the new round's public record
    events.append({"type": "starter", "card": starter})
    s.turn += 1
    s.color = COLOR_OF[LIGHT][starter]
    if s.color == NO_COLOR:  # a plain Wild: the first player chooses, then plays
        s.current = first
        s.pending = PENDING_COLOR
    elif kind == DRAW_ONE:
        _draw_cards(s, first, 1, shuffler, events, "penalty")
        events.append({"type": "turn_lost", "seat": first})
        s.current = _next(s, first)
    elif kind == SKIP:
        events.append({"type": "turn_lost", "seat": first})
        s.current = _next(s, first)
    elif kind == REVERSE:
        # Three or more: play turns around and the dealer goes first. Two, as
        # a Skip: the dealer goes first too; with the option off it turns round.
        if not (s.players_left == TWO_PLAYERS and s.options.two_seat_reverse_skips):
            s.direction = -1
        s.current = s.dealer
    else:
        s.current = first


# ----------------------------------------------------------------------------
# Reading the state


def _next(s: GameState, seat: Seat) -> Seat:
    """The next seat still in the game after ``seat``, in the direction of play."""
    n = s.options.seats
    active = s.active
    step = s.direction
    seat = SEATS[(seat + step) % n]
    while not active[seat]:
        seat = SEATS[(seat + step) % n]
    return seat


def can_draw(s: GameState) -> bool:
    """True when a card can be drawn, reshuffling the discard pile if needed."""
    return bool(s.draw) or len(s.discard) > 1


def _matches(side: int, card: Card, in_play: int, top_key: str) -> bool:
    """Whether ``card``'s face on ``side`` may go on a top card of match key
    ``top_key`` with ``in_play`` the colour in play, leaving aside the
    restricted Wilds' own condition (section "A turn")."""
    color = COLOR_OF[side][card]
    return color in (NO_COLOR, in_play) or KEY_OF[side][card] == top_key


# The rule, tabulated once: ``_MATCHING[side][in_play][top_key]`` is the set of
# cards ``_matches`` admits, each restricted Wild left out (its condition
# depends on the hand); ``_RESTRICTED[side]`` are those Wilds and
# ``_OF_COLOR[side][color]`` the cards the restriction looks for.
_KEYS: Final = tuple(frozenset(KEY_OF[side]) for side in (LIGHT, DARK))
# Any colour may be in play in a state built by hand: tabulate all eight.
_IN_PLAY: Final[list[int]] = [NO_COLOR, *range(len(COLORS))]
_MATCHING: Final[tuple[dict[int, dict[str, frozenset[int]]], ...]] = tuple(
    {
        in_play: {
            top_key: frozenset(
                c
                for c in DECK
                if not RESTRICTED_OF[side][c] and _matches(side, c, in_play, top_key)
            )
            for top_key in _KEYS[side]
        }
        for in_play in _IN_PLAY
    }
    for side in (LIGHT, DARK)
)
_RESTRICTED: Final[tuple[frozenset[int], ...]] = tuple(
    frozenset(c for c in DECK if RESTRICTED_OF[side][c]) for side in (LIGHT, DARK)
)
# No colour in play (a Wild's colour still to choose): no card is "of the colour in play".
_OF_COLOR: Final[tuple[dict[int, frozenset[int]], ...]] = tuple(
    {
        color: frozenset(c for c in DECK if color != NO_COLOR and COLOR_OF[side][c] == color)
        for color in _IN_PLAY
    }
    for side in (LIGHT, DARK)
)
# The same sets indexed by position, not key: ``_MATCH_TOP[side][in_play + 1][top_card]``.
_MATCH_TOP: Final[tuple[tuple[tuple[frozenset[int], ...], ...], ...]] = tuple(
    tuple(
        tuple(_MATCHING[side][in_play][KEY_OF[side][top]] for top in DECK) for in_play in _IN_PLAY
    )
    for side in (LIGHT, DARK)
)


def _flags(side: int) -> tuple[tuple[tuple[bool, ...], ...], ...]:
    """``_MATCH_TOP[side]`` as a flag per card (each distinct set's flags made once)."""
    made: dict[frozenset[int], tuple[bool, ...]] = {}
    return tuple(
        tuple(made.get(m) or made.setdefault(m, tuple(c in m for c in DECK)) for m in by_top)
        for by_top in _MATCH_TOP[side]
    )


# ``_MATCH_FLAGS[side][in_play + 1][top_card][card]``: ``card in _MATCH_TOP[...]``.
_MATCH_FLAGS: Final = (_flags(LIGHT), _flags(DARK))


def playable_cards(s: GameState, hand: Sequence[CardT]) -> list[CardT]:
    """The cards of ``hand`` that may be played on the table now.

    This is the one matching rule of the game (section "A turn", computed
    from ``_matches``): a card is playable when its active face has the
    colour in play, the top card's number or action, or is a Wild; a Wild
    Draw 2 or Wild Draw Color only when the hand holds no card of the colour
    in play. Any pending decision is ignored: ``refusal``, ``check``,
    ``legal_actions``, ``timeout_action``, the drawn-card test and the views
    all derive from this function or from the same tables (``_MATCH_TOP``,
    ``_RESTRICTED``, ``_OF_COLOR``), and the bots may call it on states they
    simulate. The restricted Wilds come after the other cards, each in hand
    order.

    The specification's example "Which cards can you play?" (top card sun-5,
    Yellow in play):

    >>> from flip.cards import CODE_OF
    >>> hand = cards_with_faces(["flame-3", "flame-5", "sun-9", "leaf-reverse", "wave-2", "wild"])
    >>> table = GameState(Options(), "doc", discard=cards_with_faces(["sun-5"], set(hand)), color=1)
    >>> [CODE_OF[LIGHT][card] for card in playable_cards(table, hand)]
    ['flame-5', 'sun-9', 'wild']
    """
    side = s.side
    in_play = s.color
    matching = _MATCH_TOP[side][in_play + 1][s.discard[-1]]
    out = list(filter(matching.__contains__, hand))
    restricted = _RESTRICTED[side]
    if not restricted.isdisjoint(hand) and _OF_COLOR[side][in_play].isdisjoint(hand):
        out += filter(restricted.__contains__, hand)
    return out


def _is_playable(s: GameState, hand: list[Card], card: Card) -> bool:
    """``card in playable_cards(s, hand)`` for a ``card`` of ``hand``, from the same tables."""
    side = s.side
    if card in _MATCH_TOP[side][s.color + 1][s.discard[-1]]:
        return True
    return card in _RESTRICTED[side] and _OF_COLOR[side][s.color].isdisjoint(hand)


# Why playable_cards leaves a card out, by card: a Wild is only ever left out
# for the restriction, any other card for not matching.
_UNPLAYABLE: Final[tuple[tuple[RefusalCode, ...], ...]] = tuple(
    tuple(
        "restricted_wild_blocked" if RESTRICTED_OF[side][c] else "card_does_not_match" for c in DECK
    )
    for side in (LIGHT, DARK)
)

# ``_UNPLAYABLE`` for the cards a table's matching set leaves out, None for the
# others, by card: ``_WHY_TOP[side][in_play + 1][top_card]`` (a list: its bound
# ``__getitem__`` is a fast call). One list per distinct matching set.
_WHY_BY_SET: Final[dict[tuple[int, frozenset[int]], list[RefusalCode | None]]] = {
    (side, matching): [None if c in matching else _UNPLAYABLE[side][c] for c in DECK]
    for side in (LIGHT, DARK)
    for matching in {m for by_top in _MATCH_TOP[side] for m in by_top}
}
_WHY_TOP: Final[tuple[tuple[tuple[list[RefusalCode | None], ...], ...], ...]] = tuple(
    tuple(tuple(_WHY_BY_SET[side, m] for m in by_top) for by_top in _MATCH_TOP[side])
    for side in (LIGHT, DARK)
)


def _turn_refusal(s: GameState, playable: list[Card], card: Card) -> RefusalCode | None:
    """Why the seat to act may not play ``card`` of its hand now, or None.

    ``playable`` is ``playable_cards`` of the hand; it is not read while a
    decision is pending, when matching does not apply.
    """
    if s.pending == PENDING_COLOR:
        return "color_must_be_chosen_first"
    if s.pending == PENDING_DRAWN:
        return None if card == s.drawn else "must_play_drawn_card"
    return None if card in playable else _UNPLAYABLE[s.side][card]


def _seat_refusal(s: GameState, seat: int) -> RefusalCode | None:
    """Why ``seat`` may not play any card now (before looking at the card), or None."""
    if s.over:
        return "game_over"
    if not 0 <= seat < s.seats or not s.active[seat]:
        return "seat_not_in_game"
    if seat != s.current:
        return "not_your_turn"
    return None


def refusal(s: GameState, seat: int, card: int) -> RefusalCode | None:
    """Why ``seat`` may not play ``card`` now, or None when it may.

    Derived from ``playable_cards``, the one matching rule, as are legal
    actions, validation, views and the timeout move.
    """
    reason = _seat_refusal(s, seat)
    if reason is not None:
        return reason
    hand = s.hands[seat]
    if card not in hand:
        return "card_not_in_hand"
    # The card is in the hand, so it is a Card.
    return _turn_refusal(s, [] if s.pending else playable_cards(s, hand), Card(card))


def hand_refusals(s: GameState, seat: int) -> list[RefusalCode | None]:
    """``refusal(s, seat, card)`` for every card of ``seat``'s hand, in hand order.

    The views ask this once per hand instead of once per card.
    """
    hand = s.hands[seat]
    if s.over or seat != s.current:  # _seat_refusal, but for the seat to act
        return [_seat_refusal(s, seat)] * len(hand)
    if s.pending is None:
        # _turn_refusal for each card, without a call per card: playable_cards'
        # sets, tabulated as refusals by card.
        side = s.side
        in_play = s.color
        why = _WHY_TOP[side][in_play + 1][s.discard[-1]]
        out = [why[c] for c in hand]
        restricted = _RESTRICTED[side]
        if not restricted.isdisjoint(hand) and _OF_COLOR[side][in_play].isdisjoint(hand):
            return [
                None if c in restricted else reason for c, reason in zip(hand, out, strict=True)
            ]
        return out
    return [_turn_refusal(s, [], c) for c in hand]


def next_seat(s: GameState, seat: Seat) -> Seat:
    """The next seat still in the game after ``seat``, in the direction of play."""
    return _next(s, seat)


# Every play action, built once: ``_PLAYS[side][card]`` (a Wild once per colour).
_PLAYS: Final[tuple[tuple[tuple[Action, ...], ...], ...]] = tuple(
    tuple(
        tuple(Action(PLAY, card, color) for color in SIDE_COLORS[side])
        if COLOR_OF[side][card] == NO_COLOR
        else (Action(PLAY, card),)
        for card in DECK
    )
    for side in (LIGHT, DARK)
)
_CHOOSE: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(Action(CHOOSE_COLOR, color=c) for c in SIDE_COLORS[side]) for side in (LIGHT, DARK)
)


def legal_actions(s: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, Wild plays once per colour.

    Leaving is always allowed for a seat still in the game and is not listed.

    >>> state, _ = new_game(Options(seats=2), seed="must draw 48")  # seat 0 holds nothing playable
    >>> legal_actions(state, 0), legal_actions(state, 1)
    ([Action(type='draw', card=-1, color=-1)], [])
    """
    if s.over or seat != s.current:
        return []
    legal = s.legal_memo
    if legal is not None:
        return list(legal)
    # playable_cards written out, each card's actions taken from _PLAYS.
    side = s.side
    pending = s.pending
    if pending is not None:
        legal = _CHOOSE[side] if pending == PENDING_COLOR else _PLAYS[side][s.drawn]
    else:
        hand = s.hands[seat]
        plays = _PLAYS[side]
        in_play = s.color
        # A flag per card, not a set operation: whether it matches the top card and
        # colour, and whether it is a restricted Wild (playable only without a card
        # of the colour in play), noted in the same pass.
        matches = _MATCH_FLAGS[side][in_play + 1][s.discard[-1]]
        restricted = RESTRICTED_OF[side]
        restricted_held = False
        found: list[Action] = []
        for card in hand:
            if matches[card]:
                found += plays[card]
            elif restricted[card]:
                restricted_held = True
        if restricted_held and _OF_COLOR[side][in_play].isdisjoint(hand):
            for card in hand:
                if restricted[card]:
                    found += plays[card]
        if not found:  # nothing to play: draw, or pass when nothing is left to draw
            found = [DRAW_ACTION if s.draw or len(s.discard) > 1 else PASS_ACTION]
        legal = tuple(found)
    s.legal_memo = legal  # for apply, until the state changes
    return list(legal)


def shape_refusal(  # noqa: PLR0911 (one return per refusal, in the order checked)
    s: GameState, seat: int, kind: str, card_given: bool, color_given: bool
) -> RefusalCode | None:
    """The checks before an action's card or colour is looked at, or None.

    In this order: the game is running, the seat is in it, the action type
    exists, the action names a card or a colour only where it takes one, and
    it is the seat's turn (leaving is allowed out of turn). ``check`` and
    ``flip.parse_request`` both start here, so a request and an action are
    refused with the same code.
    """
    if s.over:
        return "game_over"
    if not 0 <= seat < s.seats or not s.active[seat]:
        return "seat_not_in_game"
    if kind not in ACTION_TYPES:
        return "unknown_action"
    if kind == PLAY:
        if not card_given:
            return "card_required"
    elif card_given:
        return "card_not_allowed"
    if color_given and kind not in (PLAY, CHOOSE_COLOR):
        return "color_not_allowed"
    if kind != LEAVE and seat != s.current:
        return "not_your_turn"
    return None


def check(s: GameState, seat: int, action: Action) -> None:
    """Raise ``RuleError`` when ``seat`` may not take ``action`` now.

    The checks of ``shape_refusal`` first, then those of the action's type.
    """
    kind = action.type
    reason = shape_refusal(s, seat, kind, action.card >= 0, action.color != NO_COLOR)
    if reason is None:
        if kind == CHOOSE_COLOR:
            reason = _choice_refusal(s, action.color)
        elif kind == PLAY:
            reason = _play_refusal(s, seat, action)
        elif kind != LEAVE:
            reason = _draw_or_pass_refusal(s, seat, kind)
    if reason is not None:
        raise RuleError(reason)


def _color_refusal(s: GameState, color: int) -> RefusalCode | None:
    """Why ``color`` cannot be the colour a Wild or a choice names now."""
    if color == NO_COLOR:
        return "color_required"
    return None if color in SIDE_COLORS[s.side] else "color_not_in_side"


def _choice_refusal(s: GameState, color: int) -> RefusalCode | None:
    if s.pending != PENDING_COLOR:
        return "no_color_to_choose"
    return _color_refusal(s, color)


def _play_refusal(s: GameState, seat: int, action: Action) -> RefusalCode | None:
    if s.pending == PENDING_COLOR:  # before the card is looked at
        return "color_must_be_chosen_first"
    reason = refusal(s, seat, action.card)
    if reason is not None:
        return reason
    if COLOR_OF[s.side][action.card] == NO_COLOR:
        return _color_refusal(s, action.color)
    return None if action.color == NO_COLOR else "color_not_allowed"


def _draw_or_pass_refusal(s: GameState, seat: int, kind: str) -> RefusalCode | None:
    if s.pending == PENDING_COLOR:
        return "color_must_be_chosen_first"
    if s.pending == PENDING_DRAWN:
        return "must_play_drawn_card"
    if playable_cards(s, s.hands[seat]):
        return "must_play_when_able"
    if kind == DRAW:
        return None if can_draw(s) else "nothing_to_draw"
    return "must_draw_first" if can_draw(s) else None


# ----------------------------------------------------------------------------
# Changing the state


def apply(
    s: GameState,
    seat: int,
    action: Action,
    *,
    inplace: bool = False,
    shuffles: Iterator[list[Card]] | None = None,
) -> tuple[GameState, list[Event]]:
    """Check ``action`` for ``seat`` and return the state after it, with events.

    Raises ``RuleError`` (and changes nothing) when the rules refuse it. An
    action that ``legal_actions(s, seat)`` returned for this very state is
    not checked a second time: it is recognised by identity among the
    actions that call remembered (``GameState.legal_memo``);
    any other action, such as one built from a request, is checked in full.
    """
    legal = s.legal_memo
    # By identity: cheaper than Action.__eq__, and legal_actions hands out the
    # very objects it remembers. Anything else is checked in full.
    if legal is None or seat != s.current:
        check(s, seat, action)
    else:
        for candidate in legal:
            if candidate is action:
                break
        else:
            check(s, seat, action)
    if not inplace:
        s = s.copy()
    # A seat of the game, checked one way or the other.
    return s, advance(s, SEATS[seat], action, shuffles)


# History entries' leading bits, as ``journal.entry`` computes them.
_H_PLAY: Final = journal.PLAY * 16
_H_DRAW: Final = journal.DRAW * 16
_H_PENALTY: Final = journal.PENALTY * 16
_NO_EFFECT: Final = frozenset({NUMBER, WILD, DARK_WILD})
# The two commonest events are copies of these (a copy and three stores cost less than a
# new dict of four keys); the draw's "cards" is always replaced, never shared.
_PLAY: Final[PlayEvent] = {"type": "play", "seat": Seat(0), "card": Card(0), "side": 0}
_DRAW: Final[DrawEvent] = {
    "type": "draw",
    "seat": Seat(0),
    "cards": [],
    "side": 0,
    "reason": "draw",
}


def advance(  # noqa: C901, PLR0912, PLR0915 (the hot path, written out)
    s: GameState, seat: Seat, action: Action, shuffles: Iterator[list[Card]] | None = None
) -> list[Event]:
    """Take ``action`` for ``seat`` on ``s`` itself, unchecked; return its events.

    The trusted path for code that owns its state and knows the action is
    legal: one that ``legal_actions(s, seat)`` or ``timeout_action(s)`` just
    returned for this very state (random play, simulations, benchmarks). It
    is ``apply(s, seat, action, inplace=True)`` without the check: the same
    state and events for a legal action, and anything at all for another, so
    an action from a client always goes through ``apply``.

    The two commonest moves, a card without effect and a turn's draw, are
    written out here; the rest go to the functions below.

    >>> state, _ = new_game(Options(seats=2), seed="must draw 48")
    >>> [event["type"] for event in advance(state, state.current, legal_actions(state, 0)[0])]
    ['draw']
    """
    shuffler = _SEEDED if shuffles is None else _Shuffler(shuffles)
    who = seat
    s.legal_memo = None
    s.actions += 1
    kind = action.type
    events: list[Event]
    if kind == PLAY:
        card = action.card
        color = action.color
        side = s.side
        hand = s.hands[who]
        hand.remove(card)
        s.discard.append(card)
        s.pending = None
        s.drawn = NO_CARD
        if s.passed:
            s.passed = []
        record = s.history
        if record is not None:
            record.append(((_H_PLAY + who) * 128 + card) * 8 + (color if color >= 0 else 0))
        own = COLOR_OF[side][card]
        if own == NO_COLOR:
            s.color = color
            events = [
                {"type": "play", "seat": who, "card": card, "side": side, "color": COLORS[color]}
            ]
        else:
            s.color = own
            event = _PLAY.copy()
            event["seat"] = who
            event["card"] = card
            event["side"] = side
            events = [event]
        effect = KIND_OF[side][card]
        if not hand:
            # The last card wins the round. A penalty still lands and is counted;
            # nothing else takes effect, and a winning Flip does not flip.
            if effect in PENALTIES:
                victim = _next(s, who)
                _draw_cards(s, victim, PENALTIES[effect], shuffler, events, "penalty", until=color)
            _win_round(s, who, shuffler, events)
        elif effect in _NO_EFFECT:  # the most common
            n = s.options.seats
            step = s.direction
            active = s.active
            after = (who + step) % n
            while not active[after]:
                after = (after + step) % n
            s.current = SEATS[after]
            s.turn += 1
        else:
            _take_effect(s, who, effect, color, shuffler, events)
        return events
    events = []
    if kind == DRAW:
        pile = s.draw
        card = pile.pop() if pile else _draw_one(s, shuffler, events)
        hand = s.hands[who]
        hand.append(card)
        record = s.history
        if record is not None:
            record.append(((_H_DRAW + who) * 128 + card) * 8)
        if s.passed:
            s.passed = []
        drawn = _DRAW.copy()
        drawn["seat"] = who
        drawn["cards"] = [card]
        drawn["side"] = s.side
        events.append(drawn)
        if _is_playable(s, hand, card):
            s.pending = PENDING_DRAWN
            s.drawn = card
        else:
            n = s.options.seats
            step = s.direction
            active = s.active
            after = (who + step) % n
            while not active[after]:
                after = (after + step) % n
            s.current = SEATS[after]
            s.turn += 1
    elif kind == CHOOSE_COLOR:
        s.color = action.color
        s.pending = None
        _note(s, journal.CHOOSE, who, 0, action.color)
        events.append({"type": "choose_color", "seat": who, "color": COLORS[action.color]})
    elif kind == PASS:
        _pass(s, who, shuffler, events)
    else:
        _leave(s, who, shuffler, events)
    return events


def _note(s: GameState, kind: int, seat: int = 0, card: int = 0, color: int = 0) -> None:
    """Append one entry to the round's record (nothing when it is not kept)."""
    record = s.history
    if record is not None:
        record.append(journal.entry(kind, seat, card, color))


def _draw_one(s: GameState, shuffler: _Shuffler, events: list[Event]) -> Card:
    """Take the top card of the draw pile, reshuffling if it is empty; NO_CARD if none."""
    if not s.draw:
        if len(s.discard) <= 1:
            return NO_CARD
        top = s.discard.pop()
        rest = s.discard
        s.discard = [top]
        s.draw = shuffler.shuffle(s, rest, "reshuffle", events)
        _note(s, journal.RESHUFFLE)
    return s.draw.pop()


def _draw_cards(
    s: GameState,
    seat: Seat,
    count: int | None,
    shuffler: _Shuffler,
    events: list[Event],
    reason: DrawReason,
    until: int = NO_COLOR,
) -> None:
    """``seat`` draws ``count`` cards, or (count None) until a card of ``until``."""
    hand = s.hands[seat]
    drawn: list[Card] = []
    colors = COLOR_OF[s.side]
    record = s.history
    while count is None or len(drawn) < count:
        card = _draw_one(s, shuffler, events)
        if card < 0:
            break  # the piles are exhausted: a short draw
        hand.append(card)
        drawn.append(card)
        if record is not None:
            record.append(((_H_PENALTY + seat) * 128 + card) * 8)
        if count is None and colors[card] == until:
            break
    if drawn and s.passed:
        s.passed = []
    events.append({"type": "draw", "seat": seat, "cards": drawn, "side": s.side, "reason": reason})


def _start_turn(s: GameState, seat: Seat) -> None:
    s.current = seat
    s.turn += 1


def _take_effect(
    s: GameState, seat: Seat, kind: str, color: int, shuffler: _Shuffler, events: list[Event]
) -> None:
    """The effect of an action card ``seat`` just played (not its last card)."""
    if kind in PENALTIES:
        victim = _next(s, seat)
        _draw_cards(s, victim, PENALTIES[kind], shuffler, events, "penalty", until=color)
        events.append({"type": "turn_lost", "seat": victim})
        _start_turn(s, _next(s, victim))
    elif kind == SKIP:
        victim = _next(s, seat)
        events.append({"type": "turn_lost", "seat": victim})
        _start_turn(s, _next(s, victim))
    elif kind == SKIP_EVERYONE:
        _start_turn(s, seat)
    elif kind == REVERSE:
        if s.players_left == TWO_PLAYERS and s.options.two_seat_reverse_skips:
            events.append({"type": "turn_lost", "seat": _next(s, seat)})
            _start_turn(s, seat)
        else:
            s.direction = -s.direction
            events.append({"type": "reverse", "direction": s.direction})
            _start_turn(s, _next(s, seat))
    elif kind == FLIP:
        _flip(s, events)
        _start_turn(s, _next(s, seat))
    else:
        _start_turn(s, _next(s, seat))


def _flip(s: GameState, events: list[Event]) -> None:
    s.last_flip = {
        "side": s.side,
        "hands": [h[:] for h in s.hands],
        "discard": len(s.discard),
        "shuffles": s.shuffles,
    }
    s.discard.reverse()
    s.draw.reverse()
    s.side ^= 1
    s.flips += 1
    s.color = COLOR_OF[s.side][s.discard[-1]]
    if s.color == NO_COLOR:
        s.pending = PENDING_COLOR
    events.append({"type": "flip", "side": s.side})


def _pass(s: GameState, seat: Seat, shuffler: _Shuffler, events: list[Event]) -> None:
    events.append({"type": "pass", "seat": seat})
    _note(s, journal.PASS, seat)
    if seat not in s.passed:
        s.passed.append(seat)
    if _everyone_passed(s):
        _block_round(s, shuffler, events)
    else:
        _start_turn(s, _next(s, seat))


def _everyone_passed(s: GameState) -> bool:
    return all(seat in s.passed for seat in range(s.seats) if s.active[seat])


def _leave(s: GameState, seat: Seat, shuffler: _Shuffler, events: list[Event]) -> None:
    hand = sorted_hand(s.hands[seat], s.side)
    s.left_points[seat] = hand_points(hand, s.side)
    # Under the draw pile in sorted order: read from the top, the pile ends
    # with the hand's first card and its last card is at the very bottom.
    s.draw[:0] = hand[::-1]
    s.hands[seat] = []
    s.active[seat] = False
    s.left_order.append(seat)
    _note(s, journal.LEAVE, seat)
    for card in hand:
        _note(s, journal.LEFT, seat, card)
    if hand:
        # The hand went under the draw pile: there is something to draw again,
        # so earlier passes no longer make a blocked round (nothing to draw).
        s.passed = []
    elif seat in s.passed:
        s.passed.remove(seat)
    events.append({"type": "leave", "seat": seat, "count": len(hand)})
    if s.players_left < TWO_PLAYERS:  # one player left: the round ends
        winner = next(SEATS[i] for i in range(s.seats) if s.active[i])
        result: RoundResult = {
            "round": s.round,
            "winner": winner,
            "points": 0,
            "side": s.side,
            "blocked": False,
            "interrupted": True,
            "hands": [],
        }
        s.results.append(result)
        events.append({"type": "round_end", "result": result})
        _end_game(s, winner, events)
        return
    if seat == s.current:
        if s.pending == PENDING_DRAWN:
            s.pending = None
            s.drawn = NO_CARD
        # A pending colour choice passes to the next player with the turn.
        _start_turn(s, _next(s, seat))
    if s.passed and _everyone_passed(s):
        _block_round(s, shuffler, events)


def _round_result(s: GameState, winner: Seat | None, points: int) -> RoundResult:
    side = s.side
    return {
        "round": s.round,
        "winner": winner,
        "points": points,
        "side": side,
        "blocked": winner is None,
        "interrupted": False,
        "hands": [
            {
                "seat": SEATS[i],
                "cards": sorted_hand(s.hands[i], side),
                "points": hand_points(s.hands[i], side),
            }
            for i in range(s.seats)
            if s.active[i]
        ],
    }


def _win_round(s: GameState, seat: Seat, shuffler: _Shuffler, events: list[Event]) -> None:
    side = s.side
    points = hand_points([c for i, hand in enumerate(s.hands) if i != seat for c in hand], side)
    s.scores[seat] += points
    result = _round_result(s, seat, points)
    s.results.append(result)
    events.append({"type": "round_end", "result": result})
    if s.options.scoring == SINGLE_ROUND or s.scores[seat] >= s.options.target:
        _end_game(s, seat, events)
    else:
        _next_round(s, shuffler, events)


def _block_round(s: GameState, shuffler: _Shuffler, events: list[Event]) -> None:
    result = _round_result(s, None, 0)
    s.results.append(result)
    events.append({"type": "round_end", "result": result})
    if s.options.scoring == SINGLE_ROUND:
        _end_game(s, None, events)
    else:
        _next_round(s, shuffler, events)


def _next_round(s: GameState, shuffler: _Shuffler, events: list[Event]) -> None:
    s.direction = 1
    s.dealer = SEATS[next_in_game(s.active, s.dealer)]
    _deal(s, shuffler, events)


def _end_game(s: GameState, winner: Seat | None, events: list[Event]) -> None:
    s.over = True
    s.winner = winner
    s.pending = None
    s.drawn = NO_CARD
    s.ranking = ranking(s)
    events.append({"type": "game_over", "winner": winner, "ranking": s.ranking})


def ranking(s: GameState) -> list[RankingEntry]:
    """The final ranking: stayers before leavers, the winner first, then by
    score, then by fewer points left in hand in the last round; equals share."""
    last = s.results[-1] if s.results else None
    in_hand: dict[int, int] = {}
    if last is not None and last["round"] == s.round:
        in_hand = {h["seat"]: h["points"] for h in last["hands"]}
    # One sort key per seat: stayers first, the winner first, then by score,
    # then by fewer points left in hand; the seat number last (not a tie-break
    # of the rank, only of the order in which equals are listed).
    keyed: list[tuple[tuple[int, int, int, int], Seat]] = []
    for seat in SEATS[: s.seats]:
        left = in_hand.get(seat)
        if left is None:
            points = s.left_points[seat]
            left = points if points is not None else hand_points(s.hands[seat], s.side)
        key = (0 if s.active[seat] else 1, 0 if seat == s.winner else 1, -s.scores[seat], left)
        keyed.append((key, seat))
    keyed.sort()
    return [
        {
            "seat": seat,
            "rank": rank,
            "score": s.scores[seat],
            "left": not s.active[seat],
            "points_in_hand": key[3],
        }
        for (key, seat), (_, rank) in zip(keyed, shared_ranks(keyed), strict=True)
    ]


# ----------------------------------------------------------------------------
# The timeout move (PRODUCT.md ruling 4)


def preferred_color(s: GameState, hand: Iterable[int]) -> int:
    """The colour of PRODUCT.md ruling 4 for ``hand`` on the side in play.

    The side's colour the hand holds most cards of (Wilds do not count); ties
    and an empty hand go to the first colour in the side's order. The timeout
    move chooses it, and the bots may too.
    """
    colors = COLOR_OF[s.side]
    counts = dict.fromkeys(SIDE_COLORS[s.side], 0)
    for c in hand:
        if colors[c] != NO_COLOR:
            counts[colors[c]] += 1
    best = SIDE_COLORS[s.side][0]
    for color in SIDE_COLORS[s.side]:
        if counts[color] > counts[best]:
            best = color
    return best


def timeout_action(s: GameState) -> Action:
    """The plain legal move the table makes for the seat to act when time runs out.

    A colour first if one is needed; else the playable card worth the most
    points (ties: first in sorted hand order), a Wild taking the colour the
    hand holds most of; else a draw; else a pass.

    >>> state, _ = new_game(Options(seats=2), seed="must draw 48")  # nothing playable
    >>> timeout_action(state)
    Action(type='draw', card=-1, color=-1)
    """
    seat = s.current
    hand = s.hands[seat]
    if s.over:
        raise RuleError("game_over")
    if s.pending == PENDING_COLOR:
        return Action(CHOOSE_COLOR, color=preferred_color(s, hand))
    candidates = [s.drawn] if s.pending == PENDING_DRAWN else playable_cards(s, hand)
    if candidates:
        best = max(sorted_hand(candidates, s.side), key=POINTS_OF[s.side].__getitem__)
        if COLOR_OF[s.side][best] == NO_COLOR:
            rest = [c for c in hand if c != best]
            return Action(PLAY, best, preferred_color(s, rest))
        return Action(PLAY, best)
    return DRAW_ACTION if can_draw(s) else PASS_ACTION


# ----------------------------------------------------------------------------
# Helpers for tests and tools


def cards_with_faces(codes: Iterable[str], taken: set[Card] | None = None) -> list[Card]:
    """Physical cards carrying the given face codes, each card used once.

    Used to stack decks for worked examples. Codes may name either side.
    """
    used: set[Card] = set() if taken is None else taken
    out: list[Card] = []
    for code in codes:
        for card in CARDS_BY_FACE[code]:
            if card not in used:
                used.add(card)
                out.append(card)
                break
        else:
            raise ValueError(f"no card left with face {code!r}")
    return out


__all__ = [
    "ACTION_TYPES",
    "CHOOSE_COLOR",
    "DARK",
    "DRAW",
    "DRAW_ACTION",
    "LEAVE",
    "LEAVE_ACTION",
    "LIGHT",
    "PASS",
    "PASS_ACTION",
    "PLAY",
    "Action",
    "CardT",
    "Event",
    "advance",
    "apply",
    "can_draw",
    "check",
    "hand_refusals",
    "legal_actions",
    "new_game",
    "next_seat",
    "playable_cards",
    "preferred_color",
    "ranking",
    "shuffled",
    "refusal",
    "shape_refusal",
    "timeout_action",
    "DRAW_FIVE",
    "WILD_DRAW_COLOR",
]
