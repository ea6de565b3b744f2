"""The database schema: every model change has its migration, and the move log's indexes.

The test database is built by running the migrations (pytest-django does
unless told ``--nomigrations``), so what is checked here is what a deployment
that runs ``migrate`` gets.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from games.models import Move

pytestmark = pytest.mark.django_db


def test_every_model_change_has_its_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:
        pytest.fail(f"a model changed without a migration:\n{out.getvalue()}")


def test_the_move_log_is_indexed_once_by_table() -> None:
    """The unique (table, seq) constraint serves lookups by table; no second index repeats it."""
    table = Move._meta.db_table
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)

    by_columns = [
        (tuple(one["columns"]), bool(one["unique"]))
        for one in constraints.values()
        if one["index"] or one["unique"]
    ]
    assert (("table_id", "seq"), True) in by_columns
    assert [columns for columns, _ in by_columns if columns[0] == "table_id"] == [
        ("table_id", "seq")
    ], by_columns
