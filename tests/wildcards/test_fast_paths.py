"""The engine's fast paths give exactly what the general ones give.

``advance_silently`` is ``advance`` without its events; a view of the seat to act
reads its hand off the matching table instead of asking ``card_refusal`` card by
card; a view is a copy of a template with every value replaced. Each is checked
here against the path it stands in for, over random games of every option.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import wildcards as wc
from wildcards.engine import advance_silently
from wildcards.views import _hand, view

from .random_games import COMBINATIONS


def _random_game(options: wc.Options, seed: str) -> list[tuple[wc.GameState, int, wc.Action]]:
    """Every (state before, seat, action) of one random game, jump-ins and leaves included."""
    rng = random.Random(seed)
    state, _ = wc.new_game(options, seed)
    steps = []
    while not state.over:
        seat = state.current
        if options.jump_in and rng.random() < 0.5:  # noqa: PLR2004
            jumpers = [s for s in range(state.seats) if s != seat and wc.legal_actions(state, s)]
            seat = rng.choice(jumpers) if jumpers else seat
        if rng.random() < 0.005:  # noqa: PLR2004
            seat = rng.choice([s for s in range(state.seats) if state.active[s]])
            action = wc.Action(wc.LEAVE)
        else:
            action = rng.choice(wc.legal_actions(state, seat))
        steps.append((state.copy(), seat, action))
        wc.advance(state, seat, action)
    return steps


@pytest.mark.parametrize("combination", COMBINATIONS, ids=lambda c: "-".join(map(str, c.values())))
def test_a_silent_move_leaves_the_state_an_evented_move_leaves(combination: dict[str, Any]) -> None:
    for seats in (2, 4, 7):
        options = wc.Options(seats=seats, target=150, **combination)
        loud, _ = wc.new_game(options, f"silent:{seats}")
        quiet = loud.copy()
        for _, seat, action in _random_game(options, f"silent:{seats}"):
            wc.advance(loud, seat, action)
            advance_silently(quiet, seat, action)
            assert quiet == loud
            assert quiet.to_dict() == loud.to_dict()
        assert quiet.over


@pytest.mark.parametrize(
    "combination", COMBINATIONS[::3], ids=lambda c: "-".join(map(str, c.values()))
)
def test_the_hand_of_the_seat_to_act_is_shown_as_the_general_path_shows_it(
    combination: dict[str, Any],
) -> None:
    options = wc.Options(seats=4, **combination)
    seen = 0
    for state, _, _ in _random_game(options, "hand"):
        seat = state.current
        shown = view(state, seat)["hand"]
        legal = wc.legal_actions(state, seat)
        names = tuple(wc.handle(state, c) for c in wc.DECK)
        assert shown == _hand(state, seat, state.hands[seat], names, legal)
        seen += any(entry.get("refusal") == "wild_draw4_blocked" for entry in shown)
    assert seen  # some position shows a blocked Wild Draw 4


def _containers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


def test_two_views_share_no_list_or_dict() -> None:
    state, _ = wc.new_game(wc.Options(seats=3), "shared")
    for _ in range(40):
        first = [view(state, seat) for seat in (0, 1, 2, None)]
        again = [view(state, seat) for seat in (0, 1, 2, None)]
        assert first == again
        ids = [id(c) for v in first + again for c in _containers(v)]
        assert len(ids) == len(set(ids))
        wc.advance(state, state.current, wc.legal_actions(state, state.current)[0])
        if state.over:
            break
