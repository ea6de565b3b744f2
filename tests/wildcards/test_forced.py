"""Forced moves (issue 38): the one move a seat must make, named after the sections
that force it. ``forced_action`` says which; the service plays it at once only for a
player who asked for that."""

from __future__ import annotations

import random

import pytest

from wildcards import DRAW, Action, Options, apply, legal_actions, new_game
from wildcards.forced import forced_action

from .tables import card, table


def test_playing_a_card_cannot_play_means_draw_is_forced() -> None:
    """ "If you cannot play, you draw exactly one card": the draw is forced."""
    state = table([["blue-1", "blue-2"], ["green-3"]], "red-5", draw_top=["red-7"])
    assert forced_action(state, 0) == Action(DRAW)


def test_playing_a_card_two_playable_cards_are_a_choice() -> None:
    """A player who can play two cards chooses which: nothing is forced."""
    state = table([["red-1", "blue-5"], ["green-3"]], "red-5")
    assert forced_action(state, 0) is None


def test_playing_a_card_a_player_who_can_play_must_play_their_one_card() -> None:
    """ "A player who can play must still play": one playable card is the only action."""
    state = table([["red-1", "blue-2"], ["green-3"]], "red-5")
    assert forced_action(state, 0) == Action("play", card(state, 0, "red-1"))


def test_ruling_9_the_drawn_card_that_must_be_played_is_forced() -> None:
    """ "A card you draw and can play must be played at once": forced, as the only action."""
    state = table([["blue-1", "blue-2"], ["green-3"]], "red-5", draw_top=["red-7"])
    state, _ = apply(state, 0, Action(DRAW))
    assert forced_action(state, 0) == Action("play", card(state, 0, "red-7"))


def test_ruling_9_a_drawn_wild_needs_its_colour_so_is_not_forced() -> None:
    """A drawn Wild must be played, but its colour is the player's choice."""
    state = table([["blue-1", "blue-2"], ["green-3"]], "red-5", draw_top=["wild"])
    state, _ = apply(state, 0, Action(DRAW))
    assert len(legal_actions(state, 0)) == 4
    assert forced_action(state, 0) is None


def test_house_rule_seven_zero_a_drawn_seven_needs_a_target() -> None:
    """With 7-0, a drawn 7 is played with a target chosen among three others: a choice."""
    state = table(
        [["blue-1"], ["green-3"], ["green-4"], ["green-6"]],
        "red-5",
        draw_top=["red-7"],
        seven_zero=True,
    )
    state, _ = apply(state, 0, Action(DRAW))
    assert forced_action(state, 0) is None


def test_house_rule_stacking_a_penalty_nothing_answers_is_forced() -> None:
    """With stacking, a waiting penalty with no Draw card to answer it must be taken."""
    state = table([["red-draw2", "red-1"], ["green-3"], ["blue-4"]], "red-5", stacking=True)
    state, _ = apply(state, 0, Action("play", card(state, 0, "red-draw2")))
    assert forced_action(state, 1) == Action("take_penalty")


def test_house_rule_stacking_a_penalty_that_can_be_answered_is_a_choice() -> None:
    state = table(
        [["red-draw2", "red-1"], ["green-draw2", "green-3"], ["blue-4"]], "red-5", stacking=True
    )
    state, _ = apply(state, 0, Action("play", card(state, 0, "red-draw2")))
    assert forced_action(state, 1) is None


@pytest.mark.parametrize("seats", [2, 4, 7])
def test_forced_is_the_only_legal_action_of_the_seat_to_act(seats: int) -> None:
    """Over random games under every house rule: a forced action is the seat's only
    legal one and is never asked of a seat that is not to act."""
    rng = random.Random(seats)
    options = Options(
        seats=seats, stacking=True, seven_zero=True, jump_in=True, draw_until_playable=True
    )
    forced_seen = 0
    for game in range(10):
        state, _ = new_game(options, f"forced-{seats}-{game}")
        while not state.over:
            for seat in range(seats):
                if seat != state.current:
                    assert forced_action(state, seat) is None
            legal = legal_actions(state, state.current)
            forced = forced_action(state, state.current)
            if forced is not None:
                forced_seen += 1
                assert list(legal) == [forced]
            state, _ = apply(state, state.current, rng.choice(list(legal)))
    assert forced_seen > 0
