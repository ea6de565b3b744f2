"""A turn-by-turn table's page is live over its WebSocket, and polls where that cannot connect.

Issue 36, section 5: every table page takes its changes over the table's socket,
as real-time pages do; polling with ETags stays as the fallback, for a socket the
server refuses (here: a second tab past the per-user cap) and for a server that
has no WebSockets at all (pytest-django's WSGI ``live_server``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from games.models import Connection, Seat, Table
from tests.factories import start_table
from tests.live.server import AsgiServer, asgi_server
from tests.web.browser import browser, new_page
from tests.web.conftest import make_user
from tests.web.test_browser import click_a_move, log_in, my_turn, seq, wait_seq_at_least

__all__ = ["asgi_server", "browser", "new_page"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

# Functions, not bare expressions: Playwright evaluates a bare string with eval, which
# the site's Content-Security-Policy refuses (gamenook.middleware).
LIVE = "() => document.documentElement.dataset.live === 'live'"
POLLING = "() => document.documentElement.dataset.live === 'polling'"
#: Long enough for a polling page (once a second) to ask two or three times.
IDLE_MS = 3000


def _open(browser: Any, url: str, contexts: list[Any]) -> Any:
    context = browser.new_context(base_url=url)
    context.set_default_timeout(15_000)
    contexts.append(context)
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    # Every fetch of the live part this page makes, as it makes it.
    page.live_requests = []
    page.on(
        "request",
        lambda request: page.live_requests.append(request.url) if "/live/" in request.url else None,
    )
    return page


@pytest.fixture
def asgi_page(browser: Any, asgi_server: AsgiServer) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []
    yield lambda: _open(browser, asgi_server.url, contexts)
    for context in contexts:
        context.close()


@pytest.fixture
def capped_server(transactional_db: None, settings: Any) -> Iterator[AsgiServer]:
    """daphne admitting one socket per user and table (forked with this setting)."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the ASGI test server's process cannot see an in-memory SQLite database")
    settings.GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE = 1
    server = AsgiServer()
    server.start()
    yield server
    server.stop()


def _table_pages(open_page: Callable[[], Any], table: Table, *users: User) -> dict[str, Any]:
    pages = {}
    for user in users:
        page = open_page()
        log_in(page, user)
        page.goto(f"/tables/{table.pk}/")
        pages[user.username] = page
    return pages


def _mover(pages: dict[str, Any]) -> tuple[Any, Any]:
    """The page whose turn it is, and the other."""
    alice, bob = pages["alice"], pages["bob"]
    return (alice, bob) if my_turn(alice) else (bob, alice)


def test_a_turn_by_turn_page_is_live_over_its_socket_and_does_not_poll(
    asgi_page: Callable[[], Any],
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    assert not table.realtime
    pages = _table_pages(asgi_page, table, alice, bob)
    for page in pages.values():
        page.wait_for_function(LIVE)
        assert page.evaluate("Gamenook.table.live instanceof Gamenook.live.transports.socket")
        assert page.evaluate("typeof Gamenook.table.live.socketId") == "string"
    # Each open page counts as having the table open (ruling 19, notifications.away) ...
    assert Connection.objects.filter(table=table).count() == 2

    # ... and while nothing happens, a page asks nothing: no poll.
    mover, other = _mover(pages)
    other.live_requests.clear()
    other.wait_for_timeout(IDLE_MS)
    assert other.live_requests == []

    # A move by clicking on one page shows on the other, fetched once on its push.
    before = seq(other)
    click_a_move(mover)
    wait_seq_at_least(other, before + 1)
    fetched = len(other.live_requests)
    assert 1 <= fetched <= 2, other.live_requests
    other.wait_for_timeout(IDLE_MS)
    assert len(other.live_requests) == fetched, other.live_requests  # and then nothing
    assert other.locator("#live-status").is_hidden()

    # Presence is a fact of real-time play only: a turn-by-turn page closed holds no seat.
    other.close()
    mover.wait_for_timeout(500)
    seats = Seat.objects.filter(table=table)
    assert all(s.held_until is None and not s.away for s in seats)
    assert mover.js_errors == [] and other.js_errors == []


def test_a_refused_socket_falls_back_to_polling(browser: Any, capped_server: AsgiServer) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    contexts: list[Any] = []
    try:

        def open_page() -> Any:
            return _open(browser, capped_server.url, contexts)

        pages = _table_pages(open_page, table, alice, bob)
        for page in pages.values():
            page.wait_for_function(LIVE)
        # Alice's second tab in the same browser: one socket each at most, so the server
        # refuses this one (4429), and the page polls instead of going dead.
        tab = pages["alice"].context.new_page()
        tab.js_errors = []
        tab.on("pageerror", lambda error: tab.js_errors.append(str(error)))
        refused: list[int] = []
        tab.on(
            "websocket",
            lambda ws: ws.on("close", lambda _: refused.append(1)),
        )
        tab.goto(f"/tables/{table.pk}/")
        tab.wait_for_function(POLLING)
        assert refused, "the second tab's socket was not refused"
        assert tab.locator("#live-status").is_hidden()  # the page is fine: no alarm
        polls: list[str] = []
        tab.on(
            "request",
            lambda request: polls.append(request.url) if "/live/" in request.url else None,
        )
        tab.wait_for_timeout(IDLE_MS)
        assert len(polls) >= 2, polls

        # The other player's move reaches the polling tab.
        mover, _ = _mover(pages)
        before = seq(tab)
        click_a_move(mover)
        wait_seq_at_least(tab, before + 1)
        assert tab.evaluate("document.documentElement.dataset.live") == "polling"
        assert tab.js_errors == []
    finally:
        for context in contexts:
            context.close()


def test_without_websockets_a_turn_by_turn_page_updates_by_polling(
    new_page: Callable[..., Any],
) -> None:
    # live_server is WSGI: the socket's handshake is answered 404 and never opens.
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    pages = {}
    for user in (alice, bob):
        page = new_page()
        log_in(page, user)
        page.goto(f"/tables/{table.pk}/")
        pages[user.username] = page
    for page in pages.values():
        page.wait_for_function(POLLING)
        assert page.locator("#live-status").is_hidden()
    mover, other = _mover(pages)
    before = seq(other)
    click_a_move(mover)
    wait_seq_at_least(other, before + 1)
    assert other.evaluate("document.documentElement.dataset.live") == "polling"
    assert mover.js_errors == [] and other.js_errors == []
