"""A real-time table in a real headless Chromium, against a site that serves WebSockets.

The issue's scenario ("Time limits", "If you disconnect", rulings 17 and 18): a
Fast table (15 s a move) of alice, bob and a bot. Bob closes his page: his seat
is held (for a few seconds here, two minutes in production), then a bot plays
it; alice lets her timer run out, and her page counts her strikes. Bob comes
back and takes his seat again; at alice's third strike a bot takes her seat for
good and her page turns into the watcher's. Nobody reloads a page: every change
reaches it over its socket.

The site is daphne in a process of its own, and the timers fire by themselves
in a real Celery worker (``tests/web/site.py``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.models import Move, Seat, Table
from tests.web.browser import browser, screenshot
from tests.web.conftest import make_user
from tests.web.site import HOLD_SECONDS, site, site_page
from tests.web.test_browser import click_a_move, log_in, my_turn

__all__ = ["browser", "screenshot", "site", "site_page"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

#: Patience for what a timer brings (a Fast timer is 15 s) on a busy machine.
TIMER_MS = 45_000
#: Patience for a push after a change (the socket's promise is well under a second).
PUSH_MS = 10_000


def seat(page: Any, number: int) -> Any:
    return page.locator(f'#live li.seat[data-seat="{number}"]')


def strikes_label(count: int) -> str:
    return f"{count} strike{'' if count == 1 else 's'} of 3"


def wait_strikes(page: Any, number: int, count: int) -> None:
    seat(page, number).locator(f'.strikes[aria-label="{strikes_label(count)}"]').wait_for(
        timeout=TIMER_MS
    )


def open_fast_table(alice: Any, bob: Any) -> str:
    """Alice opens a Fast table of three from the lobby's form; bob joins; a bot; start."""
    alice.get_by_label("Seats").select_option("3")
    alice.get_by_label("Real time").check()
    # The turn-by-turn fields are hidden and not sent; the move timer is offered.
    assert alice.get_by_label("Time for each turn").is_hidden()
    alice.get_by_label("Move timer").select_option("fast")
    alice.get_by_role("button", name="Open the table").click()
    alice.get_by_role("heading", name="Waiting for players").wait_for()
    assert alice.get_by_text("real time, 15 seconds a move").count() == 1
    table_url = str(alice.url)
    bob.goto("/")
    bob.get_by_role("button", name="Join table").first.click()
    bob.get_by_text("2 of 3 seats taken").wait_for()
    alice.get_by_text("2 of 3 seats taken").wait_for(timeout=PUSH_MS)
    alice.get_by_label("Bot level").select_option("normal")
    alice.get_by_role("button", name="Add a bot").click()
    alice.get_by_text("3 of 3 seats taken").wait_for()
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob):
        page.locator("#live .side-banner").wait_for(timeout=PUSH_MS)
    return table_url


def check_the_ring_counts_down(page: Any) -> None:
    """While it is the page's turn: a ring and "n s left", counting down, as the server says.

    The page's clock is ten minutes fast: counted by it, the time would be up.
    """
    assert page.evaluate("Date.now() - new Date().getTime()") >= 590_000
    page.locator("#live .turn.my-turn").wait_for(timeout=TIMER_MS)
    timer = page.locator("#live [data-move-timer]")
    assert timer.get_attribute("role") == "timer" and timer.get_attribute("data-seconds") == "15"
    first = timer.locator(".timer-text").inner_text()
    assert first.endswith(" s left") and 0 < int(first.split()[0]) <= 15, first
    # The ring empties and the text counts down (or the turn ends and a new ring starts).
    page.wait_for_function(
        """first => {
          const el = document.querySelector('#live [data-move-timer] .timer-text');
          return !el || el.textContent !== first;
        }""",
        arg=first,
        timeout=PUSH_MS,
    )
    left = page.evaluate(
        "() => document.querySelector('#live .timer-ring')?.style.getPropertyValue('--left')"
    )
    assert left is None or 0 <= float(left) < 1, left


def test_a_fast_table_strikes_a_player_out_and_holds_the_seat_of_one_who_left(
    site: Any, site_page: Any, screenshot: Any
) -> None:
    alice_user, bob_user = make_user("alice"), make_user("bob")
    # Alice's computer clock is ten minutes fast: her ring still counts the table's time.
    alice, bob = site_page(clock_ahead_ms=600_000), site_page()
    log_in(alice, alice_user)
    log_in(bob, bob_user)
    table_url = open_fast_table(alice, bob)
    table = Table.objects.get()
    assert table.move_seconds == 15
    # A real-time page listens on its socket (live.js's transport), not by polling.
    for page in (alice, bob):
        page.wait_for_function("() => document.documentElement.dataset.live === 'live'")
    assert alice.locator("#live-status").is_hidden()

    # Bob closes his page: his seat is held, then played by a bot until he is back.
    bob_context = bob.context
    bob.close()
    held = seat(alice, 1).locator("[data-rt=held]")
    held.wait_for(timeout=PUSH_MS)
    # A countdown in the player's time, never the server's clock time (issue 36).
    assert re.fullmatch(r"disconnected, seat held: \d+ (min \d+ s|s) left", held.inner_text())
    seat(alice, 1).locator("[data-rt=away]").wait_for(timeout=PUSH_MS + HOLD_SECONDS * 1000)
    assert "played by a bot" in seat(alice, 1).inner_text()

    # Alice lets her move timer run out; each time her page counts a strike.
    check_the_ring_counts_down(alice)
    wait_strikes(alice, 0, 1)
    alice.locator("#live .turn.my-turn").wait_for(timeout=TIMER_MS)
    screenshot(alice, "table-realtime")
    wait_strikes(alice, 0, 2)
    assert seat(alice, 0).locator(".strikes .marks").inner_text() == "●●○"
    assert Move.objects.filter(table=table, seat=1, source=Move.Source.BOT).exists()

    # Bob comes back: the seat is his again, from his next decision on.
    bob = site_page(bob_context)
    bob.goto(table_url)
    bob.locator("#live [data-zone=hand]").wait_for(timeout=PUSH_MS)
    seat(alice, 1).locator("[data-rt=away]").wait_for(state="detached", timeout=PUSH_MS)
    assert not Seat.objects.get(table=table, number=1).away
    wait_strikes(bob, 0, 2)  # bob's page shows alice's strikes too
    back_at = Move.objects.filter(table=table).order_by("-seq").values_list("seq", flat=True)[0]

    # Bob plays his turns by clicking until alice's third strike hands her seat to a bot.
    replaced = seat(alice, 0).locator("[data-rt=replaced]")
    clicked = 0
    for _ in range(400):
        if replaced.count() and clicked:
            break
        if my_turn(bob):
            click_a_move(bob)
            clicked += 1
        else:
            bob.wait_for_timeout(200)
        assert Table.objects.get().status == Table.Status.ACTIVE, "the game ended first"
    else:
        raise AssertionError("alice's seat never went to a bot")
    assert Move.objects.filter(
        table=table, seat=1, source=Move.Source.PLAYER, seq__gt=back_at
    ).exists()

    # Alice struck out: a bot plays her seat for the rest of the game, and it is still
    # hers (ruling 18, revised): her page keeps her seat's view and her hand.
    seat(alice, 0).locator("[data-rt=replaced]").wait_for(timeout=PUSH_MS)
    assert alice.get_by_text("You are watching").count() == 0
    assert alice.locator("#live [data-zone=hand]").count() == 1
    assert seat(alice, 0).locator(".strikes .marks").inner_text() == "●●●"
    assert "played by a bot" in seat(alice, 0).inner_text()
    seat(bob, 0).locator("[data-rt=replaced]").wait_for(timeout=PUSH_MS)
    assert "alice" in seat(bob, 0).inner_text()
    assert "alice (bot)" not in seat(bob, 0).inner_text()
    gone = Seat.objects.get(table=table, number=0)
    assert (gone.user_id, gone.previous_user_id, gone.strikes) == (alice_user.pk, None, 3)
    assert gone.struck_out
    screenshot(alice, "table-realtime-watcher")
    assert alice.js_errors == [] and bob.js_errors == []
