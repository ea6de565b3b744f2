"""Issue 38 in a real headless Chromium: after her move, alice's table page offers the
next table where it is her turn, and the key "n" takes her there; a seat on autopilot
as bob sees it; the account page's Away section.

Deals are known (``tests.factories.known_deals``) and id sequences reset, so each
run plays the same games.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games import away, selectors, services
from games.models import Seat, Table
from tests.factories import legal_request, start_table
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import make_user
from tests.web.test_browser import click_a_move, log_in, my_turn

__all__ = ["browser", "new_page", "screenshot"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]


def _until_turn_of(table: Table, user: User, other: User) -> Table:
    """``other`` plays until it is ``user``'s turn (through the service, as the page does)."""
    for _ in range(100):
        table.refresh_from_db()
        mine = Seat.objects.get(table=table, user=user).number
        if table.to_act == mine:
            return table
        number = Seat.objects.get(table=table, user=other).number
        view = selectors.table_view(table, number)
        assert view is not None
        services.table_apply_action(
            table_id=table.pk, user=other, data=legal_request(view), expected_seq=None
        )
    raise AssertionError("it never became their turn")


def test_after_her_move_n_takes_alice_to_her_next_table(new_page: Any, screenshot: Any) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    here = _until_turn_of(start_table(alice, bob), alice, bob)
    there = _until_turn_of(start_table(alice, bob, turn_hours=72), alice, bob)
    page = new_page()
    log_in(page, alice)
    # The lobby lists both, the least time left first, with the time left.
    rows = page.locator("section:has(#my-turn-h) li.table-row")
    assert rows.count() == 2
    assert re.search(r"\d+ h \d+ min left", rows.first.inner_text())
    assert rows.first.locator("a").get_attribute("href") == f"/tables/{here.pk}/"
    page.goto(f"/tables/{here.pk}/")
    assert page.locator("[data-next-table]").count() == 0  # her turn here: play it
    for _ in range(20):
        if not my_turn(page):
            break
        click_a_move(page)
    assert not my_turn(page)
    link = page.locator("[data-next-table]")
    link.wait_for()
    assert re.fullmatch(rf"Next: table {there.pk}, 71 h \d+ min left", link.inner_text().strip())
    assert link.get_attribute("aria-keyshortcuts") == "n"
    screenshot(page, "table-next", full_page=False)
    # The focus is where her move left it, in her hand: "n" works from there.
    page.keyboard.press("n")
    page.wait_for_url(f"**/tables/{there.pk}/")
    assert page.locator("#live .turn.my-turn").count() == 1
    # Her turn here: nothing to offer, and "n" does nothing.
    assert page.locator("[data-next-table]").count() == 0
    page.keyboard.press("n")
    page.wait_for_timeout(300)
    assert page.url.endswith(f"/tables/{there.pk}/")
    assert page.js_errors == []


def test_bob_sees_alices_seat_on_autopilot_and_her_account_says_she_is_away(
    new_page: Any, screenshot: Any
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = _until_turn_of(start_table(alice, bob, allow_watchers=True), bob, alice)
    mine = new_page()
    log_in(mine, alice)
    mine.goto("/account/")
    section = mine.locator("#away")
    section.get_by_label("a date and time:").first.check()
    begins = timezone.now() + timedelta(days=30)  # her time zone is UTC (the default)
    section.get_by_label("Start", exact=True).fill(f"{begins:%Y-%m-%d}T10:00")
    section.get_by_label("The bot that plays for me").select_option("hard")
    section.get_by_role("button", name="Save").click()
    mine.get_by_text("Your time away is planned").wait_for()
    planned = f"Planned: from {begins.day} {begins:%b %Y}, 10:00 until you return"
    assert planned in mine.locator("#away").inner_text()
    # Now instead: from now, until she returns, a Normal bot.
    section = mine.locator("#away")
    section.get_by_label("now", exact=True).check()
    section.get_by_label("The bot that plays for me").select_option("normal")
    section.get_by_role("button", name="Save").click()
    mine.get_by_text("You are away:").first.wait_for()
    assert away.away_status(alice).state == "away"
    screenshot(mine, "account-away")

    theirs = new_page()
    log_in(theirs, bob)
    theirs.goto(f"/tables/{table.pk}/")
    chip = theirs.locator(
        f'#live .seat[data-seat="{Seat.objects.get(table=table, user=alice).number}"]'
    )
    tag = chip.locator("[data-autopilot]")
    tag.wait_for()
    # In the reader's own time (clock.js), never colour alone: the words say it.
    assert re.fullmatch(
        r"On autopilot \(Normal bot\) until (they return|\d{1,2} [A-Z][a-z]{2}, \d\d:\d\d)",
        tag.inner_text(),
    ), tag.inner_text()
    assert "on autopilot (Normal bot)" in (chip.get_attribute("aria-label") or "")
    screenshot(theirs, "table-autopilot", full_page=False)

    mine.locator("#away").get_by_role("button", name="I am back").click()
    mine.get_by_text("You are not away").wait_for()
    assert mine.js_errors == [] and theirs.js_errors == []
