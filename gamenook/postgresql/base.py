"""Django's PostgreSQL backend, with a health check that costs no round trip when healthy.

With ``CONN_HEALTH_CHECKS`` (``gamenook.settings.base``) Django checks a kept
connection before the first query of each request, each Celery job, and each
database call of a socket (Channels closes old connections around every one):
``is_usable`` runs ``SELECT 1``, a round trip to PostgreSQL. In the ASGI server
those checks took a tenth of the process's samples (docs/performance.md,
"Real-time tables").

A connection that PostgreSQL has ended (a restart, ``pg_terminate_backend``,
an idle timeout) has the server's last message and the end of the stream
waiting on its socket before the client sends anything: the socket is
readable. An idle healthy connection has nothing to read. So ``is_usable``
polls the socket without waiting and runs Django's ``SELECT 1`` only when
something is there to read, when the connection is not idle, or when the poll
fails. A path that died without a word (no FIN reaches the client) passes
this check; Django's own check would then wait for the network's timeout
instead, and the query that follows fails as it would have.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())
        try:
            poll = select.poll()
            poll.register(connection.fileno(), select.POLLIN)
            waiting = poll.poll(0)
        except (OSError, ValueError):
            return bool(super().is_usable())
        return not waiting or bool(super().is_usable())
