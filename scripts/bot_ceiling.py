"""How much does a bot gain from knowing more than its seat sees? (docs/bots.md)

An experiment, not a bot: one "searcher" seat plays 4-seat single-round games
against three bots of one level (``--opponents``), seats rotated. At every
decision with more than one option the searcher runs flat Monte Carlo as Hard
does: ``--samples`` determinisations, every candidate applied to each of them
(common random numbers) and played on to the end of the round; the candidate
with the most wins is played. What differs between runs is what the
determinisations are allowed to know (``--know``):

- ``view``: only the seat's view, exactly as Hard (the baseline);
- ``own``: the seat's own cards exactly (so the other face of each, which the
  view never shows);
- ``opponents``: every other hand's cards exactly (so their active faces);
- ``all``: every card except the order of the draw pile under its top;
- ``flip-memory``: the view and ``flip.flip_memory``, narrowed exactly as
  Hard narrows them (what Hard knows);
- ``flip-held``: the upper bound of ``flip-memory``: every other hand's cards
  held since the last flip known exactly;
- ``draws``: the view, plus what each draw says: a hand that drew held no card
  matching the top card then, so its cards kept since (no flip in between) are
  narrowed to faces that did not match.

``--model`` says how the rollouts play the other seats: ``policy`` (Hard's
rollout policy, Normal's rules of thumb) or ``easy`` (uniformly random,
as Easy plays). The searcher itself always rolls out with Hard's policy.

    .venv/bin/python scripts/bot_ceiling.py --know view --opponents normal --games 400
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flip.bots import make_bot  # noqa: E402
from flip.bots.hard import Sampler, _candidates, _to_action, normal_policy  # noqa: E402
from flip.bots.tournament import to_action  # noqa: E402
from flip.cards import CODE_OF, COLOR_OF, KEY_OF, NO_COLOR  # noqa: E402
from flip.engine import DRAW, Action, apply, legal_actions, new_game  # noqa: E402
from flip.state import GameState, Options  # noqa: E402
from flip.views import card_for_handle, flip_memory, view  # noqa: E402
from tabletop.stats import wilson  # noqa: E402

KNOWS = ("view", "own", "opponents", "all", "flip-memory", "flip-held", "draws")


def easy_move(s: GameState, rng: random.Random) -> Action:
    """What Easy does: a uniformly random playable card, then a random colour."""
    acts = legal_actions(s, s.current)
    if len(acts) == 1:
        return acts[0]
    card = rng.choice(sorted({a.card for a in acts}))
    return rng.choice([a for a in acts if a.card == card])


def play_out(s: GameState, me: int, rng: random.Random, model: str) -> int:
    while not s.over:
        seat = s.current
        move = easy_move(s, rng) if model == "easy" and seat != me else normal_policy(s, rng)
        apply(s, seat, move, inplace=True)
    return 1 if s.winner == me else 0


class Memory:
    """Draws seen since the last flip (``draws``); cards held across it (``flip-held``)."""

    def __init__(self) -> None:
        self.held: set[int] = set()
        self.draws: dict[int, list[tuple[int, str, Counter[str]]]] = {}

    def before(self, s: GameState, me: int, move: Action) -> None:
        if move.type == DRAW and s.current != me and s.pending is None:
            top = KEY_OF[s.side][s.discard[-1]]
            faces = Counter(CODE_OF[1 - s.side][c] for c in s.hands[s.current])
            self.draws.setdefault(s.current, []).append((s.color, top, faces))

    def after(self, s: GameState, me: int, side_before: int) -> None:
        if s.side == side_before or s.over:
            return
        self.draws = {}
        self.held = {c for seat, hand in enumerate(s.hands) if seat != me for c in hand}


View = dict[str, Any]


def narrow(slot: tuple[int, ...], keep: Any) -> tuple[int, ...]:
    kept = tuple(c for c in slot if keep(c))
    return kept or slot


def exact_slots(sampler: Sampler, s: GameState, seats: list[int]) -> None:
    """Pin the slots of ``seats``' hands to their true cards."""
    side = sampler.side
    if sampler.me in seats:
        a, _ = sampler.hand_slots
        for i, handle in enumerate(sampler.handles):
            sampler.slots[a + i] = (card_for_handle(s, sampler.me, handle),)
    for seat, a, b in sampler.other_slots:
        if seat not in seats:
            continue
        free = list(s.hands[seat])
        for i in range(a, b):
            code = CODE_OF[1 - side][sampler.slots[i][0]]
            card = next(c for c in free if CODE_OF[1 - side][c] == code)
            free.remove(card)
            sampler.slots[i] = (card,)


def restrict(sampler: Sampler, s: GameState, know: str, memory: Memory) -> None:
    side = sampler.side
    slots = sampler.slots
    if know == "own":
        exact_slots(sampler, s, [sampler.me])
    elif know == "opponents":
        exact_slots(sampler, s, [seat for seat, _, _ in sampler.other_slots])
    elif know == "all":
        exact_slots(sampler, s, list(range(sampler.seats)))
        d0, d1 = sampler.discard_slots
        for i, card in enumerate(s.discard):
            slots[d0 + i] = (card,)
        if sampler.top_slot >= 0:
            slots[sampler.top_slot] = (s.draw[-1],)
    elif know == "flip-held":
        for seat, a, b in sampler.other_slots:
            for card in s.hands[seat]:
                if card not in memory.held:
                    continue
                for i in range(a, b):
                    if len(slots[i]) > 1 and card in slots[i]:
                        slots[i] = (card,)
                        break
    elif know == "draws":
        for seat, a, b in sampler.other_slots:
            for color, key, faces in memory.draws.get(seat, ()):
                left = Counter(faces)
                for i in range(a, b):
                    code = CODE_OF[1 - side][slots[i][0]]
                    if left[code] <= 0:
                        continue
                    left[code] -= 1
                    slots[i] = narrow(
                        slots[i],
                        lambda c, color=color, key=key: (
                            COLOR_OF[side][c] not in (NO_COLOR, color) and KEY_OF[side][c] != key
                        ),
                    )


def choose(
    s: GameState, me: int, know: str, model: str, samples: int, memory: Memory, rng: random.Random
) -> Action:
    seen = view(s, me)
    candidates = _candidates(seen)
    if len(candidates) == 1:
        return to_action(s, me, candidates[0])
    sampler = Sampler(seen, flip_memory(s, me) if know == "flip-memory" else None)
    sampler.slots = list(sampler.slots)  # restrict() edits them; plain stays
    restrict(sampler, s, know, memory)
    wins = [0] * len(candidates)
    for k in range(samples):
        # A narrowing that admits no assignment falls back to the view's own.
        base, cards = sampler.sample(rng, f"ceiling:{k}")
        seed = rng.getrandbits(64)
        for i, req in enumerate(candidates):
            t = base.copy()
            apply(t, me, _to_action(req, base, me, cards), inplace=True)
            wins[i] += play_out(t, me, random.Random(seed), model)
    best = max(range(len(candidates)), key=lambda i: wins[i])
    return to_action(s, me, candidates[best])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--know", choices=KNOWS, default="view")
    parser.add_argument("--opponents", choices=("easy", "normal", "hard"), default="normal")
    parser.add_argument("--model", choices=("policy", "easy"), default="policy")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--seed", default="ceiling")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    wins = 0
    for g in range(args.games):
        me = g % 4
        s, _ = new_game(Options(seats=4), f"{args.seed}:{g}")
        bots = [make_bot(args.opponents, f"{args.seed}:{g}:{i}") for i in range(4)]
        memory = Memory()
        while not s.over:
            seat = s.current
            if seat == me:
                move = choose(s, me, args.know, args.model, args.samples, memory, rng)
            else:
                move = to_action(s, seat, bots[seat].choose(view(s, seat)))
            side = s.side
            memory.before(s, me, move)
            apply(s, seat, move, inplace=True)
            memory.after(s, me, side)
        wins += s.winner == me
        print(f"\r{g + 1}/{args.games} {wins / (g + 1):.3f}", end="", file=sys.stderr)
    print(file=sys.stderr)
    low, high = wilson(wins, args.games)
    print(
        f"know={args.know} opponents={args.opponents} model={args.model} "
        f"samples={args.samples} seed={args.seed}: {wins}/{args.games} = {wins / args.games:.2%} "
        f"(95% CI {low:.1%}-{high:.1%}, fair share 25%)"
    )


if __name__ == "__main__":
    main()
