"""The sweep reads through the partial indexes, in batches; the Celery app's set-up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.db import connection

from gamenook.celery import app
from games.models import Table
from notifications import services

from .conftest import Jobs, make_user, started_table

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_the_sweep_hands_out_every_due_table_once_across_batches(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        due = [started_table(make_user(), make_user(), turn_hours=12) for _ in range(5)]
        started_table(make_user(), make_user(), turn_hours=72)  # not due
        clock.shift(timedelta(hours=12))
        handed: list[tuple[str, tuple[int, ...]]] = []
        result = services.sweep(run=lambda name, args: handed.append((name, args)), batch=2)
    assert result.timeouts == 5
    assert sorted(handed) == sorted((services.TIMEOUT, (t.pk, t.turn)) for t in due)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_the_sweep_queries_can_use_the_partial_indexes() -> None:
    now = datetime.now(UTC)
    active = Table.objects.filter(status=Table.Status.ACTIVE)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty table would be read whole
    deadline = active.filter(deadline_at__lte=now).order_by("deadline_at", "pk")[:1000]
    remind = active.filter(remind_at__lte=now, deadline_at__gt=now).order_by("remind_at", "pk")
    assert "table_active_deadline" in deadline.explain()
    assert "table_active_remind" in remind[:1000].explain()


def test_the_celery_app_is_configured_from_the_settings() -> None:
    assert app.main == "gamenook"
    assert app.conf.broker_url == settings.CELERY_BROKER_URL
    schedule = app.conf.beat_schedule["notifications-sweep"]
    assert schedule["task"] == "notifications.tasks.sweep"
    assert schedule["schedule"] == settings.GAMENOOK_SWEEP_SECONDS == 60
    app.loader.import_default_modules()
    assert "notifications.tasks.apply_timeout" in app.tasks
    assert "notifications.tasks.sweep_bots" in app.tasks
