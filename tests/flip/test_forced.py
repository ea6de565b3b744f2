"""Forced moves (issue 38), named after the sections that force them: the one move a
seat must make and needs no choice for (``flip.forced_action``)."""

from __future__ import annotations

import random

import pytest

from flip import DRAW, Action, Options, apply, forced_action, legal_actions, new_game
from tests.flip.stacking import play, position


def test_example_plays_the_table_will_not_accept_the_only_card_you_may_play() -> None:
    """ "You play Yellow 9, the only card you may play": the one legal action is forced."""
    state = position([["sun-9", "leaf-2", "wild-draw-two"], ["wave-9"]], ["sun-5"])
    assert forced_action(state, 0) == play(state.hands[0][0])
    assert forced_action(state, 1) is None  # not to act


def test_example_which_cards_can_you_play_three_cards_are_a_choice() -> None:
    hand = ["flame-3", "flame-5", "sun-9", "leaf-reverse", "wave-2", "wild"]
    state = position([hand, ["wave-9"]], ["sun-5"], color="yellow")
    assert forced_action(state, 0) is None


def test_when_nothing_is_playable_the_draw_is_forced() -> None:
    """ "If you cannot play, you draw exactly one card"."""
    state = position([["leaf-2", "wave-3"], ["wave-9"]], ["sun-5"], ["sun-7"])
    assert forced_action(state, 0) == Action(DRAW)


def test_when_nothing_is_playable_the_drawn_card_you_can_play_is_forced() -> None:
    """ "If you can play it, you must play it at once"."""
    state = position([["leaf-2", "wave-3"], ["wave-9"]], ["sun-5"], ["sun-7"])
    state, _ = apply(state, 0, Action(DRAW))
    drawn = state.hands[0][-1]
    assert forced_action(state, 0) == play(drawn)


def test_when_nothing_is_playable_a_drawn_wild_asks_for_its_colour() -> None:
    """A drawn Wild must be played, with the colour its player chooses: not forced."""
    state = position([["leaf-2", "wave-3"], ["wave-9"]], ["sun-5"], ["wild"])
    state, _ = apply(state, 0, Action(DRAW))
    assert len(legal_actions(state, 0)) == 4
    assert forced_action(state, 0) is None


@pytest.mark.parametrize("seats", [2, 4, 7])
def test_forced_is_the_only_legal_action_of_the_seat_to_act(seats: int) -> None:
    rng = random.Random(seats)
    seen = 0
    for game in range(10):
        state, _ = new_game(Options(seats=seats), f"forced-{seats}-{game}")
        while not state.over:
            for seat in range(seats):
                if seat != state.current:
                    assert forced_action(state, seat) is None
            legal = legal_actions(state, state.current)
            forced = forced_action(state, state.current)
            if forced is not None:
                seen += 1
                assert list(legal) == [forced]
            state, _ = apply(state, state.current, rng.choice(list(legal)))
    assert seen > 0
