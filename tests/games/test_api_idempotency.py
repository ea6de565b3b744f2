"""Idempotency-Key: a repeated write is answered again, never applied again."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import IdempotencyKey, Move, Table
from tests.games.conftest import action_body, assert_error, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


def test_a_repeated_table_creation_returns_the_same_answer_and_creates_one_table(
    alice: User, api: Api
) -> None:
    client = api(alice)
    first = client.post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    second = client.post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )

    assert first.status_code == second.status_code == 201
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true"
    assert Table.objects.count() == 1
    record = IdempotencyKey.objects.get(user=alice, key="k1")
    assert record.state == "done" and record.response_status == 201


def test_a_repeated_action_is_applied_once(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    table.refresh_from_db()
    assert table.state is not None
    mover = api(alice if table.state["current"] == 0 else bob)
    url = f"/api/v1/tables/{table.pk}/actions/"
    body = action_body(mover.get(f"/api/v1/tables/{table.pk}/view/").json())

    first = mover.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="move-1")
    again = [mover.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="move-1") for _ in range(3)]

    assert first.status_code == 201
    for response in again:
        assert response.status_code == 201 and response.content == first.content
    assert Move.objects.filter(table=table).count() == 2
    # Without the key the same body is a new request: stale now.
    assert_error(mover.post(url, body, format="json"), 409, "stale_seq")


def test_a_refusal_is_stored_and_replayed_too(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    url = f"/api/v1/tables/{table.pk}/actions/"
    body = {"type": "play", "card": "nope"}
    client = api(alice)

    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="bad")
    second = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="bad")

    assert first.status_code == second.status_code
    assert first.status_code in (422,)
    assert first.content == second.content


def test_the_same_key_with_a_different_body_is_422(alice: User, api: Api) -> None:
    client = api(alice)
    client.post("/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k")

    response = client.post(
        "/api/v1/tables/", {"seat_count": 3}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )

    assert_error(response, 422, "idempotency_key_reused")
    assert Table.objects.count() == 1


def test_the_same_key_on_another_endpoint_is_422(alice: User, api: Api) -> None:
    client = api(alice)
    created = client.post("/api/v1/tables/", {}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert created.status_code == 400

    response = client.post("/api/v1/tables/1/join/", {}, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert_error(response, 422, "idempotency_key_reused")


def test_the_same_key_while_the_first_is_running_is_409(alice: User, api: Api) -> None:
    client = api(alice)
    client.post("/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    # As if the first request were still running.
    IdempotencyKey.objects.filter(key="k").update(state="running")

    response = client.post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )

    assert_error(response, 409, "idempotency_key_in_use")
    assert Table.objects.count() == 1


def test_a_key_abandoned_by_a_dead_request_is_taken_over(alice: User, api: Api) -> None:
    client = api(alice)
    client.post("/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    # As if the process had died mid-request long ago: the key is still "running".
    IdempotencyKey.objects.filter(key="k").update(
        state="running", created_at=timezone.now() - timedelta(minutes=10)
    )

    response = client.post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )

    assert response.status_code == 201
    assert IdempotencyKey.objects.get(key="k").state == "done"


def test_keys_belong_to_one_user(alice: User, bob: User, api: Api) -> None:
    api(alice).post("/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    response = api(bob).post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )

    assert response.status_code == 201 and response.json()["host"] == "bob"
    assert Table.objects.count() == 2


def test_an_overlong_key_is_400(alice: User, api: Api) -> None:
    response = api(alice).post(
        "/api/v1/tables/", {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY="k" * 256
    )

    assert_error(response, 400, "invalid_idempotency_key")
    assert not Table.objects.exists()


def test_patch_me_honours_the_key(alice: User, api: Api) -> None:
    client = api(alice)
    first = client.patch(
        "/api/v1/me/", {"email": "a@b.example"}, format="json", HTTP_IDEMPOTENCY_KEY="m"
    )
    alice.email = "changed@elsewhere.example"
    alice.save()
    again = client.patch(
        "/api/v1/me/", {"email": "a@b.example"}, format="json", HTTP_IDEMPOTENCY_KEY="m"
    )

    assert again.content == first.content
    alice.refresh_from_db()
    assert alice.email == "changed@elsewhere.example"  # not applied a second time
