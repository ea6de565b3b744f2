"""Classic Wild Cards in a real headless Chromium: a whole game with every house rule
on against bots, turn by turn, by clicking; and a real-time classic table on a site
with WebSockets and a Celery worker, for a bounded number of moves.

The player opens the table from the lobby's form (the game, then its house rules,
each with its sentence), and plays with the page's own controls: a Wild's colour, a
7's target by name, "Take N cards", "Jump in" when her hand offers one, "Draw until
you can play". Deals are known (``tests.factories.known_deals``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.models import Move, Table
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import make_user
from tests.web.site import site, site_page
from tests.web.test_browser import game_over, log_in, my_turn, seq, wait_seq_at_least

__all__ = ["browser", "new_page", "screenshot", "site", "site_page"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

HOUSE_RULES = ("Stack draw cards", "7-0 swap", "Jump-in", "Draw until playable")


def open_classic_table(
    page: Any,
    *,
    seats: int,
    real_time: bool = False,
    target: int | None = None,
    shot: Any = None,
) -> None:
    """From the lobby: Wild Cards, every house rule, ``seats`` seats (rounds to
    ``target`` when given); then the table's lobby."""
    page.get_by_label("Wild Cards", exact=True).check()
    # The Flip options are hidden and not sent; the classic ones show with their sentences.
    assert page.get_by_label("Two-player Reverse skips").is_hidden()
    for rule in HOUSE_RULES:
        box = page.get_by_label(rule, exact=True)
        assert box.is_visible()
        assert box.get_attribute("aria-describedby")
        box.check()
    assert page.get_by_text("Anyone holding a card identical to the top card").is_visible()
    page.get_by_label("Seats").select_option(str(seats))
    if target is not None:
        page.locator('select[name="wildcards-scoring"]').select_option("target")
        page.locator('input[name="wildcards-target"]').fill(str(target))
    if real_time:
        page.get_by_label("Real time").check()
        page.get_by_label("Move timer").select_option("relaxed")
    if shot is not None:
        shot(page, "classic-new-table")
    page.get_by_role("button", name="Open the table").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    page.get_by_text(
        "house rules: Stack draw cards, 7-0 swap, Jump-in, Draw until playable"
    ).wait_for()


def add_bots_and_start(page: Any, bots: int) -> None:
    for _ in range(bots):
        page.get_by_label("Bot level").select_option("easy")
        page.get_by_role("button", name="Add a bot").click()
        page.wait_for_timeout(150)
    page.get_by_role("button", name="Start the game").click()
    page.locator("#live .game-banner").wait_for()


def click_a_classic_move(page: Any) -> str | None:
    """One move by clicking, as a person would; what was done (None: nothing to do now)."""
    before = seq(page)
    live = page.locator("#live")
    jump = live.locator("button.card-button.jump-in")
    if not my_turn(page):
        if jump.count():
            jump.first.click()
            page.wait_for_function(
                "n => Number(document.querySelector('#live .live').dataset.seq) > n"
                " || document.querySelector('[data-notice]')?.textContent",
                arg=before,
                timeout=10_000,
            )
            return "jumped in"
        return None
    target = live.locator("details.target-pick > summary.card-button.playable")
    wild = live.locator("details.wild-pick:not(.target-pick) > summary.card-button.playable")
    card = live.locator("button.card-button.playable")
    take = live.locator("[data-take-penalty]")
    if live.locator("input[value=choose_color]").count():
        live.locator("form.choose-picker button").first.click()
        done = "chose a colour"
    elif take.count() and (card.count() + wild.count() == 0 or seq(page) % 2):
        take.click()
        done = "took the penalty"
    elif target.count():
        target.first.click()
        live.locator("details.target-pick[open] .picker button.target").first.click()
        done = "played a 7 and chose whom to swap with"
    elif wild.count():
        wild.first.click()
        live.locator("details.wild-pick[open] .picker button").first.click()
        done = "played a Wild and chose its colour"
    elif card.count():
        card.first.click()
        done = "played a card"
    elif live.locator("[data-pass]").count():
        live.locator("[data-pass]").click()
        done = "passed"
    else:
        live.locator("[data-draw]").click()
        done = "drew"
    wait_seq_at_least(page, before + 1)
    return done


def test_a_whole_classic_game_with_every_house_rule_against_bots_turn_by_turn(
    new_page: Any, screenshot: Any
) -> None:
    """Alice and bob with two bots: each plays on their turn, and jumps in out of turn
    whenever their hand offers it (the window stays open while the other person thinks)."""
    alice_user, bob_user = make_user("alice"), make_user("bob")
    alice, bob = new_page(), new_page()
    log_in(alice, alice_user)
    log_in(bob, bob_user)
    # Rounds to a low target: a deal or two, so every house rule comes to a hand.
    open_classic_table(alice, seats=4, target=150, shot=screenshot)
    bob.goto("/")
    bob.locator(f'[data-join="{Table.objects.get().pk}"]').click()
    bob.get_by_text("2 of 4 seats taken").wait_for()
    alice.get_by_text("2 of 4 seats taken").wait_for()
    add_bots_and_start(alice, bots=2)
    bob.locator("#live .game-banner").wait_for()
    table = Table.objects.get()
    assert table.game == "wildcards" and table.options["jump_in"] is True
    for page in (alice, bob):
        page.evaluate("window.__noReload = true")
    screenshot(alice, "classic-table")
    # Every face says its colour and its name (and shows its symbol): never colour alone.
    names = alice.locator("#live [data-zone=hand] [data-card]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert len(names) == 7 and all(n and n[0].isupper() for n in names), names
    hand = alice.locator("#live [data-zone=hand]")
    assert hand.locator(".card .sym, .card .wheel").count() == 7

    done: list[str] = []
    shots: set[str] = set()
    for _ in range(3000):
        if game_over(alice) and game_over(bob):
            break
        for page in (alice, bob):
            for marker, name in (
                ("#live details.target-pick", "classic-seven"),
                ("#live [data-take-penalty]", "classic-penalty"),
                ("#live button.card-button.jump-in", "classic-jump-in"),
            ):
                if name not in shots and page.locator(marker).count():
                    screenshot(page, name, full_page=False)
                    shots.add(name)
        moved = False
        # Out of turn first: a jump-in is played before the player to act moves.
        for page in (alice, bob):
            if not my_turn(page) and page.locator("#live button.card-button.jump-in").count():
                move = click_a_classic_move(page)
                if move:
                    done.append(move)
                    moved = True
        for page in (alice, bob):
            if my_turn(page):
                move = click_a_classic_move(page)
                if move:
                    done.append(move)
                    moved = True
                break
        if not moved:
            alice.wait_for_timeout(100)
    assert game_over(alice) and game_over(bob), "the game did not end"
    for page in (alice, bob):
        assert page.evaluate("window.__noReload") is True, "the page reloaded"
        assert page.js_errors == []
    alice.get_by_role("heading", name="Final ranking").wait_for()
    screenshot(alice, "classic-end")
    events = Counter(
        event["type"] + ("-jump_in" if event.get("jump_in") else "")
        for payload in Move.objects.filter(table=table).values_list("payload", flat=True)
        for event in payload["events"]
    )
    print("people:", Counter(done), "events:", events)  # noqa: T201 (what the game held)
    for kind in ("swap", "rotate", "penalty", "play-jump_in"):
        assert events[kind], (kind, events)
    for move in ("played a 7 and chose whom to swap with", "took the penalty", "jumped in"):
        assert move in done, (move, Counter(done))
    alice.get_by_role("link", name="Watch the replay").click()
    alice.get_by_text("Step 0 of").wait_for()
    alice.get_by_role("link", name="Last").click()
    alice.get_by_role("heading", name="Final ranking").wait_for()
    assert alice.js_errors == []
    alice.goto("/rules/wildcards/")
    for rule in HOUSE_RULES:
        assert alice.get_by_text(rule, exact=True).count() >= 1
    screenshot(alice, "classic-rules")


#: Moves alice makes at the real-time table before the test stops (bots make theirs).
REALTIME_MOVES = 12


def test_a_real_time_classic_table_with_every_house_rule_plays_over_its_socket(
    site: Any, site_page: Any, screenshot: Any
) -> None:
    alice_user = make_user("alice")
    alice = site_page()
    log_in(alice, alice_user)
    open_classic_table(alice, seats=3, real_time=True)
    add_bots_and_start(alice, bots=2)
    alice.locator("#live [data-move-timer]").wait_for(timeout=30_000)
    made = 0
    for _ in range(3000):
        if game_over(alice) or made >= REALTIME_MOVES:
            break
        move = click_a_classic_move(alice)
        if move is None:
            alice.wait_for_timeout(150)
            continue
        made += 1
        site.check()
    assert made >= REALTIME_MOVES or game_over(alice), made
    table = Table.objects.get()
    assert table.game == "wildcards" and table.move_seconds is not None
    # The bots' moves reached the page over its socket: more moves than alice's own.
    assert seq(alice) > made
    screenshot(alice, "classic-realtime", full_page=False)
    assert alice.js_errors == []
