"""Requests: ``flip.parse_request`` turns a client's request into an action, or refuses it.

A refused request changes nothing and is refused with the code ``check``
would give the same action, in the same order (the game, the seat, the
type, the action's shape, the turn), then for a handle or colour name that
names nothing.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from flip import (
    CHOOSE_COLOR,
    COLORS,
    DRAW,
    LEAVE,
    PASS,
    PLAY,
    REQUEST_FIELDS,
    REQUEST_MESSAGES,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    check,
    handle,
    legal_actions,
    new_game,
    parse_request,
    view,
)
from tests.flip.stacking import play, position


def _table() -> GameState:
    """Seat 0 to act on sun-5 (Yellow) with a Wild to play."""
    return position(
        [["sun-9", "leaf-2", "wild-draw-two", "wild"], ["wave-1", "wave-2"], ["flame-1"]],
        ["sun-5"],
        ["flame-8"],
    )


def _refused(state: GameState, seat: int, data: object) -> str:
    snapshot = state.to_dict()
    with pytest.raises(RuleError) as info:
        parse_request(state, seat, data)
    assert state.to_dict() == snapshot
    return info.value.code


def _name(state: GameState, seat: int, index: int) -> str:
    return handle(state, state.hands[seat][index])


def test_requests_become_the_actions_they_name() -> None:
    state = _table()
    sun9, _, _, wild = state.hands[0]
    assert parse_request(state, 0, {"type": "play", "card": _name(state, 0, 0)}) == play(sun9)
    assert parse_request(
        state, 0, {"type": "play", "card": _name(state, 0, 3), "color": "blue"}
    ) == play(wild, "blue")
    # A None is the same as a field left out.
    assert parse_request(
        state, 0, {"type": "play", "card": _name(state, 0, 0), "color": None}
    ) == play(sun9)
    assert parse_request(state, 0, {"type": "draw", "card": None}) == Action(DRAW)
    # Leaving is an action of the game, allowed out of turn.
    assert parse_request(state, 1, {"type": "leave"}) == Action(LEAVE)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (["play"], "malformed_request"),
        ("draw", "malformed_request"),
        (None, "malformed_request"),
        ({}, "malformed_request"),
        ({"type": 7}, "malformed_request"),
        ({"type": None}, "malformed_request"),
        ({"type": "play", "card": 3}, "malformed_request"),
        ({"type": "play", "card": ["a"]}, "malformed_request"),
        ({"type": "choose_color", "color": 0}, "malformed_request"),
        ({"type": "draw", "seat": 1}, "unknown_field"),
        ({"type": "draw", "expected_seq": 3}, "unknown_field"),
        ({"type": "shout-uno"}, "unknown_action"),
        ({"type": "play"}, "card_required"),
        ({"type": "draw", "card": "abc"}, "card_not_allowed"),
        ({"type": "choose_color", "card": "abc"}, "card_not_allowed"),
        ({"type": "pass", "color": "red"}, "color_not_allowed"),
        ({"type": "draw", "color": "chartreuse"}, "color_not_allowed"),
        ({"type": "play", "card": "nonsense"}, "card_not_in_hand"),
        ({"type": "choose_color", "color": "chartreuse"}, "color_not_in_side"),
    ],
)
def test_requests_of_the_wrong_form_are_refused_with_a_stable_code(data: object, code: str) -> None:
    assert _refused(_table(), 0, data) == code


def test_requests_are_refused_in_the_order_of_check() -> None:
    state = _table()
    other = _name(state, 1, 0)
    # Not your turn comes before what the request names.
    assert _refused(state, 1, {"type": "play", "card": "nonsense"}) == "not_your_turn"
    assert _refused(state, 1, {"type": "choose_color", "color": "chartreuse"}) == "not_your_turn"
    # Another seat's handle is not in your hand.
    assert _refused(state, 0, {"type": "play", "card": other}) == "card_not_in_hand"
    # A request's form comes first, then the game and the seat.
    assert _refused(state, 9, {"type": "draw"}) == "seat_not_in_game"
    assert _refused(state, -1, {"type": "draw"}) == "seat_not_in_game"
    assert _refused(state, 9, {"type": "draw", "x": 1}) == "unknown_field"
    over = _table()
    over.over = True
    assert _refused(over, 0, {"type": "play", "card": "nonsense"}) == "game_over"
    assert _refused(over, 0, {"type": "shout-uno"}) == "game_over"


def test_requests_a_handle_from_before_a_flip_names_nothing() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6", "star-2", "bolt-3"], ["wave-1"]],
        ["leaf-1/bolt-5", "sun-8"],
    )
    old = [handle(state, c) for c in state.hands[1]]
    after, _ = apply(state, 0, play(state.hands[0][0]))
    after.current = 1
    for name in old:
        assert _refused(after, 1, {"type": "play", "card": name}) == "card_not_in_hand"


def test_requests_every_code_has_a_sentence() -> None:
    assert set(REQUEST_MESSAGES) == {"malformed_request", "unknown_field"}
    for code, message in REQUEST_MESSAGES.items():
        assert message[0].isupper() and message.endswith("."), code
        assert RuleError(code).as_dict() == {"code": code, "detail": message}
    assert sorted(REQUEST_FIELDS) == ["card", "color", "type"]


def _requests_of_view(seen: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for entry in seen["legal_actions"]:
        base = {k: v for k, v in entry.items() if k != "colors"}
        if "colors" in entry:
            out.extend({**base, "color": color} for color in entry["colors"])
        else:
            out.append(base)
    return out


def _random_request(state: GameState, seat: int, rng: random.Random) -> dict[str, Any]:
    """A well-formed request a careless client might send: real handles and colour names."""
    data: dict[str, Any] = {"type": rng.choice([PLAY, PLAY, DRAW, PASS, CHOOSE_COLOR])}
    if rng.random() < 0.7 and state.hands[seat]:
        data["card"] = handle(state, rng.choice(state.hands[seat]))
    if rng.random() < 0.4:
        data["color"] = rng.choice(COLORS)
    return data


def _code(call: Any) -> str | None:
    try:
        call()
    except RuleError as error:
        return error.code
    return None


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_requests_agree_with_legal_actions_and_check(seats: int) -> None:
    rng = random.Random(seats)
    for game in range(4):
        state, _ = new_game(Options(seats=seats), f"requests:{seats}:{game}")
        while not state.over:
            seat = state.current
            # The view's legal actions, sent back as requests, are exactly the legal actions.
            parsed = [parse_request(state, seat, r) for r in _requests_of_view(view(state, seat))]
            legal = legal_actions(state, seat)
            assert sorted(parsed, key=repr) == sorted(legal, key=repr)
            # Any well-formed request is refused exactly as its action would be.
            for _ in range(3):
                who = rng.randrange(seats)
                data = _random_request(state, who, rng)
                cards = {handle(state, c): c for c in state.hands[who]}
                color = data.get("color")
                action = Action(
                    data["type"],
                    cards[data["card"]] if "card" in data else -1,
                    -1 if color is None else COLORS.index(color),
                )
                parsed_code = _code(lambda: check(state, who, parse_request(state, who, data)))  # noqa: B023
                assert parsed_code == _code(lambda: check(state, who, action))  # noqa: B023
            state, _ = apply(state, seat, rng.choice(legal), inplace=True)
