"""The flip: piles reversed, the side changes, the colour comes from the new top."""

from __future__ import annotations

import pytest

from flip import DARK, DRAW, LIGHT, Action, Options, RuleError, apply, legal_actions, view
from flip.cards import CODE_OF, sorted_hand
from flip.views import card_for_handle, handle
from tests.flip.stacking import all_cards, choose, faces, play, position, refused, top_first


def test_the_flip_light_to_dark() -> None:
    state = position(
        [["leaf-flip", "leaf-3"], ["star-6", "gem-2"], ["wave-1"]],
        ["flame-4/moon-skip-everyone", "sun-2", "leaf-9"],
        ["wave-5", "wave-6"],
    )
    flip_card = state.hands[0][0]
    before_draw = state.draw[:]
    after, events = apply(state, 0, play(flip_card))
    assert after.side == DARK
    assert after.discard == [flip_card, *state.discard[::-1]]
    assert after.draw == before_draw[::-1]
    assert after.color == 4  # the new top shows Magenta Skip Everyone
    assert after.current == 1
    assert after.flips == 1
    assert events[-1] == {"type": "flip", "side": DARK}
    assert all_cards(after) == list(range(112))
    # Hand sizes do not change; every hand is read again on the new side.
    assert [len(h) for h in after.hands] == [1, 2, 1]
    # Cyan 6 and Purple 2 match neither Magenta nor a Skip Everyone: draw.
    assert legal_actions(after, 1) == [Action(DRAW)]


def test_the_flip_no_effect_fires_for_the_new_top_card() -> None:
    # The old bottom card shows a Draw Five on the dark side: nobody draws,
    # and the next player is not skipped.
    state = position(
        [["sun-flip", "sun-3"], ["gem-6", "star-2"], ["wave-1"]],
        ["flame-2/star-draw-five", "sun-8"],
        ["wave-5"],
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert CODE_OF[DARK][after.discard[-1]] == "star-draw-five"
    assert [e["type"] for e in events] == ["play", "flip"]
    assert after.current == 1
    assert [len(h) for h in after.hands] == [1, 2, 1]
    # It only supplies its colour and its action for matching.
    assert after.color == 7
    assert [CODE_OF[DARK][a.card] for a in legal_actions(after, 1)] == ["star-2"]


@pytest.mark.parametrize(
    "effect", ["star-skip-everyone", "moon-reverse", "wild-draw-color", "gem-flip"]
)
def test_the_flip_no_effect_for_any_action_card_that_becomes_top(effect: str) -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6", "star-2"], ["wave-1"]],
        [effect, "sun-8"],
        ["wave-5"],
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert [e["type"] for e in events] == ["play", "flip"]
    assert after.current == 1
    assert after.direction == 1
    assert after.side == DARK


@pytest.mark.parametrize("top", ["dark-wild", "wild-draw-color"])
def test_the_flip_wild_on_top_next_player_chooses_a_colour_first(top: str) -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6", "star-2"], ["wave-1"]],
        [top, "sun-8"],
        ["wave-5"],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.pending == "choose_color"
    assert after.color == -1
    assert after.current == 1
    assert legal_actions(after, 1) == [choose(c) for c in ("magenta", "cyan", "orange", "purple")]
    assert refused(after, 1, play(after.hands[1][0])) == "color_must_be_chosen_first"
    assert refused(after, 1, Action(DRAW)) == "color_must_be_chosen_first"
    assert refused(after, 1, choose("red")) == "color_not_in_side"
    chosen, _ = apply(after, 1, choose("cyan"))
    assert chosen.current == 1 and chosen.pending is None
    played, _ = apply(chosen, 1, play(after.hands[1][0]))
    assert played.current == 2


@pytest.mark.parametrize("direction", [1, -1])
def test_the_flip_direction_of_play_does_not_change(direction: int) -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6"], ["wave-1"], ["wave-2"]],
        ["leaf-1/bolt-5", "sun-8"],
        direction=direction,
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.direction == direction
    assert after.current == (1 if direction == 1 else 3)


def test_the_flip_dark_to_light() -> None:
    state = position(
        [["moon-flip", "moon-3"], ["sun-6"], ["wave-1"]],
        ["sun-7", "moon-8"],
        ["wave-5", "wave-6"],
        side=DARK,
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.side == LIGHT
    assert CODE_OF[LIGHT][after.discard[-1]] == "sun-7"
    assert after.color == 1
    assert after.current == 1
    assert [CODE_OF[LIGHT][a.card] for a in legal_actions(after, 1)] == ["sun-6"]


def test_the_flip_matches_another_flip_and_back_and_forth() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["moon-flip", "gem-6"], ["wave-1"]],
        ["moon-2", "leaf-flip"],
        ["wave-5"],
    )
    # A Yellow Flip on a Green Flip: the same action.
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.side == DARK
    assert CODE_OF[DARK][after.discard[-1]] == "moon-2"
    # And back: a Magenta Flip on Magenta 2 turns the table to the light side.
    back, _ = apply(after, 1, play(after.hands[1][0]))
    assert back.side == LIGHT
    assert back.flips == 2
    assert faces(back.discard, LIGHT)[-1] == "sun-flip"
    assert back.color == 1
    assert back.current == 2


def test_the_flip_a_winning_flip_does_not_flip() -> None:
    state = position([["leaf-flip"], ["sun-6", "sun-7"]], ["leaf-2", "leaf-9"], ["wave-5"])
    discard = state.discard[:]
    draw = state.draw[:]
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.over
    assert after.side == LIGHT
    assert after.discard == [*discard, state.hands[0][0]]
    assert after.draw == draw
    assert after.results[0]["side"] == LIGHT
    assert after.results[0]["points"] == 13
    assert "flip" not in [e["type"] for e in events]


def test_the_flip_handles_change_after_a_flip() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6", "star-2", "bolt-3"], ["wave-1"]],
        ["leaf-1/bolt-5", "sun-8"],
    )
    before = {entry["card"] for entry in view(state, 1)["hand"]}
    after, _ = apply(state, 0, play(state.hands[0][0]))
    now = {entry["card"] for entry in view(after, 1)["hand"]}
    assert len(now) == 3
    assert before.isdisjoint(now)
    for name in before:
        with pytest.raises(RuleError) as info:
            card_for_handle(after, 1, name)
        assert info.value.code == "card_not_in_hand"
    for c in after.hands[1]:
        assert card_for_handle(after, 1, handle(after, c)) == c
    # Handles are stable while the table does not flip.
    moved, _ = apply(after, 1, play(after.hands[1][2]))
    assert {entry["card"] for entry in view(moved, 1)["hand"]} < now


def test_the_flip_every_hand_is_sorted_again_on_the_new_side() -> None:
    state = position(
        [
            ["sun-flip", "sun-3"],
            ["flame-1/moon-3", "flame-2/star-draw-five", "wild/gem-3"],
            ["wave-1"],
        ],
        ["leaf-1/bolt-5", "sun-8"],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    shown = [entry["face"] for entry in view(after, 1)["hand"]]
    assert shown == faces(sorted_hand(after.hands[1], DARK), DARK)
    assert shown == ["moon-3", "gem-3", "star-draw-five"]
    assert [entry["face"] for entry in view(state, 1)["hand"]] == ["flame-1", "flame-2", "wild"]


def test_the_flip_reverses_the_whole_draw_pile() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6"]],
        ["leaf-1/bolt-5", "sun-8"],
        options=Options(seats=2),
    )
    bottom_first = state.draw[:]
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert top_first(after.draw) == bottom_first


def test_the_flip_with_two_players_passes_the_turn_to_the_other_player() -> None:
    state = position([["sun-flip", "sun-3"], ["gem-6"]], ["leaf-1/bolt-5", "sun-8"])
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.side == DARK
    assert after.current == 1
    assert after.color == 6
