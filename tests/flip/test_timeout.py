"""Time limits: the plain legal move of ruling 4."""

from __future__ import annotations

import random

import pytest

from flip import (
    DARK,
    DRAW,
    LIGHT,
    PASS,
    PLAY,
    Action,
    Options,
    RuleError,
    apply,
    legal_actions,
    new_game,
    timeout_action,
)
from flip.cards import CODE_OF
from tests.flip.stacking import choose, play, position, stacked_game


def _code(state, action: Action) -> str:  # noqa: ANN001
    return CODE_OF[state.side][action.card]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (["sun-1", "sun-2", "leaf-3", "wild"], "yellow"),
        (["flame-1", "leaf-3", "leaf-4", "leaf-5", "wave-1", "wave-2"], "green"),
        (["wave-1", "leaf-3"], "green"),  # a tie goes to the first colour of the side
        (["wave-1", "sun-3", "wave-2", "sun-4"], "yellow"),
        (["wild", "wild-draw-two"], "red"),  # Wilds do not count
    ],
)
def test_time_limits_colour_choice_light(hand: list[str], expected: str) -> None:
    state, _ = stacked_game([[], hand, []], "wild")
    # The hand is filled up to seven by the stacking helper: use exactly ``hand``.
    state.hands[1] = state.hands[1][: len(hand)]
    action = timeout_action(state)
    assert action == choose(expected)
    assert action in legal_actions(state, 1)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (["star-1", "star-2", "gem-3"], "purple"),
        (["bolt-1", "gem-2"], "cyan"),
        (["dark-wild"], "magenta"),
    ],
)
def test_time_limits_colour_choice_dark_after_a_flip(hand: list[str], expected: str) -> None:
    state = position(
        [["moon-1"], hand], ["dark-wild"], side=DARK, current=1, pending="choose_color"
    )
    action = timeout_action(state)
    assert action == choose(expected)


def test_time_limits_colour_choice_empty_hand_goes_to_the_first_colour() -> None:
    state = position([["moon-1"], []], ["dark-wild"], side=DARK, current=1, pending="choose_color")
    assert timeout_action(state) == choose("magenta")


def test_time_limits_plays_the_playable_card_worth_the_most_points() -> None:
    state = position(
        [["sun-2", "sun-draw-one", "flame-5", "wild", "leaf-9"], ["wave-1"]], ["sun-5"]
    )
    action = timeout_action(state)
    # Wild (40) beats Draw One (10), 5 and 2; Leaf 9 is not playable.
    assert _code(state, action) == "wild"
    assert action.color == 1  # two yellow cards: the hand's most-held colour
    assert action in legal_actions(state, 0)


def test_time_limits_ties_go_to_the_first_card_in_sorted_order() -> None:
    state = position(
        [["sun-skip", "flame-reverse", "sun-reverse", "sun-1"], ["wave-1"]],
        ["sun-reverse/dark-wild"],
    )
    # Red Reverse, Yellow Reverse and Yellow Skip are worth 20 each: the Red
    # Reverse comes first in the sorted hand.
    assert _code(state, timeout_action(state)) == "flame-reverse"
    state.hands[0] = [c for c in state.hands[0] if CODE_OF[LIGHT][c] != "flame-reverse"]
    assert _code(state, timeout_action(state)) == "sun-reverse"


def test_time_limits_the_restricted_wild_when_it_is_the_best_playable() -> None:
    state = position([["wild-draw-two", "flame-9", "flame-2", "leaf-5"], ["wave-1"]], ["sun-5"])
    action = timeout_action(state)
    assert _code(state, action) == "wild-draw-two"
    assert action.color == 0  # red, the hand's most-held colour without the Wild
    blocked = position([["wild-draw-two", "sun-1"], ["wave-1"]], ["sun-5"])
    assert _code(blocked, timeout_action(blocked)) == "sun-1"


def test_time_limits_a_drawn_card_is_played() -> None:
    state = position([["flame-1", "leaf-2", "leaf-3"], ["wave-1"]], ["sun-7"], ["wild"])
    assert timeout_action(state) == Action(DRAW)
    state, _ = apply(state, 0, Action(DRAW))
    action = timeout_action(state)
    assert action.type == PLAY and action.card == state.drawn
    assert action.color == 2  # green: two Green cards in the rest of the hand
    assert action in legal_actions(state, 0)


def test_time_limits_draws_only_when_nothing_can_be_played() -> None:
    state = position([["flame-1", "leaf-2"], ["wave-1"]], ["sun-7"], ["flame-8"])
    assert timeout_action(state) == Action(DRAW)


def test_time_limits_passes_when_nothing_to_play_or_draw() -> None:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    assert timeout_action(state) == Action(PASS)


def test_time_limits_a_timed_out_turn_is_played_to_its_end() -> None:
    # Starter Wild: a colour first, then the play.
    state, _ = stacked_game([[], ["sun-1", "sun-2", "flame-9"], []], "wild")
    seat = state.current
    turn = state.turn
    steps = 0
    while state.current == seat and state.turn == turn and not state.over:
        state, _ = apply(state, seat, timeout_action(state))
        steps += 1
    assert steps == 2


def test_time_limits_after_game_over() -> None:
    state = position([["flame-1"], ["wave-1"]], ["flame-2"])
    state, _ = apply(state, 0, play(state.hands[0][0]))
    with pytest.raises(RuleError) as info:
        timeout_action(state)
    assert info.value.code == "game_over"


def test_time_limits_never_draws_while_holding_a_playable_card_random_games() -> None:
    rng = random.Random(4)
    for index in range(40):
        seats = 2 + index % 9
        state, _ = new_game(Options(seats=seats), f"timeout-{index}")
        for _ in range(3000):
            if state.over:
                break
            seat = state.current
            legal = legal_actions(state, seat)
            action = timeout_action(state)
            assert action in legal
            if any(a.type == PLAY for a in legal):
                assert action.type == PLAY
            use = action if rng.random() < 0.5 else rng.choice(legal)
            state, _ = apply(state, seat, use, inplace=True)
        assert state.over
