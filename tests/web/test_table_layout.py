"""The table page is the card table players know (issue 36, section 1), in Chromium.

At 1280x800 and at 390x844, during the player's turn and scrolled to the top:
every card of the hand, Draw, the discard pile's top with the colour in play
and whose turn it is with the time left are on the screen; on the phone the
hand and its actions are docked at the bottom and cover nothing for good. A
refused move is answered next to the hand and cleared by the next action; a
Wild's colours cover no card; the hints match the hand; Draw is one Tab from
the hand and a card drawn that must be played takes the focus; no text is
under 12 px and, on the phone, no control under 44x44 px; holds count down.
Everything is measured from bounding boxes and computed styles.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

import flip
from games import selectors, services
from games.models import Seat
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import make_user
from tests.web.test_browser import _table_with_bots, log_in, seq, wait_seq_at_least

__all__ = ["browser", "new_page", "screenshot"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, reset_sequences=True)]

DESKTOP = (1280, 800)
PHONE = (390, 844)
SIZES = {"desktop": DESKTOP, "phone": PHONE}
#: The smallest text, and on a phone the smallest control (WCAG 2.5.5's target), in CSS px.
MIN_TEXT_PX = 12
MIN_TARGET_PX = 44

#: The bounding box of the first element matching a selector, or None.
BOX = """s => { const e = document.querySelector(s); if (!e) return null;
  const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
  right: r.right, width: r.width, height: r.height}; }"""
EACH_BOX = """els => els.map(e => { const r = e.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
  height: r.height, what: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 40)}; })"""

#: Every piece of text a person can see whose computed size is under the minimum.
SMALL_TEXT = """min => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('script, style, template, .visually-hidden, .sprite')) continue;
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.right <= 0) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < min) small.push(`${text.slice(0, 30)} (${size}px, ${el.className || el.tagName})`);
  }
  return small;
}"""

#: Every visible control smaller than the minimum in either direction. A radio button or
#: a check box counts with its labels (a tap on the label sets it).
SMALL_TARGETS = """min => {
  const small = [];
  const controls = document.querySelectorAll(
    'a[href], button, summary, select, textarea, input:not([type=hidden])');
  for (const el of controls) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    let r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= 0) continue;  // off screen (skip link)
    if (el.matches('input[type=radio], input[type=checkbox]')) {
      let box = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
      for (const label of el.labels) {
        const l = label.getBoundingClientRect();
        box = {left: Math.min(box.left, l.left), top: Math.min(box.top, l.top),
               right: Math.max(box.right, l.right), bottom: Math.max(box.bottom, l.bottom)};
      }
      r = {width: box.right - box.left, height: box.bottom - box.top};
    }
    if (r.width < min - 0.5 || r.height < min - 0.5) {
      small.push(`${(el.textContent || el.name || el.type).trim().slice(0, 30)}`
        + ` ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return small;
}"""


def in_view(box: dict[str, float] | None, size: tuple[int, int]) -> bool:
    width, height = size
    return (
        box is not None
        and box["width"] > 0
        and box["top"] >= 0
        and box["left"] >= 0
        and box["bottom"] <= height + 0.5
        and box["right"] <= width + 0.5
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"] - 0.5
        and b["left"] < a["right"] - 0.5
        and a["top"] < b["bottom"] - 0.5
        and b["top"] < a["bottom"] - 0.5
    )


def _started(alice: User, *, bots: int, **options: Any) -> int:
    table_id = _table_with_bots(alice, bots=bots, allow_watchers=True, **options)
    services.table_start(table_id=table_id, user=alice)
    services.table_run_bots(table_id=table_id)
    return table_id


def _view(table_id: int, seat: int = 0) -> Any:
    return selectors.table_view(selectors.table_get(table_id), seat)


def _find_table(
    wanted: Callable[[Any], bool], *, bots: int = 1, prefix: str = "player"
) -> tuple[User, int]:
    """A real game where it is the host's turn and ``wanted(table)`` holds.

    The host plays the first legal action turn after turn (the bots theirs) until
    it does; a game that ends first is left for another deal. Each deal has a host
    of its own, so nobody collects open tables.
    """
    for attempt in range(60):
        host = make_user(f"{prefix}{attempt}")
        table_id = _started(host, bots=bots)
        for _ in range(40):
            table = selectors.table_get(table_id)
            view = _view(table_id)
            if view["over"]:
                break
            if view["to_act"] != 0:
                services.table_run_bots(table_id=table_id)
                continue
            if wanted(table):
                return host, table_id
            action = view["legal_actions"][0]
            data = {"type": action["type"]}
            if action.get("card") is not None:
                data["card"] = action["card"]
            if action.get("colors"):
                data["color"] = action["colors"][0]
            services.table_apply_action(table_id=table_id, user=host, data=data, expected_seq=None)
            services.table_run_bots(table_id=table_id)
        if not _view(table_id)["over"]:
            services.table_concede(table_id=table_id, user=host)
    raise AssertionError("no game of the kind wanted in 60 deals")


def _seat_view(wanted: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda table: wanted(_view(table.pk))


def _drawing_gives_a_card_to_play(table: Any) -> bool:
    """Seat 0 has nothing to play, and the card it would draw must be played (``play_drawn``)."""
    state = selectors.table_state(table)
    assert state is not None
    legal = flip.legal_actions(state, 0)
    if [action.type for action in legal] != [flip.DRAW]:
        return False
    after, _ = flip.apply(state, 0, legal[0])  # on a copy: the table's game is untouched
    return after.pending == flip.PENDING_DRAWN


def _open_table(new_page: Any, user: User, table_id: int, size: tuple[int, int]) -> Any:
    page = new_page(width=size[0], height=size[1])
    log_in(page, user)
    page.goto(f"/tables/{table_id}/")
    page.locator("#live .side-banner").wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    return page


@pytest.mark.parametrize(
    ("size_name", "bots", "move_timer"),
    [("desktop", 2, None), ("phone", 2, None), ("desktop", 9, "normal"), ("phone", 9, "normal")],
)
def test_during_your_turn_hand_draw_discard_colour_and_turn_with_its_time_are_on_screen(
    new_page: Any, screenshot: Any, size_name: str, bots: int, move_timer: str | None
) -> None:
    size = SIZES[size_name]
    alice = make_user("alice")
    table_id = _started(alice, bots=bots, move_timer=move_timer)
    assert _view(table_id)["to_act"] == 0, "alice opens: the first seat after the dealer"
    page = _open_table(new_page, alice, table_id, size)
    page.locator("#live .turn.my-turn").wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"table-{size_name}-{bots + 1}-seats", full_page=False)
    cards = page.eval_on_selector_all("#live [data-zone=hand] .card-button", EACH_BOX)
    assert len(cards) == 7
    needed = {
        "draw": page.evaluate(BOX, "#live [data-draw]"),
        "discard top": page.evaluate(BOX, "#live [data-zone=discard]"),
        "colour in play": page.evaluate(BOX, "#live .in-play"),
        "whose turn": page.evaluate(BOX, "#live .turn.my-turn"),
        "time left": page.evaluate(
            BOX, "#live [data-move-timer]" if move_timer else "#live .turn time[data-deadline]"
        ),
        "direction": page.evaluate(BOX, "#live .direction .ring"),
    }
    outside = [c["what"] for c in cards if not in_view(c, size)]
    outside += [name for name, box in needed.items() if not in_view(box, size)]
    assert not outside, (size, outside, cards, needed)
    left = page.locator(
        "#live [data-move-timer] .timer-text" if move_timer else "#live .turn time[data-deadline]"
    ).inner_text()
    assert re.search(r"\d+ (h|min|s)\b.* left", left), left

    # The other seats along the top, the piles in the middle, the hand at the bottom with
    # Draw beside it.
    others = page.eval_on_selector_all(
        "#live li.seat:not(.me)", "els => els.map(e => e.getBoundingClientRect().bottom)"
    )
    assert len(others) == bots
    hand = page.evaluate(BOX, "#live [data-zone=hand]")
    assert max(others) <= needed["discard top"]["top"], (others, needed["discard top"])
    assert needed["discard top"]["bottom"] <= hand["top"], (needed["discard top"], hand)
    section = page.evaluate(BOX, "#live .my-hand")
    draw = needed["draw"]
    assert section["top"] <= draw["top"] and draw["bottom"] <= section["bottom"] + 0.5
    assert draw["top"] < hand["bottom"] + 60, (draw, hand)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

    if size is PHONE:
        # Docked at the bottom: fixed (or sticky), at the screen's bottom edge, and the
        # facts above it are not under it.
        position = page.eval_on_selector("#live .my-hand", "e => getComputedStyle(e).position")
        assert position in ("fixed", "sticky"), position
        assert abs(section["bottom"] - size[1]) <= 1, section
        for name in ("discard top", "colour in play", "whose turn", "time left"):
            assert needed[name]["bottom"] <= section["top"], (name, needed[name], section)
        # Scrolled to the end, the page's last line is above the dock, and reachable.
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        last = page.evaluate(BOX, "#live .table-side > :last-child")
        dock = page.evaluate(BOX, "#live .my-hand")
        assert last["bottom"] <= dock["top"] + 0.5, (last, dock)
        hit = page.evaluate(
            "() => { const e = document.querySelector('#live .table-side > :last-child');"
            " const r = e.getBoundingClientRect();"
            " const x = r.left + r.width / 2, y = r.top + r.height / 2;"
            " return e.contains(document.elementFromPoint(x, y)); }"
        )
        assert hit, "the page's last line is under the dock"
        # Still docked after scrolling.
        assert abs(page.evaluate(BOX, "#live .my-hand")["bottom"] - size[1]) <= 1
    assert page.js_errors == []


def _playable_wild(view: Any) -> bool:
    return any(a["type"] == "play" and a.get("colors") for a in view["legal_actions"])


def _nothing_playable(view: Any) -> bool:
    return not any(card["playable"] for card in view["hand"]) and any(
        a["type"] == "draw" for a in view["legal_actions"]
    )


@pytest.mark.parametrize("size_name", ["desktop", "phone"])
def test_a_refused_move_is_answered_next_to_the_hand_and_cleared_by_the_next_action(
    new_page: Any, screenshot: Any, size_name: str
) -> None:
    size = SIZES[size_name]
    alice, table_id = _find_table(
        _seat_view(
            lambda v: (
                any(not c["playable"] for c in v["hand"])
                and any(c["playable"] and not _playable_wild(v) for c in v["hand"])
            )
        )
    )
    page = _open_table(new_page, alice, table_id, size)
    page.locator("#live .turn.my-turn").wait_for()
    before = seq(page)
    refused = page.locator("#live button.card-button:not(.playable)").first
    handle = refused.get_attribute("data-card")
    sentence = (page.locator(f"#why-{handle}").text_content() or "").strip()
    refused.click()
    notice = page.locator("#live [data-notice]")
    page.wait_for_function(
        "() => document.querySelector('#live [data-notice]').textContent.trim() !== ''"
    )
    assert notice.inner_text().strip() == sentence
    assert seq(page) == before
    # Heard at once (an assertive live region), inside the hand's section, beside the cards,
    # and on the screen.
    live = notice.evaluate("e => e.getAttribute('aria-live') || e.getAttribute('role')")
    assert live in ("assertive", "alert", "polite"), live
    assert notice.evaluate("e => !!e.closest('.my-hand')")
    box = page.evaluate(BOX, "#live [data-notice]")
    hand = page.evaluate(BOX, "#live [data-zone=hand]")
    assert in_view(box, size), box
    assert hand["top"] - box["bottom"] < 120, (box, hand)
    screenshot(page, f"table-{size_name}-refused", full_page=False)
    # The next action clears it.
    page.locator("#live button.card-button.playable").first.click()
    wait_seq_at_least(page, before + 1)
    assert page.locator("#live [data-notice]").inner_text().strip() == ""
    assert page.js_errors == []


@pytest.mark.parametrize("size_name", ["desktop", "phone"])
def test_a_wilds_colour_picker_covers_no_card_and_shows_its_colours_whole(
    new_page: Any, screenshot: Any, size_name: str
) -> None:
    size = SIZES[size_name]
    alice, table_id = _find_table(_seat_view(_playable_wild))
    page = _open_table(new_page, alice, table_id, size)
    before = seq(page)
    page.locator("#live summary.card-button.playable").first.click()
    picker = page.locator("#live details.wild-pick[open] .picker")
    picker.wait_for()
    box = picker.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width}; }"
    )
    screenshot(page, f"table-{size_name}-wild", full_page=False)
    cards = page.eval_on_selector_all(
        "#live .card", "els => (" + EACH_BOX + ")(els.filter(e => e.checkVisibility()))"
    )
    assert len(cards) >= 3  # the hand, the discard pile's top, the draw pile's
    covered = [c["what"] for c in cards if overlap(box, c)]
    assert not covered, (box, covered)
    assert in_view(box, size), box
    # Every colour button shows its whole name (nothing cut), and is big enough to tap.
    buttons = picker.locator("button").evaluate_all(
        "els => els.map(e => [e.textContent.trim(), e.scrollWidth <= e.clientWidth + 1,"
        " e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
    )
    assert len(buttons) == 4
    for name, whole, width, height in buttons:
        assert whole, (name, width)
        if size is PHONE:
            assert width >= MIN_TARGET_PX and height >= MIN_TARGET_PX, (name, width, height)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    picker.locator("button").first.click()
    wait_seq_at_least(page, before + 1)
    assert page.js_errors == []


def test_the_hints_say_draw_when_nothing_is_playable(new_page: Any) -> None:
    alice, table_id = _find_table(_seat_view(_nothing_playable))
    page = _open_table(new_page, alice, table_id, DESKTOP)
    assert page.locator("#live .card-button.playable").count() == 0
    hints = page.locator("#live .my-hand .hint").all_inner_texts()
    said = " ".join(hints)
    assert "marked playable" not in said, hints
    assert "The other cards" not in said, hints
    assert "draw" in said.lower(), hints
    # With a playable card, the hint says so, and one is marked.
    bob, other = _find_table(
        _seat_view(lambda v: any(c["playable"] for c in v["hand"])), prefix="other"
    )
    page = _open_table(new_page, bob, other, DESKTOP)
    assert page.locator("#live .card-button.playable").count() > 0
    assert "marked playable" in page.locator("#live #hand-hint").inner_text()


def test_draw_is_one_tab_from_the_hand_and_a_card_drawn_to_play_takes_the_focus(
    new_page: Any,
) -> None:
    alice, table_id = _find_table(_drawing_gives_a_card_to_play)
    page = _open_table(new_page, alice, table_id, DESKTOP)
    page.locator("#live .turn.my-turn").wait_for()
    # The page lists its shortcuts.
    shortcuts = page.locator("#live details.shortcuts")
    shortcuts.locator("summary").click()
    assert shortcuts.locator("dt").count() >= 4
    assert "Draw" in shortcuts.inner_text()
    shortcuts.locator("summary").click()
    # From the hand's first card and from its last, Draw is at most two Tabs away.
    cards = page.locator("#live [data-zone=hand] .card-button")
    for index in (0, cards.count() - 1):
        cards.nth(index).focus()
        presses = 0
        while not page.evaluate("() => document.activeElement.matches('[data-draw]')"):
            page.keyboard.press("Tab")
            presses += 1
            assert presses <= 2, f"Draw is more than two Tabs from card {index}"
    before = seq(page)
    page.keyboard.press("Enter")
    wait_seq_at_least(page, before + 1)
    view = _view(table_id)
    assert view["pending"] == {"type": "play_drawn", "seat": 0}, view["pending"]
    drawn = next(c["card"] for c in view["hand"] if c["playable"])
    page.wait_for_function(
        "card => document.activeElement?.dataset.card === card", arg=drawn, timeout=3000
    )
    # And it is played with Enter.
    page.keyboard.press("Enter")
    wait_seq_at_least(page, before + 2)
    assert page.js_errors == []


#: A classic Wild Cards table with every house rule on (``_started``'s options).
CLASSIC = {
    "game": "wildcards",
    "options": {"stacking": True, "seven_zero": True, "jump_in": True, "draw_until_playable": True},
}


def _finished(host: User, *, bots: int = 2, **options: Any) -> int:
    """A game played to its end: the host concedes at once and the bots play it out."""
    table_id = _started(host, bots=bots, **options)
    services.table_concede(table_id=table_id, user=host)
    services.table_run_bots(table_id=table_id)
    assert selectors.table_get(table_id).status == "finished"
    return table_id


def _lobby_with_everything(alice: User) -> None:
    """A lobby with a table in each of its lists."""
    _started(alice, bots=1)  # alice's turn
    bob = make_user("bob")
    _table_with_bots(alice, bots=1)  # waiting to start
    services.table_create(host=bob, seat_count=3, allow_watchers=True)  # open to join
    _finished(alice)


def _pages(alice: User) -> dict[str, str]:
    """The pages of section 1's checks: lobby, table lobby, play, watch, end, replay."""
    _lobby_with_everything(alice)
    carol = make_user("carol")
    lobby_table = services.table_create(host=carol, seat_count=4).pk
    services.table_add_bot(table_id=lobby_table, user=carol, level="easy")
    services.table_join(table_id=lobby_table, user=alice)
    playing = _started(alice, bots=3)
    watched = _started(carol, bots=2)
    finished = _finished(alice)
    classic = _started(alice, bots=3, **CLASSIC)
    classic_watched = _started(carol, bots=2, **CLASSIC)
    classic_finished = _finished(alice, **CLASSIC)
    return {
        "lobby": "/",
        "table-lobby": f"/tables/{lobby_table}/",
        "table-play": f"/tables/{playing}/",
        "table-watch": f"/tables/{watched}/",
        "table-end": f"/tables/{finished}/",
        "replay": f"/tables/{finished}/replay/?step=3",
        "classic-play": f"/tables/{classic}/",
        "classic-watch": f"/tables/{classic_watched}/",
        "classic-end": f"/tables/{classic_finished}/",
        "classic-replay": f"/tables/{classic_finished}/replay/?step=3",
        "rules-flip": "/rules/flip/",
        "rules-wildcards": "/rules/wildcards/",
        "account": "/account/",
    }


def _open_everything(page: Any) -> None:
    """Open every disclosure (other seats' faces, the whole pile, the shortcuts)."""
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")


@pytest.mark.parametrize("size_name", ["desktop", "phone"])
def test_no_text_under_12_px_and_on_a_phone_no_control_under_44_px(
    new_page: Any, screenshot: Any, size_name: str
) -> None:
    size = SIZES[size_name]
    alice = make_user("alice")
    pages = _pages(alice)
    page = new_page(width=size[0], height=size[1])
    log_in(page, alice)
    small_text: dict[str, list[str]] = {}
    small_targets: dict[str, list[str]] = {}
    for name, url in pages.items():
        page.goto(url)
        page.locator("main h1").wait_for()
        if name == "lobby" and size is PHONE:
            screenshot(page, "lobby-phone")
        if size is PHONE:  # the controls as they first show, then with everything open
            small_targets[name] = page.evaluate(SMALL_TARGETS, MIN_TARGET_PX)
        _open_everything(page)
        small_text[name] = page.evaluate(SMALL_TEXT, MIN_TEXT_PX)
        if size is PHONE:
            small_targets[name] += page.evaluate(SMALL_TARGETS, MIN_TARGET_PX)
    assert not any(small_text.values()), small_text
    assert not any(small_targets.values()), small_targets
    assert page.js_errors == []


@pytest.mark.parametrize("size_name", ["desktop", "phone"])
def test_a_hold_counts_down_and_strike_marks_say_what_they_are(
    new_page: Any, screenshot: Any, size_name: str
) -> None:
    size = SIZES[size_name]
    alice, bob = make_user("alice"), make_user("bob")
    table_id = _table_with_bots(alice, bob, bots=1, move_timer="relaxed")
    services.table_start(table_id=table_id, user=alice)
    seats = list(Seat.objects.filter(table_id=table_id).order_by("number"))
    until = timezone.now() + timedelta(seconds=100)
    Seat.objects.filter(pk=seats[1].pk).update(strikes=1, held_until=until)
    page = _open_table(new_page, alice, table_id, size)
    held = page.locator('#live li.seat[data-seat="1"] [data-rt=held]')
    text = held.inner_text()
    # A countdown (clock.js, against the server's clock), never the server's wall time.
    assert re.search(r"\b\d+ (min \d+ s|s) left", text), text
    assert until.strftime("%H:%M") not in text, text
    strikes = page.locator('#live li.seat[data-seat="1"] .strikes')
    assert strikes.is_visible()
    assert "1 of 3 strikes" in strikes.inner_text(), strikes.inner_text()
    assert page.js_errors == []


def _axe(page: Any) -> list[str]:
    """axe-core run inside the page: its serious and critical violations, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE)
    result = page.evaluate(
        "() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map("
        "v => [v.id, v.impact, v.help, v.nodes.slice(0, 3).map(n => n.target.join(' '))]))"
    )
    return [
        f"{vid} ({impact}): {text} at {nodes}"
        for vid, impact, text, nodes in result
        if impact in ("serious", "critical")
    ]


AXE_SOURCE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("size_name", ["desktop", "phone"])
def test_axe_finds_no_serious_or_critical_violation_on_the_pages_of_the_game(
    new_page: Any, size_name: str
) -> None:
    size = SIZES[size_name]
    alice = make_user("alice")
    pages = _pages(alice)
    page = new_page(width=size[0], height=size[1])
    log_in(page, alice)
    found: dict[str, list[str]] = {}
    for name, url in pages.items():
        page.goto(url)
        page.locator("main h1").wait_for()
        found[name] = _axe(page)
        _open_everything(page)
        found[name] += _axe(page)
    assert not any(found.values()), found
    assert page.js_errors == []


@pytest.mark.parametrize("url", ["/account/", "/signup/", "/login/"])
def test_axe_finds_no_serious_or_critical_violation_on_the_account_pages(
    new_page: Any, url: str
) -> None:
    alice = make_user("alice")
    page = new_page(width=DESKTOP[0], height=DESKTOP[1])
    if url == "/account/":
        log_in(page, alice)
    page.goto(url)
    page.locator("main h1").wait_for()
    assert _axe(page) == []
