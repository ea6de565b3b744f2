"""No response tells a seat, or a watcher, more than it may see.

Plays whole games through the API (humans choosing random legal actions,
easy bots mostly) and checks every view, move answer and log handed to each
seat and to a watcher against the table's real state:

- a seat's JSON holds no handle of a card in another hand or in the draw
  pile, and its own hand is exactly its cards' active faces;
- a watcher's JSON holds no handle and no face of any card in a hand
  (except the round results, which the rules make public), and no draw top;
- a card another seat drew shows only the face that was public then;
- nothing anywhere carries the seed, a shuffle order or a card number.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

import flip
from flip.cards import CODE_OF, COLORS, SORT_OF, SYMBOLS
from games.models import Move, Table
from tests.games.conftest import make_user

#: Whole games in CI (two cycles of the layouts below); ``pytest -m slow`` plays SLOW_GAMES.
GAMES = int(__import__("os").environ.get("LEAK_GAMES", "40"))
SLOW_GAMES = 400
# (people, bots) in a cycle of twenty: two or three seats, mostly with easy bots
# (games where only people play cost twice the requests: each move needs a fresh view).
LAYOUTS = [
    *[(1, 1), (1, 2), (2, 0), (1, 1), (1, 2), (2, 1), (1, 1), (1, 2), (3, 0), (1, 1)],
    *[(1, 1), (1, 2), (2, 0), (1, 1), (1, 2), (2, 1), (1, 1), (1, 2), (2, 1), (1, 1)],
]
WATCHER = None
SYMBOL_COLOR = dict(zip(SYMBOLS, COLORS, strict=True))
SORT_BY_CODE = {CODE_OF[side][c]: SORT_OF[side][c] for side in (0, 1) for c in range(112)}

pytestmark = pytest.mark.django_db


def client(user: User) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


# --- what a response may hold --------------------------------------------------


def _table(table_id: int) -> tuple[int, flip.GameState]:
    """The table's seq and real state, read afresh."""
    seq, state = Table.objects.filter(pk=table_id).values_list("seq", "state").get()
    assert state is not None
    return seq, flip.GameState.from_dict(state)


def _walk(value: Any, path: tuple[str, ...] = ()) -> Any:
    """Every (path, key, value) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, path)


def _public_results(path: tuple[str, ...]) -> bool:
    # Round results show the hands left at the end of a round, to everyone (ruling 12).
    return "rounds" in path or "result" in path


def check_common(raw: bytes, state: flip.GameState, seat: int | None) -> Any:
    """Checks for any response; returns the parsed body."""
    text = raw.decode()
    assert state.seed not in text
    hidden = [card for card in state.draw]
    for number, hand in enumerate(state.hands):
        if number != seat:
            hidden.extend(hand)
    for card in hidden:
        assert flip.handle(state, card) not in text, "a hidden card's handle leaked"
    body = json.loads(text)
    for path, key, value in _walk(body):
        assert key not in ("order", "seed", "shuffles", "hands_order"), (path, key)
        if key in ("card", "cards") and not _public_results(path):
            # Card numbers never leave: a "card" is a handle (a string) in the seat's own hand.
            assert seat is not None and isinstance(value, str), (path, key, value)
        if seat is None and key == "faces":
            assert _public_results(path), ("a watcher saw faces", path)
    return body


def check_view(
    raw: bytes, table_id: int, seat: int | None, real: tuple[int, flip.GameState] | None = None
) -> dict[str, Any]:
    """A /view/ body (or a move answer's "view") against the table's real state."""
    seq, state = real or _table(table_id)
    body: dict[str, Any] = check_common(raw, state, seat)
    assert body["seq"] == seq
    game = body["game"]
    side, other = state.side, state.side ^ 1
    assert game["seat"] == seat
    if seat is None:
        assert game["hand"] == [] and game["legal_actions"] == []
        assert "top" not in game["draw_pile"]
        for player in game["players"]:
            assert set(player) == {"seat", "count", "in_game"}
        return body
    mine = Counter((flip.handle(state, c), CODE_OF[side][c]) for c in state.hands[seat])
    assert Counter((c["card"], c["face"]) for c in game["hand"]) == mine
    for player in game["players"]:
        number = player["seat"]
        assert player["count"] == len(state.hands[number])
        if number == seat:
            assert "faces" not in player
        else:
            # The visible faces, in the side's sorted order: never the owner's hand order.
            faces = [CODE_OF[other][c] for c in state.hands[number]]
            assert player["faces"] == sorted(faces, key=lambda code: (SORT_BY_CODE[code], code))
    top = CODE_OF[other][state.draw[-1]] if state.draw else None
    assert game["draw_pile"].get("top") == top
    return body


def check_events(served: list[dict[str, Any]], raw: list[dict[str, Any]], seat: int | None) -> None:
    """Draw events show the drawer its faces, the others the public faces, a watcher none."""
    draws = [e for e in raw if e["type"] == "draw"]
    shown = [e for e in served if e["type"] == "draw"]
    assert len(draws) == len(shown)
    for event, seen in zip(draws, shown, strict=True):
        assert seen["count"] == len(event["cards"])
        if seat is None:
            assert "faces" not in seen
        else:
            side = event["side"] if seat == event["seat"] else event["side"] ^ 1
            assert seen["faces"] == [CODE_OF[side][c] for c in event["cards"]]


def check_log(raw: bytes, table_id: int, seat: int | None) -> None:
    _, state = _table(table_id)
    body = check_common(raw, state, seat)
    moves = {m.seq: m for m in Move.objects.filter(table_id=table_id)}
    assert [m["seq"] for m in body["moves"]] == sorted(moves)
    for served in body["moves"]:
        check_events(served["events"], moves[served["seq"]].payload["events"], seat)


def check_move_answer(raw: bytes, table_id: int, seat: int) -> dict[str, Any]:
    real = _table(table_id)
    body = check_common(raw, real[1], seat)
    move = Move.objects.get(table_id=table_id, seq=body["seq"])
    check_events(body["events"], move.payload["events"], seat)
    check_view(json.dumps(body["view"]).encode(), table_id, seat, real)
    return body


# --- playing ------------------------------------------------------------------


def random_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    choice = rng.choice(view["game"]["legal_actions"])
    body: dict[str, Any] = {"type": choice["type"], "expected_seq": view["seq"]}
    if "card" in choice:
        body["card"] = choice["card"]
    if "colors" in choice:
        # Mostly the colour the hand holds most of, as a person would: games stay short.
        held = Counter(SYMBOL_COLOR.get(c["face"].split("-")[0]) for c in view["game"]["hand"])
        colors = choice["colors"]
        best = max(colors, key=lambda color: held[color])
        body["color"] = best if rng.random() < 0.8 else rng.choice(colors)
    return body


def play_one_game(index: int) -> dict[str, int]:
    rng = random.Random(index)
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    clients = {number: client(user) for number, user in enumerate(users)}
    watcher = client(make_user())
    host = clients[0]

    table = host.post(
        "/api/v1/tables/", {"seat_count": people + bots, "allow_watchers": True}, format="json"
    ).json()
    table_id = table["id"]
    base = f"/api/v1/tables/{table_id}/"
    for number in range(1, people):
        assert clients[number].post(base + "join/").status_code == 201
    for _ in range(bots):
        # Easy bots keep the suite fast; every so often a stronger one takes a seat.
        level = "easy" if rng.random() < 0.9 else rng.choice(["normal", "hard"])
        assert host.post(base + "bots/", {"level": level}, format="json").status_code == 201
    started = host.post(base + "start/")
    assert started.status_code == 200
    latest = {0: check_move_answer(started.content, table_id, 0)["view"]}
    view = latest[0]
    counts = Counter({"games": 1})

    for _ in range(2000):
        if view["game"]["over"]:
            break
        seat = view["game"]["to_act"]
        assert seat in clients, "a bot's turn was left waiting"
        mine = latest.get(seat)
        if mine is None or mine["seq"] != view["seq"]:
            response = clients[seat].get(base + "view/")
            assert response.status_code == 200
            mine = check_view(response.content, table_id, seat)
            counts["views"] += 1
        if people + bots == 3 and rng.random() < 0.01:
            response = clients[seat].post(base + "concede/")
            assert response.status_code == 200
            view = check_move_answer(response.content, table_id, seat)["view"]
            latest = {seat: view}
            counts["concessions"] += 1
            continue
        response = clients[seat].post(base + "actions/", random_action(mine, rng), format="json")
        assert response.status_code == 201, response.content
        view = check_move_answer(response.content, table_id, seat)["view"]
        latest = {seat: view}
        counts["actions"] += 1
        if rng.random() < 0.1:
            # Somebody else looks: another seat or the watcher.
            who = rng.choice([*(n for n in clients if n != seat), WATCHER])
            asker = watcher if who is WATCHER else clients[who]
            response = asker.get(base + "view/")
            assert response.status_code == 200
            checked = check_view(response.content, table_id, who)
            if who is not WATCHER:
                latest[who] = checked
            counts["views"] += 1
    assert view["game"]["over"], "the game did not end"

    for number, asker in [*clients.items(), (WATCHER, watcher)]:
        response = asker.get(base + "log/")
        assert response.status_code == 200
        check_log(response.content, table_id, number)
        final = asker.get(base + "view/")
        check_view(final.content, table_id, number)
        counts["logs"] += 1
    assert host.get(base + "record/").status_code == 200
    assert Table.objects.get(pk=table_id).status == "finished"
    return counts


def _play_games(games: int) -> None:
    totals: Counter[str] = Counter()
    for index in range(games):
        totals.update(play_one_game(index))

    assert totals["games"] == games
    assert totals["actions"] > games * 5
    assert totals["logs"] > games * 2


def test_whole_games_through_the_api_never_leak_what_a_seat_may_not_see() -> None:
    _play_games(GAMES)


@pytest.mark.slow
def test_many_whole_games_through_the_api_never_leak_what_a_seat_may_not_see() -> None:
    _play_games(SLOW_GAMES)
