"""games.timestamps: timestamps read by psycopg's compiled loader, as Django reads them.

On PostgreSQL only (``DATABASE_URL``; CI runs the suite there): SQLite stores
timestamps as text and Django converts them itself.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg.pq import Format

from games import rows
from games.models import Table
from games.timestamps import compiled_tz_loader
from tests.factories import make_user, start_table

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's loaders: PostgreSQL"),
]

TIMESTAMPTZ_OID = psycopg.adapters.types["timestamptz"].oid
#: Values a column holds, each with the text PostgreSQL sends in a UTC session.
SAMPLES = [
    "2026-12-02 21:54:15.123456+00",
    "2026-12-02 21:54:15+00",
    "2026-12-02 21:54:15.5+00",
    "1999-12-31 23:59:59.999999+00",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
]


def _loader_now() -> Any:
    connection.ensure_connection()
    return connection.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)


def test_every_new_connection_reads_timestamps_with_the_compiled_loader() -> None:
    loader = _loader_now()

    assert loader.__name__ == "CompiledTzLoader"
    assert not issubclass(loader, BaseTzLoader), "Django's regular-expression loader"
    # What Django's create_cursor compares: equal, so no cursor registers its own again.
    assert loader.timezone is connection.timezone is UTC


def test_the_compiled_loader_reads_what_djangos_loader_reads() -> None:
    loader = _loader_now()
    ours = loader(TIMESTAMPTZ_OID, connection.connection)
    django_class = type("DjangoTz", (BaseTzLoader,), {"timezone": UTC})
    django = django_class(TIMESTAMPTZ_OID, connection.connection)

    for text in SAMPLES:
        value = ours.load(text.encode())
        assert value == django.load(text.encode())
        assert value.tzinfo is UTC


def test_a_session_in_another_time_zone_still_gives_the_instant_in_utc() -> None:
    """Converted, not relabelled: Django's loader would have moved the instant."""
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Asia/Kathmandu'")  # +05:45: minutes too
        try:
            cursor.execute(
                "SELECT '2026-12-02 21:54:15.5+00'::timestamptz,"
                " '2026-07-01 00:00:00+02'::timestamptz"
            )
            winter, summer = cursor.fetchone()
        finally:
            cursor.execute("SET TIME ZONE 'UTC'")

    assert winter == datetime(2026, 12, 2, 21, 54, 15, 500000, tzinfo=UTC)
    assert summer == datetime(2026, 6, 30, 22, 0, tzinfo=UTC)
    assert winter.tzinfo is UTC and summer.tzinfo is UTC


def test_a_loader_for_another_zone_gives_its_instants_in_that_zone() -> None:
    zone = timezone(timedelta(hours=-3))
    loader = compiled_tz_loader(zone)(TIMESTAMPTZ_OID, connection.connection)

    value = loader.load(b"2026-12-02 21:54:15+00")

    assert value == datetime(2026, 12, 2, 21, 54, 15, tzinfo=UTC)
    assert value.tzinfo is zone


def test_models_and_the_hot_statements_load_aware_utc_datetimes() -> None:
    host, guest = make_user("tz-host"), make_user("tz-guest")
    table = start_table(host, guest)
    stamped = datetime(2026, 12, 2, 21, 54, 15, 123456, tzinfo=UTC)
    Table.objects.filter(pk=table.pk).update(deadline_at=stamped)

    orm = Table.objects.get(pk=table.pk)
    seats, _ = rows.seats_with_table(table.pk)

    for loaded in (orm, seats[0].table):
        assert loaded.deadline_at == stamped
        assert loaded.deadline_at.tzinfo is UTC
        assert loaded.created_at.tzinfo is UTC
