"""Real-time tables in the web client, without a browser: the form, the timer, the seats.

The specification's "Time limits" and "If you disconnect", PRODUCT.md rulings
17 and 18: what the page shows comes from the selectors (strikes, holds, a bot
playing a seat); the page decides nothing.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services
from games.models import Seat, Table
from tabletop import realtime
from tests.factories import start_table
from tests.web.conftest import logged_in, make_user

pytestmark = pytest.mark.django_db

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


def fields(**extra: str) -> dict[str, str]:
    return {
        "seat_count": "3",
        "flip-scoring": "single",
        "flip-target": "500",
        "flip-two_seat_reverse_skips": "on",
        **extra,
    }


def live(client: Client, table_id: int) -> str:
    return client.get(f"/tables/{table_id}/live/").content.decode()


def seat_part(html: str, number: int) -> str:
    """The part of the page about seat ``number`` (its <li class="seat">)."""
    match = re.search(rf'<li class="seat[^"]*" data-seat="{number}".*?</li>', html, re.S)
    assert match, f"no seat {number}"
    return match.group(0)


# --- the new-table form ---------------------------------------------------------------


@pytest.mark.parametrize(("timer", "seconds"), [("relaxed", 45), ("normal", 30), ("fast", 15)])
def test_the_form_opens_a_real_time_table_with_each_move_timer(timer: str, seconds: int) -> None:
    host = logged_in(make_user())
    response = host.post("/tables/new/", fields(mode="real_time", move_timer=timer))
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.move_seconds == seconds and table.realtime
    page = host.get(response["Location"]).content.decode()
    assert f"real time, {seconds} seconds a move" in page


def test_the_form_opens_a_turn_by_turn_table_and_ignores_the_move_timer() -> None:
    host = logged_in(make_user())
    response = host.post(
        "/tables/new/",
        fields(mode="turn_by_turn", turn_hours="12", timeout_policy="leave", move_timer="fast"),
    )
    assert response.status_code == 302
    table = Table.objects.get()
    assert (table.move_seconds, table.turn_hours, table.timeout_policy) == (None, 12, "leave")


def test_the_form_shows_each_mode_in_its_own_fieldset_with_the_three_timers() -> None:
    page = logged_in(make_user()).get("/").content.decode()
    assert 'name="mode" value="turn_by_turn"' in page and 'name="mode" value="real_time"' in page
    real_time = re.search(
        r'<fieldset class="mode-fields" data-mode="real_time">.*?</fieldset>', page, re.S
    )
    assert real_time is not None
    for label in ("Relaxed: 45 seconds", "Normal: 30 seconds", "Fast: 15 seconds"):
        assert label in real_time.group(0)
    assert 'name="turn_hours"' not in real_time.group(0)


@pytest.mark.parametrize(("hold", "said"), [(120, "2 minutes"), (90, "90 seconds")])
def test_the_form_states_the_strikes_and_the_hold_as_the_rules_and_settings_have_them(
    hold: int, said: str, settings: Any
) -> None:
    settings.GAMENOOK_SEAT_HOLD_SECONDS = hold
    page = logged_in(make_user()).get("/").content.decode()
    assert f"after {realtime.STRIKES_FOR_BOT}, a bot takes the seat" in page
    assert f"your seat is held for {said}." in page


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (fields(mode="real_time", move_timer="slow"), "move_timer", "Select a valid choice"),
        (fields(mode="real_time"), "move_timer", "Choose one."),
        (fields(mode="turn_by_turn", timeout_policy="bot"), "turn_hours", "Choose one."),
        (fields(mode="sometimes", move_timer="fast"), "mode", "Select a valid choice"),
    ],
)
def test_a_refused_form_shows_its_errors_and_opens_nothing(
    data: dict[str, str], field: str, message: str
) -> None:
    response = logged_in(make_user()).post("/tables/new/", data)
    assert response.status_code == 400
    assert Table.objects.count() == 0
    page = response.content.decode()
    assert message in page
    assert f'name="{field}"' in page


# --- the table page ---------------------------------------------------------------------


def test_a_real_time_page_shows_the_move_timer_as_a_ring_against_the_servers_clock() -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False):
        table = start_table(alice, bob, move_timer="fast")
        assert table.deadline_at == T0 + timedelta(seconds=15)
    with time_machine.travel(T0 + timedelta(seconds=3), tick=False):
        html = live(logged_in(alice), table.pk)
    assert f'data-now="{int((T0 + timedelta(seconds=3)).timestamp() * 1000)}"' in html
    timer = re.search(r'<div class="move-timer" role="timer".*?</div>', html, re.S)
    assert timer is not None, html
    assert f'data-deadline-ms="{int(table.deadline_at.timestamp() * 1000)}"' in timer.group(0)
    assert 'data-seconds="15"' in timer.group(0)
    # The fraction left as a data attribute, which clock.js makes the ring's --left (no
    # inline style under the Content-Security-Policy).
    assert "12 s left" in timer.group(0) and 'data-left="0.800"' in timer.group(0)
    assert "style=" not in timer.group(0)
    # No countdown in hours on a real-time page: the ring is the deadline.
    assert "data-deadline>" not in html


def test_a_turn_by_turn_page_has_no_ring_no_strikes_and_its_socket() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob)
    page = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    assert "data-move-timer" not in page and "strike" not in page
    # Pushed to over its socket as a real-time page is (issue 36, section 5).
    assert f'data-socket-url="/ws/tables/{table.pk}/"' in page and "data-deadline>" in page


def test_each_seat_shows_its_strikes_its_hold_and_a_bot_playing_it() -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    table = start_table(alice, bob, carol, move_timer="fast", allow_watchers=True)
    seats = {s.number: s for s in Seat.objects.filter(table=table)}
    until = datetime(2030, 3, 1, 12, 4, 31, tzinfo=UTC)
    Seat.objects.filter(pk=seats[0].pk).update(strikes=2, held_until=until)
    Seat.objects.filter(pk=seats[1].pk).update(strikes=1, away=True)
    watcher = logged_in(make_user())
    for client in (logged_in(alice), logged_in(bob), watcher):
        html = live(client, table.pk)
        first, second, third = (seat_part(html, n) for n in range(3))
        assert "●●○" in first and 'aria-label="2 strikes of 3"' in first
        # A countdown the page's clock.js keeps (in the player's time), from the instant.
        assert "disconnected, seat held:" in first
        assert 'datetime="2030-03-01T12:04:31+00:00" data-deadline>' in first
        assert "●○○" in second and "played by a bot until they return" in second
        assert ", played by a bot" in second  # in the seat's name for a screen reader
        assert "○○○" in third and "played by a bot" not in third


def test_a_player_struck_out_after_three_strikes_keeps_their_seats_view() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="fast")
    seat = Seat.objects.get(table=table, user=alice)
    # What three timed-out turns leave (tests/notifications/test_realtime.py plays them).
    Seat.objects.filter(pk=seat.pk).update(struck_out=True, strikes=3)
    html = live(logged_in(alice), table.pk)
    assert "You are watching" not in html and 'data-zone="hand"' in html
    mine = seat_part(html, seat.number)
    assert "played by a bot" in mine and "●●●" in mine
    theirs = seat_part(live(logged_in(bob), table.pk), seat.number)
    assert "played by a bot" in theirs and alice.username in theirs
    assert f"{alice.username} (bot)" not in theirs


def test_a_player_a_moderator_replaced_by_a_bot_sees_the_watcher_view() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="fast")
    seat = Seat.objects.get(table=table, user=alice)
    services.seat_replace_with_bot(table_id=table.pk, number=seat.number, level="normal")
    html = live(logged_in(alice), table.pk)
    assert "You are watching" in html and 'data-zone="hand"' not in html
    mine = seat_part(html, seat.number)
    assert "played by a bot" in mine and f"{alice.username} (bot)" in mine


def test_the_real_time_page_asks_for_its_socket_and_has_a_reconnecting_banner() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="normal")
    page = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    assert f'data-socket-url="/ws/tables/{table.pk}/"' in page
    assert re.search(r'<p id="live-status"[^>]*role="status"[^>]*hidden>[^<]*reconnecting', page)


def test_a_presence_change_changes_the_live_parts_etag() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="fast")
    client = logged_in(bob)
    first = client.get(f"/tables/{table.pk}/live/")
    services.presence_open(table_id=table.pk, user=alice, channel="test-channel")
    again = client.get(f"/tables/{table.pk}/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
    services.presence_close(channel="test-channel")
    held = client.get(f"/tables/{table.pk}/live/").content.decode()
    assert "disconnected, seat held:" in seat_part(held, 0)
