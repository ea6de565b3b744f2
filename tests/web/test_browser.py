"""The web client in a real headless Chromium, against a live server.

Two people sign up, open and join a table with a bot, and play the whole
game by clicking; a game played with the keyboard only; the table on a 375 px
phone; a refused move; a watcher's page. Deals are known
(``tests.factories.known_deals``), so every run plays the same games.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import PASSWORD, make_user

__all__ = ["browser", "new_page", "screenshot"]

# Fresh id sequences: a bot's choices are seeded by its table's id and seq, so with
# known deals each test plays the same game every run.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

#: A move by one player must show on the others' pages within this (the issue's 2 s).
LIVE_MS = 2000
#: How long a test waits for it at most before failing outright (a busy machine).
PATIENCE_MS = 6000


def seq(page: Any) -> int:
    return int(page.locator("#live .live").get_attribute("data-seq"))


def wait_seq_at_least(page: Any, value: int, timeout: int = 10_000) -> None:
    # ... and no move of the page's own still on its way (aria-busy while it is).
    page.wait_for_function(
        "n => Number(document.querySelector('#live .live').dataset.seq) >= n"
        " && !document.getElementById('live').hasAttribute('aria-busy')",
        arg=value,
        timeout=timeout,
    )


def sign_up(page: Any, name: str) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill(name)
    page.get_by_label("Email").fill(f"{name}@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="Lobby").wait_for()


def log_in(page: Any, user: User) -> None:
    page.goto("/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Lobby").wait_for()


def my_turn(page: Any) -> bool:
    return page.locator("#live .turn.my-turn").count() > 0


def game_over(page: Any) -> bool:
    return page.locator("#live .ranking").count() > 0


def click_a_move(page: Any) -> str:
    """Make one move by clicking, as a person would; returns what was done."""
    before = seq(page)
    wild = page.locator("#live summary.card-button.playable")
    card = page.locator("#live button.card-button.playable")
    if page.locator("#live input[value=choose_color]").count():
        page.locator("#live form.picker button").first.click()
        done = "chose a colour"
    elif wild.count():
        wild.first.click()
        page.locator("#live details.wild-pick[open] .picker button").first.click()
        done = "played a Wild and chose its colour"
    elif card.count():
        card.first.click()
        done = "played a card"
    else:
        page.locator("#live [data-draw]").click()
        done = "drew"
    wait_seq_at_least(page, before + 1)
    return done


def test_two_people_sign_up_and_play_a_whole_game_with_a_bot_by_clicking(
    new_page: Any, screenshot: Any
) -> None:
    alice, bob = new_page(), new_page()
    sign_up(alice, "alice")
    sign_up(bob, "bob")

    alice.get_by_label("Seats").select_option("3")
    alice.get_by_role("button", name="Open the table").click()
    alice.get_by_role("heading", name="Waiting for players").wait_for()
    table_url = alice.url

    bob.reload()
    bob.get_by_role("button", name="Join table").first.click()
    bob.get_by_text("2 of 3 seats taken").wait_for()
    # The host sees bob arrive without reloading.
    alice.get_by_text("2 of 3 seats taken").wait_for(timeout=LIVE_MS + 500)
    alice.get_by_label("Bot level").select_option("easy")
    alice.get_by_role("button", name="Add a bot").click()
    alice.get_by_text("3 of 3 seats taken").wait_for()
    screenshot(alice, "table-lobby")
    for page in (alice, bob):
        page.evaluate("window.__noReload = true")
    alice.get_by_role("button", name="Start the game").click()
    alice.locator("#live .side-banner").wait_for()
    bob.locator("#live .side-banner").wait_for(timeout=LIVE_MS + 500)
    screenshot(alice, "table-light")
    # What a screen reader is told: the direction, each seat, each card, the piles.
    assert alice.get_by_role("img", name="Direction of play: clockwise").count() == 1
    seats = alice.locator("#live li.seat").evaluate_all("els => els.map(e => e.ariaLabel)")
    assert len(seats) == 3 and all(" cards" in name for name in seats), seats
    names = alice.locator("#live [data-zone=hand] [data-card]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert len(names) == 7 and all(name and name[0].isupper() for name in names), names
    # The player to act hears each card's name and whether it is playable.
    cards = bob.locator("#live [data-zone=hand] [data-card]").evaluate_all(
        "els => els.map(e => [e.getAttribute('aria-label'), e.dataset.playable,"
        " e.querySelector('.name').textContent.trim()])"
    )
    assert any(playable == "true" for _, playable, _ in cards), cards
    for label, playable, name in cards:
        assert label.startswith(name), (label, name)
        assert (", playable" in label) == (playable == "true"), (label, playable)
    assert alice.get_by_label("Top card, dark face:", exact=False).count() == 1
    assert alice.locator("#announcer[aria-live=polite]").count() == 1

    done: list[str] = []
    delays: list[float] = []
    took_dark = False
    for _ in range(2000):
        if game_over(alice) and game_over(bob):
            break
        mover = alice if my_turn(alice) else bob if my_turn(bob) else None
        if mover is None:
            # A bot is playing, or the other page has not caught up yet.
            alice.wait_for_timeout(100)
            continue
        other = bob if mover is alice else alice
        done.append(click_a_move(mover))
        # The move shows on the other player's page, without a reload.
        start = time.monotonic()
        wait_seq_at_least(other, seq(mover), timeout=PATIENCE_MS)
        delays.append(time.monotonic() - start)
        if not took_dark and mover.locator("#live .live.side-dark").count():
            screenshot(mover, "table-dark")
            took_dark = True
    assert game_over(alice) and game_over(bob), "the game did not end"
    assert "played a Wild and chose its colour" in done, done
    # Within 2 s: every move but the odd one a busy machine delays (those within 6 s).
    delays.sort()
    assert len(delays) >= 10
    assert delays[int(len(delays) * 0.9)] <= LIVE_MS / 1000, delays
    for page in (alice, bob):
        assert page.evaluate("window.__noReload") is True, "the page reloaded"
        assert page.url == table_url
        assert page.js_errors == []
    assert alice.get_by_role("heading", name="Final ranking").is_visible()
    screenshot(alice, "table-end")

    alice.get_by_role("link", name="Watch the replay").click()
    alice.get_by_text("Step 0 of").wait_for()
    alice.get_by_role("link", name="Forward").click()
    alice.get_by_text("Step 1 of").wait_for()
    alice.get_by_role("link", name="Last").click()
    alice.get_by_role("heading", name="Final ranking").wait_for()
    # Every hand face up: the cards left at the end are on the page.
    assert alice.locator(".seat .mini-hand .card").count() > 0
    screenshot(alice, "replay")

    # A lobby with something in each list, for its screenshot.
    host, guest = User.objects.get(username="alice"), User.objects.get(username="bob")
    for table_id in (_table_with_bots(host, bots=1), _table_with_bots(guest, host, bots=2)):
        services.table_start(
            table_id=table_id, user=User.objects.get(seats__table_id=table_id, seats__number=0)
        )
        services.table_run_bots(table_id=table_id)
    _table_with_bots(host, bots=1)
    services.table_create(host=make_user("carol"), seat_count=4, allow_watchers=True)
    alice.goto("/")
    assert alice.get_by_role("link", name="replay").count() == 1
    screenshot(alice, "lobby")


def _table_with_bots(host: User, *others: User, bots: int, **options: Any) -> int:
    table = services.table_create(host=host, seat_count=1 + len(others) + bots, **options)
    for other in others:
        services.table_join(table_id=table.pk, user=other)
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=host, level="easy")
    return table.pk


def _press_tab_to(page: Any, selector: str, limit: int = 300) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("s => !!document.activeElement?.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_played_with_the_keyboard_only(new_page: Any) -> None:
    alice = make_user("alice")
    table_id = _table_with_bots(alice, bots=1)
    page = new_page()
    page.goto("/login/")
    _press_tab_to(page, "#id_username")
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="Lobby").wait_for()
    _press_tab_to(page, f'a[href="/tables/{table_id}/"]')
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Start the game").wait_for()
    _press_tab_to(page, "[data-key=start]")
    page.keyboard.press("Enter")
    page.locator("#live .side-banner").wait_for()

    moves = 0
    for _ in range(2000):
        if game_over(page):
            break
        if not my_turn(page):
            page.wait_for_timeout(100)
            continue
        before = seq(page)
        if page.locator("#live input[value=choose_color]").count():
            _press_tab_to(page, "#live form.picker button")
            page.keyboard.press("Enter")
        elif page.locator("#live .card-button.playable").count():
            _press_tab_to(page, "#live .card-button.playable")
            wild = page.evaluate("() => document.activeElement.tagName === 'SUMMARY'")
            page.keyboard.press("Enter")
            if wild:  # the colour picker opens with its first colour focused
                page.wait_for_function("() => document.activeElement.closest('.picker') !== null")
                page.keyboard.press("Enter")
        else:
            _press_tab_to(page, "#live [data-draw]")
            page.keyboard.press("Enter")
        wait_seq_at_least(page, before + 1)
        moves += 1
    assert game_over(page), "the game did not end"
    assert moves > 3
    assert page.js_errors == []


def test_the_table_fits_a_phone_375_px_wide_without_horizontal_scrolling(
    new_page: Any, screenshot: Any
) -> None:
    alice = make_user("alice")
    table_id = _table_with_bots(alice, bots=9, allow_watchers=True)
    page = new_page(width=375, height=740)
    log_in(page, alice)
    widths = {}
    widths["lobby"] = page.evaluate("document.documentElement.scrollWidth")
    page.goto(f"/tables/{table_id}/")
    widths["table in the lobby"] = page.evaluate("document.documentElement.scrollWidth")
    services.table_start(table_id=table_id, user=alice)
    services.table_run_bots(table_id=table_id)
    page.reload()
    page.locator("#live .side-banner").wait_for()
    page.locator("#live details.whole-pile summary").click()
    widths["ten seats at play"] = page.evaluate("document.documentElement.scrollWidth")
    screenshot(page, "table-phone", full_page=False)  # the hand is docked at the bottom
    wild = page.locator("#live summary.card-button.playable")
    if wild.count():
        wild.first.click()
        widths["a colour picker open"] = page.evaluate("document.documentElement.scrollWidth")
    assert all(width <= 375 for width in widths.values()), widths


def test_a_refused_move_shows_the_rules_sentence_and_changes_nothing(new_page: Any) -> None:
    alice = make_user("alice")
    table_id = _table_with_bots(alice, bots=1)
    services.table_start(table_id=table_id, user=alice)
    services.table_run_bots(table_id=table_id)
    page = new_page()
    log_in(page, alice)
    page.goto(f"/tables/{table_id}/")
    page.locator("#live .turn.my-turn").wait_for()
    before = seq(page)
    hand = page.locator("#live [data-zone=hand]").inner_text()
    refused = page.locator("#live button.card-button:not(.playable)")
    if refused.count():
        handle = refused.first.get_attribute("data-card")
        sentence = (page.locator(f"#why-{handle}").text_content() or "").strip()
        refused.first.click()
    else:  # every card is playable: drawing is what the rules refuse
        sentence = "You hold a playable card, so you must play one instead."
        page.locator("#live [data-draw]").click()
    notice = page.locator("#notice")
    notice.wait_for()
    assert notice.inner_text() == sentence
    assert sentence and "." in sentence
    assert seq(page) == before
    assert page.locator("#live [data-zone=hand]").inner_text() == hand
    assert page.js_errors == []


def test_a_watchers_page_holds_no_face_of_any_hand(new_page: Any) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table_id = _table_with_bots(alice, bob, bots=1, allow_watchers=True)
    services.table_start(table_id=table_id, user=alice)
    services.table_run_bots(table_id=table_id)
    page = new_page()
    log_in(page, carol)
    page.goto(f"/tables/{table_id}/")
    page.get_by_text("You are watching").wait_for()
    assert page.locator("[data-zone=hand]").count() == 0
    assert page.locator("[data-zone^=seat-] .card").count() == 0
    assert page.locator("[data-zone=draw-top]").count() == 0
    # Every face on the page is in the discard pile: public.
    zones = page.eval_on_selector_all(
        ".card[data-face]", "cards => cards.map(c => c.closest('[data-zone]')?.dataset.zone)"
    )
    assert zones and set(zones) <= {"discard", "pile"}, zones
    assert page.locator("[data-card]").count() == 0
    assert page.js_errors == []
