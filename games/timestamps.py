"""PostgreSQL's timestamps read by psycopg's compiled loader, not by a regular expression.

Django reads every ``timestamptz`` through its own loader
(``django.db.backends.postgresql.psycopg_any.BaseTzLoader``), a subclass of
psycopg's pure-Python one: a regular expression and a dozen ``int()`` calls
per value, 9 µs on the benchmark machine against 0.7 µs for the loader
psycopg's binary package compiles (which cannot be subclassed). An action
reads 19 timestamps, a page of the deadline sweep hundreds
(docs/performance.md, "API load").

``use_compiled_loader`` (connected to ``connection_created`` by
``games.apps``) registers ``CompiledTzLoader`` on each new PostgreSQL
connection. It answers what Django's loader answers: the instant in the
connection wrapper's ``timezone`` (UTC here). psycopg's loader gives the
session's time zone, which Django sets to the same when it connects; were
the session's another, the value is converted, never relabelled. Its
``timezone`` attribute is the one Django's ``create_cursor`` compares, so no
cursor registers Django's loader again.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

TIMESTAMPTZ = "timestamptz"


def compiled_tz_loader(zone: tzinfo) -> type[Any]:
    """A text ``timestamptz`` loader giving aware datetimes in ``zone``, by psycopg's own loader."""
    import psycopg
    from psycopg.adapt import Loader
    from psycopg.pq import Format

    # The compiled class when psycopg's binary (or C) package is there, else its Python one.
    found = psycopg.adapters.get_loader(psycopg.adapters.types[TIMESTAMPTZ].oid, Format.TEXT)
    if found is None:  # pragma: no cover (psycopg always has one)
        raise LookupError("psycopg has no text loader for timestamptz")
    base: type[Any] = found

    class CompiledTzLoader(Loader):
        timezone = zone  # read by Django's create_cursor

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            self._load = base(oid, context).load

        def load(self, data: Any) -> datetime:
            value: datetime = self._load(data)
            return value if value.tzinfo is zone else value.astimezone(zone)

    return CompiledTzLoader


_LOADERS: dict[tzinfo, type[Any]] = {}


def use_compiled_loader(sender: Any, connection: Any, **kwargs: Any) -> None:  # noqa: ARG001
    """``connection_created``: this PostgreSQL connection's timestamps by the compiled loader.

    Only where Django would make them aware (``USE_TZ``; ``timezone`` is None
    otherwise, and Django's loader makes them naive).
    """
    zone = getattr(connection, "timezone", None)
    if connection.vendor != "postgresql" or zone is None:
        return
    loader = _LOADERS.get(zone)
    if loader is None:
        loader = _LOADERS[zone] = compiled_tz_loader(zone)
    connection.connection.adapters.register_loader(TIMESTAMPTZ, loader)
