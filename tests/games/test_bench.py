"""The load benchmark's anchors: one INSERT, an action's bare transaction; only when switched on."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from games.models import BenchPing, Move, Table
from tests.games.conftest import make_user, started_table

pytestmark = pytest.mark.django_db


def _client() -> APIClient:
    client = APIClient()
    client.force_authenticate(User.objects.create_user(username="bench", password="pw"))
    return client


def test_bench_ping_is_not_there_by_default() -> None:
    response = _client().post("/api/v1/bench/ping/", {}, format="json")

    assert response.status_code == 404
    assert BenchPing.objects.count() == 0


@override_settings(GAMENOOK_BENCH_ENDPOINTS=False)
def test_bench_ping_answers_404_before_asking_for_credentials() -> None:
    response = APIClient().post("/api/v1/bench/ping/", {}, format="json")

    assert response.status_code == 404


@override_settings(GAMENOOK_BENCH_ENDPOINTS=True)
def test_bench_ping_inserts_one_row_when_switched_on() -> None:
    response = _client().post("/api/v1/bench/ping/", {}, format="json")

    assert response.status_code == 201
    assert response.json() == {"id": BenchPing.objects.get().pk}


@override_settings(GAMENOOK_BENCH_ENDPOINTS=True)
def test_bench_ping_needs_authentication() -> None:
    response = APIClient().post("/api/v1/bench/ping/", {}, format="json")

    assert response.status_code in (401, 403)
    assert BenchPing.objects.count() == 0


def _started_table() -> Table:
    return started_table(make_user(), make_user())


def test_bench_transaction_is_not_there_by_default() -> None:
    table = _started_table()

    response = _client().post(f"/api/v1/bench/transaction/{table.pk}/", {}, format="json")

    assert response.status_code == 404
    assert Move.objects.filter(table=table).count() == 1  # the deal only


@override_settings(GAMENOOK_BENCH_ENDPOINTS=True)
def test_bench_transaction_appends_a_move_and_rewrites_the_snapshot_as_it_was() -> None:
    table = _started_table()
    before = Table.objects.get(pk=table.pk)

    response = _client().post(f"/api/v1/bench/transaction/{table.pk}/", {}, format="json")

    assert response.status_code == 201
    after = Table.objects.get(pk=table.pk)
    assert response.json() == {"seq": before.seq + 1} and after.seq == before.seq + 1
    assert after.state == before.state and after.updated_at > before.updated_at
    move = Move.objects.get(table=table, seq=after.seq)
    assert move.action == "bench" and move.seat is None


@override_settings(GAMENOOK_BENCH_ENDPOINTS=True)
def test_bench_transaction_needs_authentication_and_a_table() -> None:
    table = _started_table()

    assert APIClient().post(f"/api/v1/bench/transaction/{table.pk}/").status_code in (401, 403)
    assert _client().post("/api/v1/bench/transaction/999999/").status_code == 404
    assert Table.objects.get(pk=table.pk).seq == table.seq
