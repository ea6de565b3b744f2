"""Views, events and requests: what leaves the engine (R28, R29, R23), and how requests parse."""

from __future__ import annotations

import json

import pytest

from wildcards import (
    Action,
    Options,
    RuleError,
    apply,
    card_for_handle,
    events_view,
    new_game,
    parse_request,
    view,
    watcher_view,
)
from wildcards.views import handle

from .tables import card, play, table

# The keys the brief names for both games' views, so the web client draws either.
VIEW_KEYS = frozenset(
    (
        "color",
        "dealer",
        "direction",
        "discard_pile",
        "draw_pile",
        "hand",
        "jump_in_open",
        "legal_actions",
        "options",
        "over",
        "penalty",
        "pending",
        "players",
        "ranking",
        "round",
        "rounds",
        "scores",
        "seat",
        "seats",
        "to_act",
        "top",
        "turn",
        "winner",
    )
)


def test_views_keys_of_seat_and_watcher() -> None:
    state, _ = new_game(Options(seats=3), "keys")
    assert set(view(state, 0)) == VIEW_KEYS == set(watcher_view(state))
    watcher = watcher_view(state)
    assert watcher["seat"] is None and watcher["hand"] == [] and watcher["legal_actions"] == []
    assert watcher["draw_pile"] == {"count": len(state.draw)}


def test_views_legal_actions_group_colours_and_targets() -> None:
    state = table([["wild", "red-7", "blue-1"], ["green-1"], ["blue-2"]], "red-5", seven_zero=True)
    legal = view(state, 0)["legal_actions"]
    wild = next(a for a in legal if a.get("card") == handle(state, card(state, 0, "wild")))
    assert wild["colors"] == ["red", "yellow", "green", "blue"]
    seven = next(a for a in legal if a.get("card") == handle(state, card(state, 0, "red-7")))
    assert seven["targets"] == [1, 2]
    assert view(state, 1)["legal_actions"] == []


def test_views_pending_penalty_count() -> None:
    state = table([["red-draw2", "blue-1"], ["green-1"]], "red-5", stacking=True)
    state, _ = play(state, 0, "red-draw2")
    assert watcher_view(state)["pending"] == {"type": "penalty", "seat": 1, "count": 2}
    assert watcher_view(state)["penalty"] == 2
    assert [a["type"] for a in view(state, 1)["legal_actions"]] == ["take_penalty"]


def test_views_events_hide_drawn_faces_from_others() -> None:
    state = table([["blue-1"], ["green-1"]], "red-5", draw_top=["yellow-9"])
    _, events = apply(state, 0, Action("draw"))
    assert events_view(events, 0)[-1]["faces"] == ["yellow-9"]
    assert "faces" not in events_view(events, 1)[-1]
    assert "faces" not in events_view(events, None)[-1]


def test_views_handles_are_opaque_and_refused_when_unknown() -> None:
    state = table([["blue-1", "blue-2"], ["green-1"]], "blue-5")
    names = [e["card"] for e in view(state, 0)["hand"]]
    assert len(set(names)) == 2 and all(len(n) == 12 for n in names)
    assert card_for_handle(state, 0, names[0]) == card(state, 0, "blue-1")
    with pytest.raises(RuleError) as refused:
        card_for_handle(state, 1, names[0])
    assert refused.value.code == "card_not_in_hand"
    assert str(card(state, 0, "blue-1")) not in json.dumps(
        [e["card"] for e in view(state, 0)["hand"]]
    )


def test_requests_parse_in_the_shape_of_the_api() -> None:
    state = table([["wild", "red-7", "blue-1"], ["green-1"], ["blue-2"]], "red-5", seven_zero=True)
    wild = handle(state, card(state, 0, "wild"))
    seven = handle(state, card(state, 0, "red-7"))
    assert parse_request(state, 0, {"type": "play", "card": wild, "color": "green"}) == Action(
        "play", card(state, 0, "wild"), 2
    )
    assert parse_request(state, 0, {"type": "play", "card": seven, "target": 2}).target == 2
    assert parse_request(state, 0, {"type": "draw", "color": None}) == Action("draw")
    for data, code in [
        ([], "malformed_request"),
        ({"type": "play", "card": 3}, "malformed_request"),
        ({"type": "play", "card": wild, "target": "1"}, "malformed_request"),
        ({"type": "draw", "extra": 1}, "unknown_field"),
        ({"type": "leave"}, "bad_action"),
        ({"type": "play"}, "card_required"),
        ({"type": "draw", "card": wild}, "card_not_allowed"),
        ({"type": "draw", "target": 1}, "target_not_allowed"),
        ({"type": "play", "card": "0123456789ab"}, "card_not_in_hand"),
        ({"type": "play", "card": wild, "color": "purple"}, "bad_color"),
    ]:
        with pytest.raises(RuleError) as refused:
            parse_request(state, 0, data)
        assert refused.value.code == code, data
    with pytest.raises(RuleError) as refused:
        parse_request(state, 9, {"type": "draw"})
    assert refused.value.code == "seat_not_in_game"
