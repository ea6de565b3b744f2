"""Fixtures for the web client's tests: users, logged-in clients, known deals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories import known_deals, make_user

__all__ = ["known_deals", "make_user"]  # the fixture applies here; tests import make_user

PASSWORD = "correct horse battery"


@pytest.fixture
def site_server() -> str:
    """The ASGI server of ``tests.web.site``'s site; a test module may name another."""
    return "daphne"


#: The lobby's "Open a table" form as the page sends it by default (three seats, turn by turn).
NEW_TABLE_FORM = {
    "seat_count": "3",
    "mode": "turn_by_turn",
    "turn_hours": "24",
    "timeout_policy": "bot",
    "game": "flip",
    "flip-scoring": "single",
    "flip-target": "500",
    "flip-two_seat_reverse_skips": "on",
    "rated": "on",
}


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def logged_in(user: object) -> Client:
    """A browser-like client with the user's session; CSRF checks on, as in a browser."""
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)  # type: ignore[arg-type]
    return client
