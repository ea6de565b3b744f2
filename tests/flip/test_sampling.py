"""flip.sampling: a whole state from a seat's view and a placement of the hidden cards.

Issue 9, section 1: Hard's sampled states once lacked the leavers' points, so
every Hard turn after a concession raised. A sample is now built by
``flip.sampling.rebuild`` alone, and checked here on its own: from the true
placement it gives back the real state in every field the rules read; from
Hard's samples it gives states that hold every invariant a real state holds.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from flip import GameState, view
from flip.bots.hard import Sampler
from flip.cards import CODE_OF
from flip.sampling import Placement, placement_of, rebuild
from tests.flip.random_tables import Mix, invariants, play_table

#: The fields the rules read to go on from a state: what happens next, who
#: scores what and the final ranking. The rest (the secret seed and shuffle
#: count, the handles' flip count and the memory of the last flip, the past
#: rounds' leftover cards, the action count) is bookkeeping a seat never sees.
RULES_FIELDS = (
    "options",
    "round",
    "dealer",
    "side",
    "draw",
    "discard",
    "color",
    "direction",
    "current",
    "pending",
    "drawn",
    "active",
    "passed",
    "turn",
    "scores",
    "left_points",
    "over",
    "winner",
)


def rules_fields(s: GameState) -> dict[str, Any]:
    out = {name: getattr(s, name) for name in RULES_FIELDS}
    out["hands"] = [sorted(h) for h in s.hands]  # the rules never read a hand's order
    return out


def real_states(tables: int, every: int = 7) -> list[GameState]:
    """States met in random tables (leaves, timeouts, target games...), one in ``every``."""
    found: list[GameState] = []

    def keep(s: GameState) -> None:
        if s.actions % every == 0:
            found.append(s.copy())

    for index in range(tables):
        play_table(f"sampling:{index}", levels=("easy",), mix=Mix(leave=0.02), check=keep)
    return found


STATES = real_states(40)


def test_the_real_states_hold_every_invariant() -> None:
    # The invariants are real: the states the engine produces hold them all.
    assert len(STATES) > 300
    assert any(not all(s.active) for s in STATES)
    assert any(s.pending is not None for s in STATES)
    assert any(s.side == 1 for s in STATES)
    assert any(s.round > 1 for s in STATES)
    for s in STATES:
        assert invariants(s) == []


def test_rebuild_from_the_true_placement_gives_back_the_real_state() -> None:
    for index, s in enumerate(STATES):
        seat = [i for i in range(s.seats) if s.active[i]][index % s.players_left]
        seen = view(s, seat)
        again = rebuild(seen, placement_of(s, seat), seed="rebuilt", history=_public(s))
        assert rules_fields(again) == rules_fields(s)
        assert invariants(again) == []
        # The seat sees the same table, only its handles are new.
        assert _faces_seen(view(again, seat)) == _faces_seen(seen)


def _public(s: GameState) -> dict[str, Any]:
    return {"passed": s.passed[:], "left_order": s.left_order[:]}


def test_hard_samples_hold_every_invariant_a_real_state_holds() -> None:
    rng = random.Random(9)
    for index, s in enumerate(STATES):
        if s.over:
            continue
        seat = s.current
        sampler = Sampler(view(s, seat))
        sample, cards = sampler.sample(rng, f"s:{index}")
        assert invariants(sample) == []
        # A sample shows the seat what the real state showed it, handles aside.
        assert _faces_seen(view(sample, seat)) == _faces_seen(view(s, seat))
        assert set(cards) == {e["card"] for e in view(s, seat)["hand"]}


def _faces_seen(seen: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in seen.items() if k not in ("hand", "legal_actions")}
    out["hand"] = [e["face"] for e in seen["hand"]]
    out["legal"] = sorted((e["type"], tuple(e.get("colors", ()))) for e in seen["legal_actions"])
    return out


def test_rebuild_refuses_a_placement_the_view_contradicts() -> None:
    s = next(s for s in STATES if not s.over and s.players_left >= 3)
    seat = s.current
    seen = view(s, seat)
    true = placement_of(s, seat)
    rebuild(seen, true, seed="ok")
    other = next(i for i in range(s.seats) if i != seat and s.hands[i])
    # A card of another hand swapped with a hidden draw-pile card of another face.
    hand = true.hands[other]
    back = CODE_OF[s.side ^ 1]
    swap = next(j for j, c in enumerate(true.draw[:-1]) if back[c] != back[hand[0]])
    hands = [h[:] for h in true.hands]
    draw = true.draw[:]
    hands[other][0], draw[swap] = draw[swap], hands[other][0]
    wrong = Placement(hands=hands, discard=true.discard, draw=draw, left_points=true.left_points)
    with pytest.raises(ValueError, match="shows other faces"):
        rebuild(seen, wrong, seed="no")
    # A leaver without its points.
    missing = Placement(
        hands=true.hands,
        discard=true.discard,
        draw=true.draw,
        left_points=[None] * s.seats,
    )
    if not all(s.active):
        with pytest.raises(ValueError, match="leaver"):
            rebuild(seen, missing, seed="no")
    with pytest.raises(ValueError, match="exactly once"):
        short = Placement(true.hands, true.discard, true.draw[:-1], true.left_points, true.drawn)
        rebuild(seen, short, seed="no")
