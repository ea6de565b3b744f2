"""Leaving a game: the cards go under the draw pile, the round goes on or ends."""

from __future__ import annotations

import pytest

from flip import DARK, DRAW, LEAVE, LIGHT, PASS, Action, Options, RuleError, apply, legal_actions
from flip.cards import sorted_hand
from tests.flip.stacking import all_cards, choose, faces, play, position, stacked_game, top_first

LEAVE_ACTION = Action(LEAVE)


def _table(**kw: object):
    return position(
        [["flame-1", "sun-2"], ["wave-9", "wild", "leaf-3", "flame-skip"], ["sun-4"], ["leaf-8"]],
        ["flame-7"],
        ["wave-5"],
        **kw,  # type: ignore[arg-type]
    )


def test_leaving_a_game_out_of_turn() -> None:
    state = _table()
    hand = state.hands[1][:]
    after, events = apply(state, 1, LEAVE_ACTION)
    assert events == [{"type": "leave", "seat": 1, "count": 4}]
    assert after.active == [True, False, True, True]
    assert after.hands[1] == []
    assert after.current == 0 and after.turn == state.turn
    assert after.left_order == [1]
    assert after.left_points[1] == 9 + 40 + 3 + 20
    assert sorted(after.draw[:4]) == sorted(hand)
    assert all_cards(after) == list(range(112))
    # The seat takes no further part: play passes over it.
    played, _ = apply(after, 0, play(after.hands[0][0]))
    assert played.current == 2
    with pytest.raises(RuleError) as info:
        apply(played, 1, LEAVE_ACTION)
    assert info.value.code == "seat_not_in_game"
    assert legal_actions(played, 1) == []


def test_leaving_a_game_cards_go_under_the_draw_pile_in_sorted_order() -> None:
    state = _table()
    after, _ = apply(state, 1, LEAVE_ACTION)
    ordered = sorted_hand(state.hands[1], LIGHT)
    # Ruling 9: read from the top, the pile ends with the hand's first card,
    # then its second, and so on, the hand's last card at the very bottom.
    assert top_first(after.draw)[-4:] == ordered
    assert faces(top_first(after.draw)[-4:], LIGHT) == ["flame-skip", "leaf-3", "wave-9", "wild"]
    assert top_first(after.draw)[: len(state.draw)] == top_first(state.draw)


def test_leaving_a_game_cards_sorted_on_the_side_in_play() -> None:
    state = position(
        [["moon-1"], ["star-1", "gem-9", "dark-wild", "moon-reverse"], ["bolt-2"]],
        ["moon-7"],
        side=DARK,
    )
    after, _ = apply(state, 1, LEAVE_ACTION)
    bottom = top_first(after.draw)[-4:]
    assert faces(bottom, DARK) == ["moon-reverse", "gem-9", "star-1", "dark-wild"]


def test_leaving_a_game_in_turn() -> None:
    state = _table()
    after, _ = apply(state, 0, LEAVE_ACTION)
    assert after.current == 1
    assert after.turn == state.turn + 1
    assert after.pending is None


def test_leaving_a_game_in_turn_against_the_direction() -> None:
    state = _table(direction=-1)
    after, _ = apply(state, 0, LEAVE_ACTION)
    assert after.current == 3


def test_leaving_a_game_during_a_pending_drawn_card() -> None:
    state = position([["flame-1", "leaf-2"], ["wave-1"], ["wave-2"]], ["sun-7"], ["sun-8"])
    drawn_state, _ = apply(state, 0, Action(DRAW))
    assert drawn_state.pending == "play_drawn"
    drawn = drawn_state.drawn
    after, _ = apply(drawn_state, 0, LEAVE_ACTION)
    assert after.pending is None
    assert after.drawn == -1
    assert after.current == 1
    assert drawn in after.draw[:3]
    assert legal_actions(after, 1) == [Action(DRAW)]


def test_leaving_a_game_while_choosing_a_colour_the_choice_passes_on() -> None:
    state, _ = stacked_game([[], ["sun-1"], ["sun-2"]], "wild")
    assert state.pending == "choose_color" and state.current == 1
    after, _ = apply(state, 1, LEAVE_ACTION)
    assert after.pending == "choose_color"
    assert after.current == 2
    assert legal_actions(after, 2) == [choose(c) for c in ("red", "yellow", "green", "blue")]
    chosen, _ = apply(after, 2, choose("yellow"))
    assert chosen.current == 2 and chosen.color == 1


def test_leaving_a_game_while_choosing_after_a_flip() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6"], ["star-2"]], ["dark-wild", "sun-8"], ["wave-5"]
    )
    flipped, _ = apply(state, 0, play(state.hands[0][0]))
    assert flipped.pending == "choose_color" and flipped.current == 1
    after, _ = apply(flipped, 1, LEAVE_ACTION)
    assert after.pending == "choose_color"
    assert after.current == 2


def test_leaving_a_game_someone_else_leaves_while_the_colour_is_chosen() -> None:
    state, _ = stacked_game([[], ["sun-1"], ["sun-2"], ["sun-3"]], "wild")
    after, _ = apply(state, 3, LEAVE_ACTION)
    assert after.pending == "choose_color" and after.current == 1


@pytest.mark.parametrize("scoring", ["single", "target"])
def test_leaving_a_game_last_player_left_wins_at_once(scoring: str) -> None:
    options = Options(seats=3, scoring=scoring, target=500)
    state = position(
        [["flame-1"], ["wave-9"], ["sun-4"]],
        ["flame-7"],
        options=options,
        scores=[120, 300, 0],
    )
    state, _ = apply(state, 2, LEAVE_ACTION)
    assert not state.over
    after, events = apply(state, 1, LEAVE_ACTION)
    assert after.over
    assert after.winner == 0
    assert after.results[-1]["points"] == 0
    assert after.results[-1]["interrupted"] is True
    assert after.scores == [120, 300, 0]  # no points for the interrupted round
    assert [e["type"] for e in events] == ["leave", "round_end", "game_over"]
    # Scores already had are kept for the ranking, but leavers rank below.
    ranks = [(entry["seat"], entry["rank"], entry["left"]) for entry in after.ranking]
    assert ranks == [(0, 1, False), (1, 2, True), (2, 3, True)]


def test_leaving_a_game_two_remain_the_round_goes_on() -> None:
    state = _table()
    state, _ = apply(state, 3, LEAVE_ACTION)
    state, _ = apply(state, 2, LEAVE_ACTION)
    assert not state.over
    assert state.players_left == 2


def test_leaving_a_game_after_game_over_is_refused() -> None:
    state = position([["flame-1"], ["wave-9"]], ["flame-7"])
    over, _ = apply(state, 0, play(state.hands[0][0]))
    assert over.over
    before = over.copy()
    for seat in (0, 1):
        with pytest.raises(RuleError) as info:
            apply(over, seat, LEAVE_ACTION)
        assert info.value.code == "game_over"
    assert over == before


@pytest.mark.parametrize("leaver", [2, 3])
def test_leaving_a_game_cards_under_the_pile_mean_the_round_is_not_blocked(leaver: int) -> None:
    # Seats 0 and 1 have passed (nothing to play, nothing to draw). A player
    # leaves and their cards go under the empty draw pile: something can be
    # drawn again, so the round is not blocked ("A round nobody can finish":
    # nobody can play AND nothing can be drawn) and the remaining players draw.
    state = position(
        [["flame-1"], ["wave-1"], ["leaf-2", "wave-9"], ["leaf-4"]],
        ["sun-7"],
        [],
        rest="none",
    )
    state, _ = apply(state, 0, Action(PASS))
    state, _ = apply(state, 1, Action(PASS))
    assert state.current == 2
    after, events = apply(state, leaver, LEAVE_ACTION)
    assert [e["type"] for e in events] == ["leave"]
    assert not after.over
    assert after.passed == []
    assert after.draw
    assert after.current == (3 if leaver == 2 else 2)
    assert legal_actions(after, after.current) == [Action(DRAW)]


def test_leaving_a_game_the_round_still_blocks_once_everyone_left_passes_again() -> None:
    state = position(
        [["flame-1"], ["wave-1"], ["leaf-2"]],
        ["sun-7"],
        [],
        rest="none",
    )
    state, _ = apply(state, 0, Action(PASS))
    state, _ = apply(state, 2, LEAVE_ACTION)  # out of turn; its Green 2 goes under the pile
    assert state.current == 1 and not state.over
    state, _ = apply(state, 1, Action(DRAW))  # Blue 1 draws the Green 2: not playable
    assert state.current == 0
    state, _ = apply(state, 0, Action(PASS))
    state, events = apply(state, 1, Action(PASS))
    assert state.over and state.winner is None
    assert state.results[-1]["blocked"] is True
    assert events[-1]["type"] == "game_over"
