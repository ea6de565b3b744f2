"""A lobby write holding its user's lock lets a socket at the table open meanwhile.

``games.limits.lock_user`` locks the user's row before any table. A socket opening
at the table (``presence_open``) holds the table's lock and inserts a connection
that names the user, whose foreign key check takes a key share lock on the user's
row. With FOR UPDATE that waited for the lobby write, which was itself waiting for
the table: a deadlock (seen in the browser tests: 'deadlock detected' adding a
bot). FOR NO KEY UPDATE does not stop a key share lock.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from games import limits, services
from tests.factories import make_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row locks"),
]


def test_a_socket_opens_while_its_users_lobby_write_holds_the_user() -> None:
    host = make_user("host")
    table = services.table_create(host=host, seat_count=3)
    held = threading.Event()
    done = threading.Event()
    errors: list[BaseException] = []

    def lobby_write() -> None:
        try:
            with transaction.atomic():
                limits.lock_user(host)
                held.set()
                # Hold the user's lock until the socket has opened (or given up).
                done.wait(timeout=30)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    writer = threading.Thread(target=lobby_write)
    writer.start()
    assert held.wait(timeout=30)
    try:
        with connection.cursor() as cursor:
            # Fail instead of waiting for ever if the socket's insert waits for the user.
            cursor.execute("SET lock_timeout = '10s'")
        opened = services.presence_open(table_id=table.pk, user=host, channel="chan-1")
    finally:
        done.set()
        writer.join(timeout=60)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    assert opened is True
    assert errors == []
