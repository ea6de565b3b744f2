"""Rules tests, each named after the section of the text or the ruling it checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from wildcards import (
    CODE_OF,
    DRAW,
    LEAVE,
    PASS,
    PENDING_COLOR,
    PENDING_DRAWN,
    PENDING_PENALTY,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    events_view,
    legal_actions,
    new_game,
    timeout_action,
    view,
    watcher_view,
)
from wildcards.cards import COLORS

from .tables import card, deck_order, faces, play, table


def _refused(state: GameState, seat: int, action: Action) -> str:
    """The code ``action`` is refused with; the state is checked unchanged (R33)."""
    snapshot = state.to_dict()
    try:
        apply(state, seat, action)
    except RuleError as error:
        assert state.to_dict() == snapshot
        return error.code
    raise AssertionError(f"{action} by seat {seat} was accepted")


def _start(
    hands: list[list[str]], starter: str, draw_top: Sequence[str] = (), **options: Any
) -> tuple[GameState, list[dict[str, Any]]]:
    order = deck_order(hands, starter, draw_top)
    return new_game(Options(seats=len(hands), **options), "start", shuffles=iter([order]))


# ----------------------------------------------------------------------------
# The cards


def test_ruling_2_card_ids_and_hand_order() -> None:
    """Ids 0..107 in the order of R2, so that sorting ids sorts a hand (sorted_hand)."""
    from wildcards.cards import KIND_OF, POINTS_OF, SORT_OF

    assert list(SORT_OF) == sorted(SORT_OF)
    assert [CODE_OF[c] for c in (0, 1, 2, 18, 19, 21, 23, 25, 100, 104)] == [
        "red-0", "red-1", "red-1", "red-9", "red-skip", "red-reverse", "red-draw2", "yellow-0",
        "wild", "wild-draw4",
    ]  # fmt: skip
    assert [KIND_OF.count(k) for k in range(6)] == [76, 8, 8, 8, 4, 4]
    assert sum(POINTS_OF) == 4 * (2 * 45 + 6 * 20) + 8 * 50


# ----------------------------------------------------------------------------
# Setup


@pytest.mark.parametrize("seats", range(2, 11))
def test_setup_draw_pile_after_the_deal(seats: int) -> None:
    """The table of section "The cards": 93 cards left for 2 players ... 37 for 10."""
    state, _ = _start([[]] * seats, "red-5")
    assert [len(h) for h in state.hands] == [7] * seats
    assert len(state.draw) == 108 - 7 * seats - 1
    assert state.current == 1 % seats and state.turn == 1


def test_setup_deal_one_at_a_time_from_after_the_dealer() -> None:
    """R3: the first card to the seat after the dealer."""
    order = deck_order([[]] * 3, "red-5")
    state, _ = new_game(Options(seats=3), "x", shuffles=iter([order]))
    assert state.hands[1][0] == order[0] and state.hands[2][0] == order[1]
    assert state.hands[0][0] == order[2]


def test_setup_starter_skip() -> None:
    state, events = _start([[]] * 3, "blue-skip")
    assert state.current == 2
    assert {"type": "turn_lost", "seat": 1} in events


def test_setup_starter_reverse_three_players() -> None:
    state, _ = _start([[]] * 3, "blue-reverse")
    assert state.current == 0 and state.direction == -1


def test_setup_starter_reverse_two_players_ruling_7() -> None:
    state, _ = _start([[]] * 2, "blue-reverse")
    assert state.current == 0 and state.direction == 1


def test_setup_starter_draw2_ruling_5() -> None:
    """The first player draws two at once and loses the turn, even with stacking on."""
    state, _ = _start([[]] * 3, "green-draw2", stacking=True)
    assert len(state.hands[1]) == 9 and state.current == 2
    assert state.pending is None and state.penalty == 0


def test_setup_starter_wild_ruling_6() -> None:
    blues = ["blue-1", "blue-2", "blue-3", "blue-4", "yellow-3", "green-4", "red-2"]
    state, _ = _start([["red-1"], blues, []], "wild")
    assert state.current == 1 and state.pending == PENDING_COLOR
    assert legal_actions(state, 1) == [Action("choose_color", color=c) for c in range(4)]
    assert _refused(state, 1, Action(DRAW)) == "choose_color_first"
    assert timeout_action(state) == Action("choose_color", color=3)  # blue held most
    turn = state.turn
    state, _ = apply(state, 1, Action("choose_color", color=2))
    assert state.current == 1 and state.color == 2 and state.turn == turn
    assert _refused(state, 1, Action("choose_color", color=2)) == "no_color_to_choose"


def test_setup_starter_wild_draw4_returned_ruling_4() -> None:
    """A Wild Draw 4 starter goes back, the draw pile is reshuffled, a new card is turned."""
    order = deck_order([[]] * 2, "wild-draw4")
    deal_pile = order[14:]  # the draw pile with the Wild Draw 4 back in it
    again = [c for c in deal_pile if CODE_OF[c] == "blue-9"][:1] + [
        c for c in deal_pile if c != next(d for d in deal_pile if CODE_OF[d] == "blue-9")
    ]
    state, events = new_game(Options(seats=2), "x", shuffles=iter([order, again]))
    assert CODE_OF[state.discard[-1]] == "blue-9"
    assert [e["type"] for e in events[:5]] == [
        "shuffle",
        "round_start",
        "starter_returned",
        "shuffle",
        "starter",
    ]


def test_setup_starter_seven_zero_has_no_effect_ruling_7() -> None:
    state, events = _start([[]] * 3, "red-0", seven_zero=True)
    assert state.current == 1 and not [e for e in events if e["type"] == "rotate"]


# ----------------------------------------------------------------------------
# Action cards and rulings


def test_ruling_8_two_player_reverse_is_a_skip() -> None:
    state = table([["red-reverse", "red-1"], ["blue-1"]], "red-5")
    state, events = play(state, 0, "red-reverse")
    assert state.current == 0 and state.direction == 1
    assert {"type": "turn_lost", "seat": 1} in events


def test_action_cards_reverse_three_players() -> None:
    state = table([["red-reverse", "red-1"], ["blue-1"], ["blue-2"]], "red-5")
    state, _ = play(state, 0, "red-reverse")
    assert state.current == 2 and state.direction == -1


def test_action_cards_skip_and_draw2() -> None:
    state = table([["red-skip", "red-draw2", "red-1"], ["blue-1"], ["blue-2"]], "red-5")
    after, _ = play(state, 0, "red-skip")
    assert after.current == 2
    after, _ = play(state, 0, "red-draw2")
    assert after.current == 2 and len(after.hands[1]) == 3


def test_ruling_9_drawn_card_is_the_only_action() -> None:
    state = table([["blue-1", "blue-2"], ["green-3"]], "red-5", draw_top=["red-7"])
    state, _ = apply(state, 0, Action(DRAW))
    assert state.pending == PENDING_DRAWN
    assert _refused(state, 0, Action(DRAW)) == "must_play_drawn_card"
    assert _refused(state, 0, Action(PASS)) == "must_play_drawn_card"
    assert timeout_action(state) == Action("play", card(state, 0, "red-7"))
    assert view(state, 0)["pending"]["face"] == "red-7"  # type: ignore[index]
    assert "face" not in view(state, 1)["pending"]  # type: ignore[operator]


def test_ruling_10_draw_until_playable() -> None:
    state = table(
        [["blue-1", "blue-2"], ["green-3"]],
        "red-5",
        draw_top=["green-1", "yellow-2", "red-9", "green-8"],
        draw_until_playable=True,
    )
    state, events = apply(state, 0, Action(DRAW))
    assert [CODE_OF[c] for c in events[-1]["cards"]] == ["green-1", "yellow-2", "red-9"]
    assert state.pending == PENDING_DRAWN and CODE_OF[state.drawn] == "red-9"


def test_ruling_11_draw_until_playable_does_not_change_penalties() -> None:
    state = table([["red-draw2", "red-1"], ["green-3"]], "red-5", draw_until_playable=True)
    state, _ = play(state, 0, "red-draw2")
    assert len(state.hands[1]) == 3


def test_ruling_12_penalty_without_stacking_lands_at_once() -> None:
    state = table([["red-draw2", "red-1"], ["green-draw2"], ["blue-1"]], "red-5")
    state, _ = play(state, 0, "red-draw2")
    assert state.pending is None and len(state.hands[1]) == 3 and state.current == 2
    assert _refused(state, 2, Action("take_penalty")) == "no_penalty"


def test_ruling_13_penalty_short_when_the_piles_are_empty() -> None:
    state = table(
        [["red-draw2", "red-1"], ["green-3"], ["blue-1"]], "red-5", draw_top=["green-4"], rest=False
    )
    state, events = play(state, 0, "red-draw2")
    # The draw pile held one card, the discard pile below its top one more (red-5).
    drawn = [e for e in events if e["type"] == "draw"][0]
    assert len(drawn["cards"]) == 2 and state.current == 2
    assert len(state.draw) == 0 and len(state.discard) == 1


def test_ruling_14_last_draw_card_with_stacking_counts_the_whole_penalty() -> None:
    state = table([["red-draw2", "green-1"], ["green-draw2"], ["blue-1"]], "red-5", stacking=True)
    state, _ = play(state, 0, "red-draw2")
    state, _ = play(state, 1, "green-draw2")  # its last card
    assert len(state.hands[2]) == 5
    assert state.results[-1]["points"] == sum(h["points"] for h in state.results[-1]["hands"])


def test_ruling_15_stacked_wild_draw4_skips_the_colour_test() -> None:
    state = table(
        [["wild-draw4", "green-1"], ["wild-draw4", "yellow-1"], ["blue-1"]],
        "yellow-5",
        stacking=True,
    )
    state, _ = play(state, 0, "wild-draw4", color="yellow")
    assert state.pending == PENDING_PENALTY
    state, _ = play(state, 1, "wild-draw4", color="red")  # holds Yellow 1: stacked, allowed
    assert state.penalty == 8 and state.current == 2 and state.color == 0


def test_ruling_16_jump_in_window_lasts_until_the_player_to_act_moves() -> None:
    state = table(
        [["red-5", "blue-9"], ["green-1", "green-2"], ["yellow-3"]],
        "red-5",
        current=1,
        jump_in=True,
    )
    # Seat 0 holds the identical Red 5: a jump-in, flagged in its view only.
    assert [a.card for a in legal_actions(state, 0)] == [card(state, 0, "red-5")]
    hand = {e["face"]: e for e in view(state, 0)["hand"]}
    assert hand["red-5"].get("jump_in") and hand["red-5"]["playable"]
    assert hand["blue-9"]["refusal"] == "jump_in_not_identical"
    assert view(state, 1)["jump_in_open"] and view(state, 2)["legal_actions"] == []
    # Seat 1 draws: the window closes.
    after, _ = apply(state, 1, Action(DRAW))
    assert legal_actions(after, 0) == []
    assert _refused(after, 0, Action("play", card(after, 0, "red-5"))) == "jump_in_closed"


def test_ruling_17_first_applied_action_wins() -> None:
    state = table(
        [["red-5", "blue-9"], ["red-1", "green-2"], ["yellow-3"]], "red-5", current=1, jump_in=True
    )
    jumped, events = play(state, 0, "red-5")
    assert events[0]["jump_in"] and jumped.current == 1  # the turn continues from seat 0
    assert _refused(jumped, 2, Action(DRAW)) == "not_your_turn"
    # The player who was to act (seat 1) lost that turn? No: seat 0's play passes it on to
    # seat 1 again in a three-seat game; a draw by seat 2 is refused.
    assert (
        _refused(jumped, 2, Action("play", card(jumped, 2, "yellow-3"))) == "jump_in_not_identical"
    )
    acted, _ = play(state, 1, "red-1")
    assert _refused(acted, 0, Action("play", card(acted, 0, "red-5"))) == "jump_in_closed"


def test_ruling_18_and_19_jump_in_on_your_own_card_and_reverse() -> None:
    state = table(
        [["red-reverse", "red-reverse", "blue-1"], ["green-1"], ["yellow-3"], ["blue-4"]],
        "red-1",
        jump_in=True,
    )
    state, _ = play(state, 0, "red-reverse")
    assert state.current == 3 and state.direction == -1
    state, events = play(state, 0, "red-reverse")  # on its own card, out of turn
    assert events[0]["jump_in"] and state.direction == 1 and state.current == 1


def test_ruling_20_jump_in_on_a_waiting_penalty() -> None:
    state = table(
        [["red-draw2", "blue-1"], ["green-1"], ["red-draw2", "yellow-3"], ["blue-4"]],
        "red-1",
        jump_in=True,
        stacking=True,
    )
    state, _ = play(state, 0, "red-draw2")
    assert state.current == 1 and state.penalty == 2
    state, _ = play(state, 2, "red-draw2")
    assert state.current == 3 and state.penalty == 4 and state.pending == PENDING_PENALTY


def test_ruling_20_wilds_never_jump_in() -> None:
    state = table(
        [["wild", "blue-1"], ["green-1"], ["wild"]], "wild", color="red", jump_in=True, current=1
    )
    assert legal_actions(state, 0) == [] and legal_actions(state, 2) == []


def test_ruling_22_seven_swaps_hands() -> None:
    state = table(
        [["red-7", "blue-1", "blue-2"], ["green-1"], ["yellow-3", "yellow-4"]],
        "red-5",
        seven_zero=True,
    )
    targets = sorted(a.target for a in legal_actions(state, 0) if CODE_OF[a.card] == "red-7")
    assert targets == [1, 2]
    assert _refused(state, 0, Action("play", card(state, 0, "red-7"))) == "target_required"
    assert _refused(state, 0, Action("play", card(state, 0, "red-7"), target=0)) == "bad_target"
    old = view(state, 0)["hand"][0]["card"]
    state, events = play(state, 0, "red-7", target=2)
    assert faces(state, 0) == ["yellow-3", "yellow-4"] and faces(state, 2) == ["blue-1", "blue-2"]
    assert {"type": "swap", "seats": [0, 2], "counts": [2, 2]} in events
    assert old not in str(view(state, 2))  # handles change with the exchange


def test_ruling_22_seven_as_last_card_takes_no_target() -> None:
    state = table([["red-7"], ["green-1"]], "red-5", seven_zero=True)
    assert (
        _refused(state, 0, Action("play", card(state, 0, "red-7"), target=1))
        == "target_not_allowed"
    )
    state, _ = play(state, 0, "red-7")
    assert state.over and state.winner == 0


def test_ruling_22_left_seat_is_a_bad_target() -> None:
    state = table([["red-7", "blue-1"], ["green-1"], ["yellow-3"]], "red-5", seven_zero=True)
    state, _ = apply(state, 2, Action(LEAVE))
    assert _refused(state, 0, Action("play", card(state, 0, "red-7"), target=2)) == "bad_target"


def test_ruling_22_zero_moves_every_hand_on() -> None:
    state = table(
        [["red-0", "blue-1"], ["green-1"], ["yellow-3", "yellow-4"]], "red-5", seven_zero=True
    )
    state, events = play(state, 0, "red-0")
    assert faces(state, 1) == ["blue-1"] and faces(state, 2) == ["green-1"]
    assert faces(state, 0) == ["yellow-3", "yellow-4"]
    assert events[-1]["type"] == "rotate"


def test_ruling_22_no_seven_on_a_waiting_penalty() -> None:
    state = table(
        [["red-draw2", "blue-1"], ["red-7", "green-1"]], "red-5", seven_zero=True, stacking=True
    )
    state, _ = play(state, 0, "red-draw2")
    assert (
        _refused(state, 1, Action("play", card(state, 1, "red-7"), target=0)) == "penalty_waiting"
    )


def test_ruling_23_watchers_see_no_card_of_a_swap() -> None:
    state = table([["red-7", "blue-1", "blue-2"], ["green-1"]], "red-5", seven_zero=True)
    _, events = play(state, 0, "red-7", target=1)
    seen = events_view(events, None)
    assert seen[-1] == {"type": "swap", "seats": [0, 1], "counts": [1, 2]}
    assert "card" not in seen[0] and seen[0]["face"] == "red-7"


def test_ruling_24_timeout_move() -> None:
    state = table([["red-1", "red-skip", "red-draw2", "wild"], ["green-1"]], "red-5")
    assert CODE_OF[timeout_action(state).card] == "wild"
    assert timeout_action(state).color == 0  # red, the colour held most
    state = table([["red-1", "red-skip", "red-draw2"], ["green-1"]], "red-5")
    assert CODE_OF[timeout_action(state).card] == "red-skip"  # ties: first in sorted order
    state = table(
        [
            ["red-7", "blue-1"],
            ["green-1", "green-2"],
            ["yellow-1"],
            ["blue-9", "blue-8"],
        ],
        "red-5",
        seven_zero=True,
    )
    assert timeout_action(state).target == 2  # the fewest cards
    state = table([["blue-1"], ["green-1"]], "red-5", stacking=True)
    state.pending, state.penalty = PENDING_PENALTY, 2
    assert timeout_action(state) == Action("take_penalty")


def test_ruling_25_pass_and_the_blocked_round() -> None:
    state = table([["blue-1"], ["green-1"]], "red-5", rest=False)
    assert legal_actions(state, 0) == [Action(PASS)]
    assert _refused(state, 0, Action(DRAW)) == "nothing_to_draw"
    state, _ = apply(state, 0, Action(PASS))
    state, events = apply(state, 1, Action(PASS))
    assert state.over and state.winner is None and state.results[-1]["blocked"]


def test_ruling_25_must_draw_before_passing() -> None:
    state = table([["blue-1"], ["green-1"]], "red-5")
    assert _refused(state, 0, Action(PASS)) == "must_draw"


def test_ruling_26_leaving() -> None:
    state = table([["red-1", "blue-2", "green-3"], ["green-1"], ["yellow-1"]], "red-5")
    before = len(state.draw)
    state, _ = apply(state, 0, Action(LEAVE))
    assert state.current == 1 and not state.active[0]
    # Under the draw pile in sorted order, the hand's first card nearest the top.
    assert [CODE_OF[c] for c in state.draw[:3]] == ["blue-2", "green-3", "red-1"]
    assert len(state.draw) == before + 3
    state, events = apply(state, 2, Action(LEAVE))
    assert state.over and state.winner == 1 and state.results[-1]["interrupted"]
    assert state.results[-1]["points"] == 0
    assert [(e["seat"], e["rank"], e["left"]) for e in state.ranking] == [
        (1, 1, False),
        (2, 2, True),  # left holding 1 point
        (0, 3, True),  # left holding 6
    ]


def test_ruling_26_leaving_drops_a_waiting_penalty() -> None:
    state = table([["red-draw2", "blue-1"], ["green-1"], ["yellow-1"]], "red-5", stacking=True)
    state, _ = play(state, 0, "red-draw2")
    state, _ = apply(state, 1, Action(LEAVE))
    assert state.current == 2 and state.penalty == 0 and state.pending is None


def test_ruling_27_ranking_shares_ranks() -> None:
    state = table([["red-1"], ["green-1"], ["green-1"], ["blue-9"]], "red-5")
    state, _ = play(state, 0, "red-1")
    assert [(e["seat"], e["rank"]) for e in state.ranking] == [(0, 1), (1, 2), (2, 2), (3, 4)]


def test_ruling_28_watchers_see_no_hands_of_finished_rounds() -> None:
    state = table([["red-1"], ["green-1"]], "red-5")
    state, _ = play(state, 0, "red-1")
    assert "hands" not in watcher_view(state)["rounds"][0]
    assert view(state, 1)["rounds"][0]["hands"][1]["cards"] == ["green-1"]


def test_ruling_30_and_31_target_scoring_and_next_dealer() -> None:
    state = table([["red-1"], ["green-1"], ["blue-2"]], "red-5", scoring="target", target=50)
    state.dealer = 2
    state, events = play(state, 0, "red-1")
    assert not state.over and state.scores == [3, 0, 0] and state.round == 2
    assert state.dealer == 0 and all(len(h) == 7 for h in state.hands)


def test_ruling_33_refusal_order() -> None:
    state = table([["red-1", "blue-2"], ["green-1"]], "red-5")
    assert _refused(state, 5, Action(DRAW)) == "seat_not_in_game"
    assert _refused(state, 0, Action("dance")) == "bad_action"  # type: ignore[arg-type]
    assert _refused(state, 0, Action(DRAW, color=1)) == "color_not_allowed"
    assert _refused(state, 1, Action(DRAW)) == "not_your_turn"
    assert (
        _refused(state, 0, Action("play", card(state, 0, "red-1"), color=1)) == "color_not_allowed"
    )
    assert _refused(state, 0, Action("play", 107, color=1)) == "card_not_in_hand"
    assert _refused(state, 0, Action("take_penalty")) == "no_penalty"
    assert _refused(state, 0, Action("choose_color", color=1)) == "no_color_to_choose"
    over, _ = play(state, 0, "red-1")
    over, _ = play(over, 1, "green-1") if not over.over else (over, [])
    assert _refused(over, 0, Action(DRAW)) == "game_over"


def test_ruling_34_wild_last_card_names_a_colour() -> None:
    state = table([["wild"], ["green-1"]], "red-5")
    assert _refused(state, 0, Action("play", card(state, 0, "wild"))) == "color_required"
    assert _refused(state, 0, Action("play", card(state, 0, "wild"), color=7)) == "bad_color"
    state, _ = play(state, 0, "wild", color="blue")
    assert state.over and state.color == COLORS.index("blue")


def test_ruling_36_out_of_turn_without_jump_in() -> None:
    state = table([["red-1"], ["red-5", "green-1"]], "red-5", current=0)
    assert _refused(state, 1, Action("play", card(state, 1, "red-5"))) == "not_your_turn"
