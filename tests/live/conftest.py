"""Sockets for the WebSocket tests: Channels' communicator on the whole ASGI application.

Each test sets its tables up in plain (sync) code, then runs its socket scenario
with ``run`` (``async_to_sync``): the consumers' database work then runs in the
test's own thread, on the test's connection. The tests use pytest-django's
transactional database, because a push is sent on commit.

The channel layer is the settings' (Redis's when ``GAMENOOK_TEST_CHANNEL_LAYER_URL``
names a Redis database, as in CI) unless a test asks for ``layer`` , which runs it on
each layer there is: in-memory, and Redis's when configured.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync
from channels import layers as channels_layers
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from accounts import services as accounts
from gamenook.asgi import application
from gamenook.settings.base import channel_layers
from games import selectors
from games.models import Table
from live.ticker import ticker
from tests.factories import known_deals, make_user

__all__ = ["known_deals", "make_user"]

#: A bound on each wait for a frame: a hung socket fails the test, a slow machine does not.
WAIT = 20.0

_tokens = itertools.count()


def run(scenario: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """Run an async scenario from a sync test (its database work stays in this thread).

    Each scenario runs in an event loop of its own; Redis's layer keeps locks tied
    to the loop that first used them, so the next scenario gets a new layer.
    """
    try:
        return async_to_sync(scenario)(*args)
    finally:
        channels_layers.channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _live_db(transactional_db: None) -> Iterator[None]:
    cache.clear()  # the actions' rate limit counts in the cache
    if settings.CHANNEL_LAYER_URL:  # Redis's layer: no group left from another test
        redis.Redis.from_url(settings.CHANNEL_LAYER_URL).flushdb()
    # Channels closes an expired connection around each database call; with the
    # default CONN_MAX_AGE of 0 that is a new connection per call. Production keeps
    # them (CONN_MAX_AGE 60), and so do these tests.
    kept = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = None
    connection.close()
    yield
    ticker.clear()  # a test that failed half-way leaves no socket to the next
    connection.settings_dict["CONN_MAX_AGE"] = kept
    connection.close()
    cache.clear()


@pytest.fixture(autouse=True)
def _bots_inline(settings: Any) -> None:
    settings.GAMENOOK_RUN_BOTS_INLINE = True


def _layers() -> list[str]:
    return ["memory", *(["redis"] if settings.CHANNEL_LAYER_URL else [])]


@pytest.fixture(params=_layers())
def layer(request: pytest.FixtureRequest, settings: Any) -> str:
    """Runs the test on the in-memory layer, and on Redis's when one is configured."""
    kind: str = request.param
    # Sealed and prefixed as the settings' own layer is (gamenook.settings.base.channel_layers).
    settings.CHANNEL_LAYERS = channel_layers(
        settings.CHANNEL_LAYER_URL if kind == "redis" else "",
        secret_key=settings.SECRET_KEY,
        database=settings.CHANNEL_LAYER_URL,
    )
    return kind


def token_for(user: User) -> str:
    _token, key = accounts.token_create(user=user, name=f"socket {next(_tokens)}")
    return key


def session_for(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def socket(
    table_id: int | str,
    *,
    token: str | None = None,
    session: str | None = None,
    authorization: str | None = None,
    origin: str | None = "http://testserver",
) -> WebsocketCommunicator:
    """A client socket at ``/ws/tables/<table_id>/`` (not connected yet)."""
    headers: list[tuple[bytes, bytes]] = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if token is not None:
        authorization = f"Token {token}"
    if authorization is not None:
        headers.append((b"authorization", authorization.encode()))
    if session is not None:
        headers.append((b"cookie", f"sessionid={session}".encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)


async def _next(comm: WebsocketCommunicator) -> dict[str, Any]:
    text = await comm.receive_from(timeout=WAIT)
    body: dict[str, Any] = json.loads(text)
    first = not getattr(comm, "frames_read", 0)
    comm.frames_read = getattr(comm, "frames_read", 0) + 1  # type: ignore[attr-defined]
    if body.get("type") == "hello":
        assert first, f"a hello after the first frame: {body}"
        comm.hello = body  # type: ignore[attr-defined]
    return body


async def frame(comm: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame, parsed; an admitted socket's first, its ``hello``, is kept
    (``socket_id``) and passed over."""
    body = await _next(comm)
    if body.get("type") == "hello":
        body = await _next(comm)
    return body


async def socket_id(comm: WebsocketCommunicator) -> str:
    """The id the connected socket's hello frame gave (it must be its first frame)."""
    if not getattr(comm, "frames_read", 0):
        got = await _next(comm)
        assert got["type"] == "hello", got
    hello: dict[str, Any] = comm.hello  # type: ignore[attr-defined]
    return str(hello["socket"])


async def view_at(comm: WebsocketCommunicator, seq: int) -> dict[str, Any]:
    """Frames until the view of ``seq``; every frame before it must be a view or a move."""
    while True:
        got = await frame(comm)
        assert got["type"] in ("view", "moved"), got
        if got["type"] == "view" and got["view"]["seq"] >= seq:
            assert got["view"]["seq"] == seq, (got["view"]["seq"], seq)
            return got


def _current_etag(table_id: int) -> str:
    table = Table.objects.get(pk=table_id)
    return f'"{selectors.view_version(table)}"'


async def view_now(comm: WebsocketCommunicator, table_id: int) -> dict[str, Any]:
    """Views until the one of the table as it is now (others opening sockets change
    presence, and each change is a view)."""
    etag = await database_sync_to_async(_current_etag)(table_id)
    while True:
        got = await frame(comm)
        assert got["type"] == "view", got
        if got["etag"] == etag:
            return got


async def send(comm: WebsocketCommunicator, message: Any) -> None:
    await comm.send_to(text_data=json.dumps(message))


async def closed_with(comm: WebsocketCommunicator) -> int:
    """The close code the server sent."""
    output = await comm.receive_output(timeout=WAIT)
    assert output["type"] == "websocket.close", output
    return int(output["code"])


def api_view(user: User, table_id: int) -> tuple[dict[str, Any], str]:
    """``GET /tables/{id}/view/`` for ``user``: the body and its ETag."""
    client = APIClient()
    client.force_authenticate(user)
    response = client.get(f"/api/v1/tables/{table_id}/view/")
    assert response.status_code == 200
    return response.json(), response["ETag"]


def legal_action(view: dict[str, Any]) -> dict[str, Any]:
    """The actions endpoint's body for the first legal action ``view`` lists."""
    choice = view["game"]["legal_actions"][0]
    action = {"type": choice["type"]}
    if "card" in choice:
        action["card"] = choice["card"]
    if "colors" in choice:
        action["color"] = choice["colors"][0]
    return action
