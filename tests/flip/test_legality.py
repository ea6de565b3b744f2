"""A turn: one matching rule decides every answer about what may be played.

``flip.playable_cards`` is the rule of the section "A turn" (colour, number or
action, Wild; the restricted Wilds only without a card of the colour in play).
``refusal``, ``hand_refusals``, ``check`` (through ``apply``), ``legal_actions``,
``timeout_action`` and the drawn-card test must all agree with it, in random
games as in the worked examples.
"""

from __future__ import annotations

import random

import pytest

import flip
from flip import (
    CHOOSE_COLOR,
    DRAW,
    PASS,
    PENDING_COLOR,
    PENDING_DRAWN,
    PLAY,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    can_draw,
    check,
    hand_refusals,
    legal_actions,
    new_game,
    playable_cards,
    preferred_color,
    refusal,
    timeout_action,
)
from flip.cards import COLOR_OF, DECK_SIZE, NO_COLOR
from tests.flip.stacking import card, position


def _every_action(state: GameState, seat: int) -> list[Action]:
    """Every well-formed action a seat could send: each card, each colour."""
    out = [Action(DRAW), Action(PASS)]
    out += [Action(CHOOSE_COLOR, color=c) for c in range(8)]
    for c in state.hands[seat]:
        out.append(Action(PLAY, c))
        out += [Action(PLAY, c, color) for color in range(8)]
    return out


def _accepted(state: GameState, seat: int, action: Action) -> bool:
    try:
        check(state, seat, action)
    except RuleError:
        return False
    return True


def _check_agreement(state: GameState) -> None:
    seat = state.current
    hand = state.hands[seat]
    legal = legal_actions(state, seat)
    playable = playable_cards(state, hand)
    reasons = hand_refusals(state, seat)
    assert reasons == [refusal(state, seat, c) for c in hand]
    if state.pending is None:
        plays = {a.card for a in legal if a.type == PLAY}
        assert plays == set(playable)
        for c, reason in zip(hand, reasons, strict=True):
            assert (reason is None) == (c in playable)
        if not playable:
            assert legal == [Action(DRAW) if can_draw(state) else Action(PASS)]
    elif state.pending == PENDING_DRAWN:
        assert {a.card for a in legal} == {state.drawn}
        assert state.drawn in playable  # it was drawn and found playable by the same rule
    else:
        assert state.pending == PENDING_COLOR
        assert all(r == "color_must_be_chosen_first" for r in reasons)
    # Validation accepts exactly the legal actions.
    accepted = [a for a in _every_action(state, seat) if _accepted(state, seat, a)]
    assert sorted(accepted, key=repr) == sorted(legal, key=repr)
    assert timeout_action(state) in legal
    for other in range(state.seats):
        if other != seat:
            assert legal_actions(state, other) == []
            assert set(hand_refusals(state, other)) <= {"not_your_turn", "seat_not_in_game"}


@pytest.mark.parametrize("seats", [2, 4, 7, 10])
def test_a_turn_one_matching_rule_decides_every_answer(seats: int) -> None:
    rng = random.Random(seats)
    for game in range(6):
        state, _ = new_game(Options(seats=seats), f"legality:{seats}:{game}")
        while not state.over:
            _check_agreement(state)
            seat = state.current
            action = rng.choice(legal_actions(state, seat))
            state, events = apply(state, seat, action, inplace=True)
            if action.type == DRAW and not state.over:
                # The drawn card must be played exactly when the same rule finds it playable.
                (drawn,) = events[-1]["cards"]
                must_play = drawn in playable_cards(state, state.hands[seat])
                assert (state.pending == PENDING_DRAWN) == must_play
                assert (state.drawn == drawn) == must_play


def test_a_turn_refusal_names_the_restriction_or_the_mismatch() -> None:
    state = position(
        [["sun-9", "leaf-2", "wild-draw-two", "wild"], ["wave-1"]], ["sun-5"], ["flame-8"]
    )
    sun9, leaf2, wd2, wild = state.hands[0]
    assert playable_cards(state, state.hands[0]) == [sun9, wild]
    assert refusal(state, 0, wd2) == "restricted_wild_blocked"
    assert refusal(state, 0, leaf2) == "card_does_not_match"
    assert refusal(state, 0, sun9) is None
    assert refusal(state, 1, state.hands[1][0]) == "not_your_turn"
    assert refusal(state, 0, state.hands[1][0]) == "card_not_in_hand"
    assert hand_refusals(state, 0) == [None, "card_does_not_match", "restricted_wild_blocked", None]


def test_flip_exports_what_the_bots_need() -> None:
    for name in ("can_draw", "preferred_color", "playable_cards", "hand_refusals"):
        assert name in flip.__all__
    bare = position([["flame-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    assert not can_draw(bare)
    assert can_draw(position([["flame-1"], ["wave-1"]], ["leaf-1", "sun-7"], [], rest="none"))
    hand = [card(code) for code in ("wave-1", "leaf-3", "leaf-4", "wild")]
    assert preferred_color(bare, hand) == 2  # green
    assert preferred_color(bare, []) == 0  # an empty hand: the side's first colour
    assert COLOR_OF[0][hand[3]] == NO_COLOR
    assert all(0 <= c < DECK_SIZE for c in hand)


def test_a_turn_a_colour_to_choose_comes_before_any_card_is_looked_at() -> None:
    state = position([["moon-1"], ["star-1"]], ["dark-wild"], side=1, pending="choose_color")
    state.color = -1
    for number in (state.hands[0][0], state.hands[1][0], 200):
        with pytest.raises(RuleError) as info:
            check(state, 0, Action(PLAY, number))
        assert info.value.code == "color_must_be_chosen_first"


def _playable_as_written(side: int, in_play: int, top: int, hand: list[int]) -> list[int]:
    """The rule of section "A turn" read straight off the faces, card by card."""
    from flip.cards import FACES

    top_face = FACES[side][top]
    holds_color = any(FACES[side][c].color == in_play for c in hand if not FACES[side][c].is_wild)
    plain, restricted = [], []
    for c in hand:
        face = FACES[side][c]
        if face.is_wild:
            (restricted if face.restricted else plain).append(c)
        elif face.color == in_play or face.match_key == top_face.match_key:
            plain.append(c)
    return plain + ([] if holds_color else restricted)


def test_a_turn_the_tabulated_rule_agrees_with_the_rule_as_written() -> None:
    rng = random.Random(13)
    for _ in range(3000):
        side = rng.randrange(2)
        cards = rng.sample(range(DECK_SIZE), rng.randrange(1, 14))
        top, hand = cards[0], cards[1:]
        in_play = rng.randrange(-1, 8)  # any colour, none, even the other side's (a scene)
        state = GameState(Options(), "rule", side=side, discard=[top], color=in_play)
        assert playable_cards(state, hand) == _playable_as_written(side, in_play, top, hand)
