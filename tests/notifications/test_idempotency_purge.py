"""Idempotency-Key records are kept a day, then the sweep deletes them (issue 35 §8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services as games
from games.models import IdempotencyKey
from notifications import services
from tests.games.conftest import client_for

from .conftest import make_user

pytestmark = pytest.mark.django_db

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


def _record(user: User, key: str, at: datetime) -> IdempotencyKey:
    with time_machine.travel(at, tick=False):
        return IdempotencyKey.objects.create(
            user=user, key=key, fingerprint="f" * 64, state=IdempotencyKey.State.DONE
        )


def test_the_sweep_deletes_only_the_records_older_than_a_day() -> None:
    alice = make_user("alice")
    for n in range(5):
        _record(alice, f"old-{n}", T0 - timedelta(days=3))
    _record(alice, "a-day-and-a-minute", T0 - timedelta(days=1, minutes=1))
    kept = [
        _record(alice, "a-minute-short-of-a-day", T0 - timedelta(days=1) + timedelta(minutes=1)),
        _record(alice, "now", T0),
    ]
    handed: list[Any] = []
    with time_machine.travel(T0, tick=False):
        # Two a statement: the six old ones take three, and the purge goes on to the end.
        result = services.sweep(run=lambda *job: handed.append(job), batch=2)
    assert result.idempotency_keys == 6
    assert list(IdempotencyKey.objects.order_by("pk")) == kept
    assert handed == []


def test_the_keep_setting_decides_what_is_old(settings: Any) -> None:
    settings.GAMENOOK_IDEMPOTENCY_KEEP_SECONDS = 3600
    alice = make_user("alice")
    old = _record(alice, "two-hours", T0 - timedelta(hours=2))
    young = _record(alice, "half-an-hour", T0 - timedelta(minutes=30))
    assert games.idempotency_keys_purge(now=T0) == 1
    assert list(IdempotencyKey.objects.all()) == [young]
    assert not IdempotencyKey.objects.filter(pk=old.pk).exists()


def test_with_nothing_old_the_purge_reads_one_row() -> None:
    alice = make_user("alice")
    for n in range(30):
        _record(alice, f"young-{n}", T0 - timedelta(hours=1))
    with CaptureQueriesContext(connection) as queries:
        assert games.idempotency_keys_purge(now=T0) == 0
    assert len(queries) == 1
    assert IdempotencyKey.objects.count() == 30


def test_a_key_older_than_a_day_is_new_again() -> None:
    alice = make_user("alice")
    api = client_for(alice)
    headers: dict[str, Any] = {"HTTP_IDEMPOTENCY_KEY": "open-a-table"}
    with time_machine.travel(T0, tick=False) as clock:
        first = api.post("/api/v1/tables/", {"seat_count": 2}, format="json", **headers)
        assert first.status_code == 201
        clock.shift(timedelta(hours=23))
        # Within the day: the same key with another body is refused.
        reused = api.post("/api/v1/tables/", {"seat_count": 3}, format="json", **headers)
        assert reused.status_code == 422
        clock.shift(timedelta(hours=2))
        # Past it, even before the sweep came by, the key is free again.
        again = api.post("/api/v1/tables/", {"seat_count": 3}, format="json", **headers)
    assert again.status_code == 201, again.content
    assert again.json()["id"] != first.json()["id"]
    assert IdempotencyKey.objects.filter(user=alice).count() == 1
