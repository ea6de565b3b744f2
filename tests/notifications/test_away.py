"""Ruling 19: "your turn" is mailed to a player who is away, once, naming all their tables.

Issue 36 §4: one four-seat game against bots sent a player 74 "your turn"
e-mails in 3.5 minutes while she played on the page. Here a player at the
table (its page polling, a socket open, or moving) gets none; one away gets
one message after the quiet delay (``GAMENOOK_YOUR_TURN_QUIET_SECONDS``, ten
minutes), listing every table where it is her turn, the least time left
first; a turn she moves on first is not mailed; the halfway reminder follows
the same rule of presence.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games import services as games
from games.models import Move, Seat, Table
from notifications import models as mail_models
from notifications import services
from notifications.models import OutboxMessage, Reminder

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table
from .test_exactly_once import in_threads, needs_postgres

T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)
YOUR_TURN = OutboxMessage.Kind.YOUR_TURN

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # The page's record is rate-limited through the cache, which outlives a test.
    cache.clear()
    yield
    cache.clear()


def sweep(jobs: Jobs) -> None:
    """One tick of the periodic sweep, its jobs run here, then the mail they queued."""
    services.sweep(run=services.run_inline)
    jobs.drain()


def her_turn(table: Table, user: User, jobs: Jobs) -> None:
    """Let the bots (and the follow-ups) play until it is ``user``'s turn."""
    for _ in range(50):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE or seat_to_act(table).user == user:
            return
    raise AssertionError("the bots never gave the turn back")


def your_turn_mail(user: User) -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(user=user, kind=YOUR_TURN).order_by("pk"))


def poll_page(client: Client, table: Table) -> None:
    """The table page's poll of its live part (``web.views.table_live``)."""
    assert client.get(f"/tables/{table.pk}/live/").status_code == 200


def test_a_player_who_plays_a_whole_game_with_the_page_open_gets_no_your_turn_mail(
    jobs: Jobs,
) -> None:
    alice = make_user()
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)  # a session of 2030
        table = started_table(alice, bots=3, turn_hours=24)
        turns = 0
        while True:
            her_turn(table, alice, jobs)
            if table.status != Table.Status.ACTIVE:
                break
            # She looks at the table and thinks three minutes, the sweep running meanwhile.
            poll_page(page, table)
            for _ in range(3):
                clock.shift(timedelta(minutes=1))
                sweep(jobs)
            play_turn(table)
            turns += 1
            assert turns < 500
        # Long after the game: whatever was waiting is decided.
        clock.shift(timedelta(hours=1))
        sweep(jobs)
    assert turns > 3  # a game of several turns of hers, over more than the quiet delay
    assert your_turn_mail(alice) == []
    # "Game over" came, unless her own move ended the game: then its answer showed her
    # the end (issue 38: one message per table and turn, ruling 19's presence).
    last = Move.objects.filter(table=table).order_by("-seq").first()
    assert last is not None
    hers = Seat.objects.get(table=table, user=alice).number
    ended_it = last.seat == hers and last.source == Move.Source.PLAYER
    over = OutboxMessage.objects.filter(user=alice, kind=OutboxMessage.Kind.GAME_OVER)
    assert over.exists() is not ended_it
    assert not mail_models.TurnNotice.objects.filter(user=alice, due_at__isnull=False).exists()


def test_a_player_away_gets_one_message_naming_every_table_the_least_time_left_first(
    jobs: Jobs,
) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        slow = started_table(alice, bots=1, turn_hours=72)
        her_turn(slow, alice, jobs)
        clock.shift(timedelta(minutes=1))
        fast = started_table(alice, bots=1, turn_hours=12)
        her_turn(fast, alice, jobs)
        clock.shift(timedelta(minutes=1))
        middle = started_table(alice, bots=1, turn_hours=24)
        her_turn(middle, alice, jobs)
        assert all(seat_to_act(t).user == alice for t in (slow, fast, middle))
        clock.shift(timedelta(minutes=7))  # nine minutes after her first turn began
        sweep(jobs)
        assert your_turn_mail(alice) == []
        assert mail_models.TurnNotice.objects.filter(user=alice).count() == 1  # one, not three
        clock.shift(timedelta(minutes=3))
        sweep(jobs)
        (message,) = your_turn_mail(alice)
        # Nothing new happened: later sweeps send nothing more.
        clock.shift(timedelta(hours=1))
        sweep(jobs)
    assert your_turn_mail(alice) == [message]
    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.SENT
    assert message.subject == "Your turn at 3 tables"
    places = [message.text.index(f"- Table {t.pk}: ") for t in (fast, middle, slow)]
    assert places == sorted(places)  # 12, 24 then 72 hours left: the most urgent first
    assert "11 hours 49 minutes left" in message.text  # fast: 12 h from 09:01, read at 09:12
    for t in (fast, middle, slow):
        assert f"http://127.0.0.1:8000/tables/{t.pk}/" in message.text
        assert f"http://127.0.0.1:8000/tables/{t.pk}/" in message.html
    assert "http://127.0.0.1:8000/account/" in message.text


def test_a_turn_she_moves_on_first_is_not_mailed(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=24)
        jobs.drain()
        first = seat_to_act(table).user
        assert first is not None
        other = bob if first == alice else alice
        clock.shift(timedelta(minutes=5))
        while seat_to_act(table).user == first:  # a two-seat Skip gives another turn
            play_turn(table)
        jobs.drain()
        clock.shift(timedelta(minutes=6))  # the first notice is due: her turn is over
        sweep(jobs)
        assert your_turn_mail(first) == []
        assert mail_models.TurnNotice.objects.get(user=first).due_at is None  # dropped
        assert your_turn_mail(other) == []  # his turn began five minutes ago
        clock.shift(timedelta(minutes=5))
        sweep(jobs)
    assert your_turn_mail(first) == []
    (message,) = your_turn_mail(other)
    assert message.subject == f"Your turn at table {table.pk}"


def test_a_page_polled_within_the_delay_puts_the_message_off(jobs: Jobs) -> None:
    alice = make_user()
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)  # a session of 2030
        table = started_table(alice, bots=1, turn_hours=24)
        her_turn(table, alice, jobs)
        assert your_turn_mail(alice) == []  # not at once
        clock.shift(timedelta(minutes=8))
        poll_page(page, table)  # she looks, and goes away without moving
        poll_page(page, table)  # a second poll within the minute writes nothing
        assert mail_models.TableSeen.objects.filter(user=alice, table=table).count() == 1
        clock.shift(timedelta(minutes=4))
        sweep(jobs)
        assert your_turn_mail(alice) == []
        clock.shift(timedelta(minutes=8))  # eleven minutes after the poll (a minute's grace)
        sweep(jobs)
    (message,) = your_turn_mail(alice)
    assert message.subject == f"Your turn at table {table.pk}"


def test_a_socket_open_at_the_table_or_closed_within_the_delay_puts_the_message_off(
    jobs: Jobs,
) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=24)
        her_turn(table, alice, jobs)
        clock.shift(timedelta(minutes=3))
        games.presence_open(table_id=table.pk, user=alice, channel="away-test-socket")
        clock.shift(timedelta(minutes=30))  # the socket stays open, she does not move
        sweep(jobs)
        assert your_turn_mail(alice) == []
        games.presence_close(channel="away-test-socket")
        clock.shift(timedelta(minutes=9))
        sweep(jobs)
        assert your_turn_mail(alice) == []
        clock.shift(timedelta(minutes=2))
        sweep(jobs)
    assert len(your_turn_mail(alice)) == 1


def test_reading_the_api_view_does_not_count_as_having_the_table_open(jobs: Jobs) -> None:
    """A script or a background refresh reads the view with nobody looking (docs)."""
    alice = make_user()
    api = APIClient()
    api.force_authenticate(alice)
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=24)
        her_turn(table, alice, jobs)
        assert your_turn_mail(alice) == []  # not at once
        clock.shift(timedelta(minutes=8))
        assert api.get(f"/api/v1/tables/{table.pk}/view/").status_code == 200
        clock.shift(timedelta(minutes=3))
        sweep(jobs)
    assert len(your_turn_mail(alice)) == 1


def test_the_halfway_reminder_is_mailed_only_to_a_player_away_from_the_table(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)  # a session of 2030
        looked_at = started_table(alice, bots=1, turn_hours=12)
        her_turn(looked_at, alice, jobs)
        left_alone = started_table(bob, bots=1, turn_hours=12)
        her_turn(left_alone, bob, jobs)
        clock.shift(timedelta(hours=5, minutes=55))
        poll_page(page, looked_at)
        clock.shift(timedelta(minutes=6))  # past both halfway instants
        sweep(jobs)
    # Both reminders were handled; only the player away from the table was mailed.
    assert Reminder.objects.filter(table__in=[looked_at, left_alone]).count() == 2
    reminded = OutboxMessage.objects.filter(kind=OutboxMessage.Kind.REMINDER)
    assert [m.user for m in reminded] == [bob]
    # One message per table and turn (issue 38): the reminder was his turn's message, so
    # the "your turn" notice decided in the same sweep had nothing new to tell him.
    assert your_turn_mail(bob) == []


def test_no_reminder_for_a_turn_a_your_turn_message_named(jobs: Jobs) -> None:
    """Issue 38: "your turn", the reminder and the last call of a turn are one message."""
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=12)
        her_turn(table, alice, jobs)
        clock.shift(timedelta(minutes=11))
        sweep(jobs)
        assert len(your_turn_mail(alice)) == 1
        clock.shift(timedelta(hours=6))  # past the halfway instant, still away
        sweep(jobs)
    assert Reminder.objects.filter(table=table, turn=table.turn).exists()  # handled
    assert not OutboxMessage.objects.filter(kind=OutboxMessage.Kind.REMINDER).exists()


def test_a_your_turn_nobody_was_told_of_leaves_the_reminder_to_tell(jobs: Jobs) -> None:
    """A player who turned "your turn" off still gets the halfway reminder."""
    alice = make_user()
    services.preferences_update(alice, your_turn=False)
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=12)
        her_turn(table, alice, jobs)
        clock.shift(timedelta(minutes=11))
        sweep(jobs)
        clock.shift(timedelta(hours=6))
        sweep(jobs)
    assert your_turn_mail(alice) == []
    (reminder,) = OutboxMessage.objects.filter(user=alice, kind=OutboxMessage.Kind.REMINDER)
    assert reminder.table_id == table.pk


def test_a_new_turn_after_the_message_makes_a_new_one_naming_both_tables(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        first = started_table(alice, bots=1, turn_hours=24)
        her_turn(first, alice, jobs)
        clock.shift(timedelta(minutes=11))
        sweep(jobs)
        assert len(your_turn_mail(alice)) == 1
        second = started_table(alice, bots=1, turn_hours=12)
        her_turn(second, alice, jobs)
        clock.shift(timedelta(minutes=11))
        sweep(jobs)
    older, newer = your_turn_mail(alice)
    assert newer.subject == "Your turn at 2 tables"
    assert newer.text.index(f"- Table {second.pk}: ") < newer.text.index(f"- Table {first.pk}: ")


@needs_postgres
def test_two_deciders_at_once_write_one_message(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=24)
        her_turn(table, alice, jobs)
        clock.shift(timedelta(minutes=11))
        results = in_threads(
            lambda: services.turn_notice_decide(user_id=alice.pk),
            lambda: services.turn_notice_decide(user_id=alice.pk),
        )
        # A job delivered again later finds it decided.
        assert services.turn_notice_decide(user_id=alice.pk) is False
    assert sorted(results) == [False, True]
    assert len(your_turn_mail(alice)) == 1


@pytest.mark.parametrize(("policy", "mails"), [("bot", 0), ("leave", 1)])
def test_one_message_per_turn_a_timeout_after_the_turn_was_told_is_not_a_second_one(
    jobs: Jobs, policy: str, mails: int
) -> None:
    """Issue 38: she was told of the turn, so the table's plain move for her at the deadline
    is in the move list (ruling 21), not in a second message; a timeout that makes her leave
    the game is news of its own and is mailed."""
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=2, turn_hours=12, timeout_policy=policy)
        her_turn(table, alice, jobs)
        turn = Table.objects.get(pk=table.pk).turn
        clock.shift(timedelta(minutes=11))
        sweep(jobs)
        (told,) = your_turn_mail(alice)
        assert told.turn == turn
        clock.shift(timedelta(hours=12))
        sweep(jobs)
    assert Table.objects.get(pk=table.pk).turn != turn  # the timeout was applied
    timeouts = OutboxMessage.objects.filter(user=alice, kind=OutboxMessage.Kind.TIMEOUT)
    assert timeouts.count() == mails
