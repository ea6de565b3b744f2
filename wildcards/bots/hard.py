"""Hard: determinised rollouts over the hidden cards its seat cannot see.

The view shows the bot its own hand, the whole discard pile and every hand's
size. Every other card is hidden, in the other hands or in the draw pile, and
all of them are equally likely anywhere as far as the view tells (it keeps no
memory between calls). For a decision with more than one option Hard samples
*determinisations*: the unseen cards shuffled and dealt into the other hands
by their sizes and into the draw pile, the rest of the table as the view
shows it (turn, direction, colour, waiting penalty, pending decision), made
into a full ``GameState``. Each candidate play (Normal's choice of colour and
target for each card it may play) is taken on each determinisation (common
random numbers: the same sample and rollout generator for every candidate)
and play goes on with the engine for ``DEPTH`` actions, every seat played as
Normal plays (``normal_action``: its rules of thumb read from the state, over
only what the seat to act could see, leaving out the chance that the next seat
follows, which would cost too much at every simulated move). Where a rollout stops it is scored: 1
for a win, 0 for a loss, else an estimate of the bot's chance from how many
cards everyone holds (``leaf_value``). Normal's own choice is played unless
another candidate beats it on the same determinisations by more than
``MARGIN`` standard errors of the paired differences (``pick``): with some
30 samples a candidate the means are mostly noise, and leaving Normal's choice
on noise lost to Normal (docs/bots.md).

The budget is a number of simulated actions (``BUDGET``), not a clock, so
the bot stays deterministic given its generator and bounded in time: see
docs/bots.md for what a decision costs. Out of turn (a jump-in) and for a
colour to name, Hard decides as Normal does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from wildcards import (
    DRAW,
    PASS,
    PENDING_COLOR,
    PENDING_DRAWN,
    PENDING_PENALTY,
    PLAY,
    TAKE_PENALTY,
    Action,
    GameState,
    Options,
    advance,
    can_draw,
    playable_cards,
)
from wildcards.cards import CARDS_BY_FACE, COLOR_OF, COLORS, KIND_OF, NO_COLOR, NUMBER_OF

from .base import Request, Unseen, View, color_counts
from .normal import RACE, Context, NormalBot, W, normal_action_scores, rollout_color, weights

#: Simulated actions per decision, summed over every rollout of every candidate.
BUDGET: Final = 1000
#: A rollout stops after this many actions and is scored where it stands.
DEPTH: Final = 10
#: Never fewer determinisations than this, however many candidates there are.
MIN_SAMPLES: Final = 2
#: At most this many candidates are searched, the best of Normal's first.
MAX_CANDIDATES: Final = 3
#: What one rollout costs besides its actions (sampling, copying), in actions.
OVERHEAD: Final = 3
#: How many standard errors of the paired differences another candidate must beat
#: Normal's choice by (docs/bots.md: 0 leaves it on 40% of searched decisions, 2 on 4%).
MARGIN: Final = 2.0

_DRAW: Final = Action(DRAW)
_PASS: Final = Action(PASS)
_TAKE: Final = Action(TAKE_PENALTY)
#: ``bytes(cards).translate(_COLOR_BYTE)``: each card's colour as a byte, 4 for a Wild.
_COLOR_BYTE: Final = bytes(
    [COLOR_OF[c] if c < len(COLOR_OF) and COLOR_OF[c] != NO_COLOR else 4 for c in range(256)]
)


#: Whether the rollouts read the chance that the next seat follows, as Normal does.
#: Off: on, a decision cost twice the CPU and won 24.83% against three Normal (600
#: games, seed hn) where off won 23.58% (1,200 games): nothing measurable.
FAITHFUL: Final = False


def _played(discard: Sequence[int]) -> list[int]:
    """``color_counts(discard)`` for a long pile, each colour counted in C."""
    colors = bytes(discard).translate(_COLOR_BYTE)
    return [colors.count(c) for c in (b"\x00", b"\x01", b"\x02", b"\x03")]


def _state_context(s: GameState, seat: int, *, unseen: bool) -> Context:
    n = s.seats
    step = s.direction
    active = s.active
    order = []
    other = seat
    for _ in range(n - 1):
        other = (other + step) % n
        if active[other] and other != seat:
            order.append(other)
    return Context(
        seat,
        order,
        [len(h) for h in s.hands],
        seven_zero=s.options.seven_zero,
        stacking=s.options.stacking,
        played=_played(s.discard),
        unseen=Unseen.of_cards(s.hands[seat] + s.discard) if unseen else None,
    )


def normal_action(s: GameState, rng: random.Random) -> Action:
    """The move Normal would make for the seat to act, read from the state.

    Normal's rules of thumb (``normal.play_score``) over what that seat sees:
    its hand and the hand sizes, so Hard's rollouts expect every seat to play
    as Normal does. Every answer is one of ``legal_actions(s, s.current)``.
    """
    seat = s.current
    hand = s.hands[seat]
    pending = s.pending
    if pending == PENDING_COLOR:
        counts = color_counts(hand)
        return Action("choose_color", color=counts.index(max(counts)))
    if pending == PENDING_PENALTY:
        kind = KIND_OF[s.discard[-1]]
        options = [c for c in hand if KIND_OF[c] == kind]
        if not options:
            return _TAKE
    elif pending == PENDING_DRAWN:
        options = [s.drawn]
    else:
        options = playable_cards(s, hand)
        if not options:
            return _DRAW if can_draw(s) else _PASS
    if len(options) == 1 and not (s.options.seven_zero and NUMBER_OF[options[0]] == 7):  # noqa: PLR2004
        card = options[0]  # nothing to score
        return Action(PLAY, card, rollout_color(card, [c for c in hand if c != card], rng))
    w = RACE if s.options.scoring == "single" else W
    ctx = _state_context(s, seat, unseen=FAITHFUL and len(options) > 1)
    card, color, target = normal_action_scores(hand, options, ctx, rng, w)
    return Action(PLAY, card, color, target)


def leaf_value(s: GameState, me: int) -> float:
    """``me``'s chance of winning, guessed from how many cards everyone holds.

    A conditional logit fitted on self-play (hand sizes, Wilds, attacks, colours,
    a play now, turn order: docs/bots.md) predicted winners better but chose no
    better here, at 15% more CPU; the search's choices hardly depend on the leaf.
    """
    if s.over:
        return 1.0 if s.winner == me else 0.0
    total = mine = 0.0
    for i, hand in enumerate(s.hands):
        if s.active[i]:
            weight = 1.0 / (len(hand) + 0.5) ** 2
            total += weight
            if i == me:
                mine = weight
    return mine / total if total else 0.0


class Table:
    """The view made into the parts of a ``GameState`` it fixes, and the unseen cards.

    Each face the view shows (the discard pile, the seat's hand) is given one
    of the physical cards carrying it; the cards left over are the unseen ones.
    """

    def __init__(self, view: View) -> None:
        free = {face: list(cards) for face, cards in CARDS_BY_FACE.items()}
        self.view = view
        self.discard = [free[face].pop() for face in view["discard_pile"]]
        self.mine = {entry["card"]: free[entry["face"]].pop() for entry in view["hand"]}
        self.unseen = [c for cards in free.values() for c in cards]
        self.me: int = view["seat"]
        players: list[dict[str, Any]] = view["players"]
        self.counts = [p["count"] for p in players]
        self.active = [bool(p["in_game"]) for p in players]
        self.options = Options.from_dict(view["options"])
        hidden = sum(c for i, c in enumerate(self.counts) if i != self.me)
        self.consistent = hidden + view["draw_pile"]["count"] == len(self.unseen)

    def sample(self, rng: random.Random) -> GameState:
        """One determinisation: the unseen cards dealt at random by hand size."""
        view = self.view
        draw = rng.random
        unseen = sorted(self.unseen, key=lambda _: draw())  # a shuffle, cheaper than rng.shuffle
        hands: list[list[int]] = []
        at = 0
        for seat, count in enumerate(self.counts):
            if seat == self.me:
                hands.append(list(self.mine.values()))
            else:
                hands.append(unseen[at : at + count])
                at += count
        pending = view["pending"]
        color = view["color"]
        s = GameState(self.options, f"hard:{rng.random()}")
        s.round = view["round"]
        s.dealer = view["dealer"]
        s.hands = hands
        s.draw = unseen[at:]
        s.discard = self.discard[:]
        s.color = NO_COLOR if color is None else COLORS.index(color)
        s.direction = 1 if view["direction"] == "clockwise" else -1
        s.current = view["to_act"]
        s.pending = None if pending is None else pending["type"]
        if pending is not None and "card" in pending:
            s.drawn = self.mine[pending["card"]]
        s.penalty = view["penalty"]
        s.window = view["jump_in_open"]
        s.active = self.active[:]
        s.turn = view["turn"]
        s.scores = list(view["scores"])
        s.left_points = [None if a else 0 for a in self.active]
        s.left_order = [i for i, a in enumerate(self.active) if not a]
        return s

    def action(self, request: Request) -> Action:
        """The engine action of one of the view's requests, on this table's cards."""
        if request["type"] != PLAY:
            return Action(request["type"])
        color = request.get("color")
        return Action(
            PLAY,
            self.mine[request["card"]],
            NO_COLOR if color is None else COLORS.index(color),
            request.get("target", -1),
        )


def rollouts(
    table: Table, candidates: Sequence[Request], rng: random.Random, budget: int = BUDGET
) -> list[list[float]]:
    """Each candidate's rollout results (its index in ``candidates``), one per
    determinisation, the same determinisations and rollout generators for all."""
    actions = [table.action(r) for r in candidates]
    me = table.me
    results: list[list[float]] = [[] for _ in actions]
    spent = samples = 0
    while samples < MIN_SAMPLES or spent < budget:
        base = table.sample(rng)
        seed = rng.random()
        for i, action in enumerate(actions):
            s = base.copy()
            advance(s, me, action)
            roll = random.Random(seed)  # noqa: S311 (a bot's play, not a secret)
            steps = 0
            while not s.over and steps < DEPTH:
                advance(s, s.current, normal_action(s, roll))
                steps += 1
            results[i].append(leaf_value(s, me))
            spent += steps + 1 + OVERHEAD
        samples += 1
    return results


def pick(results: Sequence[Sequence[float]], margin: float = MARGIN) -> int:
    """The candidate to play: Normal's choice (index 0) unless another one beats it
    on the same determinisations by more than ``margin`` standard errors of the
    paired differences, so that noise alone rarely leaves Normal's choice."""
    base = results[0]
    n = len(base)
    best, best_mean = 0, 0.0
    for i in range(1, len(results)):
        diffs = [a - b for a, b in zip(results[i], base, strict=True)]
        mean = sum(diffs) / n
        if mean <= best_mean:
            continue
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
        if mean > margin * (var / n) ** 0.5:
            best, best_mean = i, mean
    return best


def choose(view: View, rng: random.Random) -> Request | None:
    """Hard's request for ``view``, or None (nothing to do, or no jump-in)."""
    normal = NormalBot(rng, weights(view))
    legal: list[dict[str, Any]] = view["legal_actions"]
    if not legal or legal[0].get("jump_in") or legal[0]["type"] == "choose_color":
        return normal.choose(view)
    scored = normal.scored(view)
    candidates = [request for _, request in scored[:MAX_CANDIDATES]]
    if any(entry["type"] == TAKE_PENALTY for entry in legal):
        candidates.append({"type": TAKE_PENALTY})
    if len(candidates) < 2:  # noqa: PLR2004
        return normal.choose(view)
    table = Table(view)
    if not table.consistent or view["to_act"] != view["seat"]:
        return normal.choose(view)
    return candidates[pick(rollouts(table, candidates, rng), MARGIN)]


__all__ = [
    "BUDGET",
    "DEPTH",
    "MARGIN",
    "Table",
    "choose",
    "leaf_value",
    "normal_action",
    "pick",
    "rollouts",
]
