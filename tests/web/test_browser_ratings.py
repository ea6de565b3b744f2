"""Issue 39 in a real headless Chromium: the player's page draws its plots (Chart.js,
vendored) beside the tables of their figures, readable without colour, with no script
error, no Content-Security-Policy refusal and no serious axe-core finding; the
leaderboard; a game's end with each seat's rating change.

Deals are known (``tests.factories.known_deals``) and id sequences reset, so each
run plays the same games. ``GAMENOOK_SCREENSHOTS=docs/web`` keeps the screenshots.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from ratings import model
from ratings import services as ratings
from ratings.models import Rating
from tests.factories import start_table
from tests.ratings.conftest import play_out
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import make_user
from tests.web.test_browser import log_in
from tests.web.test_table_layout import (
    MIN_TARGET_PX,
    MIN_TEXT_PX,
    PHONE,
    SMALL_TARGETS,
    SMALL_TEXT,
    _axe,
)

__all__ = ["browser", "new_page", "screenshot"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

#: The pixels of a canvas something was drawn on (not transparent).
INKED = """c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; }"""
#: How each line of a plot is told apart without colour: its point style and its dash.
LINE_STYLES = """c => Chart.getChart(c).data.datasets.map(
  d => `${d.pointStyle} ${JSON.stringify(d.borderDash)}`)"""


def _record(alice: User, bob: User) -> None:
    """Rated games on two ladders (Flip and classic Wild Cards) and one unrated."""
    for index, (options, bots, level) in enumerate(
        [
            ({}, 1, "hard"),
            ({}, 2, "easy"),
            ({}, 1, "normal"),
            ({}, 2, "hard"),
            ({"game": "wildcards"}, 1, "normal"),
            ({"game": "wildcards"}, 2, "easy"),
            ({"game": "wildcards"}, 1, "hard"),
            ({"rated": False}, 1, "easy"),
        ]
    ):
        table = start_table(alice, bob, bots=bots, level=level, **options)
        play_out(table, pick=index)
        ratings.table_rate(table_id=table.pk)


def _open_player_page(page: Any, console: list[str], username: str) -> None:
    page.on(
        "console", lambda message: console.append(message.text) if message.type == "error" else None
    )
    page.goto(f"/players/{username}/")
    page.locator('canvas[data-chart="history"][data-drawn="true"]').wait_for()


def test_the_player_page_draws_its_plots_beside_their_figures(
    new_page: Any, screenshot: Any
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    _record(alice, bob)
    page = new_page(width=1280, height=900)
    log_in(page, bob)
    console: list[str] = []
    _open_player_page(page, console, "alice")
    for kind in ("history", "sizes", "bots"):
        canvas = page.locator(f'canvas[data-chart="{kind}"]')
        assert canvas.get_attribute("data-drawn") == "true", kind
        assert canvas.get_attribute("role") == "img"
        assert "The figures are in the table" in (canvas.get_attribute("aria-label") or "")
        box = canvas.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 150, (kind, box)
        assert page.evaluate(INKED, canvas.element_handle()) > 2000, f"the {kind} plot is blank"
    # Two ladders, two lines: each its own point style and dash, not its colour alone.
    history = page.locator('canvas[data-chart="history"]').element_handle()
    styles = page.evaluate(LINE_STYLES, history)
    assert len(styles) == 2 and len(set(styles)) == 2, styles
    # The figures beside each plot, row for row.
    tables = page.locator('table[data-figures="history"]')
    assert tables.count() == 2
    points = page.evaluate("c => Chart.getChart(c).data.datasets.map(d => d.data.length)", history)
    assert [tables.nth(i).locator("tbody tr").count() for i in range(2)] == points
    assert page.locator('table[data-figures="sizes"] tbody tr').count() >= 2
    assert page.locator('table[data-figures="bots"] tbody tr').count() == 3
    assert page.locator("[data-replay]").count() == 8
    assert _axe(page) == []
    assert page.evaluate(SMALL_TEXT, MIN_TEXT_PX) == []
    screenshot(page, "player")
    assert page.js_errors == [] and console == [], (page.js_errors, console)

    # On a phone: nothing wider than the screen, text and controls big enough.
    phone = new_page(width=PHONE[0], height=PHONE[1])
    log_in(phone, bob)
    _open_player_page(phone, console, "alice")
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE[0], width
    assert (
        phone.evaluate(INKED, phone.locator('canvas[data-chart="history"]').element_handle()) > 2000
    )
    assert phone.evaluate(SMALL_TEXT, MIN_TEXT_PX) == []
    assert phone.evaluate(SMALL_TARGETS, MIN_TARGET_PX) == []
    assert _axe(phone) == []
    phone.evaluate("() => document.getElementById('history-h').scrollIntoView()")
    screenshot(phone, "player-phone", full_page=False)
    assert phone.js_errors == [] and console == [], (phone.js_errors, console)

    # Head to head, from the page's form.
    page.get_by_label("Compare alice with").fill("bob")
    page.get_by_role("button", name="Compare").click()
    page.get_by_role("heading", name="alice against bob").wait_for()
    assert page.locator('table[data-figures="versus"] tbody td').first.inner_text() == "8"
    assert _axe(page) == []


def test_the_leaderboard_and_a_games_end_with_its_rating_changes(
    new_page: Any, screenshot: Any
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    now = timezone.now()
    names = ["alice", "bob", *(f"player{n}" for n in range(1, 12))]
    for index, name in enumerate(names):
        user = alice if name == "alice" else bob if name == "bob" else make_user(name)
        mu, sigma = 34.0 - 0.7 * index, 2.5 + 0.1 * index
        Rating.objects.create(
            game="flip",
            mode="correspondence",
            rules="standard",
            user=user,
            mu=mu,
            sigma=sigma,
            ordinal=model.ordinal(mu, sigma),
            games=12 + 3 * index,
            last_game_at=now - timedelta(days=index % 5),
        )
    page = new_page(width=1100, height=900)
    log_in(page, alice)
    page.get_by_role("link", name="Leaderboards").click()
    page.get_by_label("How it plays").select_option("correspondence")
    page.get_by_role("button", name="Show the leaderboard").click()
    rows = page.locator("table.leaderboard tbody tr")
    rows.first.wait_for()
    assert rows.count() == len(names)
    assert rows.first.inner_text().split("\t")[:2] == ["1", "alice (you)"]
    assert _axe(page) == []
    screenshot(page, "leaderboard")

    # A game's end: its follow-up has not rated it yet (no worker runs here), so the page
    # says so, and shows the changes once they are written, without a reload.
    table = play_out(start_table(alice, bob, bots=2, level="hard"))
    page.goto(f"/tables/{table.pk}/")
    page.locator("#live [data-ratings-pending]").wait_for()
    ratings.table_rate(table_id=table.pk)
    changes = page.locator("#live [data-rating-change]")
    changes.first.wait_for()
    assert page.locator("#live [data-ratings-pending]").count() == 0
    assert changes.count() == 4
    for text in changes.all_inner_texts():
        # The sign is in the words: "rating 1012 (+12)", "rating 988 (−12)".
        assert text.startswith("· rating ") and (
            "(+" in text or "(\u2212" in text or "(±0)" in text
        ), text
    assert _axe(page) == []
    screenshot(page, "table-ratings")
    assert page.js_errors == []
