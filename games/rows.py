"""A few hot statements written once per process instead of compiled per call.

Django's ORM turns a queryset into SQL on every call: 0.3 to 0.8 ms of CPU
per statement on the benchmark machine (docs/performance.md, "API load"),
more than PostgreSQL takes to run it. The statements an action and a view
read make on every request (and the token lookup, ``accounts.authentication``,
through ``Columns``) are built here once per database vendor, from
the models' metadata (every table and column name quoted, every value a
parameter bound on the server; on PostgreSQL psycopg prepares each after
``DATABASE_PREPARE_THRESHOLD`` runs on a connection, so it is planned once),
and their rows become model instances the way the ORM makes
them: the same converters per column (``connection.ops.get_db_converters``
and the field's ``from_db_value``), ``Model.from_db``, related instances
cached as ``select_related`` caches them. Writes prepare each value with its
field's ``pre_save`` and ``get_db_prep_save``, as ``save()`` and
``bulk_create()`` do. Model signals are not sent (no receiver listens to
these models' ``pre_save``/``post_save``; ``bulk_create`` sends none either).

Only what the ORM would do the same way on every backend this project runs
on: PostgreSQL and SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, time
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Field, JSONField, Model

from .models import BotAccount, Seat, Table

Converter = Callable[[Any, Any, Any], Any]


def here() -> Any:
    """The default connection itself, not ``django.db.connection``'s proxy.

    Every attribute read through the proxy looks the connection up again in
    a context-local store (asgiref); handing the proxy to a field's
    ``get_db_prep_save`` once per value cost a page of timeouts more than the
    values' own conversion (docs/performance.md, "Deadline sweep").
    """
    return connections[DEFAULT_DB_ALIAS]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def column_of(field: Any) -> str:
    """``field``'s quoted column name (a concrete field's: never None)."""
    if not isinstance(field, Field) or field.column is None:
        raise TypeError(f"{field!r} is not a column")
    return quote(field.column)


class Columns:
    """A model's concrete columns under its table's name: the select list and the loader.

    ``load(row, start)`` makes the instance from ``row[start:start + width]``
    as the ORM's iterable does. The converters depend on the backend, so they
    are looked up once per vendor.
    """

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self.fields: list[Field[Any, Any]] = list(model._meta.concrete_fields)
        self.names = [f.attname for f in self.fields]
        self.width = len(self.fields)
        self.table = model._meta.db_table
        self._sql: dict[str, str] = {}
        self._converters: dict[str, list[tuple[int, list[Converter], Any]]] = {}

    def sql(self) -> str:
        """``"table"."column", ...`` in the order ``Model.from_db`` takes its values."""
        vendor = connection.vendor
        if vendor not in self._sql:
            table = quote(self.table)
            self._sql[vendor] = ", ".join(f"{table}.{column_of(f)}" for f in self.fields)
        return self._sql[vendor]

    def _converters_now(self) -> list[tuple[int, list[Converter], Any]]:
        vendor = connection.vendor
        found = self._converters.get(vendor)
        if found is None:
            found = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.table)
                chain = [
                    *connection.ops.get_db_converters(column),
                    *column.get_db_converters(connection),
                ]
                if chain:
                    found.append((index, chain, column))
            self._converters[vendor] = found
        return found

    def load(self, row: Sequence[Any], start: int = 0) -> Any:
        values = list(row[start : start + self.width])
        for index, chain, column in self._converters_now():
            value = values[index]
            for convert in chain:
                value = convert(value, column, connection)
            values[index] = value
        return self.model.from_db(connection.alias, self.names, values)


def cache_related(instance: Model, name: str, related: Model | None) -> None:
    """Hold ``related`` as ``instance.<name>``, as ``select_related`` does (no query later)."""
    instance._meta.get_field(name).set_cached_value(instance, related)  # type: ignore[union-attr]


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with bound_cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


# Tuples, not unions: ``isinstance(x, A | B)`` builds the union at every call.
#: Values JSON writes as they are (``bool`` is an ``int``).
_SCALARS = (str, int, float)
_DATES = (date, time)
_AS_TEXT = (Decimal, UUID)


class Records:
    """PostgreSQL: the values of many rows as one JSON parameter, read back as a record set.

    ``json_to_recordset(%s::json) AS v(column type, ...)`` turns one JSON array
    of objects into rows of the columns' own types. Sending a page's rows that
    way costs one ``json.dumps`` (C) and one parse on the server; binding one
    array a column cost psycopg a Python loop over every value, a fifth of a
    page of timeouts (docs/performance.md, "Deadline sweep"). A JSON column's
    value goes in as the object itself, so it is encoded once, not once alone
    and again inside an array. Each other value is prepared as ``bulk_create``
    (``add``: the field's ``pre_save``, which stamps ``auto_now_add``) or
    ``bulk_update`` (the attribute as it is) prepare it, then by the field's
    ``get_db_prep_save``, and written as JSON (a date or time in ISO 8601,
    which the column's type reads).
    """

    def __init__(self, fields: Sequence[Field[Any, Any]]) -> None:
        self.fields = list(fields)
        self.keys = [f.column for f in self.fields]
        self._types: dict[str, str] = {}

    def source(self) -> str:
        """``json_to_recordset(%s::json) AS v("column" type, ...)``: the rows' FROM item."""
        vendor = connection.vendor
        if vendor not in self._types:
            self._types[vendor] = ", ".join(
                f"{column_of(f)} {f.db_type(connection)}" for f in self.fields
            )
        return f"json_to_recordset(%s::json) AS v({self._types[vendor]})"

    @staticmethod
    def value(field: Field[Any, Any], instance: Model, add: bool, db: Any) -> Any:
        value = field.pre_save(instance, True) if add else getattr(instance, field.attname)
        if isinstance(field, JSONField) and field.encoder is None:
            return value  # the object itself (None is SQL NULL, as the field saves it)
        value = field.get_db_prep_save(value, db)
        # Subclasses too: psycopg's Int4 for an integer, a choices enum for a string.
        if value is None or isinstance(value, _SCALARS):
            return value
        if isinstance(value, _DATES):  # a datetime is a date
            return value.isoformat()
        if isinstance(value, _AS_TEXT):
            return str(value)
        raise TypeError(f"{field!r}: no JSON form for {type(value).__name__}")

    def param(self, instances: Sequence[Model], *, add: bool) -> str:
        """The JSON array of ``instances``' rows, one object each, keyed by column."""
        pairs = list(zip(self.keys, self.fields, strict=True))
        db = here()
        value = self.value
        return json.dumps(
            [{key: value(field, one, add, db) for key, field in pairs} for one in instances],
            ensure_ascii=False,
            separators=(",", ":"),
        )


@contextmanager
def bound_cursor() -> Iterator[Any]:
    """A cursor whose parameters travel apart from the SQL (PostgreSQL's server-side binding).

    Django's psycopg cursors bind on the client: every value is quoted into the
    statement's text, which for a page of timeouts (thousands of values, the
    snapshots and the mails' text among them) cost more than the server took
    to run it (docs/performance.md). This is Django's own server-binding
    cursor class on the same connection and transaction, behind Django's
    wrapper, so errors are Django's (``IntegrityError``) and the connection's
    execute wrappers see the statement. psycopg prepares a statement once it
    has run ``prepare_threshold`` times on the connection (the settings'
    ``DATABASE_PREPARE_THRESHOLD``). Other backends get the usual cursor.
    """
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    connection.validate_thread_sharing()
    # django-stubs declare the class without psycopg's Cursor, whose constructor it has.
    raw = ServerBindingCursor(connection.connection)  # type: ignore[call-arg]
    # As connection.cursor() wraps its own: logged when queries are (DEBUG, tests' captures).
    logged = connection.queries_logged
    with _LoggedBound(raw, connection) if logged else CursorWrapper(raw, connection) as cursor:
        yield cursor


class _LoggedBound(CursorDebugWrapper):
    """Django's query log around a cursor bound on the server.

    Django reads a statement's text back from psycopg, which keeps none for a
    prepared statement's run: the log would read None. This logs the text with
    the values quoted in, as Django's own server-binding mode does.
    """

    def execute(self, sql: Any, params: Any = None) -> Any:
        from psycopg.errors import DataError as Unquotable

        try:
            text = self.db.ops.compose_sql(sql, params)
        except Unquotable:  # a value psycopg cannot quote; running it will say why
            text = sql
        with self.debug_sql(text, params):
            return CursorWrapper.execute(self, sql, params)


class Insert:
    """``INSERT`` of new rows of ``model`` (every concrete field but the auto key), several at once.

    Sets each instance's key when the backend returns inserted rows (PostgreSQL,
    SQLite 3.35+), as ``bulk_create`` does.
    """

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self.pk = model._meta.pk
        self.fields = [f for f in model._meta.concrete_fields if f is not self.pk]
        self._head: dict[str, str] = {}
        self.records = Records(self.fields)

    def head(self) -> str:
        vendor = connection.vendor
        if vendor not in self._head:
            names = ", ".join(column_of(f) for f in self.fields)
            table = quote(self.model._meta.db_table)
            self._head[vendor] = f"INSERT INTO {table} ({names}) "  # noqa: S608 (names only)
        return self._head[vendor]

    def run(self, objects: Sequence[Model], *, bound: bool = False) -> None:
        """Insert ``objects``; ``bound``: many rows at once, in one parameter bound on the server.

        With ``bound`` on PostgreSQL the rows travel as one JSON parameter
        (``Records``, ``bound_cursor``): the statement's text is the same
        whatever the number of rows, and no value is quoted into it. Rows come
        back in the order of ``objects``.
        """
        if not objects:
            return
        returning = connection.features.can_return_rows_from_bulk_insert
        records = bound and connection.vendor == "postgresql"
        params: list[Any]
        if records:
            names = ", ".join(f"v.{column_of(f)}" for f in self.fields)
            sql = f"{self.head()}SELECT {names} FROM {self.records.source()}"  # noqa: S608
            params = [self.records.param(objects, add=True)]
        else:
            row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
            sql = self.head() + "VALUES " + ", ".join([row] * len(objects))
            db = here()
            params = [
                field.get_db_prep_save(field.pre_save(one, True), db)
                for one in objects
                for field in self.fields
            ]
        if returning:
            sql += f" RETURNING {column_of(self.pk)}"
        with bound_cursor() as cursor:
            cursor.execute(sql, params)
            keys = cursor.fetchall() if returning else None
        self.saved(objects, None if keys is None else [key for (key,) in keys])

    @staticmethod
    def saved(objects: Sequence[Model], keys: Sequence[Any] | None) -> None:
        """Mark ``objects`` inserted as ``bulk_create`` leaves them: keys set (if known), saved."""
        for index, one in enumerate(objects):
            if keys is not None:
                one.pk = keys[index]
            one._state.adding = False  # noqa: SLF001
            one._state.db = connection.alias  # noqa: SLF001


class Update:
    """``UPDATE`` of some fields of one row of ``model`` by its key, as ``save(update_fields=...)``.

    ``auto_now`` fields among them take the time now, as ``save()`` gives
    them; no row updated raises ``DatabaseError``, as ``save()`` does.
    """

    def __init__(self, model: type[Model], names: Sequence[str]) -> None:
        self.model = model
        self.fields = [model._meta.get_field(name) for name in names]
        self._sql: dict[str, str] = {}

    def sql(self) -> str:
        vendor = connection.vendor
        if vendor not in self._sql:
            table = quote(self.model._meta.db_table)
            sets = ", ".join(f"{column_of(f)} = %s" for f in self.fields)
            pk = column_of(self.model._meta.pk)
            # Names from the model's metadata; every value is a parameter.
            self._sql[vendor] = f"UPDATE {table} SET {sets} WHERE {table}.{pk} = %s"  # noqa: S608
        return self._sql[vendor]

    def params(self, instance: Model) -> list[Any]:
        """The statement's values: each field's as ``save()`` writes it, then the row's key."""
        db = here()
        params = [
            f.get_db_prep_save(f.pre_save(instance, False), db)  # type: ignore[union-attr]
            for f in self.fields
        ]
        params.append(instance.pk)
        return params

    def run(self, instance: Model) -> None:
        params = self.params(instance)
        with bound_cursor() as cursor:
            cursor.execute(self.sql(), params)
            if cursor.rowcount != 1:
                raise DatabaseError("Save with update_fields did not affect any rows.")


class InsertAndUpdate:
    """``Insert``'s rows, ``Update``'s row and one more question, in one statement on PostgreSQL.

    An action wrote its moves, saved the table's snapshot, then asked whether
    anyone watches the table: three round trips, each a send, a wake of the
    server and a wait, on a machine where both share the cores. Here they are
    one: the INSERT and the UPDATE as data-modifying ``WITH`` queries, and
    ``also`` (a scalar subquery, such as ``EXISTS (...)``) read in the same
    statement. Run after the row lock the caller holds, it sees what a
    statement of its own would see there. The inserted rows are matched to
    ``objects`` by ``key`` (a field unique among them), so their order on the
    way back does not matter. Other backends (and no rows to insert) run the
    three statements one after the other.
    """

    def __init__(self, insert: Insert, update: Update, *, key: str, also: str) -> None:
        self.insert = insert
        self.update = update
        self.key = next(f for f in insert.fields if f.name == key)
        self.also = also
        self._sql: dict[str, str] = {}

    def sql(self) -> str:
        vendor = connection.vendor
        if vendor not in self._sql:
            records = self.insert.records
            names = ", ".join(f"v.{column_of(f)}" for f in self.insert.fields)
            pk, key = column_of(self.insert.pk), column_of(self.key)
            # Update.sql() ends "WHERE <key> = %s": the row's key is its last value.
            self._sql[vendor] = (
                f"WITH i AS ({self.insert.head()}SELECT {names} FROM {records.source()}"  # noqa: S608
                f" RETURNING {pk}, {key}), u AS ({self.update.sql()} RETURNING 1)"
                f" SELECT i.{pk}, i.{key}, (SELECT count(*) FROM u), ({self.also}) FROM i"
            )
        return self._sql[vendor]

    def run(self, objects: Sequence[Model], instance: Model, also: Sequence[Any]) -> Any:
        """Insert ``objects``, save ``instance``; answer ``also`` asked with the values ``also``."""
        if connection.vendor != "postgresql" or not objects:
            self.insert.run(objects)
            self.update.run(instance)
            return fetch(f"SELECT ({self.also})", also)[0][0]
        params = [self.insert.records.param(objects, add=True), *self.update.params(instance)]
        with bound_cursor() as cursor:
            cursor.execute(self.sql(), [*params, *also])
            found = cursor.fetchall()
        if len(found) != len(objects) or found[0][2] != 1:
            raise DatabaseError(f"inserted {len(found)} of {len(objects)} rows, or no row updated")
        keys = {key: pk for pk, key, _updated, _also in found}
        self.insert.saved(objects, [keys[getattr(one, self.key.attname)] for one in objects])
        return found[0][3]


class UpdateMany:
    """``UPDATE`` of some fields of many rows of ``model``, each by its key, in one statement.

    As ``bulk_update`` (values prepared by each field's ``get_db_prep_save``;
    ``auto_now`` fields are left as the instances hold them, as there). On
    PostgreSQL one ``UPDATE ... FROM json_to_recordset(...)`` (``Records``)
    bound on the server; Django's ``bulk_update`` builds a CASE expression per
    field and row, which for a page of 100 tables cost more than the rest of
    the page together. Other backends get ``bulk_update``. Raises
    ``DatabaseError`` unless every row was updated.
    """

    def __init__(self, model: type[Model], names: Sequence[str]) -> None:
        self.model = model
        self.names = list(names)
        pk = model._meta.pk
        fields = [f for f in map(model._meta.get_field, names) if isinstance(f, Field)]
        if pk is None or len(fields) != len(self.names):
            raise TypeError(f"{names!r} are not all columns of {model.__name__}")
        self.pk = pk
        self.records = Records([pk, *fields])
        self._sql: dict[str, str] = {}

    def sql(self) -> str:
        vendor = connection.vendor
        if vendor not in self._sql:
            table = quote(self.model._meta.db_table)
            key = column_of(self.pk)
            sets = ", ".join(f"{column_of(f)} = v.{column_of(f)}" for f in self.records.fields[1:])
            # Names and types from the model's metadata; every value is in the parameter.
            self._sql[vendor] = (
                f"UPDATE {table} SET {sets} FROM {self.records.source()}"  # noqa: S608
                f" WHERE {table}.{key} = v.{key}"
            )
        return self._sql[vendor]

    def run(self, instances: Sequence[Model]) -> None:
        if not instances:
            return
        if connection.vendor != "postgresql":
            updated = self.model._default_manager.bulk_update(instances, self.names)  # noqa: SLF001
        else:
            with bound_cursor() as cursor:
                cursor.execute(self.sql(), [self.records.param(instances, add=False)])
                updated = cursor.rowcount
        if updated != len(instances):
            raise DatabaseError(f"updated {updated} of {len(instances)} rows")


# ----------------------------------------------------------------------------
# A table's seats with the table and their users: the view read and the action's lock


_SEAT, _TABLE, _USER = Columns(Seat), Columns(Table), Columns(User)
_SEATS_SQL: dict[tuple[str, bool, str], str] = {}

#: The attribute ``seats_with_table`` sets on each seat it reads: True when the seat's
#: player is a bot account (issue 40), read in the same statement (``bot_account_of``).
BOT_ACCOUNT = "_gamenook_bot_account"


def bot_account_of(seat: Seat) -> bool | None:
    """Whether ``seat``'s player is a bot account, when ``seats_with_table`` read it; None
    for a seat read another way."""
    known: bool | None = getattr(seat, BOT_ACCOUNT, None)
    return known


def _column(model: type[Model], name: str) -> str:
    return f"{quote(model._meta.db_table)}.{column_of(model._meta.get_field(name))}"


def _seats_sql(*, lock: bool, also: str) -> str:
    key = (connection.vendor, lock, also)
    sql = _SEATS_SQL.get(key)
    if sql is None:
        table, user = quote(_TABLE.table), quote(_USER.table)
        bot = (
            f"EXISTS (SELECT 1 FROM {quote(BotAccount._meta.db_table)} AS bot"  # noqa: S608
            f" WHERE bot.{column_of(BotAccount._meta.get_field('user'))}"
            f" = {_column(Seat, 'user')})"
        )
        select = f"{_SEAT.sql()}, {_TABLE.sql()}, {_USER.sql()}, {bot}" + (
            f", ({also})" if also else ""
        )
        sql = (
            f"SELECT {select} FROM {quote(_SEAT.table)}"  # noqa: S608 (names from the metadata)
            f" INNER JOIN {table} ON ({_column(Seat, 'table')} = {_column(Table, 'id')})"
            f" LEFT OUTER JOIN {user} ON ({_column(Seat, 'user')} = {_column(User, 'id')})"
            f" WHERE {_column(Seat, 'table')} = %s"
        )
        # As select_for_update(of=("table",)): the seats and users are not locked.
        if lock and connection.features.has_select_for_update_of:
            sql += f" FOR UPDATE OF {table}"
        elif lock and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        _SEATS_SQL[key] = sql
    return sql


def seats_with_table(
    table_id: int, *, lock: bool = False, also: str = ""
) -> tuple[list[Seat], Any]:
    """The seats of ``table_id`` (in no order), each with its ``table`` and ``user`` loaded.

    One statement, the ORM's
    ``Seat.objects.select_related("table", "user").filter(table_id=...)``;
    ``lock``: with ``select_for_update(of=("table",))``, the table row alone
    locked. Every seat holds the same ``Table`` instance, and says whether its
    player is a bot account (``bot_account_of``). ``also``: a scalar
    subquery (SQL with no parameters, nothing from outside) read in the same
    statement, returned beside the seats (None without seats or ``also``).
    """
    found = fetch(_seats_sql(lock=lock, also=also), [table_id])
    seats: list[Seat] = []
    table: Table | None = None
    user_at = _SEAT.width + _TABLE.width
    user_pk = user_at + next(i for i, f in enumerate(_USER.fields) if f.primary_key)
    bot_at = user_at + _USER.width
    for row in found:
        seat: Seat = _SEAT.load(row)
        if table is None:
            table = _TABLE.load(row, _SEAT.width)
        cache_related(seat, "table", table)
        cache_related(seat, "user", None if row[user_pk] is None else _USER.load(row, user_at))
        setattr(seat, BOT_ACCOUNT, bool(row[bot_at]))
        seats.append(seat)
    return seats, (found[0][-1] if found and also else None)
