"""flip.positions: a finished game laid open, position by position, from its record."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from flip import Options, Recorder, apply, legal_actions, new_game, replay
from flip.cards import CODE_OF, sorted_hand
from flip.positions import open_positions
from flip.state import GameState


def recorded_game(
    seed: str, seats: int, **options: object
) -> tuple[dict[str, object], list[GameState]]:
    """A random game with its record and the real state after the deal and each action."""
    rng = random.Random(seed)
    state, events = new_game(Options(seats=seats, **options), seed)  # type: ignore[arg-type]
    recorder = Recorder(state.options, state.seed, events)
    states = [state]
    while not state.over:
        seat = state.current
        action = rng.choice(legal_actions(state, seat))
        state, events = apply(state, seat, action)
        recorder.add(seat, action, "player", events)
        states.append(state)
    return recorder.to_dict(), states


@pytest.mark.parametrize(
    ("seed", "seats", "options"),
    [
        ("replay-a", 2, {}),
        ("replay-b", 3, {}),
        ("replay-c", 4, {"scoring": "target", "target": 250}),
    ],
)
def test_every_position_is_the_real_table_with_every_hand_face_up(
    seed: str, seats: int, options: dict[str, object]
) -> None:
    record, states = recorded_game(seed, seats, **options)
    positions = list(open_positions(record))
    assert [p["step"] for p in positions] == list(range(len(states)))
    for position, state in zip(positions, states, strict=True):
        side = state.side
        assert position["side"] == ("light", "dark")[side]
        assert position["round"] == state.round
        assert position["hands"] == [
            [CODE_OF[side][c] for c in sorted_hand(hand, side)] for hand in state.hands
        ]
        assert position["discard_pile"] == [CODE_OF[side][c] for c in state.discard]
        assert position["draw_pile"]["count"] == len(state.draw)
        if state.draw:
            assert position["draw_pile"]["top"] == CODE_OF[side ^ 1][state.draw[-1]]
        assert position["scores"] == state.scores
        assert position["to_act"] == (None if state.over else state.current)
        # Every card is somewhere: 112 in hands and piles.
        held = sum(len(h) for h in position["hands"])
        assert held + len(position["discard_pile"]) + position["draw_pile"]["count"] == 112
    assert positions[-1]["over"] and positions[-1]["ranking"] == states[-1].ranking
    assert replay(record) == states[-1]


def test_each_step_names_its_action_and_shows_the_cards_its_events_moved() -> None:
    record, _ = recorded_game("replay-events", 3)
    positions = list(open_positions(record))
    assert positions[0]["action"] is None
    assert any(e["type"] == "starter" for e in positions[0]["events"])
    actions = record["actions"]
    assert isinstance(actions, list)
    for position, entry in zip(positions[1:], actions, strict=True):
        assert position["action"]["seat"] == entry["seat"]
        assert position["action"]["type"] == entry["type"]
        for event in position["events"]:
            if event["type"] == "draw":
                # Face up: the drawn cards are shown, not only counted.
                assert len(event["faces"]) == event["count"]
            assert "order" not in event
    kinds = Counter(p["action"]["type"] for p in positions[1:])
    assert kinds["play"] > 0


def test_a_record_that_does_not_replay_is_refused() -> None:
    record, _ = recorded_game("replay-bad", 2)
    with pytest.raises(ValueError):
        list(open_positions({**record, "version": 99}))
    extra = {**record, "shuffles": [*record["shuffles"], record["shuffles"][0]]}  # type: ignore[list-item]
    with pytest.raises(ValueError):
        list(open_positions(extra))
