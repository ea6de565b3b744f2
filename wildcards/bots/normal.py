"""Normal: the play a good casual player would recognise, from the seat's view.

Every legal play gets a score from a few rules of thumb and the best one is
played (the bot's generator only breaks ties):

- a single round is a race (``RACE``): only going out first counts; playing
  to a target (``W``), shed points too, every point once an opponent is close
  to going out (two cards or fewer);
- hold Wilds, for the last card too: a Wild is a play whatever the table
  shows; a Wild Draw 4 is kept for a next player close to going out;
- stay in the colour it holds most of: a card is worth more the more cards of
  its colour (and of its number or action) stay in the hand, and a Wild names
  the colour held most;
- leave a colour the next seat is unlikely to follow, above all a seat on one
  or two cards: the chance is read off the cards the seat cannot see (``Unseen``);
- aim Skips and Draw 2s at a next player close to going out and keep them
  otherwise; turn a Reverse away from a next player who holds fewer cards than
  the previous one;
- with the 7-0 rule, swap with the player holding fewest cards, and value a 7
  or a 0 by how many cards fewer the hand it gets holds;
- with stacking, answer a waiting penalty whenever it can (passing it on);
- with jump-in, jump in (ruling 21: decided once, from the view): a card shed
  out of turn is a turn won, unless a 7 or 0 would bring a bigger hand back.

The same rules are read from a whole state by ``normal_action_scores`` for
Hard's rollouts, over only what the seat to act could see (its hand, hand sizes).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from wildcards.cards import (
    COLOR_OF,
    COLORS,
    DRAW2,
    KEY_OF,
    KIND_OF,
    NO_COLOR,
    NUMBER,
    NUMBER_OF,
    POINTS_OF,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW4,
)

from .base import (
    CARD_OF_FACE,
    Request,
    Unseen,
    View,
    best_color,
    color_counts,
    hand_of,
    requests_of,
    seat_order,
)

#: The weights of the rules of thumb, playing to a target score (points count).
W: Final[Mapping[str, float]] = MappingProxyType(
    {
        "points": 0.2,
        "points_danger": 1.0,
        "danger_count": 2,
        "wild_keep": -60.0,
        "wild_keep_end": -30.0,
        "draw4_keep": -40.0,
        "draw4_threat": 60.0,
        "same_color": 3.0,
        "same_key": 1.0,
        "colors_kept": 0.0,
        "follow": 40.0,
        "follow_two": 60.0,
        "follow_last": 200.0,
        "scarce": 0.5,
        "attack_threat": 30.0,
        "attack": -5.0,
        "reverse_turn": 20.0,
        "reverse_keep": -20.0,
        "exchange": 8.0,
        "jump_in_min_gain": 0,
    }
)

#: A single round is a race: only going out first counts, so points left in a
#: hand cost nothing (tuned by tournaments against Easy: docs/bots.md).
RACE: Final[Mapping[str, float]] = MappingProxyType({**W, "points": 0.0, "points_danger": 0.0})


def weights(view: View) -> Mapping[str, float]:
    """The weights for the table's scoring: ``RACE`` for a single round, else ``W``."""
    return RACE if view["options"]["scoring"] == "single" else W


class Context:
    """What the rules of thumb read of the table: who plays next, and hand sizes."""

    __slots__ = ("counts", "me", "min_opp", "order", "played", "seven_zero", "stacking", "unseen")

    def __init__(  # noqa: PLR0913
        self,
        me: int,
        order: list[int],
        counts: list[int],
        *,
        seven_zero: bool,
        stacking: bool,
        played: Sequence[int] = (0, 0, 0, 0),
        unseen: Unseen | None = None,
    ) -> None:
        self.me = me
        #: The other seats in the game, in the order they play after ``me``.
        self.order = order
        self.counts = counts
        self.min_opp = min((counts[s] for s in order), default=99)
        self.seven_zero = seven_zero
        self.stacking = stacking
        #: How many cards of each colour the discard pile shows (fewer left to follow with).
        self.played = played
        #: The cards the seat cannot see, to guess whether the next seat can follow
        #: (None in Hard's rollouts, where it would cost too much for every move).
        self.unseen = unseen

    @classmethod
    def of_view(cls, view: View) -> Context:
        options = view["options"]
        return cls(
            view["seat"],
            seat_order(view),
            [p["count"] for p in view["players"]],
            seven_zero=bool(options["seven_zero"]),
            stacking=bool(options["stacking"]),
            played=color_counts([CARD_OF_FACE[f] for f in view["discard_pile"]]),
            unseen=Unseen([e["face"] for e in view["hand"]] + view["discard_pile"]),
        )

    def threat(self, seat: int) -> bool:
        """True when ``seat`` is close to going out: the closest of all, on four or fewer
        cards, or on two or fewer."""
        count = self.counts[seat]
        return count <= 2 or (count == self.min_opp and count <= 4)  # noqa: PLR2004


def exchange_gain(card: int, rest_size: int, target: int, ctx: Context) -> int:
    """With the 7-0 rule, how many cards fewer the hand holds after ``card``'s exchange
    (negative: more); 0 for any other card."""
    if not ctx.seven_zero or KIND_OF[card] != NUMBER or rest_size == 0:
        return 0
    number = NUMBER_OF[card]
    if number == 7:  # noqa: PLR2004
        return rest_size - ctx.counts[target] if target >= 0 else 0
    if number == 0 and ctx.order:
        return rest_size - ctx.counts[ctx.order[-1]]  # the previous seat's hand comes here
    return 0


def play_score(  # noqa: C901, PLR0912
    card: int,
    rest: Sequence[int],
    ctx: Context,
    color: int = NO_COLOR,
    target: int = -1,
    w: Mapping[str, float] = W,
) -> float:
    """How much Normal likes playing ``card`` (a Wild naming ``color``, a 7 swapping
    with ``target``) and keeping ``rest``."""
    if not rest:
        return 1000.0  # the last card wins the round
    danger = ctx.min_opp <= w["danger_count"]
    score = POINTS_OF[card] * (w["points_danger"] if danger else w["points"])
    kind = KIND_OF[card]
    own = COLOR_OF[card]
    in_play = own if own != NO_COLOR else color
    key = KEY_OF[card]
    for c in rest:
        if COLOR_OF[c] == in_play:
            score += w["same_color"]
        elif key >= 0 and KEY_OF[c] == key:
            score += w["same_key"]
    if in_play != NO_COLOR:
        score += w["scarce"] * ctx.played[in_play]
    if ctx.unseen is not None and in_play != NO_COLOR:
        score -= follow_cost(card, in_play, key, ctx, w)
    if w["colors_kept"]:
        score += w["colors_kept"] * len({COLOR_OF[c] for c in rest if COLOR_OF[c] != NO_COLOR})
    order = ctx.order
    nxt = order[0] if order else ctx.me
    if kind == WILD:
        score += w["wild_keep"] if len(rest) > 1 and not danger else w["wild_keep_end"]
        return score
    if kind == WILD_DRAW4:
        if ctx.threat(nxt):
            score += w["draw4_threat"]
        else:
            score += w["draw4_keep"]
        return score
    if kind in (SKIP, DRAW2) or (kind == REVERSE and len(order) == 1):
        score += w["attack_threat"] if ctx.threat(nxt) else w["attack"]
    elif kind == REVERSE and len(order) > 1:
        prev = order[-1]
        if ctx.counts[nxt] < ctx.counts[prev] and ctx.threat(nxt):
            score += w["reverse_turn"]
        elif ctx.counts[prev] < ctx.counts[nxt] and ctx.threat(prev):
            score += w["reverse_keep"]
    gain = exchange_gain(card, len(rest), target, ctx)
    if gain:
        score += w["exchange"] * gain
    return score


def acts_after(card: int, ctx: Context) -> int:
    """The seat that acts after ``card`` is played (-1: this seat again, or a victim
    of a waiting penalty, who answers rather than follows)."""
    order = ctx.order
    if not order:
        return -1
    kind = KIND_OF[card]
    if kind in (DRAW2, WILD_DRAW4):
        if ctx.stacking:
            return -1
        return order[1] if len(order) > 1 else -1
    if kind == SKIP or (kind == REVERSE and len(order) == 1):
        return order[1] if len(order) > 1 else -1
    if kind == REVERSE:
        return order[-1]
    return order[0]


def follow_cost(card: int, color: int, key: int, ctx: Context, w: Mapping[str, float]) -> float:
    """What letting the seat that acts next follow ``card`` costs, times the chance it
    can: a seat on one or two cards that follows is about to go out."""
    seat = acts_after(card, ctx)
    if seat < 0 or ctx.unseen is None:
        return 0.0
    count = ctx.counts[seat]
    weight = w["follow_last"] if count == 1 else w["follow_two"] if count == 2 else w["follow"]  # noqa: PLR2004
    if not weight:
        return 0.0
    return weight * ctx.unseen.follow_chance(color, key, count)


def best_target(targets: Sequence[int], ctx: Context) -> int:
    """The seat a 7 swaps with: the fewest cards, ties to the first listed (the nearest)."""
    return min(targets, key=lambda t: ctx.counts[t])


class NormalBot:
    """Normal's choice for one view (a fresh instance per decision plays the same)."""

    level = "normal"

    def __init__(self, rng: random.Random, w: Mapping[str, float] = W) -> None:
        self.rng = rng
        self.w = w

    def scored(self, view: View) -> list[tuple[float, Request]]:
        """Every play of the view with its score, best first; the other requests
        (draw, take_penalty, pass, choose_color) are not scored."""
        ctx = Context.of_view(view)
        hand = hand_of(view)
        rng = self.rng
        out: list[tuple[float, float, Request]] = []
        for entry in view["legal_actions"]:
            if entry["type"] != "play":
                continue
            handle = entry["card"]
            card = hand[handle]
            rest = [c for h, c in hand.items() if h != handle]
            request: Request = {"type": "play", "card": handle}
            color = NO_COLOR
            target = -1
            if "targets" in entry:
                target = best_target(entry["targets"], ctx)
                request["target"] = target
            if "colors" in entry:
                allowed = [COLORS.index(c) for c in entry["colors"]]
                color = best_color(rest, allowed, rng, ctx.unseen)
                request["color"] = COLORS[color]
            score = play_score(card, rest, ctx, color, target, self.w)
            out.append((score, rng.random(), request))
        out.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [(score, request) for score, _, request in out]

    def choose(self, view: View) -> Request | None:
        legal: list[dict[str, Any]] = view["legal_actions"]
        if not legal:
            return None
        if legal[0].get("jump_in"):
            # Out of turn: the view lists the jump-in alone, decided once (R21). A card
            # shed out of turn is a turn won, unless a 7 or 0 brings a bigger hand back.
            best = self.scored(view)
            if not best:
                return None
            request = best[0][1]
            hand = hand_of(view)
            card = hand[request["card"]]
            gain = exchange_gain(
                card, len(hand) - 1, request.get("target", -1), Context.of_view(view)
            )
            return request if gain >= self.w["jump_in_min_gain"] else None
        first = legal[0]
        if first["type"] == "choose_color":
            cards = list(hand_of(view).values())
            unseen = Unseen([e["face"] for e in view["hand"]] + view["discard_pile"])
            allowed = [COLORS.index(c) for c in first["colors"]]
            color = best_color(cards, allowed, self.rng, unseen)
            return {"type": "choose_color", "color": COLORS[color]}
        best = self.scored(view)
        if best:
            # With a penalty waiting, answering it (passing it on) beats taking it.
            return best[0][1]
        return requests_of(view)[0]  # draw, take_penalty or pass: the only one there is


def choose(view: View, rng: random.Random) -> Request | None:
    """Normal's request for ``view``, or None (nothing to do, or no jump-in)."""
    return NormalBot(rng, weights(view)).choose(view)


def rollout_color(card: int, rest: Sequence[int], rng: random.Random) -> int:
    """The colour a Wild names in Hard's rollouts: one ``rest`` holds most of, ties
    broken by ``rng`` (-1 for a coloured card)."""
    if COLOR_OF[card] != NO_COLOR:
        return NO_COLOR
    counts = color_counts(rest)
    top = max(counts)
    return rng.choice([i for i, n in enumerate(counts) if n == top])


def normal_action_scores(
    hand: Sequence[int],
    options: Sequence[int],
    ctx: Context,
    rng: random.Random,
    w: Mapping[str, float] = W,
) -> tuple[int, int, int]:
    """Normal's play among ``options`` (cards of ``hand``): (card, colour, target).

    The state-reading twin of ``NormalBot.scored`` for Hard's rollouts; the
    colour is -1 for a coloured card, the target -1 unless a 7 swaps.
    """
    best = (-1, NO_COLOR, -1)
    best_score = (-1e9, 0.0)
    for card in options:
        rest = [c for c in hand if c != card]
        color = rollout_color(card, rest, rng)
        target = -1
        if ctx.seven_zero and NUMBER_OF[card] == 7 and rest and ctx.order:  # noqa: PLR2004
            target = best_target(ctx.order, ctx)
        score = (play_score(card, rest, ctx, color, target, w), rng.random())
        if score > best_score:
            best_score = score
            best = (card, color, target)
    return best
