"""Random games for the property tests: every option, jump-ins, leaves, refusals.

``play_random`` plays one game with a seeded generator: each step it may try
a random malformed or illegal action (it must be refused and change nothing),
may let a seat jump in, may let a seat leave, otherwise takes a uniformly
random legal action of the seat to act. It records the game and calls
``inspect`` after every applied action.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import wildcards as wc
from wildcards.cards import DECK_SIZE

HOUSE_RULES = ("stacking", "seven_zero", "jump_in", "draw_until_playable")
#: Every combination of the four house rules (16) with each scoring (2).
COMBINATIONS: list[dict[str, Any]] = [
    {**dict(zip(HOUSE_RULES, flags, strict=True)), "scoring": scoring}
    for flags in itertools.product((False, True), repeat=4)
    for scoring in ("single", "target")
]
MAX_ACTIONS = 20_000

Inspect = Callable[[wc.GameState, int, wc.Action, list[dict[str, Any]]], None]


def random_bad_action(rng: random.Random, state: wc.GameState) -> tuple[int, wc.Action]:
    """An action that is probably refused: any type, any card, colour, target, seat."""
    seat = rng.randrange(-1, state.seats + 1)
    kind = rng.choice([*wc.ACTION_TYPES[:-1], "dance"])
    return seat, wc.Action(
        kind,  # type: ignore[arg-type]
        rng.choice([-1, rng.randrange(DECK_SIZE)]),
        rng.choice([-1, rng.randrange(5)]),
        rng.choice([-1, rng.randrange(state.seats + 1)]),
    )


def cards_conserved(state: wc.GameState) -> bool:
    every = [c for hand in state.hands for c in hand] + state.draw + state.discard
    return sorted(every) == list(range(DECK_SIZE))


def play_random(
    options: wc.Options, seed: str, inspect: Inspect | None = None, *, leaves: bool = True
) -> tuple[wc.GameState, wc.Recorder, int]:
    """Play one random game; return its final state, its record and the refusals seen."""
    rng = random.Random(seed)
    state, events = wc.new_game(options, seed)
    recorder = wc.Recorder(options, seed, events)
    refused = 0
    for _ in range(MAX_ACTIONS):
        if state.over:
            return state, recorder, refused
        roll = rng.random()
        if roll < 0.1:
            seat, action = random_bad_action(rng, state)
            if action not in wc.legal_actions(state, seat) if 0 <= seat < state.seats else True:
                before = state.to_dict()
                try:
                    wc.apply(state, seat, action)
                except wc.RuleError:
                    refused += 1
                    assert state.to_dict() == before  # a refused action changes nothing
                    continue
                # Accepted: it must have been legal after all (a legal action not listed).
                raise AssertionError(f"{action} by {seat} accepted but not listed as legal")
        seat = state.current
        if options.jump_in and roll < 0.5:
            jumpers = [s for s in range(state.seats) if s != seat and wc.legal_actions(state, s)]
            if jumpers:
                seat = rng.choice(jumpers)
        if leaves and roll > 0.997:
            seat = rng.choice([s for s in range(state.seats) if state.active[s]])
            action = wc.Action(wc.LEAVE)
        else:
            action = rng.choice(wc.legal_actions(state, seat))
        if action.type == wc.DRAW:
            # Nobody draws while holding a playable card.
            assert state.pending is None and not wc.playable_cards(state, state.hands[seat])
        state, events = wc.apply(state, seat, action)
        recorder.add(seat, action, "player", events)
        if inspect is not None:
            inspect(state, seat, action, events)
    raise AssertionError(f"game {seed} did not end in {MAX_ACTIONS} actions")
