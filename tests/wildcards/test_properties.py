"""Property tests over random games: 2 to 10 seats, every combination of options.

The default run plays a few games of every combination (16 house-rule sets x
2 scorings); ``pytest -m slow tests/wildcards`` plays many more.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from wildcards import (
    Action,
    GameState,
    Options,
    events_view,
    legal_actions,
    replay,
    view,
    watcher_view,
)
from wildcards.cards import CODE_OF
from wildcards.views import handle

from .random_games import COMBINATIONS, cards_conserved, play_random


def _private_strings(state: GameState, seat: int) -> set[str]:
    """The handles of ``seat``'s cards: no other seat nor a watcher may see them."""
    return {handle(state, c) for c in state.hands[seat]}


def _check_views(state: GameState, acted: int, events: list[dict[str, Any]]) -> None:
    watcher = json.dumps(watcher_view(state))
    assert '"hand": []' in watcher and '"legal_actions": []' in watcher
    for result in watcher_view(state)["rounds"]:
        assert "hands" not in result  # R28
    for seat in range(state.seats):
        seen = view(state, seat)
        assert seen["seat"] == seat
        assert seen["discard_pile"] == [CODE_OF[c] for c in state.discard]
        assert sorted(e["card"] for e in seen["hand"]) == sorted(_private_strings(state, seat))
        text = json.dumps(seen)
        for other in range(state.seats):
            if other != seat:
                for name in _private_strings(state, other):
                    assert name not in text
                    assert name not in watcher
        assert sum(e["playable"] for e in seen["hand"]) <= len(state.hands[seat])
        legal = legal_actions(state, seat)
        assert bool(seen["legal_actions"]) == bool(legal and state.active[seat])
    for seat in [None, *range(state.seats)]:
        for event in events_view(events, seat):
            assert "cards" not in event and "order" not in event
            if event["type"] == "draw" and "faces" in event:
                assert event["seat"] == seat
            if event["type"] == "round_end" and seat is None:
                assert "hands" not in event["result"]


def _inspect(state: GameState, seat: int, action: Action, events: list[dict[str, Any]]) -> None:
    assert cards_conserved(state)
    assert state.to_dict() == GameState.from_dict(json.loads(json.dumps(state.to_dict()))).to_dict()


def _inspect_views(
    state: GameState, seat: int, action: Action, events: list[dict[str, Any]]
) -> None:
    _inspect(state, seat, action, events)
    _check_views(state, seat, events)


@pytest.mark.parametrize(
    "combo", COMBINATIONS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_properties_random_games_every_option(combo: dict[str, Any]) -> None:
    """Cards conserved, no draw with a playable card, every game ends, records replay,
    refused actions change nothing, views hold nothing private."""
    for index, seats in enumerate((2, 3, 4, 10) if combo["scoring"] == "single" else (3, 7)):
        options = Options(seats=seats, target=150, **combo)
        seed = f"{combo}:{index}"
        inspect = _inspect_views if index == 0 else _inspect
        state, recorder, _ = play_random(options, seed, inspect)
        assert state.over and state.ranking
        assert replay(json.loads(json.dumps(recorder.to_dict()))).to_dict() == state.to_dict()


@pytest.mark.slow
@pytest.mark.parametrize(
    "combo", COMBINATIONS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_properties_many_random_games(combo: dict[str, Any]) -> None:
    for seats in range(2, 11):
        for index in range(6):
            options = Options(seats=seats, target=300, **combo)
            seed = f"slow:{combo}:{seats}:{index}"
            state, recorder, _ = play_random(
                options, seed, _inspect_views if index == 0 else _inspect
            )
            assert replay(recorder.to_dict()).to_dict() == state.to_dict()
