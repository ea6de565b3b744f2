"""What you see: each seat's view, the watcher's view and the events."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from flip import (
    DARK,
    DRAW,
    LIGHT,
    Action,
    GameState,
    Options,
    apply,
    events_view,
    flip_memory,
    new_game,
    view,
    watcher_view,
)
from flip.bots.tournament import to_action
from flip.cards import CODE_OF, parse_face
from flip.views import card_for_handle, handle
from tests.flip.stacking import faces, play, position, stacked_game


def _table():
    return position(
        [
            ["wild", "sun-9", "flame-5", "flame-3", "wave-2", "leaf-reverse"],
            ["flame-1/moon-3", "leaf-2/moon-3", "sun-6/wild-draw-color"],
            ["wave-9"],
        ],
        ["sun-5"],
        ["sun-7/star-6", "flame-7"],
        color="yellow",
    )


def test_what_you_see_your_own_hand_active_faces_sorted_with_handles_and_marks() -> None:
    state = _table()
    seen = view(state, 0)
    hand = seen["hand"]
    assert [e["face"] for e in hand] == [
        "flame-3",
        "flame-5",
        "sun-9",
        "leaf-reverse",
        "wave-2",
        "wild",
    ]
    for entry in hand:
        card = card_for_handle(state, 0, entry["card"])
        assert CODE_OF[LIGHT][card] == entry["face"]
        assert entry["card"] == handle(state, card)
        assert entry["card"] != str(card)
    marks = {e["face"]: (e["playable"], e.get("refusal")) for e in hand}
    assert marks == {
        "flame-3": (False, "card_does_not_match"),
        "flame-5": (True, None),
        "sun-9": (True, None),
        "leaf-reverse": (False, "card_does_not_match"),
        "wave-2": (False, "card_does_not_match"),
        "wild": (True, None),
    }
    legal = seen["legal_actions"]
    names = {e["face"]: e["card"] for e in hand}
    assert {
        "type": "play",
        "card": names["wild"],
        "colors": ["red", "yellow", "green", "blue"],
    } in (legal)
    assert {"type": "play", "card": names["sun-9"]} in legal
    assert len(legal) == 3
    # Not your turn: nothing is playable and the reason says so.
    other = view(state, 1)
    assert all(e["refusal"] == "not_your_turn" for e in other["hand"])
    assert other["legal_actions"] == []


def test_what_you_see_your_own_hand_equal_faces_ordered_by_handle_whatever_the_hand_order() -> None:
    # Ruling 10: the view never shows the owner's order or card numbers; cards with
    # the same face stand in the order of their handles.
    hand = ["wild", "flame-5", "sun-9", "flame-5", "wild", "flame-3"]
    state = position([hand, ["wave-9"]], ["sun-5"], color="yellow")
    shown = None
    for turn in range(6):
        random.Random(turn).shuffle(state.hands[0])
        seen = view(state, 0)["hand"]
        assert [e["face"] for e in seen] == [
            "flame-3",
            "flame-5",
            "flame-5",
            "sun-9",
            "wild",
            "wild",
        ]
        assert seen[1]["card"] < seen[2]["card"] and seen[4]["card"] < seen[5]["card"]
        assert shown is None or seen == shown
        shown = seen


def test_what_you_see_other_hands_inactive_faces_sorted_by_themselves() -> None:
    state = _table()
    seen = view(state, 0)
    players = seen["players"]
    assert [p["count"] for p in players] == [6, 3, 1]
    assert "faces" not in players[0]
    # Seat 1 holds flame-1, leaf-2 and sun-6; seat 0 sees their dark faces,
    # sorted as dark faces, never in the owner's order.
    assert players[1]["faces"] == ["moon-3", "moon-3", "wild-draw-color"]
    assert all(parse_face(code).side == DARK for p in players[1:] for code in p["faces"])
    # The owner's own view shows the light faces instead.
    assert [e["face"] for e in view(state, 1)["hand"]] == ["flame-1", "sun-6", "leaf-2"]


def test_what_you_see_the_draw_pile_top_with_its_inactive_face() -> None:
    state = _table()
    assert view(state, 0)["draw_pile"] == {"count": len(state.draw), "top": "star-6"}
    dark = position([["moon-1"], ["star-1"]], ["moon-7"], ["sun-7/star-6"], side=DARK)
    assert view(dark, 0)["draw_pile"]["top"] == "sun-7"
    empty = position([["moon-1"], ["star-1"]], ["moon-7"], [], side=DARK, rest="none")
    assert view(empty, 0)["draw_pile"] == {"count": 0, "top": None}


def test_what_you_see_the_discard_pile_in_order_with_the_side_in_play() -> None:
    state = position([["flame-1"], ["wave-1"]], ["leaf-2/moon-3", "sun-5/gem-8"])
    assert view(state, 0)["discard_pile"] == ["leaf-2", "sun-5"]
    assert view(state, None)["discard_pile"] == ["leaf-2", "sun-5"]
    state.side = DARK
    assert view(state, 0)["discard_pile"] == ["moon-3", "gem-8"]
    assert view(state, 0)["top"] == "gem-8"


def test_what_you_see_after_a_flip_the_views_swap() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["flame-1/moon-3", "wave-4/star-1"], ["wave-1"]],
        ["leaf-1/bolt-5", "sun-8"],
    )
    before_other = view(state, 0)["players"][1]["faces"]
    before_own = [e["face"] for e in view(state, 1)["hand"]]
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert [e["face"] for e in view(after, 1)["hand"]] == before_other == ["moon-3", "star-1"]
    assert view(after, 0)["players"][1]["faces"] == before_own == ["flame-1", "wave-4"]


def test_what_you_see_after_a_flip_memory_holds_what_each_seat_saw_as_the_table_turned() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["flame-1/moon-3", "wave-4/star-1"], ["wave-1"]],
        ["leaf-1/bolt-5", "sun-8"],
    )
    assert flip_memory(state, 1) is None  # no flip yet this round
    before = [view(state, seat) for seat in range(3)]
    back = CODE_OF[DARK][state.hands[0][0]]  # what the others saw of the Flip
    after, _ = apply(state, 0, play(state.hands[0][0]))
    memory = flip_memory(after, 1)
    assert memory == {
        "round": after.round,
        "side": "light",
        "hand": [e["face"] for e in before[1]["hand"]],
        "players": [
            {"seat": 0, "faces": [f for f in before[1]["players"][0]["faces"] if f != back]},
            {"seat": 2, "faces": before[1]["players"][2]["faces"]},
        ],
        "discard_pile": before[1]["discard_pile"] + ["sun-flip"],
    }
    # The flipper no longer holds its Flip; it saw the rest of its hand.
    flipper = flip_memory(after, 0)
    assert flipper is not None and flipper["hand"] == ["sun-3"]
    # None of it is in any view: the API never serves a memory.
    for seat in range(3):
        assert "hand" not in json.dumps(view(after, seat)["players"])


def test_a_snapshot_saved_before_flip_memory_existed_loads_without_one() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["flame-1/moon-3", "wave-4/star-1"], ["wave-1"]],
        ["leaf-1/bolt-5", "sun-8"],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    old = json.loads(json.dumps(after.to_dict()))
    del old["last_flip"]
    del old["version"]  # such a snapshot had no version either: version 1
    loaded = GameState.from_dict(old)
    assert loaded.last_flip is None and flip_memory(loaded, 1) is None
    assert view(loaded, 1) == view(after, 1)
    assert GameState.from_dict(json.loads(json.dumps(after.to_dict()))) == after


def _easy_move(state, rng: random.Random) -> Action:
    from flip.bots import make_bot

    seat = state.current
    return to_action(state, seat, make_bot("easy", rng.getrandbits(32)).choose(view(state, seat)))


def test_what_you_see_flip_memory_over_whole_games_matches_the_views_at_each_flip() -> None:
    """At every flip of many games, every seat's memory is its view of the moment before.

    The memory lasts until the next flip; its discard pile is dropped by a
    reshuffle, and a new round (or a game played to a target) starts without one.
    """
    flips = reshuffled = new_rounds = 0
    for game in range(40):
        state, _ = new_game(
            Options(seats=3 + game % 3, scoring="target", target=250), f"mem:{game}"
        )
        rng = random.Random(game)
        expected: list[dict[str, Any] | None] = [None] * state.seats
        while not state.over and state.actions < 3000:
            before = [view(state, seat) for seat in range(state.seats)]
            flipper = state.current
            old_side, old_round, old_shuffles = state.side, state.round, state.shuffles
            state, _ = apply(state, flipper, _easy_move(state, rng))
            if state.round != old_round:
                new_rounds += 1
                expected = [None] * state.seats
            elif state.side != old_side:
                flips += 1
                flip_face = CODE_OF[old_side][state.discard[0]]
                inactive = CODE_OF[old_side ^ 1][state.discard[0]]
                for seat in range(state.seats):
                    seen = before[seat]
                    hand = Counter(e["face"] for e in seen["hand"])
                    if seat == flipper:
                        hand[flip_face] -= 1
                    players = []
                    for p in seen["players"]:
                        if p["seat"] == seat:
                            continue
                        faces = Counter(p["faces"])
                        if p["seat"] == flipper:
                            faces[inactive] -= 1
                        players.append({"seat": p["seat"], "faces": sorted(faces.elements())})
                    expected[seat] = {
                        "side": seen["side"],
                        "hand": sorted(hand.elements()),
                        "players": players,
                        "discard_pile": seen["discard_pile"] + [flip_face],
                    }
            elif state.shuffles != old_shuffles and any(expected):
                reshuffled += 1
                for memory in expected:
                    if memory is not None:
                        memory["discard_pile"] = None
            for seat in range(state.seats):
                got = flip_memory(state, seat)
                want = expected[seat]
                if want is None:
                    assert got is None
                    continue
                assert got is not None
                assert got["round"] == state.round
                assert got["side"] == want["side"]
                assert sorted(got["hand"]) == want["hand"]
                assert [
                    {"seat": p["seat"], "faces": sorted(p["faces"])} for p in got["players"]
                ] == want["players"]
                assert got["discard_pile"] == want["discard_pile"]
    assert flips > 100 and reshuffled > 0 and new_rounds > 0


def test_watching_a_game_the_watcher_sees_only_public_facts() -> None:
    state = _table()
    seen = view(state, None)
    assert seen == watcher_view(state)
    assert seen["seat"] is None
    assert seen["hand"] == [] and seen["legal_actions"] == []
    assert seen["draw_pile"] == {"count": len(state.draw)}
    assert seen["players"] == [
        {"seat": 0, "count": 6, "in_game": True},
        {"seat": 1, "count": 3, "in_game": True},
        {"seat": 2, "count": 1, "in_game": True},
    ]
    assert seen["discard_pile"] == ["sun-5"]
    # No handle of any card in a hand appears anywhere.
    text = json.dumps(seen)
    for hand in state.hands:
        for c in hand:
            assert handle(state, c) not in text


def test_what_you_see_views_hold_no_physical_card_numbers() -> None:
    state = _table()
    for seat in (0, 1, 2, None):
        seen = view(state, seat)
        for entry in seen["hand"]:
            assert not entry["card"].isdigit()
        assert all(isinstance(code, str) for code in seen["discard_pile"])


def test_events_view_hides_shuffle_orders() -> None:
    _, events = stacked_game([[], [], []], "flame-5")
    assert events[0]["type"] == "shuffle" and events[0]["order"]
    for seat in (0, 1, 2, None):
        shown = events_view(events, seat)
        assert [e["type"] for e in shown] == ["round_start", "starter"]
        assert "order" not in json.dumps(shown)
        assert shown[1] == {"type": "starter", "face": "flame-5"}


def test_events_view_a_reshuffle_shows_only_its_size() -> None:
    state = position(
        [["flame-9"], ["leaf-2"]], ["flame-1", "flame-2", "flame-3", "sun-5"], [], rest="none"
    )
    _, events = apply(state, 0, Action(DRAW))
    for seat in (0, 1, None):
        shown = events_view(events, seat)
        assert shown[0] == {"type": "reshuffle", "count": 3}
        assert "order" not in json.dumps(shown)


def test_events_view_drawn_cards_active_to_the_drawer_inactive_to_others_count_to_watcher() -> None:
    state = position([["flame-1"], ["wave-1"], ["wave-2"]], ["sun-7"], ["sun-7/star-6"])
    _, events = apply(state, 0, Action(DRAW))
    base = {"type": "draw", "seat": 0, "reason": "draw", "count": 1}
    assert events_view(events, 0) == [{**base, "faces": ["sun-7"]}]
    assert events_view(events, 1) == [{**base, "faces": ["star-6"]}]
    assert events_view(events, 2) == [{**base, "faces": ["star-6"]}]
    assert events_view(events, None) == [base]


def test_events_view_penalty_draws_on_the_dark_side() -> None:
    state = position(
        [["wild-draw-color", "bolt-9"], ["star-1"], ["star-2"]],
        ["moon-7"],
        ["flame-1/moon-3", "sun-6/wild-draw-color", "leaf-6/gem-1"],
        side=DARK,
    )
    _, events = apply(state, 0, play(state.hands[0][0], "cyan"))
    drawer = [e for e in events_view(events, 1) if e["type"] == "draw"][0]
    other = [e for e in events_view(events, 2) if e["type"] == "draw"][0]
    watcher = [e for e in events_view(events, None) if e["type"] == "draw"][0]
    assert drawer["faces"] == ["moon-3", "wild-draw-color", "gem-1"]
    assert other["faces"] == ["flame-1", "sun-6", "leaf-6"]
    assert "faces" not in watcher and watcher["count"] == 3
    assert drawer["reason"] == "penalty"


def test_events_view_plays_and_flips_are_public() -> None:
    state = position(
        [["sun-flip", "sun-3"], ["gem-6"], ["wave-1"]], ["leaf-1/bolt-5", "sun-8"], ["wave-5"]
    )
    _, events = apply(state, 0, play(state.hands[0][0]))
    for seat in (0, 1, None):
        assert events_view(events, seat) == [
            {"type": "play", "seat": 0, "face": "sun-flip"},
            {"type": "flip", "side": "dark"},
        ]


def test_events_view_round_end_shows_hands_on_the_scored_side() -> None:
    state = position([["gem-5"], ["moon-skip-everyone", "bolt-4"]], ["gem-2"], side=DARK)
    _, events = apply(state, 0, play(state.hands[0][0]))
    shown = events_view(events, None)
    result = next(e for e in shown if e["type"] == "round_end")["result"]
    assert result["side"] == "dark"
    assert result["hands"][1]["cards"] == [
        {"face": "moon-skip-everyone", "points": 30},
        {"face": "bolt-4", "points": 4},
    ]
    assert faces(state.hands[1], DARK) == ["moon-skip-everyone", "bolt-4"]
