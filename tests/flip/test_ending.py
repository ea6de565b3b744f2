"""How it ends: scoring, penalties of a last card, blocked rounds, targets, ranking."""

from __future__ import annotations

import pytest

from flip import DARK, DRAW, LIGHT, PASS, Action, GameState, Options, apply
from flip.cards import POINTS_OF, hand_points
from tests.flip.stacking import all_cards, deal_order, faces, play, position

TARGET = Options(seats=3, scoring="target", target=250)


def _points(state: GameState, seats: list[int], side: int) -> int:
    return sum(hand_points(state.hands[i], side) for i in seats)


def test_scoring_on_the_scored_side_light() -> None:
    state = position(
        [["leaf-4"], ["sun-draw-one", "wild", "flame-9"], ["wild-draw-two", "wave-skip"]],
        ["leaf-8"],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.results[0]["points"] == 10 + 40 + 9 + 50 + 20 == after.scores[0]
    assert after.results[0]["side"] == LIGHT
    # The other players do not change their scores.
    assert after.scores[1:] == [0, 0]


def test_scoring_on_the_scored_side_dark_values_the_faces_of_that_side() -> None:
    state = position(
        [["bolt-4"], ["star-draw-five", "dark-wild"], ["gem-reverse", "moon-9"]],
        ["bolt-8"],
        side=DARK,
    )
    expected_dark = _points(state, [1, 2], DARK)
    assert expected_dark == 20 + 40 + 20 + 9
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.scores[0] == expected_dark
    assert expected_dark != _points(state, [1, 2], LIGHT)


@pytest.mark.parametrize(
    ("last", "side", "drawn"),
    [
        ("flame-draw-one", LIGHT, 1),
        ("wild-draw-two", LIGHT, 2),
        ("moon-draw-five", DARK, 5),
    ],
)
def test_scoring_a_last_penalty_card_is_drawn_and_counted(last: str, side: int, drawn: int) -> None:
    top = "flame-8" if side == LIGHT else "moon-8"
    draw = ["leaf-9", "leaf-8", "leaf-7", "leaf-6", "leaf-5", "leaf-4"]
    state = position([[last], ["wave-1"], ["wave-2"]], [top], draw, side=side)
    color = None if "wild" not in last else "red"
    after, events = apply(state, 0, play(state.hands[0][0], color))
    assert len(after.hands[1]) == 1 + drawn
    assert after.results[0]["points"] == _points(after, [1, 2], side)
    draw_event = next(e for e in events if e["type"] == "draw")
    assert draw_event["seat"] == 1 and len(draw_event["cards"]) == drawn
    assert "turn_lost" not in [e["type"] for e in events]
    assert after.over and after.winner == 0


def test_scoring_a_last_wild_draw_color_winner_chooses_and_drawn_cards_count() -> None:
    state = position(
        [["wild-draw-color"], ["moon-1"], ["moon-2"]],
        ["bolt-8"],
        ["star-9", "dark-wild", "gem-9", "bolt-1"],
        side=DARK,
    )
    after, _ = apply(state, 0, play(state.hands[0][0], "cyan"))
    assert faces(after.hands[1], DARK) == ["moon-1", "star-9", "dark-wild", "gem-9"]
    assert after.scores[0] == 1 + 9 + 40 + 9 + 2
    assert after.results[0]["side"] == DARK


@pytest.mark.parametrize(
    ("last", "side", "top"),
    [
        ("sun-reverse", LIGHT, "sun-1"),
        ("sun-skip", LIGHT, "sun-1"),
        ("wild", LIGHT, "sun-1"),
        ("sun-5", LIGHT, "sun-1"),
        ("gem-skip-everyone", DARK, "gem-1"),
        ("gem-reverse", DARK, "gem-1"),
        ("dark-wild", DARK, "gem-1"),
    ],
)
def test_scoring_other_last_cards_have_no_effect(last: str, side: int, top: str) -> None:
    state = position([[last], ["wave-1"], ["wave-2"]], [top], side=side)
    color = "blue" if last == "wild" else "purple" if last == "dark-wild" else None
    after, events = apply(state, 0, play(state.hands[0][0], color))
    assert [e["type"] for e in events] == ["play", "round_end", "game_over"]
    assert after.direction == 1


def test_scoring_single_round_the_game_ends_with_the_first_won_round() -> None:
    state = position([["flame-1"], ["wave-1"]], ["flame-2"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.over and after.winner == 0
    assert after.scores == [POINTS_OF[LIGHT][after.hands[1][0]], 0] == [1, 0]
    assert events[-1]["type"] == "game_over"
    # Ruling 12: every hand left is shown in the round's result.
    assert after.results[0]["hands"] == [
        {"seat": 0, "cards": [], "points": 0},
        {"seat": 1, "cards": after.hands[1], "points": 1},
    ]


def _blocked(options: Options) -> GameState:
    # Nobody can play and nothing can be drawn.
    return position(
        [["flame-1"], ["wave-1"], ["leaf-2"]], ["sun-7"], [], options=options, rest="none"
    )


def test_a_round_nobody_can_finish_single_round() -> None:
    state = _blocked(Options(seats=3))
    for seat in (0, 1):
        state, events = apply(state, seat, Action(PASS))
        assert not state.over
    state, events = apply(state, 2, Action(PASS))
    assert [e["type"] for e in events] == ["pass", "round_end", "game_over"]
    assert state.over and state.winner is None
    assert state.results[0]["blocked"] is True
    assert state.results[0]["winner"] is None
    assert state.results[0]["points"] == 0
    assert state.scores == [0, 0, 0]


def test_a_round_nobody_can_finish_target_a_new_round_is_dealt() -> None:
    state = _blocked(TARGET)
    state.scores = [100, 50, 0]
    state, _ = apply(state, 0, Action(PASS))
    state, _ = apply(state, 1, Action(PASS))
    order = deal_order([[], [], []], "leaf-3", dealer=1)
    after, events = apply(state, 2, Action(PASS), shuffles=iter([order]))
    assert [e["type"] for e in events] == ["pass", "round_end", "shuffle", "round_start", "starter"]
    assert not after.over
    assert after.round == 2
    assert after.dealer == 1
    assert after.current == 2
    assert after.scores == [100, 50, 0]  # nothing scored
    assert after.results[-1]["blocked"] is True
    assert after.passed == []
    assert all_cards(after) == list(range(112))


def test_a_round_nobody_can_finish_two_players() -> None:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    state, _ = apply(state, 0, Action(PASS))
    assert not state.over and state.current == 1
    state, _ = apply(state, 1, Action(PASS))
    assert state.over and state.winner is None


def test_a_round_nobody_can_finish_a_play_in_between_starts_the_count_again() -> None:
    state = position([["flame-1"], ["sun-1", "wave-2"], ["leaf-2"]], ["sun-7"], [], rest="none")
    state, _ = apply(state, 0, Action(PASS))
    assert state.passed == [0]
    state, _ = apply(state, 1, play(state.hands[1][0]))
    assert state.passed == []
    # Seat 2 must now draw (the Yellow 7 under the top) and play it.
    state, _ = apply(state, 2, Action(DRAW))
    assert state.pending == "play_drawn"
    state, _ = apply(state, 2, play(state.drawn))
    assert not state.over
    assert state.passed == []


def test_how_it_ends_target_score_carried_over_and_reached() -> None:
    state = position(
        [["flame-1"], ["wild-draw-two", "wave-9"], ["sun-1"]],
        ["flame-2"],
        options=TARGET,
        scores=[190, 240, 0],
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.scores == [190 + 59 + 1, 240, 0]
    assert after.over and after.winner == 0
    assert events[-1]["type"] == "game_over"


def test_how_it_ends_target_not_reached_next_round() -> None:
    state = position(
        [["flame-1"], ["wave-9"], ["sun-1"]],
        ["flame-2"],
        options=TARGET,
        scores=[100, 240, 0],
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.scores == [110, 240, 0]
    assert not after.over
    assert after.round == 2
    assert "round_start" in [e["type"] for e in events]


@pytest.mark.parametrize("target", [250, 500, 1000])
def test_options_target_score_values(target: int) -> None:
    options = Options(seats=2, scoring="target", target=target)
    state = position([["flame-1"], ["wild"]], ["flame-2"], options=options, scores=[target - 40, 0])
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.over and after.scores[0] == target


def test_options_defaults() -> None:
    options = Options()
    assert options.scoring == "single"
    assert options.target == 500
    assert options.two_seat_reverse_skips is True
    for bad in ({"seats": 1}, {"seats": 11}, {"target": 300}, {"scoring": "best-of-3"}):
        with pytest.raises(ValueError):
            Options(**bad)  # type: ignore[arg-type]


# --- Ranking ---------------------------------------------------------------------


def _ranks(state: GameState) -> list[tuple[int, int]]:
    return [(entry["seat"], entry["rank"]) for entry in state.ranking]


def test_ranking_leavers_below_stayers_then_points_in_hand() -> None:
    state = position(
        [["flame-1"], ["wave-9"], ["sun-3"], []],
        ["flame-2"],
        options=Options(seats=4),
        active=[True, True, True, False],
        left_points=[None, None, None, 0],
        left_order=[3],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    # Winner first, then fewer points in hand, the leaver last despite 0 points.
    assert _ranks(after) == [(0, 1), (2, 2), (1, 3), (3, 4)]
    assert after.ranking[3]["left"] is True
    assert after.ranking[1]["points_in_hand"] == 3


def test_ranking_higher_score_ranks_higher_and_equals_share_a_rank() -> None:
    state = position(
        [["flame-1"], ["wave-9"], ["sun-9"], ["leaf-4", "leaf-5"], ["sun-2"]],
        ["flame-2"],
        options=Options(seats=5, scoring="target", target=250),
        scores=[240, 100, 100, 100, 200],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.over and after.winner == 0
    # Seat 4 has the higher score; seats 1, 2 and 3 have equal scores and
    # equal points in hand (9), so they share third place.
    assert _ranks(after) == [(0, 1), (4, 2), (1, 3), (2, 3), (3, 3)]


def test_ranking_blocked_single_round_no_winner() -> None:
    state = position([["flame-1"], ["wave-9"], ["leaf-2"]], ["sun-7"], [], rest="none")
    for seat in (0, 1, 2):
        state, _ = apply(state, seat, Action(PASS))
    assert state.winner is None
    assert _ranks(state) == [(0, 1), (2, 2), (1, 3)]
