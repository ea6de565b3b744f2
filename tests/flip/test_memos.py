"""What the engine remembers on a state for speed never changes an answer.

``GameState.legal_memo`` lets ``apply`` skip checking an action that
``legal_actions`` just returned for the same state; ``handle_memo`` and
``faces_memo`` spare views hashing handles and sorting faces again. None is
saved, compared or able to make a refused action pass.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

import pytest

import flip.engine
from flip import (
    DRAW,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    handle,
    legal_actions,
    new_game,
    parse_request,
    view,
)
from flip.cards import DECK_SIZE
from tests.flip.build import pure_only
from tests.flip.stacking import play, position


def _counting_check(monkeypatch: pytest.MonkeyPatch) -> list[Action]:
    checked: list[Action] = []
    real = flip.engine.check

    def check(s: GameState, seat: int, action: Action) -> None:
        checked.append(action)
        real(s, seat, action)

    monkeypatch.setattr(flip.engine, "check", check)
    return checked


@pure_only
def test_memo_an_action_legal_actions_returned_is_not_checked_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = _counting_check(monkeypatch)
    state, _ = new_game(Options(seats=3), "memo")
    seat = state.current
    action = legal_actions(state, seat)[0]
    apply(state, seat, action)
    assert checked == []
    # The same action on a copy, or on a state read back, is checked in full.
    apply(state.copy(), seat, action)
    apply(GameState.from_dict(state.to_dict()), seat, action)
    assert checked == [action, action]


@pure_only
def test_memo_a_request_is_always_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _counting_check(monkeypatch)
    state, _ = new_game(Options(seats=3), "memo")
    seat = state.current
    legal = legal_actions(state, seat)
    entry = view(state, seat)["legal_actions"][0]
    request = {"type": entry["type"]}
    if "card" in entry:
        request["card"] = entry["card"]
    if "colors" in entry:
        request["color"] = entry["colors"][0]
    action = parse_request(state, seat, request)
    assert action in legal and all(action is not a for a in legal)
    apply(state, seat, action)
    assert checked == [action]


def test_memo_a_refused_action_is_refused_with_the_memo_in_place() -> None:
    state = position(
        [["sun-9", "leaf-2", "wild-draw-two"], ["wave-1", "wave-2"]], ["sun-5"], ["flame-8"]
    )
    assert legal_actions(state, 0) == [play(state.hands[0][0])]
    snapshot = state.to_dict()
    for action in (Action(DRAW), play(state.hands[0][1]), play(state.hands[0][2], "red")):
        with pytest.raises(RuleError):
            apply(state, 0, action)
    # Another seat, even with an action legal for the seat to act.
    with pytest.raises(RuleError) as info:
        apply(state, 1, legal_actions(state, 0)[0])
    assert info.value.code == "not_your_turn"
    assert state.to_dict() == snapshot


def test_memo_every_apply_forgets_the_legal_actions() -> None:
    state, _ = new_game(Options(seats=2), "memo")
    seat = state.current
    action = legal_actions(state, seat)[0]
    assert state.legal_memo is not None
    after, _ = apply(state, seat, action)
    assert after.legal_memo is None
    assert state.legal_memo is not None  # the state passed in is untouched
    apply(state, seat, action, inplace=True)
    assert state.legal_memo is None


def test_memo_a_state_changed_by_hand_forgets_with_forget_legal() -> None:
    state = position([["sun-9", "leaf-2"], ["wave-1"]], ["sun-5"], ["flame-8"])
    stale = legal_actions(state, 0)[0]
    state.color = 2  # green: sun-9 no longer matches (a test scene, not a move)
    state.forget_legal()
    with pytest.raises(RuleError) as info:
        apply(state, 0, stale)
    assert info.value.code == "card_does_not_match"


def test_memo_is_never_saved_compared_or_shown() -> None:
    state, _ = new_game(Options(seats=4), "memo")
    fresh = GameState.from_dict(state.to_dict())
    legal_actions(state, state.current)
    view(state, 0)
    assert state.legal_memo is not None and state.handle_memo is not None
    assert state == fresh
    assert state.to_dict() == fresh.to_dict()
    assert "_memo" not in repr(state)
    assert view(state, 1) == view(fresh, 1)


def test_memo_handles_are_the_keyed_hash_of_round_flips_and_card() -> None:
    state, _ = new_game(Options(seats=2), "memo")
    key = state.seed.encode()
    stream = hashlib.shake_128(
        b"flip handles:%d:%s:%d:%d:" % (len(key), key, state.round, state.flips)
    ).digest(6 * DECK_SIZE)
    for card in state.hands[0]:
        expected = stream[6 * card : 6 * card + 6].hex()
        assert handle(state, card) == expected
        assert handle(state, card) == expected  # from the memo
    before = handle(state, state.hands[0][0])
    state.flips += 1  # the memo is for one round and one flip count
    assert handle(state, state.hands[0][0]) != before


def test_memo_a_number_that_is_no_card_has_a_handle_no_card_has() -> None:
    state, _ = new_game(Options(seats=2), "memo")
    names = {handle(state, card) for card in range(DECK_SIZE)}
    assert len(names) == DECK_SIZE
    outside = [handle(state, number) for number in (-1, DECK_SIZE, 10**6)]
    assert len(set(outside)) == 3 and not names & set(outside)
    assert all(len(name) == 12 for name in outside)


def test_memo_copy_copies_every_field() -> None:
    state, _ = new_game(Options(seats=3), "memo")
    copy = state.copy()
    for spec in dataclasses.fields(GameState):
        value = getattr(copy, spec.name)
        if spec.compare:
            assert value == getattr(state, spec.name), spec.name
    copy.hands[0].append(copy.draw.pop())
    assert copy.hands[0] != state.hands[0] and copy.draw != state.draw


@pytest.mark.parametrize("seats", [2, 4, 7])
def test_memo_views_with_and_without_memos_are_the_same(seats: int) -> None:
    rng = random.Random(seats)
    state, _ = new_game(Options(seats=seats, scoring="target", target=250), f"memo:{seats}")
    while not state.over:
        fresh = GameState.from_dict(json.loads(json.dumps(state.to_dict())))
        for seat in range(seats):
            assert view(state, seat) == view(fresh, seat)
        seat = state.current
        state, _ = apply(state, seat, rng.choice(legal_actions(state, seat)), inplace=True)


def test_memo_a_copy_given_another_seed_gets_its_own_handles() -> None:
    state, _ = new_game(Options(seats=2), "memo")
    card = state.hands[0][0]
    name = handle(state, card)
    other = state.copy()
    other.seed = "another"
    assert handle(other, card) != name
    assert handle(state, card) == name
