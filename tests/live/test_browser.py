"""The web client's socket transport in a real headless Chromium, against daphne.

A real-time table: each page is pushed the other's moves over its socket; when
the server goes away both pages say they are reconnecting, and once it is back
they reconnect by themselves and show the move made meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import selectors, services
from games.models import Table
from tests.factories import start_table
from tests.live.server import AsgiServer, asgi_server
from tests.web.browser import browser
from tests.web.conftest import make_user
from tests.web.test_browser import click_a_move, log_in, my_turn, seq, wait_seq_at_least

__all__ = ["asgi_server", "browser"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

# Functions, not bare expressions: Playwright evaluates a bare string with eval, which
# the site's Content-Security-Policy refuses (gamenook.middleware).
LIVE = "() => document.documentElement.dataset.live === 'live'"
RECONNECTING = (
    "() => document.documentElement.classList.contains('live-reconnecting')"
    " && !document.getElementById('live-status').hidden"
)


@pytest.fixture
def asgi_page(browser: Any, asgi_server: AsgiServer) -> Iterator[Callable[[], Any]]:
    contexts: list[Any] = []

    def open_page() -> Any:
        context = browser.new_context(base_url=asgi_server.url)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.js_errors = []
        page.on("pageerror", lambda error: page.js_errors.append(str(error)))
        return page

    yield open_page
    for context in contexts:
        context.close()


def _first_legal_move(user: User, table_id: int) -> None:
    """A move made outside both pages (as another device of the player would)."""
    table = Table.objects.get(pk=table_id)
    seat = selectors.viewer_seat(table, user)
    view = selectors.table_view(table, seat)
    assert view is not None
    choice = view["legal_actions"][0]
    data: dict[str, Any] = {"type": choice["type"]}
    if "card" in choice:
        data["card"] = choice["card"]
    if "colors" in choice:
        data["color"] = choice["colors"][0]
    services.table_apply_action(table_id=table_id, user=user, data=data, expected_seq=None)


def test_pages_of_a_real_time_table_are_pushed_to_and_reconnect_by_themselves(
    asgi_page: Callable[[], Any], asgi_server: AsgiServer
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, move_timer="relaxed")
    pages = {}
    for user in (alice, bob):
        page = asgi_page()
        log_in(page, user)
        page.goto(f"/tables/{table.pk}/")
        page.wait_for_function(LIVE)
        pages[user.username] = page
    assert pages["alice"].evaluate("Gamenook.table.live instanceof Gamenook.live.transports.socket")

    # A move by clicking on one page shows on the other through its socket. The
    # mover's page names its socket in the move (X-Gamenook-Socket): the answer
    # brings its new view, and the socket is not pushed the same change to fetch.
    mover, other = ("alice", "bob") if my_turn(pages["alice"]) else ("bob", "alice")
    assert pages[mover].evaluate("typeof Gamenook.table.live.socketId") == "string"
    fetched: list[str] = []
    pages[mover].on("request", lambda request: fetched.append(request.url))
    before = seq(pages[other])
    click_a_move(pages[mover])
    wait_seq_at_least(pages[other], before + 1)
    pages[other].wait_for_timeout(500)  # a push back to the mover would be here by now
    assert [url for url in fetched if "/live/" in url] == [], fetched

    # The server goes away: both pages say so.
    asgi_server.stop()
    for page in pages.values():
        page.wait_for_function(RECONNECTING)

    # A move made meanwhile (elsewhere), then the server is back on the same port:
    # the pages reconnect by themselves and show it.
    who = alice if Table.objects.get(pk=table.pk).to_act == 0 else bob
    _first_legal_move(who, table.pk)
    now = Table.objects.get(pk=table.pk).seq
    asgi_server.start()
    for page in pages.values():
        page.wait_for_function(LIVE, timeout=30_000)
        wait_seq_at_least(page, now)
        assert page.locator("#live-status").is_hidden()
        assert page.js_errors == []
