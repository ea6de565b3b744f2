"""daphne serving the whole ASGI application (HTTP, static files, WebSockets) to a browser test.

pytest-django's ``live_server`` is a WSGI server: it has no WebSockets. This
runs ``gamenook.asgi.application`` in daphne, in a child process forked from
the test's (so with the test's settings and database), on a port that stays
the same when the server is stopped and started again: a page's socket drops
and comes back as it would when a real server restarts.

    server = AsgiServer()
    server.start(); page.goto(server.url + "/tables/1/"); server.stop()
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.routing import get_default_application
from daphne.testing import DaphneProcess
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.db import connection, connections

#: How long the child may take to listen.
START_SECONDS = 30


def _application() -> Any:
    # Called in the forked child. A test before this one may have run a database call
    # through asgiref's one shared thread (database_sync_to_async, AsyncClient); fork
    # copies the executor but not its thread, so every such call in the child would
    # wait for ever (a page's socket never became live). The child gets its own.
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    return ASGIStaticFilesHandler(get_default_application())


class AsgiServer:
    host = "127.0.0.1"

    def __init__(self) -> None:
        self.port: int | None = None
        self.process: DaphneProcess | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        # The child must not share the test's database connections: it opens its own.
        connections.close_all()
        process = DaphneProcess(self.host, _application, port=self.port)
        process.start()
        if not process.ready.wait(START_SECONDS):
            process.terminate()
            raise RuntimeError("daphne did not start")
        self.port = process.port.value
        self.process = process

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.join(10)
            self.process = None


@pytest.fixture
def asgi_server(transactional_db: None) -> Iterator[AsgiServer]:
    """A running ``AsgiServer`` on the test database (pytest-django's transactional one)."""
    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the ASGI test server forks the test process")
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the ASGI test server's process cannot see an in-memory SQLite database")
    server = AsgiServer()
    server.start()
    yield server
    server.stop()
