"""Concurrent requests: one move wins, the rest are told the table moved on.

Each thread has its own database connection (Django's are per thread), so
the requests really race for the table row's lock in PostgreSQL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from games.models import Move, Table
from tests.games.conftest import action_body, client_for, make_user, started_table

# SQLite serialises writers with a lock on the whole database: racing
# requests there fail with "database table is locked" instead of queueing on
# a row lock. The races are PostgreSQL's, which CI and production run.
pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="racing row locks need PostgreSQL"
)


def race(count: int, send: Callable[[], Any]) -> list[Any]:
    """Run ``send`` in ``count`` threads released at the same instant; their responses."""
    barrier = threading.Barrier(count)
    responses: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            responses[i] = send()
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return responses


def seqs(table: Table) -> list[int]:
    return list(Move.objects.filter(table=table).order_by("seq").values_list("seq", flat=True))


def mover_of(table: Table, clients: dict[int, APIClient]) -> APIClient:
    table.refresh_from_db()
    assert table.state is not None
    return clients[table.state["current"]]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("count", [2, 8, 32])
def test_concurrent_actions_with_the_same_expected_seq_apply_exactly_one(count: int) -> None:
    alice, bob = make_user(), make_user()
    table = started_table(alice, bob)
    clients = {0: client_for(alice), 1: client_for(bob)}
    mover = mover_of(table, clients)
    url = f"/api/v1/tables/{table.pk}/actions/"
    body = action_body(mover.get(f"/api/v1/tables/{table.pk}/view/").json())
    before = seqs(table)

    responses = race(count, lambda: mover.post(url, body, format="json"))

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (count - 1), statuses
    assert all(r.json()["code"] == "stale_seq" for r in responses if r.status_code == 409)
    after = seqs(table)
    assert after == before + [before[-1] + 1]
    assert after == list(range(1, len(after) + 1))
    table.refresh_from_db()
    assert table.seq == after[-1]


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_idempotency_key_apply_one_move() -> None:
    alice, bob = make_user(), make_user()
    table = started_table(alice, bob)
    clients = {0: client_for(alice), 1: client_for(bob)}
    mover = mover_of(table, clients)
    url = f"/api/v1/tables/{table.pk}/actions/"
    body = action_body(mover.get(f"/api/v1/tables/{table.pk}/view/").json())
    del body["expected_seq"]  # only the key protects these requests

    responses = race(8, lambda: mover.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="same"))

    created = [r for r in responses if r.status_code == 201]
    busy = [r for r in responses if r.status_code == 409]
    assert created and len(created) + len(busy) == 8
    assert all(r.json()["code"] == "idempotency_key_in_use" for r in busy)
    assert len({r.content for r in created}) == 1
    assert seqs(table) == [1, 2]


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_fill_each_seat_once() -> None:
    host = make_user()
    table = client_for(host).post("/api/v1/tables/", {"seat_count": 4}, format="json").json()
    joiners = [client_for(make_user()) for _ in range(8)]
    turn = iter(range(8))
    lock = threading.Lock()

    def join() -> Any:
        with lock:
            client = joiners[next(turn)]
        return client.post(f"/api/v1/tables/{table['id']}/join/")

    responses = race(8, join)

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] * 3 + [409] * 5, statuses
    numbers = sorted(Table.objects.get(pk=table["id"]).seats.values_list("number", flat=True))
    assert numbers == [0, 1, 2, 3]
