"""Refusals: every code an action can trigger, each changing nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flip import (
    CHOOSE_COLOR,
    DARK,
    DRAW,
    LEAVE,
    MESSAGES,
    PASS,
    Action,
    GameState,
    RuleError,
    apply,
    check,
    legal_actions,
)
from tests.flip.stacking import choose, play, position

Case = Callable[[], tuple[GameState, int, Action]]


def _table() -> GameState:
    return position(
        [["sun-9", "leaf-2", "wild-draw-two", "wild"], ["wave-1", "wave-2"], ["flame-1"]],
        ["sun-5"],
        ["flame-8"],
    )


def _game_over() -> tuple[GameState, int, Action]:
    state = _table()
    state.over = True
    state.winner = 1
    return state, 0, play(state.hands[0][0])


def _seat_not_in_game() -> tuple[GameState, int, Action]:
    state = _table()
    state.active[2] = False
    state.hands[2] = []
    return state, 2, Action(LEAVE)


def _seat_out_of_range() -> tuple[GameState, int, Action]:
    return _table(), 7, Action(DRAW)


def _not_your_turn() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 1, play(state.hands[1][0])


def _unknown_action() -> tuple[GameState, int, Action]:
    return _table(), 0, Action("shout-uno")


def _card_not_in_hand() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[1][0])


def _card_number_out_of_range() -> tuple[GameState, int, Action]:
    return _table(), 0, play(500)


def _card_does_not_match() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[0][1])


def _restricted_wild_blocked() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[0][2], "red")


def _must_play_drawn_card() -> tuple[GameState, int, Action]:
    state = position([["flame-1", "leaf-2"], ["wave-1"]], ["sun-7"], ["sun-8"])
    state, _ = apply(state, 0, Action(DRAW))
    return state, 0, play(state.hands[0][0])


def _must_play_when_able() -> tuple[GameState, int, Action]:
    return _table(), 0, Action(DRAW)


def _nothing_to_draw() -> tuple[GameState, int, Action]:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    return state, 0, Action(DRAW)


def _must_draw_first() -> tuple[GameState, int, Action]:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["flame-8"])
    return state, 0, Action(PASS)


def _color_required_play() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[0][3])


def _color_required_choose() -> tuple[GameState, int, Action]:
    state = _table()
    state.pending = "choose_color"
    state.color = -1
    return state, 0, Action(CHOOSE_COLOR)


def _color_not_in_side_play() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[0][3], "magenta")


def _color_not_in_side_choose() -> tuple[GameState, int, Action]:
    state = position([["moon-1"], ["star-1"]], ["dark-wild"], side=DARK, pending="choose_color")
    return state, 0, choose("blue")


def _color_not_allowed() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 0, play(state.hands[0][0], "yellow")


def _color_must_be_chosen_first() -> tuple[GameState, int, Action]:
    state = _table()
    state.pending = "choose_color"
    state.color = -1
    return state, 0, play(state.hands[0][3], "red")


def _no_color_to_choose() -> tuple[GameState, int, Action]:
    return _table(), 0, choose("red")


def _card_required() -> tuple[GameState, int, Action]:
    return _table(), 0, Action("play")


def _card_not_allowed_draw() -> tuple[GameState, int, Action]:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["flame-8"])
    return state, 0, Action(DRAW, card=state.hands[0][0])


def _card_not_allowed_leave() -> tuple[GameState, int, Action]:
    state = _table()
    return state, 1, Action(LEAVE, card=state.hands[1][0])


def _color_not_allowed_draw() -> tuple[GameState, int, Action]:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["flame-8"])
    return state, 0, Action(DRAW, color=0)


def _color_not_allowed_pass() -> tuple[GameState, int, Action]:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    return state, 0, Action(PASS, color=0)


CASES: dict[str, list[Case]] = {
    "card_required": [_card_required],
    "card_not_allowed": [_card_not_allowed_draw, _card_not_allowed_leave],
    "game_over": [_game_over],
    "seat_not_in_game": [_seat_not_in_game, _seat_out_of_range],
    "not_your_turn": [_not_your_turn],
    "unknown_action": [_unknown_action],
    "card_not_in_hand": [_card_not_in_hand, _card_number_out_of_range],
    "card_does_not_match": [_card_does_not_match],
    "restricted_wild_blocked": [_restricted_wild_blocked],
    "must_play_drawn_card": [_must_play_drawn_card],
    "must_play_when_able": [_must_play_when_able],
    "nothing_to_draw": [_nothing_to_draw],
    "must_draw_first": [_must_draw_first],
    "color_required": [_color_required_play, _color_required_choose],
    "color_not_in_side": [_color_not_in_side_play, _color_not_in_side_choose],
    "color_not_allowed": [_color_not_allowed, _color_not_allowed_draw, _color_not_allowed_pass],
    "color_must_be_chosen_first": [_color_must_be_chosen_first],
    "no_color_to_choose": [_no_color_to_choose],
}


def test_refusals_every_code_is_covered() -> None:
    assert set(CASES) == set(MESSAGES)


@pytest.mark.parametrize(
    ("code", "case"),
    [(code, case) for code, cases in CASES.items() for case in cases],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_a_refused_move_changes_nothing(code: str, case: Case) -> None:
    state, seat, action = case()
    before = state.copy()
    snapshot = state.to_dict()
    with pytest.raises(RuleError) as info:
        apply(state, seat, action)
    assert info.value.code == code
    assert info.value.message == MESSAGES[code]
    assert info.value.as_dict() == {"code": code, "detail": MESSAGES[code]}
    assert state == before
    assert state.to_dict() == snapshot
    # ``check`` gives the same answer, and the action is not among the legal ones.
    with pytest.raises(RuleError) as again:
        check(state, seat, action)
    assert again.value.code == code
    if 0 <= seat < state.seats:
        assert action not in legal_actions(state, seat)


def test_refusals_messages_are_sentences_for_people() -> None:
    for code, message in MESSAGES.items():
        assert message[0].isupper() and message.endswith("."), code
        assert RuleError(code).message == message


def test_refusals_apply_never_mutates_its_input_on_success() -> None:
    state = _table()
    snapshot = state.to_dict()
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert state.to_dict() == snapshot
    assert after.hands[0] is not state.hands[0]
    assert after.draw is not state.draw


def test_refusals_leave_is_always_allowed_for_a_seat_still_in() -> None:
    state = _table()
    for seat in (1, 2):
        check(state, seat, Action(LEAVE))
    assert Action(LEAVE) not in legal_actions(state, 0)  # allowed, but not listed
