"""The health check of a kept PostgreSQL connection (``gamenook.postgresql``)."""

from __future__ import annotations

import select
import time

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_backend

from gamenook.postgresql.base import DatabaseWrapper

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend"),
    # Idle connections, outside the test's own transaction.
    pytest.mark.django_db(transaction=True),
]


def _connected() -> None:
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def test_the_settings_use_this_backend() -> None:
    assert isinstance(connections["default"], DatabaseWrapper)


def test_a_healthy_idle_connection_is_usable_without_a_round_trip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _connected()

    def round_trip(self: object) -> bool:
        raise AssertionError("SELECT 1 sent to PostgreSQL")

    monkeypatch.setattr(django_backend.DatabaseWrapper, "is_usable", round_trip)
    assert connection.is_usable()


def test_a_connection_postgresql_ended_is_closed_and_the_next_query_reconnects() -> None:
    _connected()
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    # The server's last message reaches the socket soon after.
    poll = select.poll()
    poll.register(connection.connection.fileno(), select.POLLIN)
    deadline = time.monotonic() + 10
    while not poll.poll(100) and time.monotonic() < deadline:
        pass
    assert not connection.is_usable()
    connection.health_check_done = False
    connection.close_if_health_check_failed()
    assert connection.connection is None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
