"""``flip.advance``: the unchecked in-place path gives what ``apply`` gives for a legal action."""

from __future__ import annotations

import json
import random

import pytest

from flip import (
    Action,
    GameState,
    Options,
    RuleError,
    advance,
    apply,
    legal_actions,
    new_game,
    timeout_action,
)


@pytest.mark.parametrize("seats", [2, 3, 6, 10])
def test_advance_and_apply_give_the_same_states_and_events(seats: int) -> None:
    options = Options(seats=seats, scoring="target", target=250)
    for game in range(4):
        rng = random.Random(f"advance:{seats}:{game}")
        trusted, _ = new_game(options, f"advance:{seats}:{game}")
        checked = GameState.from_dict(json.loads(json.dumps(trusted.to_dict())))
        while not trusted.over:
            seat = trusted.current
            roll = rng.random()
            if roll < 0.01:  # a concession, by anyone still in
                seat = rng.choice([i for i in range(seats) if trusted.active[i]])
                action = Action("leave")
            elif roll < 0.2:
                action = timeout_action(trusted)
            else:
                action = rng.choice(legal_actions(trusted, seat))
            events = advance(trusted, seat, action)
            checked, expected = apply(checked, seat, action)
            assert events == expected
            assert trusted.to_dict() == checked.to_dict()
        assert trusted == checked


def test_advance_does_not_check_apply_does() -> None:
    # Seat 0 must draw here; apply refuses a pass, advance is told it is legal.
    state, _ = new_game(Options(seats=2), seed="must draw 48")
    assert legal_actions(state, 0) == [Action("draw")]
    with pytest.raises(RuleError) as info:
        apply(state, 0, Action("pass"))
    assert info.value.code == "must_draw_first"
    advance(state, 0, Action("pass"))  # trusted: the caller's word is taken
    assert state.passed == [0]


def test_every_event_is_a_new_dict_with_lists_of_its_own() -> None:
    # The commonest events are copies of a template dict (flip.engine): a caller that
    # changes what it was handed must not reach another action's events.
    state, _ = new_game(Options(seats=2), seed="events")
    dicts: set[int] = set()
    lists: set[int] = set()
    kinds: set[str] = set()
    held = []  # keeps every event alive, so that no id is reused
    while not state.over and len(held) < 400:
        seat = state.current
        for event in advance(state, seat, legal_actions(state, seat)[0]):
            assert id(event) not in dicts
            dicts.add(id(event))
            for value in event.values():
                if isinstance(value, list):
                    assert id(value) not in lists
                    lists.add(id(value))
            kinds.add(event["type"])
            held.append(event)
    assert {"play", "draw"} <= kinds
