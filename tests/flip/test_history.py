"""flip.public_history: what a seat saw happen this round, and nothing more.

Issue 9, section 3. The history is checked against what the seat was shown,
action by action: the events as ``events_view`` gives them to that seat, and
its view before and after each action (which tells the top card and colour a
move was made on, and which face left another hand). So the history holds
nothing a person in the seat, watching every move, could not have written
down.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from flip import (
    LEAVE,
    Action,
    GameState,
    Options,
    apply,
    events_view,
    legal_actions,
    new_game,
    parse_face,
    view,
)
from flip.history import entries, public_history

View = dict[str, Any]


def _faces(seen: View, seat: int) -> list[str]:
    """The faces ``seen`` shows of ``seat``'s hand (its own: active faces)."""
    if seen["seat"] == seat:
        return [e["face"] for e in seen["hand"]]
    return list(seen["players"][seat]["faces"])


def _hands(seen: View) -> list[dict[str, Any]]:
    return [
        {"seat": p["seat"], "faces": _faces(seen, p["seat"])}
        for p in seen["players"]
        if p["in_game"] and p["count"]
    ]


def _color_after(play: dict[str, Any]) -> str | None:
    if "color" in play:
        return str(play["color"])
    color = parse_face(play["face"]).color
    from flip import COLORS

    return COLORS[color]


def expected(me: int, before: View, after: View, shown: list[dict[str, Any]]) -> list[Any]:
    """The history entries ``me`` can write down for one action, from what it was shown."""
    out: list[dict[str, Any]] = []
    table = {"top": before["top"], "color": before["color"]}
    for event in shown:
        kind = event["type"]
        if kind == "play":
            seat = event["seat"]
            entry = {"type": "play", "seat": seat, "face": event["face"], **table}
            flips = (
                parse_face(event["face"]).kind == "flip" and before["players"][seat]["count"] > 1
            )
            if seat != me and not flips:
                left = Counter(_faces(before, seat)) - Counter(
                    _faces(after, seat) if after["round"] == before["round"] else []
                )
                (entry["back"],) = left.elements()
            if "color" in event:
                entry["chosen"] = event["color"]
            out.append(entry)
            table = {"top": event["face"], "color": _color_after(event)}
        elif kind == "draw":
            entry = {
                "type": "draw",
                "seat": event["seat"],
                "reason": event["reason"],
                "faces": list(event["faces"]),
                **table,
            }
            out.append(entry)
        elif kind == "flip":
            table = {"top": after["top"], "color": after["color"]}
            out.append({"type": "flip", "side": event["side"], **table, "hands": _hands(after)})
        elif kind == "choose_color":
            out.append({"type": "choose_color", "seat": event["seat"], "color": event["color"]})
        elif kind == "pass":
            out.append({"type": "pass", "seat": event["seat"], **table})
        elif kind == "leave":
            faces = _faces(before, event["seat"])
            out.append({"type": "leave", "seat": event["seat"], "faces": faces})
        elif kind == "reshuffle":
            out.append({"type": "reshuffle", "count": event["count"]})
        elif kind == "round_start":
            break  # a new round: checked from its start
    return out


def _order(code: str) -> tuple[int, str]:
    return (parse_face(code).sort_key, code)


def expected_start(me: int, after: View, shown: list[dict[str, Any]]) -> list[Any]:
    """The first entries of a round: the deal, the starter, a starter's penalty."""
    start = max(i for i, e in enumerate(shown) if e["type"] == "round_start")
    shown = shown[start:]
    starter = [e for e in shown if e["type"] == "starter"][-1]
    hands = _hands(after)
    out: list[Any] = [
        {"type": "deal", "hands": hands},
        {"type": "starter", "face": starter["face"]},
    ]
    face = parse_face(starter["face"])
    from flip import COLORS

    table = {"top": starter["face"], "color": None if face.is_wild else COLORS[face.color]}
    for event in shown:
        if event["type"] == "draw":
            drawn = Counter(event["faces"])
            for hand in hands:
                if hand["seat"] == event["seat"]:
                    hand["faces"] = sorted((Counter(hand["faces"]) - drawn).elements(), key=_order)
            out.append(
                {
                    "type": "draw",
                    "seat": event["seat"],
                    "reason": "penalty",
                    "faces": list(event["faces"]),
                    **table,
                }
            )
    return out


def _random_game(seed: int, seats: int, target: bool) -> list[tuple[GameState, Action, int]]:
    """(state before, action, seat) for one random game with a few concessions."""
    rng = random.Random(seed)
    options = Options(seats=seats, scoring="target" if target else "single", target=250)
    state, _ = new_game(options, f"history:{seed}")
    steps = []
    while not state.over and len(steps) < 3000:
        if rng.random() < 0.004:
            seat = rng.choice([i for i in range(seats) if state.active[i]])
            action = Action(LEAVE)
        else:
            seat = state.current
            action = rng.choice(legal_actions(state, seat))
        steps.append((state, action, seat))
        state, _ = apply(state, seat, action)
    return steps


def test_public_history_is_what_each_seat_was_shown_move_by_move() -> None:
    checked = Counter[str]()
    for game in range(40):
        seats = 2 + game % 5
        steps = _random_game(game, seats, target=game % 3 == 0)
        first = steps[0][0]
        for me in range(seats):
            history = public_history(first, me)
            assert history is not None
            assert (
                history["events"][:2]
                == expected_start(
                    me,
                    view(first, me),
                    [{"type": "round_start"}, *events_view(_start_events(first), me)],
                )[:2]
            )
        for state, action, seat in steps:
            after, events = apply(state, seat, action)
            for me in range(seats):
                if not state.active[me]:
                    continue
                old = public_history(state, me)
                new = public_history(after, me)
                assert old is not None and new is not None
                shown = events_view(events, me)
                if any(e["type"] == "round_start" for e in shown):
                    got = new["events"]
                    want = expected_start(me, view(after, me), shown)
                else:
                    got = new["events"][len(old["events"]) :]
                    want = expected(me, view(state, me), view(after, me), shown)
                assert got == want, (game, me, action)
                assert new["passed"] == after.passed
                assert new["left_order"] == after.left_order
                for entry in got:
                    checked[entry["type"]] += 1
    for kind in ("deal", "starter", "play", "draw", "flip", "choose_color", "leave", "reshuffle"):
        assert checked[kind] > 0, kind


def _start_events(state: GameState) -> list[dict[str, Any]]:
    """The events of dealing ``state``'s first round again (same seed, same options)."""
    _, events = new_game(state.options, state.seed)
    return events


def test_the_history_shows_other_hands_only_by_the_faces_they_showed() -> None:
    # Two seats, the same moves: a seat's own draws are active faces, the others'
    # draws the inactive faces, and a card of its own never shows its back.
    steps = _random_game(5, 3, target=False)
    final, action, seat = steps[-1]
    end, _ = apply(final, seat, action)
    for me in range(3):
        history = public_history(end, me)
        assert history is not None
        for event in history["events"]:
            if event["type"] == "play" and event["seat"] == me:
                assert "back" not in event


def test_the_record_is_compact_and_restarts_with_every_round() -> None:
    state, _ = new_game(Options(seats=4, scoring="target", target=250), "compact")
    rng = random.Random(3)
    rounds = {state.round}
    while not state.over:
        before = len(state.history or [])
        round_before = state.round
        state, events = apply(state, state.current, rng.choice(legal_actions(state, state.current)))
        assert state.history is not None
        stored = state.to_dict()["history"]
        assert len(stored) == 3 * len(state.history)
        assert GameState.from_dict(state.to_dict()).history == state.history
        moved = sum(
            len(e["cards"]) if e["type"] == "draw" else 1
            for e in events
            if e["type"] in ("play", "draw", "choose_color", "pass")
        )
        if state.round == round_before:
            reshuffles = sum(1 for e in events if e["type"] == "shuffle")
            assert len(state.history) - before == moved + reshuffles
        rounds.add(state.round)
        assert entries(state.history)[0][0] == 0  # a round's record opens with its starter
    assert len(rounds) > 1


def test_an_older_snapshot_without_a_record_has_no_history() -> None:
    state, _ = new_game(Options(seats=3), "old")
    data = json.loads(json.dumps(state.to_dict()))
    del data["history"]
    data["version"] = 2  # the shape before the record
    loaded = GameState.from_dict(data)
    assert loaded.history is None and public_history(loaded, 0) is None
    # It plays on without recording, and the next round records again.
    after, _ = apply(loaded, loaded.current, legal_actions(loaded, loaded.current)[0])
    assert after.history is None
