"""Hard: determinised Monte Carlo over the hidden cards its seat cannot see.

The bot reads everything its seat's view shows and the public pairing table:

- its own hand's active faces: each face is carried by one to four physical
  cards, so each of its own cards has a few candidates (and with them, a few
  candidate faces on the other side);
- the other hands' inactive faces: each narrows the card to the cards that
  carry that face, two for most faces and four for a Wild back;
- the draw pile's top inactive face, and the discard pile's active faces;
- with the seat's ``public_history``, everything it saw happen this round,
  read by ``flip.bots.reading``: a hand that drew or passed held nothing
  playable, a card played from a hand showed both its faces, a flip showed
  every hand's other faces; most cards of the other hands narrow to one or two. Without a history,
  ``flip_memory`` (what it saw at the last flip) narrows them less.

For a decision with more than one option it samples *determinisations*:
assignments of physical cards to every place (each card exactly once, each
one carrying the face seen there; the unseen rest of the draw pile is
shuffled) turned into a full ``GameState`` by ``flip.sampling.rebuild``.
Every candidate action is applied to every determinisation (common random
numbers: the same sample and the same rollout generator for every candidate)
and play goes on with the engine for ``DEPTH`` actions. Every seat is played
as Normal plays (``normal_policy``: Normal's own scoring read from the state),
except that, given ``levels`` (which seats are bots of which level, public at
every table), a seat the table shows as an Easy bot is played exactly as Easy
plays (``easy_policy``). Where a rollout stops it is scored: 1 for a win, 0
for a loss, else an estimate of the bot's chance from how many cards everyone
holds. The action with the highest mean is played; Normal's own choice is
always among the candidates searched and gets a small head start (``PRIOR``),
a hedge for when the other seats do not play as the rollouts do: dropped
when ``levels`` shows every other seat still in the round to be an Easy or a
Normal bot, which the rollouts play exactly.

The budget is a number of simulated actions, not a clock, so the bot stays
deterministic given its seed; it is calibrated so that one decision stays
under 50 ms on a 2-core machine: see docs/bots.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Final, cast

from flip.cards import CARDS_BY_FACE, CODE_OF, COLORS, DECK, FACES, NO_CARD, NO_COLOR, SIDE_COLORS
from flip.engine import (
    CHOOSE_COLOR,
    DRAW,
    PASS,
    PLAY,
    Action,
    advance,
    apply,
    can_draw,
    legal_actions,
    playable_cards,
)
from flip.history import History
from flip.requests import parse_request
from flip.sampling import Placement, rebuild
from flip.state import PENDING_COLOR, PENDING_DRAWN, GameState
from flip.types import Card
from flip.views import handle

from .base import (
    SIDE_BY_NAME,
    Bot,
    Levels,
    Request,
    View,
    best_color,
    check_levels,
    only_choice,
    request,
)
from .normal import Context, NormalBot, play_score
from .reading import Reading, read

#: Simulated actions per decision, summed over every rollout of every candidate.
#: New determinisations are drawn until the budget is spent (a count, not a clock).
BUDGET: Final = 1600
#: Never fewer determinisations than this, however many candidates there are.
MIN_SAMPLES: Final = 2
#: At most this many candidates are searched (Normal's choice always among them).
MAX_CANDIDATES: Final = 10
#: A rollout stops after this many actions and is scored where it stands.
DEPTH: Final = 16
#: What one rollout costs besides its actions (sampling, copying), in actions.
OVERHEAD: Final = 8
#: The head start Normal's own choice gets, in units of mean result, unless
#: every other seat still in the round is a bot the rollouts play exactly.
PRIOR: Final = 0.02

_CHOOSE: Final = tuple(tuple(Action(CHOOSE_COLOR, color=c) for c in sc) for sc in SIDE_COLORS)
_PLAY: Final = tuple(Action(PLAY, c) for c in DECK)
_DRAW: Final = Action(DRAW)
_PASS: Final = Action(PASS)


_NAMES: Final = tuple(tuple(COLORS[c] for c in sc) for sc in SIDE_COLORS)


def normal_policy(s: GameState, rng: random.Random) -> Action:
    """The move Normal would make for the seat to act, read from the state.

    The same rules of thumb as ``NormalBot`` (``play_score``, ``best_color``)
    over what that seat sees (its hand, hand sizes, the other hands' visible
    faces), so Hard's rollouts expect every seat to play as Normal does.
    """
    seat = s.current
    side = s.side
    hand = s.hands[seat]
    faces = FACES[side]
    names = _NAMES[side]
    if s.pending == PENDING_COLOR:
        color = best_color(list(names), [faces[c] for c in hand], side, rng)
        return _CHOOSE[side][names.index(color)]
    options = [s.drawn] if s.pending == PENDING_DRAWN else playable_cards(s, hand)
    if not options:
        return _DRAW if can_draw(s) else _PASS
    if len(options) == 1 and faces[options[0]].color != NO_COLOR:
        return _PLAY[options[0]]
    ctx = Context.of_state(s)
    best = _PASS
    best_score = -1e9
    for c in options:
        rest = [faces[x] for x in hand if x != c]
        score = play_score(faces[c], rest, ctx) + rng.random() * 0.5
        if score > best_score:
            best_score = score
            if faces[c].color == NO_COLOR:
                color = best_color(list(names), rest, side, rng)
                best = Action(PLAY, c, COLORS.index(color))
            else:
                best = _PLAY[c]
    return best


def easy_policy(s: GameState, rng: random.Random) -> Action:
    """The move Easy would make for the seat to act, drawn as Easy draws it.

    Easy takes a uniformly random entry of its view's ``legal_actions``, then
    a uniformly random colour of that entry. The view makes its entries from
    ``flip.legal_actions`` one run at a time (a card's play, a Wild's once per
    colour; the colour choice, once per colour; the draw or the pass), so one
    run here is one entry there: the same choice with the same chances.
    """
    legal = legal_actions(s, s.current)
    if len(legal) == 1:
        return legal[0]
    starts = [
        i
        for i, a in enumerate(legal)
        if i == 0 or a.card != legal[i - 1].card or a.type != legal[i - 1].type
    ]
    k = rng.randrange(len(starts))
    start = starts[k]
    end = starts[k + 1] if k + 1 < len(starts) else len(legal)
    return legal[start] if end - start == 1 else legal[start + rng.randrange(end - start)]


def leaf_value(s: GameState, me: int) -> float:
    """``me``'s chance of winning, guessed from how many cards everyone holds."""
    if s.over:
        if s.winner == me:
            return 1.0
        return 0.1 if s.winner is None else 0.0
    weights = 0.0
    mine = 0.0
    for i, hand in enumerate(s.hands):
        if s.active[i]:
            w = 1.0 / (len(hand) + 0.5) ** 2
            weights += w
            if i == me:
                mine = w
    return mine / weights


Policy = Callable[[GameState, random.Random], Action]


def rollout(
    s: GameState, me: int, rng: random.Random, depth: int, policy: Policy = normal_policy
) -> tuple[float, int]:
    """Play ``s`` on with ``policy`` for ``depth`` actions or to the end.

    Returns ``leaf_value`` where it stops and the number of actions taken.
    Every policy answers one of the legal actions of the seat to act
    (``tests/flip/test_bots_levels.py`` checks each against ``check``), so
    the engine's check, a second computation of what is legal, is skipped:
    ``advance`` alone, as ``apply`` does after its check.
    """
    steps = 0
    while not s.over and steps < depth:
        advance(s, s.current, policy(s, rng))
        steps += 1
    return leaf_value(s, me), steps


#: How the rollouts play a seat unless the table shows it to be a bot they play
#: exactly (``EXACT``): a person, a Hard bot, and the searching seat itself.
POLICY: Policy = normal_policy
#: The rollouts play a seat the table shows as one of these bots as that bot plays.
EXACT: Final[Mapping[str, Policy]] = {"easy": easy_policy, "normal": normal_policy}


# ----------------------------------------------------------------------------
# Determinisation: a full state consistent with one seat's view


def _assign(slots: list[tuple[int, ...]], rng: random.Random) -> list[Card]:
    """One physical card per slot, each from its candidates, no card twice."""
    owner: dict[int, int] = {}
    got = [-1] * len(slots)
    order = list(range(len(slots)))
    rng.shuffle(order)
    order.sort(key=lambda i: len(slots[i]))

    def augment(i: int, seen: set[int]) -> bool:
        for c in slots[i]:
            if c in seen:
                continue
            seen.add(c)
            j = owner.get(c)
            if j is None or augment(j, seen):
                owner[c] = i
                got[i] = c
                return True
        return False

    for i in order:
        cands = slots[i]
        free = [c for c in cands if c not in owner]
        if free:
            c = free[0] if len(free) == 1 else rng.choice(free)
            owner[c] = i
            got[i] = c
        elif not augment(i, set()):
            raise ValueError("the view is not consistent with the pairing table")
    return cast(list[Card], got)  # every entry was taken from a slot of cards


def _narrow(slot: tuple[int, ...], faces: set[str] | frozenset[str], side: int) -> tuple[int, ...]:
    """The candidates of ``slot`` whose face on ``side`` is one of ``faces``, or all if none is."""
    kept = tuple(c for c in slot if CODE_OF[side][c] in faces)
    return kept or slot


class Sampler:
    """Everything fixed about a view, ready to draw determinisations from.

    With the seat's ``flip_memory`` (what it saw when the table last turned
    over), cards are narrowed further: a card held across that flip showed
    one face then and the other now, and the pairing table has few cards with
    both. Which cards were held across it is not known (some were drawn
    since), so a candidate is kept when its other face was among the faces
    seen then; the discard pile under the cards played since is the pile seen
    then, reversed, so those cards are narrowed one by one. When the narrowed
    candidates admit no assignment, the view's alone are used.
    """

    def __init__(
        self, view: View, memory: View | None = None, history: History | None = None
    ) -> None:
        self.me: int = view["seat"]
        self.seats: int = view["seats"]
        side = SIDE_BY_NAME[view["side"]]
        self.side = side
        slots: list[tuple[int, ...]] = []
        self.handles: list[str] = []
        for entry in view["hand"]:
            slots.append(CARDS_BY_FACE[entry["face"]])
            self.handles.append(entry["card"])
        self.hand_slots = (0, len(slots))
        self.other_slots: list[tuple[int, int, int]] = []  # seat, start, end
        self.active: list[bool] = []
        for p in view["players"]:
            self.active.append(bool(p["in_game"]))
            if p["seat"] == self.me:
                continue
            start = len(slots)
            for code in p.get("faces", ()):
                slots.append(CARDS_BY_FACE[code])
            self.other_slots.append((p["seat"], start, len(slots)))
        start = len(slots)
        for code in view["discard_pile"]:
            slots.append(CARDS_BY_FACE[code])
        self.discard_slots = (start, len(slots))
        top = view["draw_pile"].get("top")
        self.top_slot = -1
        if top is not None:
            self.top_slot = len(slots)
            slots.append(CARDS_BY_FACE[top])
        self.slots = slots
        self.plain = slots
        reading = None if history is None else read(view, history)
        if reading is not None:
            self.slots = self._read(reading)
        elif memory is not None and memory["round"] == view["round"]:
            # A memory is of the flip that turned the table to the side in play.
            self.slots = self._remembered(memory)
        pending = view["pending"]
        self.drawn_handle: str | None = None
        if pending is not None and pending["type"] == PENDING_DRAWN:
            self.drawn_handle = view["legal_actions"][0]["card"]
        self.view = view

    def left_points(self) -> list[int | None]:
        """A guess at the points each leaver gave up: the seat never saw them counted.

        Only the final ranking reads them, to order leavers among themselves,
        and no rollout plays that far; 0 is what the engine records for a
        seat that leaves with nothing in hand.
        """
        return [None if active else 0 for active in self.active]

    def _read(self, reading: Reading) -> list[tuple[int, ...]]:
        slots = list(self.plain)
        a, _ = self.hand_slots
        for k, cands in enumerate(reading.hands[self.me]):
            slots[a + k] = tuple(sorted(cands))
        for seat, a, _ in self.other_slots:
            for k, cands in enumerate(reading.hands.get(seat, ())):
                slots[a + k] = tuple(sorted(cands))
        d0, _ = self.discard_slots
        for k, cands in enumerate(reading.discard):
            slots[d0 + k] = tuple(sorted(cands))
        return slots

    def _remembered(self, memory: View) -> list[tuple[int, ...]]:
        then = SIDE_BY_NAME[memory["side"]]
        now = self.side
        slots = list(self.plain)
        own = set(memory["hand"])
        a, b = self.hand_slots
        for i in range(a, b):
            slots[i] = _narrow(slots[i], own, then)
        seen = {p["seat"]: set(p["faces"]) for p in memory["players"]}
        for seat, a, b in self.other_slots:
            faces = seen.get(seat, set())
            for i in range(a, b):
                slots[i] = _narrow(slots[i], faces, now)
        pile = memory["discard_pile"]
        d0, d1 = self.discard_slots
        if pile is not None and len(pile) <= d1 - d0:
            for k, code in enumerate(reversed(pile)):
                slots[d0 + k] = _narrow(slots[d0 + k], {code}, then)
        return slots

    def sample(self, rng: random.Random, seed: str) -> tuple[GameState, dict[str, Card]]:
        """A full state consistent with the view, and the card behind each own handle."""
        try:
            got = _assign(self.slots, rng)
        except ValueError:
            if self.slots is self.plain:
                raise
            self.slots = self.plain  # the memory admits no assignment: forget it
            got = _assign(self.slots, rng)
        used = set(got)
        rest = [c for c in DECK if c not in used]
        rng.shuffle(rest)
        start, end = self.hand_slots
        hands: list[list[Card]] = [[] for _ in range(self.seats)]
        hands[self.me] = got[start:end]
        for seat, a, b in self.other_slots:
            hands[seat] = got[a:b]
        d0, d1 = self.discard_slots
        draw = rest
        if self.top_slot >= 0:
            draw.append(got[self.top_slot])
        cards = dict(zip(self.handles, hands[self.me], strict=True))
        placement = Placement(
            hands=hands,
            discard=got[d0:d1],
            draw=draw,
            left_points=self.left_points(),
            drawn=NO_CARD if self.drawn_handle is None else cards[self.drawn_handle],
        )
        # The sampler builds the placement from the view, so it needs no check.
        state = rebuild(self.view, placement, seed=seed, validate=False)
        return state, cards


# ----------------------------------------------------------------------------
# The bot


def _candidates(view: View) -> list[Request]:
    """The distinct options worth searching: one per (face, colour).

    Every colour of a Wild is searched, also those the hand holds none of: a
    colour the next player cannot follow can be worth more than one we can.
    """
    faces = {e["card"]: e["face"] for e in view["hand"]}
    seen: set[tuple[str, str | None]] = set()
    out: list[Request] = []
    for entry in view["legal_actions"]:
        kind = entry["type"]
        card = entry.get("card")
        face = "" if card is None else faces[card]
        colors: list[str | None] = list(entry.get("colors", [None]))
        for color in colors:
            key = (f"{kind}:{face}", color)
            if key in seen:
                continue
            seen.add(key)
            out.append(request(kind, card, color))
    return out


class HardBot(Bot):
    level = "hard"

    def __init__(
        self,
        seed: str | int,
        budget: int = BUDGET,
        depth: int = DEPTH,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(seed)
        self.budget = budget
        self.depth = depth
        self.policy = POLICY if policy is None else policy

    def choose(
        self,
        view: View,
        memory: View | None = None,
        history: History | None = None,
        levels: Levels | None = None,
    ) -> Request:
        if levels is not None:
            check_levels(view, levels)
        one = only_choice(view)
        if one is not None:
            return one
        candidates = _candidates(view)
        if len(candidates) == 1:
            return candidates[0]
        # Normal's choice, from a generator of its own so ours stays in step.
        prior = NormalBot(self.rng.getrandbits(64)).choose(view)
        first = [i for i, req in enumerate(candidates) if _same(req, prior, view)]
        if first and first[0] >= MAX_CANDIDATES:
            candidates.insert(0, candidates.pop(first[0]))
        candidates = candidates[:MAX_CANDIDATES]
        policy, exact = (self.policy, False) if levels is None else self._models(view, levels)
        sampler = Sampler(view, memory, history)
        me = sampler.me
        totals = [0.0] * len(candidates)
        spent = samples = 0
        while samples < MIN_SAMPLES or spent < self.budget:
            base, cards = sampler.sample(self.rng, f"{self.seed}:{samples}")
            rollout_seed = self.rng.getrandbits(64)
            for i, req in enumerate(candidates):
                s = base.copy()
                apply(s, me, _to_action(req, base, me, cards), inplace=True)
                result, steps = rollout(s, me, random.Random(rollout_seed), self.depth, policy)
                totals[i] += result
                spent += steps + OVERHEAD
            samples += 1
        best_i = 0
        best_value = -1.0
        for i, req in enumerate(candidates):
            value = totals[i] / samples
            if not exact and _same(req, prior, view):
                value += PRIOR
            if value > best_value:
                best_i, best_value = i, value
        return candidates[best_i]

    def _models(self, view: View, levels: Levels) -> tuple[Policy, bool]:
        """How the rollouts play each seat, and whether every other seat in the round is exact.

        A seat the table shows as an Easy or a Normal bot is played as that
        level plays; a person, a Hard bot and this seat itself as ``self.policy``.
        """
        me = view["seat"]
        models = [
            self.policy if i == me else EXACT.get(lv or "", self.policy)
            for i, lv in enumerate(levels)
        ]
        exact = all(
            levels[p["seat"]] in EXACT for p in view["players"] if p["in_game"] and p["seat"] != me
        )
        if all(m is self.policy for m in models):
            return self.policy, exact

        def by_seat(s: GameState, rng: random.Random) -> Action:
            return models[s.current](s, rng)

        return by_seat, exact


def _same(a: Request, b: Request, view: View) -> bool:
    if a["type"] != b["type"] or a.get("color") != b.get("color"):
        return False
    if a.get("card") == b.get("card"):
        return True
    faces = {e["card"]: e["face"] for e in view["hand"]}
    return faces.get(a.get("card", "")) == faces.get(b.get("card", ""))


def _to_action(req: Request, sample: GameState, me: int, cards: dict[str, Card]) -> Action:
    """``req`` (a request naming a card by the real view's handle) on ``sample``."""
    card = req.get("card")
    if card is not None:
        req = {**req, "card": handle(sample, cards[card])}
    return parse_request(sample, me, req)
