"""Helpers for the web tests of classic Wild Cards: open a table through the lobby's
form, read its real state, and play it through the table page's own forms."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

import wildcards
from games import selectors, services
from games.models import Table
from tests.web.conftest import logged_in, make_user

LIVE = {"HTTP_X_GAMENOOK_LIVE": "1"}
#: Every house rule of the classic game on.
ALL_HOUSE_RULES = {
    "wildcards-stacking": "on",
    "wildcards-seven_zero": "on",
    "wildcards-jump_in": "on",
    "wildcards-draw_until_playable": "on",
}


def classic_form(seats: int, **fields: str) -> dict[str, str]:
    """The lobby's form for a classic table of ``seats``, turn by turn, single round."""
    return {
        "game": "wildcards",
        "seat_count": str(seats),
        "mode": "turn_by_turn",
        "turn_hours": "24",
        "timeout_policy": "bot",
        "wildcards-scoring": "single",
        "wildcards-target": "500",
        **fields,
    }


def open_classic(
    people: int, bots: int = 0, *, form: dict[str, str] | None = None
) -> tuple[int, list[User], dict[int, Client]]:
    """A started classic table opened through the form: ``people`` users, then bots."""
    users = [make_user() for _ in range(people)]
    clients = {n: logged_in(u) for n, u in enumerate(users)}
    created = clients[0].post("/tables/new/", form or classic_form(people + bots))
    assert created.status_code == 302, created.content.decode()[:2000]
    table_id = int(created["Location"].strip("/").split("/")[-1])
    for user in users[1:]:
        services.table_join(table_id=table_id, user=user)
    for _ in range(bots):
        services.table_add_bot(table_id=table_id, user=users[0], level="easy")
    services.table_start(table_id=table_id, user=users[0])
    return table_id, users, clients


def state_of(table_id: int) -> wildcards.GameState:
    state = Table.objects.get(pk=table_id).state
    assert state is not None
    return wildcards.GameState.from_dict(state)


def view_of(table_id: int, seat: int | None) -> dict[str, Any] | None:
    table = Table.objects.get(pk=table_id)
    return selectors.table_view(table, seat)


def random_request(view: dict[str, Any], rng: random.Random) -> dict[str, str]:
    """One of the view's legal actions, as the page's form sends it."""
    choice = rng.choice(view["legal_actions"])
    data = {"type": choice["type"]}
    if "card" in choice:
        data["card"] = choice["card"]
    if choice.get("colors"):
        data["color"] = rng.choice(choice["colors"])
    if choice.get("targets"):
        data["target"] = str(rng.choice(choice["targets"]))
    return data


def act(client: Client, table_id: int, data: dict[str, str]) -> dict[str, Any]:
    """Send a move as the page's script does; the JSON answer."""
    response = client.post(f"/tables/{table_id}/act/", data, **LIVE)
    body: dict[str, Any] = response.json()
    return body


def seq_of(html: str) -> str:
    found = re.search(r'data-seq="(\d+)"', html)
    assert found is not None
    return found.group(1)


Finder = Callable[[int, int, dict[str, Any]], bool]


def play_until(
    table_id: int, clients: dict[int, Client], found: Finder, *, seed: int = 0, moves: int = 3000
) -> int | None:
    """Play random legal moves (the seat to act's) until ``found(table, seat, view)``
    holds for a seat; that seat, or None when the game ended first."""
    rng = random.Random(seed)
    for _ in range(moves):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.ACTIVE:
            return None
        for seat in clients:
            view = selectors.table_view(table, seat)
            assert view is not None
            if found(table_id, seat, view):
                return seat
        to_act = table.to_act
        assert to_act is not None
        view = selectors.table_view(table, to_act)
        assert view is not None
        answer = act(clients[to_act], table_id, random_request(view, rng))
        assert answer["ok"], answer["error"]
    raise AssertionError("no such moment within the moves")
