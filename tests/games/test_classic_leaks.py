"""No API answer at a classic Wild Cards table tells a seat, or a watcher, more than it may see.

Whole games with every house rule on (people choosing random legal actions, jump-ins
whenever offered, a refused request now and then, a concession now and then; easy bots),
every answer searched against the table's real state:

- no answer holds the seed, a shuffle order, a card number, the handle of a card in
  another hand or in the draw pile; a watcher's holds no handle and no face of a hand
  (finished rounds' hands excepted, R28);
- a seat's hand is exactly its cards, by handle and face;
- nobody learns who could have jumped in (R29): at every moment every seat's view,
  without its own hand and legal actions (and the drawn card of the player to act),
  is the watcher's view, whoever holds an identical card;
- a 7-0 swap or rotation shows seats and counts, never a card (R23), and every
  handle changes with it: no handle seen before an exchange names a card after it;
- the log, the move answers and the refusals are searched the same way.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

import wildcards
from games.models import Move, Table
from tests.games.conftest import make_user

pytestmark = pytest.mark.django_db

GAMES = int(os.environ.get("CLASSIC_LEAK_GAMES", "5"))
#: (people, bots): 2 to 6 seats.
LAYOUTS = [(3, 0), (2, 1), (1, 2), (2, 2), (4, 0), (1, 5), (3, 1), (2, 0)]
ALL_RULES = {"stacking": True, "seven_zero": True, "jump_in": True, "draw_until_playable": True}
WATCHER = None
#: What a seat's view may hold that the watcher's does not (its own, R29).
OWN = ("seat", "hand", "legal_actions", "rounds")


def client(user: User) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def real(table_id: int) -> tuple[int, wildcards.GameState]:
    seq, state = Table.objects.filter(pk=table_id).values_list("seq", "state").get()
    return seq, wildcards.GameState.from_dict(state)


def _walk(value: Any, path: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, path)


def _results(path: tuple[str, ...]) -> bool:
    return "rounds" in path or "result" in path


def check_common(text: str, state: wildcards.GameState, seat: int | None) -> Any:
    """Checks for any answer; returns the parsed body."""
    assert state.seed not in text
    for number, hand in enumerate(state.hands):
        if number != seat:
            for card in hand:
                assert wildcards.handle(state, card) not in text, "another hand's handle"
    for card in state.draw:
        assert wildcards.handle(state, card) not in text, "a draw pile card's handle"
    body = json.loads(text)
    for path, key, value in _walk(body):
        assert key not in ("order", "seed", "shuffles", "hands", "draw") or _results(path), (
            path,
            key,
        )
        if key == "card" and not _results(path):
            assert seat is not None and isinstance(value, str), (path, key, value)
        if key == "cards" and not _results(path):
            raise AssertionError(("card numbers left the engine", path, value))
        if seat is None and key in ("faces", "face") and path and path[-1] == "pending":
            raise AssertionError("a watcher saw a drawn card")
        if seat is None and key == "faces":
            assert _results(path), ("a watcher saw faces", path)
    return body


def public_part(game: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in game.items() if k not in OWN}
    pending = out.get("pending")
    if pending is not None:
        out["pending"] = {k: v for k, v in pending.items() if k not in ("card", "face")}
    return out


def check_view(
    game: dict[str, Any],
    state: wildcards.GameState,
    seat: int | None,
    watcher: dict[str, Any] | None,
) -> None:
    assert game["seat"] == seat
    assert [p["count"] for p in game["players"]] == [len(h) for h in state.hands]
    assert game["draw_pile"] == {"count": len(state.draw)}
    assert game["discard_pile"] == [wildcards.CODE_OF[c] for c in state.discard]
    if seat is None:
        assert game["hand"] == [] and game["legal_actions"] == []
        return
    mine = Counter((wildcards.handle(state, c), wildcards.CODE_OF[c]) for c in state.hands[seat])
    assert Counter((c["card"], c["face"]) for c in game["hand"]) == mine
    if watcher is not None:
        # R29: nothing but the seat's own tells one seat's view from another's.
        assert public_part(game) == public_part(watcher), seat


def check_events(served: list[dict[str, Any]], raw: list[dict[str, Any]], seat: int | None) -> None:
    draws = [e for e in raw if e["type"] == "draw"]
    shown = [e for e in served if e["type"] == "draw"]
    assert len(draws) == len(shown)
    for event, seen in zip(draws, shown, strict=True):
        assert seen["count"] == len(event["cards"])
        if seat is not None and seat == event["seat"]:
            assert seen["faces"] == [wildcards.CODE_OF[c] for c in event["cards"]]
        else:
            assert "faces" not in seen
    for seen in served:
        if seen["type"] in ("swap", "rotate"):
            assert set(seen) <= {"type", "seats", "counts", "direction"}, seen


class Game:
    """One classic game played through the API, every answer checked."""

    def __init__(self, index: int) -> None:
        self.rng = random.Random(index)
        people, bots = LAYOUTS[index % len(LAYOUTS)]
        users = [make_user() for _ in range(people)]
        self.clients: dict[int | None, APIClient] = {n: client(u) for n, u in enumerate(users)}
        self.clients[WATCHER] = client(make_user())
        host = self.clients[0]
        created = host.post(
            "/api/v1/tables/",
            {
                "game": "wildcards",
                "seat_count": people + bots,
                "allow_watchers": True,
                "options": {
                    **ALL_RULES,
                    "scoring": "target" if index % 3 == 0 else "single",
                    "target": 50,
                },
            },
            format="json",
        )
        assert created.status_code == 201, created.content
        self.table_id = created.json()["id"]
        self.base = f"/api/v1/tables/{self.table_id}/"
        for number in range(1, people):
            assert self.clients[number].post(self.base + "join/").status_code == 201
        for _ in range(bots):
            assert (
                host.post(self.base + "bots/", {"level": "easy"}, format="json").status_code == 201
            )
        self.people = people
        self.counts: Counter[str] = Counter({"games": 1})
        # handle -> (round, exchanges) when a seat's view showed it (R23).
        self.handles: dict[str, tuple[int, int]] = {}
        started = host.post(self.base + "start/")
        assert started.status_code == 200
        self.check_answer(started.content.decode(), 0)

    def get(self, who: int | None, what: str) -> str:
        response = self.clients[who].get(self.base + what)
        assert response.status_code == 200, response.content
        return response.content.decode()

    def check_answer(self, text: str, seat: int) -> dict[str, Any]:
        seq, state = real(self.table_id)
        body = check_common(text, state, seat)
        move = Move.objects.get(table_id=self.table_id, seq=body["seq"])
        check_events(body["events"], move.payload["events"], seat)
        return body

    def views(self) -> dict[int | None, dict[str, Any]]:
        """Every seat's view and the watcher's, read now and checked."""
        seq, state = real(self.table_id)
        texts = {who: self.get(who, "view/") for who in self.clients}
        bodies = {who: check_common(t, state, who) for who, t in texts.items()}
        watcher = bodies[WATCHER]["game"]
        check_view(watcher, state, WATCHER, None)
        for who, body in bodies.items():
            assert body["seq"] == seq
            if who is not WATCHER:
                check_view(body["game"], state, who, watcher)
                for card in body["game"]["hand"]:
                    moment = (state.round, state.exchanges)
                    assert self.handles.setdefault(card["card"], moment) == moment, (
                        "a handle outlived an exchange or a round (R23)"
                    )
        self.counts["views"] += len(bodies)
        return {who: body["game"] for who, body in bodies.items()}

    def refused(self, seat: int, body: dict[str, Any]) -> None:
        response = self.clients[seat].post(self.base + "actions/", body, format="json")
        assert 400 <= response.status_code < 500, response.content
        check_common(response.content.decode(), real(self.table_id)[1], seat)
        self.counts["refusals"] += 1

    def play(self) -> Counter[str]:
        for _ in range(3000):
            views = self.views()
            game = views[WATCHER]
            if game["over"]:
                break
            to_act = game["to_act"]
            jumpers = [n for n in range(self.people) if n != to_act and views[n]["legal_actions"]]
            seat = jumpers[0] if jumpers else to_act
            assert seat < self.people, "a bot's turn was left waiting"
            mine = views[seat]
            others = [n for n in range(self.people) if n != seat]
            if others and self.rng.random() < 0.05:
                # A request with another seat's card, out of turn or not: refused, no leak.
                theirs = views[self.rng.choice(others)]["hand"]
                if theirs:
                    self.refused(seat, {"type": "play", "card": theirs[0]["card"]})
            if self.rng.random() < 0.03:
                self.refused(seat, {"type": "take_penalty", "target": 99})
            if self.people + len(views) > 5 and self.rng.random() < 0.005:
                response = self.clients[seat].post(self.base + "concede/")
                assert response.status_code == 200
                self.check_answer(response.content.decode(), seat)
                self.counts["concessions"] += 1
                continue
            choice = self.rng.choice(mine["legal_actions"])
            body: dict[str, Any] = {"type": choice["type"]}
            if "card" in choice:
                body["card"] = choice["card"]
            if choice.get("colors"):
                body["color"] = self.rng.choice(choice["colors"])
            if choice.get("targets"):
                body["target"] = self.rng.choice(choice["targets"])
            response = self.clients[seat].post(self.base + "actions/", body, format="json")
            assert response.status_code == 201, (body, response.content)
            answer = self.check_answer(response.content.decode(), seat)
            self.counts["actions"] += 1
            self.counts["jump-ins"] += bool(jumpers)
            kinds = {e["type"] for e in answer["events"]}
            self.counts["exchanges"] += bool(kinds & {"swap", "rotate"})
        assert Table.objects.get(pk=self.table_id).status == Table.Status.FINISHED
        _, state = real(self.table_id)
        for who in self.clients:
            text = self.get(who, "log/")
            body = check_common(text, state, who)
            moves = {m.seq: m for m in Move.objects.filter(table_id=self.table_id)}
            for served in body["moves"]:
                check_events(served["events"], moves[served["seq"]].payload["events"], who)
            self.counts["logs"] += 1
        return self.counts


def test_whole_classic_games_never_leak_through_the_api() -> None:
    totals: Counter[str] = Counter()
    for index in range(GAMES):
        totals.update(Game(index).play())
    assert totals["games"] == GAMES
    assert totals["actions"] > GAMES * 5
    # The games went where leaks hide: jump-ins, 7-0 exchanges, refusals, a concession.
    assert totals["jump-ins"] > 0 and totals["exchanges"] > 0 and totals["refusals"] > 0, totals


@pytest.mark.slow
def test_a_hundred_classic_games_never_leak_through_the_api() -> None:
    for index in range(100):
        Game(index).play()
