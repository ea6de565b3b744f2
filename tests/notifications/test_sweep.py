"""The sweep reads through the partial indexes, in batches; the Celery app's set-up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.db import connection
from django.test import override_settings

from gamenook.celery import app
from games.models import Table
from notifications import jobs as jobs_module
from notifications import services

from .conftest import Jobs, make_user, started_table

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.django_db
@pytest.mark.parametrize(("batch", "page", "sizes"), [(2, 100, [2, 2, 1]), (5, 2, [2, 2, 1])])
def test_the_sweep_hands_out_every_due_table_once_in_pages(
    jobs: Jobs, batch: int, page: int, sizes: list[int]
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        due = [started_table(make_user(), make_user(), turn_hours=12) for _ in range(5)]
        started_table(make_user(), make_user(), turn_hours=72)  # not due
        clock.shift(timedelta(hours=12))
        handed: list[tuple[str, tuple[int, ...]]] = []
        with override_settings(GAMENOOK_TIMEOUT_PAGE=page):
            result = services.sweep(run=lambda name, args: handed.append((name, args)), batch=batch)
    assert result.timeouts == 5
    # A page never outgrows a read (batch) nor GAMENOOK_TIMEOUT_PAGE.
    assert {name for name, _ in handed} == {services.TIMEOUTS}
    assert [len(args) // 2 for _, args in handed] == sizes
    pairs = [pair for _, args in handed for pair in jobs_module.pairs(args)]
    assert sorted(pairs) == sorted((t.pk, t.turn) for t in due)


def test_page_jobs_carry_pairs_of_ids() -> None:
    assert jobs_module.flat([(1, 7), (2, 3)]) == (1, 7, 2, 3)
    assert jobs_module.pairs((1, 7, 2, 3)) == [(1, 7), (2, 3)]
    with pytest.raises(ValueError, match="pairs"):
        jobs_module.pairs((1, 7, 2))


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


def test_deadlines_have_a_queue_of_their_own_that_every_worker_consumes() -> None:
    from notifications import jobs as names

    deadline_queue = settings.GAMENOOK_DEADLINE_QUEUE
    consumed = {queue.name for queue in app.conf.task_queues}
    assert consumed == {settings.CELERY_TASK_DEFAULT_QUEUE, deadline_queue}
    routes = app.conf.task_routes
    for name in ("notifications.tasks.sweep", names.TIMEOUTS, names.TIMEOUT, names.REMIND):
        assert routes[name] == {"queue": deadline_queue}, name
    for name in (names.BOT_TURNS, names.SEND_MANY, names.FOLLOWUPS, names.SEND):
        assert name not in routes, name
