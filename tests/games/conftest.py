"""Fixtures for the API tests: users, authenticated clients, tables at each stage."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts import services as accounts
from games import services
from games.models import Table
from tests.factories import known_deals, make_user, start_table

__all__ = ["known_deals", "make_user"]  # the fixture applies here; tests import make_user


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    # Throttle counts live in the cache, which outlives a test.
    cache.clear()
    yield
    cache.clear()


_clients = itertools.count()


def client_for(user: User | None) -> APIClient:
    """A client that sends the user's token, as a real client would.

    CSRF checks are on, as they are for a real client (Django's test client
    skips them unless asked).
    """
    client = APIClient(enforce_csrf_checks=True)
    if user is not None:
        # A token of its own per client: two clients of one user are two devices.
        _token, key = accounts.token_create(user=user, name=f"client {next(_clients)}")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def user_factory() -> Callable[..., User]:
    return make_user


@pytest.fixture
def alice() -> User:
    return make_user("alice")


@pytest.fixture
def bob() -> User:
    return make_user("bob")


@pytest.fixture
def carol() -> User:
    return make_user("carol")


@pytest.fixture
def api() -> Callable[[User | None], APIClient]:
    return client_for


def started_table(host: User, *others: User, bots: int = 0, **options: Any) -> Table:
    """A running table: the host in seat 0, then ``others``, then ``bots`` easy bots."""
    table = start_table(host, *others, bots=bots, **options)
    services.table_run_bots(table_id=table.pk)  # as the API's start does
    return Table.objects.get(pk=table.pk)


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is an error in the API's one shape, with this status and code."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "detail", "fields"}, body
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["fields"], dict)
    return body


def action_body(view: dict[str, Any], pick: int = 0) -> dict[str, Any]:
    """A request body for the ``pick``-th legal action in ``view`` (a /view/ answer)."""
    legal = view["game"]["legal_actions"]
    choice = legal[pick % len(legal)]
    body: dict[str, Any] = {"type": choice["type"], "expected_seq": view["seq"]}
    if "card" in choice:
        body["card"] = choice["card"]
    if "colors" in choice:
        body["color"] = choice["colors"][0]
    return body
