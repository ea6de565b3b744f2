"""The public history of a round (``wildcards.history``): built from the state's record, it
equals what a seat was shown of the round (``events_view``), and it holds nothing private."""

from __future__ import annotations

import json
from typing import Any

import pytest

import wildcards as wc
from tests.wildcards.random_games import COMBINATIONS, play_random
from wildcards.cards import CODE_OF
from wildcards.history import history_of_events, public_history

#: Every key a history event may hold: none of them names a hidden card.
PUBLIC_KEYS = {
    "type", "seat", "seats", "face", "on", "in_play", "color", "target", "jump_in", "count",
    "reason", "direction",
}  # fmt: skip


def _check_game(options: wc.Options, seed: str) -> int:
    """Play a random game checking the history after every action; the checks made."""
    # play_random deals the same first state from the seed: these are its first events.
    every: list[dict[str, Any]] = list(wc.new_game(options, seed)[1])
    checks = 0

    def inspect(s: wc.GameState, _seat: int, _action: wc.Action, new: list[dict[str, Any]]) -> None:
        nonlocal checks
        every.extend(new)
        if len(every) % 5 and not s.over:  # every action costs the whole game again: a sample
            return
        histories = []
        for seat in range(s.seats):
            history = public_history(s, seat)
            assert history == history_of_events(wc.events_view(every, seat)), (seed, seat)
            histories.append(history)
            for event in history:
                assert set(event) <= PUBLIC_KEYS
                assert "cards" not in event and "order" not in event
        # The same for every seat and a watcher: nothing in it is any seat's own.
        assert all(h == histories[0] for h in histories)
        assert histories[0] == history_of_events(wc.events_view(every, None))
        # Every face it names was played face up this round (or is the starter).
        faces = {e["face"] for e in histories[0] if "face" in e}
        played = {
            e["face"] for e in wc.events_view(every, None) if e["type"] in ("play", "starter")
        }
        assert faces <= played
        assert faces <= set(CODE_OF)
        checks += 1

    play_random(options, seed, inspect)
    return checks


@pytest.mark.parametrize("combo", range(len(COMBINATIONS)))
def test_history_is_what_each_seat_was_shown(combo: int) -> None:
    options = wc.Options(seats=2 + combo % 5, **COMBINATIONS[combo])
    assert _check_game(options, f"history-{combo}") > 0


def test_history_reads_draws_and_colours() -> None:
    """A draw tells the top card and the colour the drawer could not follow."""
    state, _ = wc.new_game(wc.Options(seats=3), "history-draw")
    for _ in range(400):
        if state.over:
            break
        seat = state.current
        wc.apply(state, seat, wc.legal_actions(state, seat)[0], inplace=True)
        history = public_history(state, 0)
        for event in history:
            if event["type"] == "draw" and event["reason"] == "draw":
                assert event["on"] is not None
    assert any(e["type"] == "draw" for e in public_history(state, 1))


def test_snapshot_without_the_record_restores() -> None:
    state, _ = wc.new_game(wc.Options(seats=4), "history-old")
    snapshot = json.loads(json.dumps(state.to_dict()))
    assert snapshot["log"]
    del snapshot["log"]
    restored = wc.GameState.from_dict(snapshot)
    assert restored.log == []
    assert public_history(restored, 0) == []
    with pytest.raises(ValueError, match="no seat"):
        public_history(restored, 4)
