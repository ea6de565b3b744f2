"""The answer to an action: what the acting client needs next, with the statements it costs.

A client acting with ``expected_seq`` gets its seat's new view, the seq and
the ETag in the answer, built from the seats read with the table lock (no
second read); a GET of the view reads the table and its seats in one
statement. These tests count statements, never time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import services
from games.models import Table
from tests.games.conftest import action_body, client_for, make_user, started_table

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

    assert len(seat_reads) == 1
    if connection.vendor == "postgresql":  # SQLite locks the whole database instead
        assert "FOR UPDATE" in seat_reads[0]
    body = response.json()
    fresh = client.get(_url(table, "view"))
    # What a GET would now answer, ETag included: the client need not read it again.
    assert body["view"] == fresh.json()
    assert body["seq"] == fresh.json()["seq"] == view["seq"] + 1
    assert response["ETag"] == fresh["ETag"] == f'"{body["seq"]}"'


def test_an_action_without_expected_seq_also_reads_the_seats_once(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    client = api(_mover(table, {0: alice, 1: bob}))
    view = client.get(_url(table, "view")).json()
    body = action_body(view)
    del body["expected_seq"]

    response, seat_reads = _act(client, table, body)

    assert len(seat_reads) == 1
    assert response.json()["view"] == client.get(_url(table, "view")).json()


def _waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="racing row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_seats_changed_while_the_action_waited_for_the_lock_are_read_again() -> None:
    # The action's statement takes its snapshot, then waits for the lock that a leave
    # holds; the leave commits. The seats the snapshot saw are stale: the answer must
    # not show them.
    alice, bob, carol = make_user(), make_user(), make_user()
    table = started_table(alice, bob, carol)
    players = {0: alice, 1: bob, 2: carol}
    mover = _mover(table, players)
    leaver = next(user for user in (alice, bob, carol) if user != mover)
    client = client_for(mover)
    body = action_body(client.get(_url(table, "view")).json())
    del body["expected_seq"]  # the leave moves the seq on
    locked, release = threading.Event(), threading.Event()
    answers: list[Any] = []
    errors: list[BaseException] = []

    def leave() -> None:
        try:
            with transaction.atomic():
                services.table_concede(table_id=table.pk, user=leaver)
                locked.set()
                assert release.wait(timeout=60)
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    def act() -> None:
        try:
            answers.append(client.post(_url(table, "actions"), body, format="json"))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    leaving = threading.Thread(target=leave)
    leaving.start()
    assert locked.wait(timeout=60)
    acting = threading.Thread(target=act)
    acting.start()
    deadline = time.monotonic() + 60
    while not _waiting_for_a_lock() and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    leaving.join(timeout=60)
    acting.join(timeout=60)

    assert not errors, errors
    assert answers[0].status_code == 201, answers[0].content[:300]
    left = {seat["username"]: seat["left"] for seat in answers[0].json()["view"]["seats"]}
    assert left == {user.username: user == leaver for user in (alice, bob, carol)}


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
    seat = response.json()["seats"][1]
    assert (seat["number"], seat["username"], seat["bot_level"]) == (1, None, "easy")
