"""games.rows: the statements written once per process give what the ORM gives.

Run on SQLite and on PostgreSQL alike (``DATABASE_URL``): every value of every
loaded instance is compared with the ORM's own reading of the same rows, so a
converter missed on one backend (SQLite's datetimes and booleans, JSON on both)
shows here.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services as accounts
from accounts.authentication import TokenAuthentication
from games import rows
from games.models import Connection, Move, Seat, Table
from tests.factories import make_user, start_table

pytestmark = pytest.mark.django_db


def _values(instance: Model) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_seats_with_table_loads_what_select_related_loads() -> None:
    host, guest = make_user("rows-host"), make_user("rows-guest")
    table = start_table(host, guest, bots=1)
    Seat.objects.filter(table=table, number=1).update(
        away=True, held_until=timezone.now() + timedelta(minutes=2)
    )

    seats, seen = rows.seats_with_table(table.pk)
    orm = {
        seat.number: seat
        for seat in Seat.objects.select_related("table", "user").filter(table_id=table.pk)
    }

    assert seen is None
    assert sorted(seat.number for seat in seats) == [0, 1, 2]
    for seat in seats:
        expected = orm[seat.number]
        assert _values(seat) == _values(expected)
        assert not seat._state.adding
        with CaptureQueriesContext(connection) as queries:
            loaded_table, loaded_user = seat.table, seat.user
        assert not queries.captured_queries, "table and user must come with the seat"
        assert loaded_table is seats[0].table
        assert _values(loaded_table) == _values(expected.table)
        if expected.user is None:
            assert loaded_user is None
        else:
            assert loaded_user is not None
            assert _values(loaded_user) == _values(expected.user)
    assert isinstance(seats[0].table.state, dict)  # the snapshot decoded, as the ORM does
    assert any(seat.away is True for seat in seats)


def test_seats_with_table_reads_the_subquery_beside_the_seats() -> None:
    table = start_table(make_user("rows-a"), make_user("rows-b"))
    quote = connection.ops.quote_name
    inner, seat = quote(Table._meta.db_table), quote(Seat._meta.db_table)
    also = (
        f"SELECT {quote('t')}.{quote('seq')} * 10 FROM {inner} AS {quote('t')}"  # noqa: S608
        f" WHERE {quote('t')}.{quote('id')} = {seat}.{quote('table_id')}"
    )

    seats, seen = rows.seats_with_table(table.pk, lock=True, also=also)
    assert len(seats) == 2
    assert seen == table.seq * 10

    assert rows.seats_with_table(table.pk + 1000, lock=True, also=also) == ([], None)


def test_insert_sets_keys_and_auto_now_add_as_bulk_create_does() -> None:
    table = start_table(make_user("rows-c"), make_user("rows-d"))
    before = Move.objects.filter(table=table).count()
    moves = [
        Move(
            table=table,
            seq=1000 + i,
            round=1,
            seat=None,
            action="bench",
            payload={"events": [{"n": i}]},
            source=Move.Source.ADMIN,
        )
        for i in range(2)
    ]

    rows.Insert(Move).run(moves)

    assert Move.objects.filter(table=table).count() == before + 2
    for move in moves:
        assert move.created_at is not None
        assert not move._state.adding
        if connection.features.can_return_rows_from_bulk_insert:
            stored = Move.objects.get(pk=move.pk)
            assert (stored.seq, stored.payload, stored.created_at) == (
                move.seq,
                move.payload,
                move.created_at,
            )


def test_update_writes_the_fields_and_refreshes_auto_now_as_save_does() -> None:
    table = start_table(make_user("rows-e"), make_user("rows-f"))
    stamp = table.updated_at
    table.seq += 5
    table.state = {**(table.state or {}), "marker": [1, 2]}

    rows.Update(Table, ["seq", "state", "updated_at"]).run(table)

    stored = Table.objects.get(pk=table.pk)
    assert stored.seq == table.seq
    assert stored.state == table.state
    assert stored.updated_at == table.updated_at
    assert table.updated_at > stamp


def test_update_of_a_missing_row_raises_as_save_does() -> None:
    table = start_table(make_user("rows-g"), make_user("rows-h"))
    Table.objects.filter(pk=table.pk).update(status=Table.Status.ABORTED)
    missing = Table.objects.get(pk=table.pk)
    missing.pk = table.pk + 1000

    with pytest.raises(DatabaseError, match="did not affect any rows"):
        rows.Update(Table, ["seq"]).run(missing)


def test_the_token_lookup_loads_the_token_and_its_user() -> None:
    user = make_user("rows-token")
    token, key = accounts.token_create(user=user, name="rows")

    found_user, found_token = TokenAuthentication().authenticate_credentials(key)

    assert isinstance(found_user, User)
    assert _values(found_user) == _values(User.objects.get(pk=user.pk))
    assert _values(found_token) == _values(type(token).objects.get(pk=token.pk))
    with CaptureQueriesContext(connection) as queries:
        assert found_token.user is found_user
    assert not queries.captured_queries


def _odd_payload(i: int) -> dict[str, Any]:
    # What JSON and text columns must carry unchanged: nesting, null, floats, non-ASCII,
    # quotes, backslashes and newlines (the mails' text goes in the same way).
    return {"events": [{"n": i, "who": 'Zoë "q" \\ \n\u2603', "none": None, "x": 1.5}]}


@pytest.mark.parametrize("bound", [False, True])
def test_insert_many_stores_what_the_orm_stores(bound: bool) -> None:
    table = start_table(make_user(f"rows-i{bound}"), make_user(f"rows-j{bound}"))
    moves = [
        Move(
            table=table,
            seq=2000 + i,
            round=1,
            seat=None if i % 2 else i,
            action="bench",
            payload=_odd_payload(i),
            source=Move.Source.ADMIN,
        )
        for i in range(3)
    ]

    rows.Insert(Move).run(moves, bound=bound)

    for move in moves:
        assert not move._state.adding
        stored = Move.objects.get(table=table, seq=move.seq)
        if connection.features.can_return_rows_from_bulk_insert:
            assert stored.pk == move.pk  # each key given back to its own instance
        assert _values(stored) == _values(move) | {"id": stored.pk}


def test_update_many_writes_every_row_and_only_the_fields_named() -> None:
    tables = [start_table(make_user(f"rows-k{i}"), make_user(f"rows-l{i}")) for i in range(3)]
    deadline = timezone.now() + timedelta(hours=3)
    for i, table in enumerate(tables):
        table.seq += 10 + i
        table.state = {**(table.state or {}), "marker": _odd_payload(i)}
        table.deadline_at = None if i == 1 else deadline + timedelta(microseconds=i)
        table.to_act = None
        table.updated_at = deadline - timedelta(days=1)  # auto_now: written as held
        table.bot_errors = 99  # not among the fields named: stays as stored

    rows.UpdateMany(Table, ["seq", "state", "deadline_at", "to_act", "updated_at"]).run(tables)

    for table in tables:
        stored = Table.objects.get(pk=table.pk)
        assert (stored.seq, stored.state, stored.deadline_at, stored.to_act) == (
            table.seq,
            table.state,
            table.deadline_at,
            None,
        )
        assert stored.updated_at == deadline - timedelta(days=1)
        assert stored.bot_errors == 0


def test_update_many_of_a_missing_row_raises() -> None:
    table = start_table(make_user("rows-m"), make_user("rows-n"))
    missing = Table.objects.get(pk=table.pk)
    missing.pk = table.pk + 1000

    with pytest.raises(DatabaseError, match="updated 1 of 2 rows"):
        rows.UpdateMany(Table, ["seq"]).run([table, missing])


def test_the_hot_statements_are_logged_with_their_values() -> None:
    """Django's query log (DEBUG, ``CaptureQueriesContext``) reads each statement with its values.

    On PostgreSQL they run bound on the server and prepared, and psycopg keeps
    no text of a prepared run: without ``rows``' own log entry Django logs None.
    """
    host, guest = make_user("rows-log-host"), make_user("rows-log-guest")
    table = start_table(host, guest)
    with CaptureQueriesContext(connection) as queries:
        for _ in range(4):  # past the threshold at which psycopg prepares a statement
            rows.seats_with_table(table.pk)
    logged = [q["sql"] for q in queries.captured_queries]
    assert len(logged) == 4
    for sql in logged:
        assert isinstance(sql, str) and '"games_seat"' in sql
        assert f"= {table.pk}" in sql and "%s" not in sql


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_the_hot_statements_are_prepared_once_per_connection() -> None:
    """The lock and view statement is planned once per connection, then only executed."""
    host, guest = make_user("rows-prep-host"), make_user("rows-prep-guest")
    table = start_table(host, guest)
    for _ in range(4):
        seats, _seen = rows.seats_with_table(table.pk)
    assert len(seats) == 2
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            ['%FROM "games_seat"%'],
        )
        prepared = [statement for (statement,) in cursor.fetchall()]
    assert len(prepared) == 1
    assert "$1" in prepared[0]


def _moves(table: Table, first: int, count: int) -> list[Move]:
    return [
        Move(
            table=table,
            seq=first + i,
            round=1,
            seat=i % 2,
            action="play",
            payload={"events": [{"n": i, "name": 'Zoë "q"'}]},
            source=Move.Source.PLAYER,
        )
        for i in range(count)
    ]


_WATCHED = f"EXISTS (SELECT 1 FROM {Connection._meta.db_table} WHERE table_id = %s)"  # noqa: S608 (the model's name)


@pytest.mark.parametrize("count", [1, 3])
def test_insert_and_update_stores_what_the_two_statements_store(count: int) -> None:
    table = start_table(make_user("rows-iu-a"), make_user("rows-iu-b"))
    stamp = table.updated_at
    moves = _moves(table, 2000, count)
    table.seq = 2000 + count - 1
    table.state = {**(table.state or {}), "marker": ["é", 1]}
    both = rows.InsertAndUpdate(
        rows.Insert(Move),
        rows.Update(Table, ["seq", "state", "updated_at"]),
        key="seq",
        also=_WATCHED,
    )

    with CaptureQueriesContext(connection) as queries:
        watched = both.run(moves, table, [table.pk])

    assert watched is False or watched == 0
    if connection.vendor == "postgresql":
        assert len(queries.captured_queries) == 1
    stored = {move.seq: move for move in Move.objects.filter(table=table, seq__gte=2000)}
    assert sorted(stored) == [move.seq for move in moves]
    for move in moves:
        assert not move._state.adding
        assert _values(stored[move.seq]) == _values(move)  # the keys matched by seq, too
    saved = Table.objects.get(pk=table.pk)
    assert (saved.seq, saved.state, saved.updated_at) == (table.seq, table.state, table.updated_at)
    assert table.updated_at > stamp


def test_insert_and_update_answers_the_question_after_the_writes() -> None:
    host = make_user("rows-iu-c")
    table = start_table(host, make_user("rows-iu-d"))
    Connection.objects.create(table=table, user=host, channel="rows-iu", seen_at=timezone.now())
    both = rows.InsertAndUpdate(
        rows.Insert(Move), rows.Update(Table, ["seq"]), key="seq", also=_WATCHED
    )
    table.seq = 3000

    assert both.run(_moves(table, 3000, 1), table, [table.pk])


def test_insert_and_update_of_a_missing_row_raises_and_writes_nothing() -> None:
    table = start_table(make_user("rows-iu-e"), make_user("rows-iu-f"))
    before = Move.objects.count()
    missing = Table.objects.get(pk=table.pk)
    missing.pk = table.pk + 1000
    both = rows.InsertAndUpdate(
        rows.Insert(Move), rows.Update(Table, ["seq"]), key="seq", also=_WATCHED
    )

    with pytest.raises(DatabaseError), transaction.atomic():
        both.run(_moves(table, 4000, 2), missing, [table.pk])

    assert Move.objects.count() == before
