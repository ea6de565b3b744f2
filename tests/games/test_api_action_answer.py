"""The answer to an action: what the acting client needs next, with the statements it costs.

A client acting with ``expected_seq`` gets its seat's new view, the seq and
the ETag in the answer, built from the seats read with the table lock (no
second read); a GET of the view reads the table and its seats in one
statement. These tests count statements, never time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import services
from games.models import Table
from tests.games.conftest import action_body, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


def _url(table: Table, what: str) -> str:
    return f"/api/v1/tables/{table.pk}/{what}/"


def _mover(table: Table, players: dict[int, User]) -> User:
    table.refresh_from_db()
    assert table.to_act is not None
    return players[table.to_act]


def _seat_reads(queries: CaptureQueriesContext) -> list[str]:
    """The statements that read the games_seat table."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith("SELECT") and '"games_seat"' in q["sql"]
    ]


def _act(client: APIClient, table: Table, body: dict[str, Any]) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(_url(table, "actions"), body, format="json")
    assert response.status_code == 201, response.content[:300]
    return response, _seat_reads(queries)


def test_an_action_with_expected_seq_reads_the_seats_once_and_answers_the_fresh_view(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    client = api(_mover(table, {0: alice, 1: bob}))
    view = client.get(_url(table, "view")).json()

    response, seat_reads = _act(client, table, action_body(view))

    assert len(seat_reads) == 1 and "FOR UPDATE" in seat_reads[0]
    body = response.json()
    fresh = client.get(_url(table, "view"))
    # What a GET would now answer, ETag included: the client need not read it again.
    assert body["view"] == fresh.json()
    assert body["seq"] == fresh.json()["seq"] == view["seq"] + 1
    assert response["ETag"] == fresh["ETag"] == f'"{body["seq"]}"'


def test_an_action_without_expected_seq_reads_the_seats_again_after_the_lock(
    alice: User, bob: User, api: Api
) -> None:
    # Without the client's seq nothing shows that the seats read with the lock are
    # current (another change may have committed while the lock was awaited).
    table = started_table(alice, bob)
    client = api(_mover(table, {0: alice, 1: bob}))
    view = client.get(_url(table, "view")).json()
    body = action_body(view)
    del body["expected_seq"]

    response, seat_reads = _act(client, table, body)

    assert len(seat_reads) == 2
    assert response.json()["view"] == client.get(_url(table, "view")).json()


def test_the_answer_shows_a_seat_that_left_before_the_action(
    alice: User, bob: User, carol: User, api: Api
) -> None:
    table = started_table(alice, bob, carol)
    players = {0: alice, 1: bob, 2: carol}
    leaver = next(n for n in (0, 1, 2) if n != table.to_act)
    services.table_concede(table_id=table.pk, user=players[leaver])
    client = api(_mover(table, players))
    view = client.get(_url(table, "view")).json()

    response, _ = _act(client, table, action_body(view))

    seats = {seat["number"]: seat["left"] for seat in response.json()["view"]["seats"]}
    assert seats == {n: n == leaver for n in (0, 1, 2)}


def test_a_view_reads_the_table_and_its_seats_in_one_statement(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    client = api(alice)
    client.get(_url(table, "view"))  # the token's last use is written once, not measured

    with CaptureQueriesContext(connection) as queries:
        response = client.get(_url(table, "view"))

    assert response.status_code == 200
    games_reads = [q["sql"] for q in queries.captured_queries if '"games_' in q["sql"]]
    assert len(games_reads) == 1
    assert '"games_seat"' in games_reads[0] and '"games_table"' in games_reads[0]
    assert [seat["username"] for seat in response.json()["seats"]] == ["alice", "bob"]


def test_a_former_player_whose_seat_went_to_a_bot_still_watches(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    services.seat_replace_with_bot(table_id=table.pk, number=1, level="easy")

    response = api(bob).get(_url(table, "view"))

    assert response.status_code == 200
    assert response.json()["game"]["seat"] is None
    assert response.json()["seats"][1] == {
        "number": 1,
        "username": None,
        "bot_level": "easy",
        "left": False,
    }
