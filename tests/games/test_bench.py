"""The load benchmark's baseline endpoint: one INSERT, and only when switched on."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from games.models import BenchPing

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
